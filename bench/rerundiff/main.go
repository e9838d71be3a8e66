package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/train/study"
)

func main() {
	oldDir := flag.String("old", "", "study directory of the committed runs (runs/ or runs.tar.gz)")
	newDir := flag.String("new", "", "study directory of the reruns")
	except := flag.String("except", "replay/semantic_buffer_frac,replay/semantic_hit_rate,replay/semantic_hit_rate_prioritized", "comma-separated keys allowed to differ (time/* always are)")
	flag.Parse()
	if *oldDir == "" || *newDir == "" {
		fmt.Fprintln(os.Stderr, "usage: rerundiff -old STUDY_DIR -new STUDY_DIR [-except KEYS]")
		os.Exit(2)
	}
	skip := map[string]bool{}
	for _, k := range strings.Split(*except, ",") {
		skip[strings.TrimSpace(k)] = true
	}
	old, err := openOld(*oldDir)
	if err != nil {
		fail("%v", err)
	}
	ids, err := doneRuns(*newDir)
	if err != nil {
		fail("%v", err)
	}
	if len(ids) == 0 {
		fail("%s has no finished run", *newDir)
	}
	bad := 0
	for _, id := range ids {
		nb, err := os.ReadFile(filepath.Join(*newDir, "runs", filepath.FromSlash(id), "metrics.jsonl"))
		if err != nil {
			fail("%v", err)
		}
		ob, err := old(id)
		if err != nil {
			fail("%s: %v", id, err)
		}
		msg, ok := compare(ob, nb, skip)
		if !ok {
			bad++
		}
		fmt.Printf("%s %s\n", id, msg)
	}
	if bad > 0 {
		fmt.Printf("%d of %d runs differ\n", bad, len(ids))
		os.Exit(1)
	}
	fmt.Printf("all %d runs identical outside %s and time/*\n", len(ids), *except)
}

// openOld returns a reader of OLD's metrics.jsonl by run id.
func openOld(dir string) (func(id string) ([]byte, error), error) {
	if _, err := os.Stat(filepath.Join(dir, "runs")); err == nil {
		return func(id string) ([]byte, error) {
			return os.ReadFile(filepath.Join(dir, "runs", filepath.FromSlash(id), "metrics.jsonl"))
		}, nil
	}
	files, err := study.ReadRunsArchive(dir)
	if err != nil {
		return nil, err
	}
	return func(id string) ([]byte, error) {
		b, ok := files["runs/"+id+"/metrics.jsonl"]
		if !ok {
			return nil, fmt.Errorf("not in %s", filepath.Join(dir, study.RunsArchive))
		}
		return b, nil
	}, nil
}

// doneRuns lists the ids (TASK/ARM/sSEED) of dir's finished runs.
func doneRuns(dir string) ([]string, error) {
	m, err := filepath.Glob(filepath.Join(dir, "runs", "*", "*", "*", "study-done.json"))
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, p := range m {
		rel, _ := filepath.Rel(filepath.Join(dir, "runs"), filepath.Dir(p))
		ids = append(ids, filepath.ToSlash(rel))
	}
	sort.Strings(ids)
	return ids, nil
}

// compare checks two metrics.jsonl files row by row and summarises.
func compare(ob, nb []byte, skip map[string]bool) (string, bool) {
	or, err1 := rundir.ParseMetricsJSONL(ob)
	nr, err2 := rundir.ParseMetricsJSONL(nb)
	if err1 != nil || err2 != nil {
		return fmt.Sprintf("unreadable: %v %v", err1, err2), false
	}
	if len(or) != len(nr) {
		return fmt.Sprintf("DIFFERS: %d rows against %d", len(nr), len(or)), false
	}
	values, diffs := 0, 0
	var first string
	for i := range or {
		if or[i].Step != nr[i].Step {
			return fmt.Sprintf("DIFFERS: row %d at step %d against %d", i, nr[i].Step, or[i].Step), false
		}
		keys := map[string]bool{}
		for k := range or[i].Values {
			keys[k] = true
		}
		for k := range nr[i].Values {
			keys[k] = true
		}
		for k := range keys {
			if skip[k] || strings.HasPrefix(k, "time/") {
				continue
			}
			a, okA := or[i].Values[k]
			b, okB := nr[i].Values[k]
			values++
			if okA != okB || !(a == b || math.IsNaN(a) && math.IsNaN(b)) {
				diffs++
				if first == "" {
					first = fmt.Sprintf("%s at step %d: %v against %v", k, or[i].Step, b, a)
				}
			}
		}
	}
	fin := func(rows []rundir.Row) float64 {
		for i := len(rows) - 1; i >= 0; i-- {
			if v, ok := rows[i].Values["eval/success_rate"]; ok {
				return v
			}
		}
		return math.NaN()
	}
	s := fmt.Sprintf("%d rows, %d values compared, final success %.2f (committed %.2f)", len(nr), values, fin(nr), fin(or))
	if diffs > 0 {
		return fmt.Sprintf("DIFFERS in %d values, first %s; %s", diffs, first, s), false
	}
	return "identical: " + s, true
}

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "rerundiff: "+format+"\n", a...)
	os.Exit(2)
}
