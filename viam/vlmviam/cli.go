package vlmviam

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"go.viam.com/rdk/components/arm"
	"go.viam.com/rdk/components/camera"
	"go.viam.com/rdk/components/gripper"
	"go.viam.com/rdk/components/posetracker"
	"go.viam.com/rdk/logging"
	"go.viam.com/rdk/resource"
	"go.viam.com/rdk/robot/client"
	"go.viam.com/utils/rpc"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/vlmreward"
)

// EvalReport is what vlmrb-viam eval prints (JSON).
type EvalReport struct {
	Checkpoint  string      `json:"checkpoint"`
	Task        string      `json:"task"`
	Episodes    int         `json:"episodes"`
	Seed        uint64      `json:"seed"`
	SuccessRate *float64    `json:"success_rate,omitempty"` // sim arms only
	Successes   []bool      `json:"successes,omitempty"`
	Returns     []float64   `json:"returns"` // VLM reward summed per episode
	Steps       int         `json:"steps"`
	MedianMS    float64     `json:"step_ms_median"`
	P99MS       float64     `json:"step_ms_p99"`
	Limits      LimitCounts `json:"limit_hits"`
	RecordDir   string      `json:"record_dir,omitempty"`
	// TrainedEngine is the physics the checkpoint was trained on
	// (Policy.TrainedEngine); Transfer is rundir.TransferNote when an
	// old-engine checkpoint drove the simulated world (--engine articulated).
	TrainedEngine string `json:"trained_engine"`
	Transfer      string `json:"transfer,omitempty"`
}

// RunCLI runs the eval (and record) subcommand of vlmrb-viam: a checkpoint
// drives a Viam robot through RobotEnv, episode after episode, and a JSON
// report goes to stdout.
func RunCLI(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("vlmrb-viam "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("robot", "", "robot `ADDR` (host:port of a viam-server; plaintext, local)")
	ckpt := fs.String("checkpoint", "", "vlmrb run `DIR` (robot-train train --out)")
	armName := fs.String("arm", "arm", "arm component `NAME`")
	grip := fs.String("gripper", "", "gripper component `NAME` (optional)")
	gripMode := fs.String("gripper-mode", "", "binary (default) | proportional")
	poses := fs.String("pose-tracker", "", "pose tracker `NAME` (object0, object1, goal)")
	cam := fs.String("camera", "", "camera `NAME` (recording and VLM reward)")
	episodes := fs.Int("episodes", 10, "episodes `N`")
	seed := fs.Uint64("seed", 0, "base episode seed (episode k: control.EpisodeSeed(seed, 0, k))")
	maxSteps := fs.Int("max-steps", 0, "control steps per episode (0: the run's episode length)")
	simReset := fs.Bool("sim-reset", false, "reset a vlmrb:vlmrb:sim-arm at each episode and read its success")
	engine := fs.String("engine", "", "with --sim-reset: articulated runs a checkpoint trained on the removed engine sim in the simulated world (a transfer)")
	offset := fs.String("task-offset-mm", "0,0,0", "arm frame → task frame offset `X,Y,Z` (mm)")
	maxStep := fs.Float64("max-step-mm", 0, "cap on the target's move per step (mm; 0: none)")
	record := fs.String("record", "", "record episodes under `DIR` (frames + steps.jsonl, the hw layout)")
	reward := fs.String("reward", "none", "per-step reward: none | vlmrm (VLM-RM over an /v1/embeddings server)")
	embedURL := fs.String("embed-url", "", "VLM-RM: embeddings server base `URL` (…/v1)")
	embedModel := fs.String("embed-model", "", "VLM-RM: embedding model name")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *addr == "" || *ckpt == "" {
		return errors.New("--robot and --checkpoint are required (vlmrb-viam " + cmd + " -h lists the flags)")
	}
	if cmd == "record" && *record == "" {
		return errors.New("record needs --record DIR")
	}
	if *episodes < 1 {
		return fmt.Errorf("--episodes is %d; use at least 1", *episodes)
	}
	var off [3]float64
	if _, err := fmt.Sscanf(strings.ReplaceAll(*offset, " ", ""), "%g,%g,%g", &off[0], &off[1], &off[2]); err != nil {
		return fmt.Errorf("--task-offset-mm %q: want X,Y,Z in mm", *offset)
	}
	if err := checkEngineKey(*engine, *simReset, "--engine", "--sim-reset"); err != nil {
		return err
	}
	pol, err := LoadPolicy(*ckpt)
	if err != nil {
		return err
	}
	defer pol.Close()
	note, err := pol.CheckEngine(*simReset, *engine, "--engine articulated (with --sim-reset)")
	if err != nil {
		return err
	}
	if note != "" {
		_, _ = fmt.Fprintln(stderr, "vlmrb-viam "+cmd+": "+note)
	}
	if *maxSteps == 0 {
		*maxSteps = pol.EpisodeLen()
	}
	rc := RigConfig{Arm: *armName, Gripper: *grip, GripperMode: *gripMode, PoseTracker: *poses, Camera: *cam, TaskOffset: off, MaxStep: *maxStep}
	logger := logging.NewLogger("vlmrb-viam")
	logger.SetLevel(logging.WARN)
	dctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	rob, err := client.New(dctx, *addr, logger, client.WithDialOptions(rpc.WithInsecure(), rpc.WithForceDirectGRPC()))
	cancel()
	if err != nil {
		return fmt.Errorf("connect to %s: %w", *addr, err)
	}
	defer rob.Close(context.Background())
	deps := resource.Dependencies{}
	for _, n := range []resource.Name{arm.Named(rc.Arm), gripper.Named(rc.Gripper), posetracker.Named(rc.PoseTracker), camera.Named(rc.Camera)} {
		if n.Name == "" {
			continue
		}
		r, err := rob.ResourceByName(n)
		if err != nil {
			return fmt.Errorf("robot %s has no %s: %w", *addr, n, err)
		}
		deps[n] = r
	}
	ec := EnvConfig{RigConfig: rc, MaxSteps: *maxSteps, SimReset: *simReset}
	switch *reward {
	case "none":
	case "vlmrm":
		emb, err := vlmreward.NewHTTPEmbedder(*embedURL, *embedModel, "")
		if err != nil {
			return err
		}
		meta, _ := tasks.Lookup(pol.Task())
		rm, err := vlmreward.NewVLMRMFromPrompts(ctx, emb, []string{meta.Description}, []string{"a robot arm"}, 0.5)
		if err != nil {
			return fmt.Errorf("VLM-RM prompts: %w", err)
		}
		ec.Reward = VLMRMReward{Embedder: emb, RM: rm}
	default:
		return fmt.Errorf("--reward %q: use none or vlmrm", *reward)
	}
	env, err := NewRobotEnv(ctx, deps, ec)
	if err != nil {
		return err
	}
	defer env.Close()
	rep, err := EvalEnv(ctx, env, pol, *episodes, *seed, *record)
	if err != nil {
		return err
	}
	rep.Checkpoint, rep.Task, rep.TrainedEngine = pol.Dir, pol.Task(), pol.TrainedEngine()
	if note == rundir.TransferNote {
		rep.Transfer = note
	}
	if !*simReset {
		rep.SuccessRate, rep.Successes = nil, nil
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// EvalEnv runs episodes of pol on env (seeds control.EpisodeSeed(seed, 0,
// k), as robot-train eval), recording under dir when set.
func EvalEnv(ctx context.Context, env *RobotEnv, pol *Policy, episodes int, seed uint64, dir string) (*EvalReport, error) {
	rep := &EvalReport{Episodes: episodes, Seed: seed, RecordDir: dir}
	var lat []float64
	a := make([]float64, tasks.ActDim)
	succ := 0
	for k := range episodes {
		s := control.EpisodeSeed(seed, 0, k)
		obs, _ := env.Reset(s)
		if err := env.Err(); err != nil {
			return nil, err
		}
		var rec *EpisodeRecorder
		if dir != "" {
			var err error
			if rec, err = NewEpisodeRecorder(dir, k); err != nil {
				return nil, err
			}
		}
		ret, ok := 0.0, false
		for t := 0; ; t++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if rec != nil && env.rig.Camera() != nil {
				if err := rec.Frame(ctx, env.rig.Camera()); err != nil {
					return nil, err
				}
			}
			t0 := time.Now()
			if err := pol.Act(obs, a); err != nil {
				return nil, err
			}
			next, r, term, trunc, info, err := env.Step(a)
			if err != nil {
				return nil, fmt.Errorf("episode %d step %d: %w", k, t, err)
			}
			ms := float64(time.Since(t0).Microseconds()) / 1000
			lat = append(lat, ms)
			if rec != nil {
				if err := rec.Step(StepRecord{T: t, Obs: obs, Action: slices.Clone(a), TargetMM: env.rig.Target(), LatencyMS: ms}); err != nil {
					return nil, err
				}
			}
			ret += r
			ok = ok || info.Success()
			obs = next
			rep.Steps++
			if term || trunc {
				break
			}
		}
		if rec != nil {
			if err := rec.Finish(map[string]any{"episode": k, "seed": s, "return": ret, "success": ok, "checkpoint": pol.Dir}); err != nil {
				return nil, err
			}
		}
		rep.Returns = append(rep.Returns, ret)
		rep.Successes = append(rep.Successes, ok)
		if ok {
			succ++
		}
	}
	rate := float64(succ) / float64(episodes)
	rep.SuccessRate = &rate
	rep.MedianMS, rep.P99MS = percentile(lat, 0.5), percentile(lat, 0.99)
	rep.Limits = env.rig.Counts()
	return rep, nil
}
