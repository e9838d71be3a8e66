package main

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/tasks"
)

func TestMakeTaskEnvErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ task, reward string }{{"fly", ""}, {"reach", "bogus"}} {
		_, err := tasks.MakeEnv(tc.task, tc.reward, 0)
		if bad := tc.task + tc.reward; err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(bad, "reach")) {
			t.Errorf("%s/%s: %v, want an error naming %q", tc.task, tc.reward, err, strings.TrimPrefix(bad, "reach"))
		}
	}
	if _, err := MakeGridEnv("doorkey-5x5", "sideways"); err == nil {
		t.Error("bad grid view accepted")
	}
	if _, err := tasks.Describe("fly"); err == nil {
		t.Error("unknown task meta")
	}
}

// TestEpisodesTimeLimit: the driver runs episodes to the env's time limit
// and numbers them.
func TestEpisodesTimeLimit(t *testing.T) {
	t.Parallel()
	const limit = 7
	env, err := tasks.MakeEnv("reach", "sparse", limit)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Close() }()
	ep := NewEpisodes(env, control.RandomPolicy(1), 3)
	for k := range 2 {
		ep.Reset()
		if ep.Episode() != k {
			t.Fatalf("episode %d, want %d", ep.Episode(), k)
		}
		n := 0
		for {
			term, trunc, _, err := ep.Step()
			if err != nil {
				t.Fatal(err)
			}
			n++
			if term || trunc {
				break
			}
		}
		if n > limit {
			t.Fatalf("episode of %d steps, limit %d", n, limit)
		}
	}
}

func TestTaskListAndGridFrames(t *testing.T) {
	t.Parallel()
	list, err := TaskList()
	if err != nil {
		t.Fatal(err)
	}
	var manip, grids []string
	for _, ti := range list {
		if ti.Grid {
			grids = append(grids, ti.Name)
		} else {
			manip = append(manip, ti.Name)
		}
		if IsGridTask(ti.Name) != ti.Grid {
			t.Errorf("%s: IsGridTask %v, listed as grid %v", ti.Name, !ti.Grid, ti.Grid)
		}
	}
	if !slices.Contains(manip, "reach") || !slices.Contains(grids, "doorkey-5x5") {
		t.Fatalf("task list %v / %v", manip, grids)
	}
	g, err := RenderGridEpisode(context.Background(), GridRender{Task: "doorkey-5x5", Policy: "expert", Theme: "standard", Side: 64, Every: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !g.Success || len(g.Frames) < 2 || g.Frames[0].Bounds().Dx() != g.Side {
		t.Fatalf("expert grid episode: success %v, %d frames of side %d", g.Success, len(g.Frames), g.Side)
	}
	if _, err := RenderGridEpisode(context.Background(), GridRender{Task: "doorkey-5x5", Policy: "genius", Theme: "standard", Side: 64, Every: 1}); err == nil {
		t.Fatal("unknown policy accepted")
	}
}

func TestSelectBLASAuto(t *testing.T) {
	want := "gonum"
	if slices.Contains(BLASBackends(), "openblas") {
		want = "openblas"
	}
	got, err := SelectBLAS("auto")
	if err != nil || got != want || BLASBackend() != want {
		t.Fatalf("SelectBLAS(auto) = %s, %v; want %s", got, err, want)
	}
}

// The episode readout adds up what the env returned: steps, last reward,
// return, and success at any step; Reset clears it.
func TestEpisodesReadout(t *testing.T) {
	t.Parallel()
	env, err := tasks.MakeEnv("reach", "dense", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Close() }()
	pol, err := tasks.ScriptedPolicy("expert", env, 1)
	if err != nil {
		t.Fatal(err)
	}
	ep := NewEpisodes(env, pol, 1)
	ep.Reset()
	sum, anySucc, n := 0.0, false, 0
	for {
		term, trunc, succ, err := ep.Step()
		if err != nil {
			t.Fatal(err)
		}
		n++
		sum += ep.Reward
		anySucc = anySucc || succ
		if ep.T != n || math.Abs(ep.Return-sum) > 1e-9 || ep.Success != anySucc {
			t.Fatalf("step %d: readout T %d return %g success %v, want %d %g %v", n, ep.T, ep.Return, ep.Success, n, sum, anySucc)
		}
		if term || trunc {
			break
		}
	}
	// reach does not terminate on success: the episode runs to the time
	// limit, which by default is training's episode length
	if n != rundir.DefaultConfig().MaxEpisodeLen {
		t.Fatalf("episode of %d steps, training's default is %d", n, rundir.DefaultConfig().MaxEpisodeLen)
	}
	if !ep.Success || !strings.Contains(ep.Status(), "success yes") || !strings.Contains(ep.Status(), fmt.Sprintf("step %d", n)) {
		t.Fatalf("expert episode readout %q", ep.Status())
	}
	ep.Reset()
	if ep.T != 0 || ep.Return != 0 || ep.Success || !strings.HasPrefix(ep.Status(), "episode 1  step 0") {
		t.Fatalf("after reset: %q", ep.Status())
	}
}
