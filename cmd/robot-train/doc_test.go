package main

import (
	"go/parser"
	"go/token"
	"regexp"
	"testing"
)

// Every subcommand of the command table has a synopsis line in doc.go
// ("robot-train NAME …"), so the package doc cannot fall behind the CLI.
func TestDocListsEveryCommand(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.PackageClauseOnly|parser.ParseComments)
	if err != nil || f.Doc == nil {
		t.Fatalf("doc.go: %v (no package comment?)", err)
	}
	doc := f.Doc.Text()
	for _, c := range commands() {
		if !regexp.MustCompile(`(?m)^\s*robot-train ` + regexp.QuoteMeta(c.name) + `\b`).MatchString(doc) {
			t.Errorf("doc.go has no `robot-train %s …` line; add the command's synopsis", c.name)
		}
	}
}
