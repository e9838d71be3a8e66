package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vlmrb/vlmrb/stats"
)

type report struct {
	Runs []struct {
		ID    string   `json:"id"`
		State string   `json:"state"`
		Final *float64 `json:"final"`
	} `json:"runs"`
}

type arm struct {
	name   string
	strata [][]float64 // one per study
	from   []string
}

func main() {
	baseline := flag.String("baseline", "", "arm NAME the others are compared with (default: the first)")
	reps := flag.Int("reps", 5000, "bootstrap resamples")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: pool [-baseline NAME] NAME=DIR:ARM[+DIR:ARM…] …")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	var arms []arm
	for _, a := range flag.Args() {
		name, srcs, ok := strings.Cut(a, "=")
		if !ok || name == "" || srcs == "" {
			fail("argument %q: want NAME=DIR:ARM[+DIR:ARM…]", a)
		}
		ar := arm{name: name}
		for _, src := range strings.Split(srcs, "+") {
			dir, armName, ok := strings.Cut(src, ":")
			if !ok {
				fail("%q: want DIR:ARM", src)
			}
			scores, err := finals(dir, armName)
			if err != nil {
				fail("%v", err)
			}
			ar.strata = append(ar.strata, scores)
			ar.from = append(ar.from, fmt.Sprintf("%s:%s (%d)", filepath.Base(dir), armName, len(scores)))
		}
		arms = append(arms, ar)
	}
	base := arms[0]
	for _, a := range arms {
		if a.name == *baseline {
			base = a
		}
	}
	if *baseline != "" && base.name != *baseline {
		fail("no arm named %q", *baseline)
	}
	fmt.Printf("| arm | runs (study:arm) | final IQM [95%% CI] | final mean [95%% CI] | P(> %s) [95%% CI] |\n|---|---|---|---|---|\n", base.name)
	for _, a := range arms {
		iqm := stats.BootstrapCI(a.strata, stats.PooledIQM, *reps, 0.95, 1)
		mean := stats.BootstrapCI(a.strata, stats.PooledMean, *reps, 0.95, 1)
		p := "–"
		if a.name != base.name {
			p = ci(probCI(a.strata, base.strata, *reps, 0.95, 1))
		}
		fmt.Printf("| %s | %s | %s | %s | %s |\n", a.name, strings.Join(a.from, " + "), ci(iqm), ci(mean), p)
	}
}

func finals(dir, armName string) ([]float64, error) {
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		return nil, fmt.Errorf("%w (run robot-train study report %s first)", err, dir)
	}
	var r report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "report.json"), err)
	}
	var v []float64
	for _, run := range r.Runs {
		parts := strings.Split(run.ID, "/")
		if len(parts) == 3 && parts[1] == armName && run.State == "done" && run.Final != nil {
			v = append(v, *run.Final)
		}
	}
	if len(v) == 0 {
		return nil, fmt.Errorf("%s: no finished run of arm %q", dir, armName)
	}
	return v, nil
}

func ci(iv stats.Interval) string { return fmt.Sprintf("%.3f [%.3f, %.3f]", iv.Point, iv.Lo, iv.Hi) }

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "pool: "+format+"\n", a...)
	os.Exit(2)
}
