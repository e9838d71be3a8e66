package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/lerobot"
	"github.com/vlmrb/vlmrb/tasks"
)

// gripperArm is the tasks package's test arm with a two-finger gripper.
var gripperArm = filepath.Join("..", "..", "tasks", "testdata", "gripper_arm.xml")

// TestRecordArmObject: record --model --task pick writes the expert's
// episodes as a LeRobot dataset whose rows are the env's: one 24-value
// named state and 4-value action per control step at the task's 25 Hz,
// and per episode the return and success that eval --policy expert
// --model reports on the same episode seeds (one env: both draw episode k
// from control.EpisodeSeed(seed, 0, k)).
func TestRecordArmObject(t *testing.T) {
	t.Parallel()
	ds := filepath.Join(t.TempDir(), "ds")
	code, out, errOut := runCLI(t, "record", "--model", gripperArm, "--task", "pick", "--policy", "expert", "--episodes", "2",
		"--max-episode-len", "120", "--seed", "4", "--cameras", "", "--lerobot", ds, "--json")
	if code != 0 {
		t.Fatalf("record: exit %d: %s", code, errOut)
	}
	var rep recordReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Episodes != 2 || rep.Frames != 240 {
		t.Fatalf("record --json: %v: %s", err, out)
	}
	d, err := lerobot.Open(ds, lerobot.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Info.FPS != 25 || d.Info.RobotType == nil || *d.Info.RobotType != "vlmrb-mjcf-arm" {
		t.Errorf("fps %g, robot %v; want the task's 25 Hz control rate and vlmrb-mjcf-arm", d.Info.FPS, d.Info.RobotType)
	}
	if st := d.Info.Features[lerobot.KeyState]; !reflect.DeepEqual(st.Shape, []int{24}) || !reflect.DeepEqual(st.Names, tasks.ArmObjectObsNames()) {
		t.Errorf("observation.state %v %v", st.Shape, st.Names)
	}
	returns, successes := make([]float64, 2), make([]bool, 2)
	if err := d.ReadFrames(func(r *lerobot.FrameRow) error {
		returns[r.Episode] += float64(r.Reward)
		successes[r.Episode] = r.Success // the last step's, as eval scores
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, "eval", "--model", gripperArm, "--task", "pick", "--policy", "expert", "--episodes", "2",
		"--max-episode-len", "120", "--seed", "4", "--reward", "dense", "--json")
	var ev evalJSON
	if code != 0 || json.Unmarshal([]byte(out), &ev) != nil {
		t.Fatalf("eval --policy expert --model: exit %d: %s %s", code, out, errOut)
	}
	for k := range 2 {
		if math.Abs(returns[k]-ev.Returns[k]) > 1e-4*math.Max(1, math.Abs(ev.Returns[k])) || successes[k] != ev.Successes[k] {
			t.Errorf("episode %d: dataset return %g success %v, eval %g %v", k, returns[k], successes[k], ev.Returns[k], ev.Successes[k])
		}
	}
	if !ev.Successes[0] && !ev.Successes[1] {
		t.Errorf("the expert failed both pick episodes: %+v", ev)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", gripperArm, "--task", "pick", "--cameras", "workspace"}, "scorer's view only"},
		{[]string{"--task", "panda-pick"}, "pass --model FILE.xml"},
		{[]string{"--task", "reach", "--grip", "g"}, "give --model FILE.xml"},
		{[]string{"--model", gripperArm, "--task", "doorkey-5x5"}, "--task reach, pick or push"},
	} {
		bad := filepath.Join(t.TempDir(), "bad")
		code, _, errOut := runCLI(t, append([]string{"record", "--episodes", "1", "--lerobot", bad}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("record %v: exit %d: %s; want exit 2 naming %q", c.args, code, errOut, c.want)
		}
		if _, err := os.Stat(bad); !os.IsNotExist(err) {
			t.Errorf("record %v left %s", c.args, bad)
		}
	}
}

// TestExportEvalONNXArmObject: a tiny panda-push run exported to ONNX
// evaluates, with the arm from the model's metadata, to the same
// episodes as eval --checkpoint (returns and successes equal); record
// --policy RUN takes the run's arm; --model on a tabletop model and
// --video are refused with what to do.
func TestExportEvalONNXArmObject(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run, model := filepath.Join(dir, "run"), filepath.Join(dir, "push.onnx")
	code, out, errOut := runCLI(t, "train", "--model", gripperArm, "--task", "push", "--steps", "120", "--max-episode-len", "30",
		"--hidden", "8,8", "--learning-starts", "60", "--batch-size", "16", "--eval-episodes", "3",
		"--set", "eval.every=120", "--set", "checkpoint.every=120", "--set", "log.every=60", "--out", run, "--quiet")
	if code != 0 {
		t.Fatalf("train: exit %d: %s\n%s", code, errOut, out)
	}
	if code, _, errOut := runCLI(t, "export", "--checkpoint", run, "--onnx", model); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errOut)
	}
	ck, ox := evalOut(t, "--checkpoint", run), evalOut(t, "--onnx", model)
	if ox.Task != tasks.ArmPushName || ox.Episodes != 3 || ox.Seed != ck.Seed || !reflect.DeepEqual(ox.Returns, ck.Returns) || !reflect.DeepEqual(ox.Successes, ck.Successes) {
		t.Fatalf("eval --onnx %+v\n  differs from eval --checkpoint %+v", ox, ck)
	}
	// the arm named again (as after moving the model) gives the same episodes
	if again := evalOut(t, "--onnx", model, "--model", gripperArm); !reflect.DeepEqual(again.Returns, ck.Returns) {
		t.Errorf("--onnx with --model: returns %v, want %v", again.Returns, ck.Returns)
	}
	if code, _, errOut := runCLI(t, "eval", "--onnx", model, "--video", filepath.Join(dir, "v.gif")); code != 2 || !strings.Contains(errOut, "render --model") {
		t.Errorf("eval --onnx --video on an arm task: exit %d: %s", code, errOut)
	}
	ds := filepath.Join(dir, "ds")
	code, out, errOut = runCLI(t, "record", "--policy", run, "--episodes", "1", "--cameras", "", "--lerobot", ds, "--json")
	var rep recordReport
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Frames != 30 {
		t.Fatalf("record --policy RUN: exit %d: %s %s", code, out, errOut)
	}
	if code, _, errOut := runCLI(t, "record", "--policy", run, "--model", gripperArm, "--episodes", "1", "--cameras", "", "--lerobot", filepath.Join(dir, "ds2")); code != 2 || !strings.Contains(errOut, "omit --model") {
		t.Errorf("record --policy RUN --model: exit %d: %s", code, errOut)
	}
}
