package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/vlmrb/vlmrb/vlmprio"
)

// scoreTally counts what `score` did, failures by kind.
type scoreTally struct {
	scored, failed int
	byKind         map[vlmprio.ErrorKind]int
	first          map[vlmprio.ErrorKind]string
}

func (t *scoreTally) add(err error) {
	if err == nil {
		t.scored++
		return
	}
	t.failed++
	if t.byKind == nil {
		t.byKind, t.first = map[vlmprio.ErrorKind]int{}, map[vlmprio.ErrorKind]string{}
	}
	k := vlmprio.KindOf(err)
	if t.byKind[k] == 0 {
		t.first[k] = err.Error()
	}
	t.byKind[k]++
}

func (t *scoreTally) kinds() string {
	ks := make([]string, 0, len(t.byKind))
	for k, n := range t.byKind {
		ks = append(ks, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}

// result prints the failure summary and fails the command when clips
// were tried and none was scored.
func (t *scoreTally) result(stderr io.Writer) error {
	if t.failed == 0 {
		return nil
	}
	_, _ = fmt.Fprintf(stderr, "score: %d of %d clips scored, %d failed (%s)\n", t.scored, t.scored+t.failed, t.failed, t.kinds())
	if t.scored > 0 {
		return nil
	}
	var firsts []string
	for k, m := range t.first {
		firsts = append(firsts, fmt.Sprintf("%s: %s", k, m))
	}
	sort.Strings(firsts)
	return fmt.Errorf("no clip was scored (%d failed: %s); first error of each kind: %s", t.failed, t.kinds(), strings.Join(firsts, "; "))
}
