package vlmviam

// End-to-end tests through a real viam-server built from rdk's source.
// make test-viam builds viam-server and vlmrb-viam, sets
// VLMRB_VIAM_SERVER and VLMRB_VIAM_MODULE, and runs this test binary
// inside `unshare -n` (loopback only). startViam refuses to start
// viam-server anywhere else.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.viam.com/rdk/logging"
	"go.viam.com/rdk/resource"
	"go.viam.com/rdk/robot/client"
	"go.viam.com/utils/rpc"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type viamServer struct {
	cmd     *exec.Cmd
	addr    string
	dir     string
	cfgPath string
	log     *syncBuffer
	robot   *client.RobotClient
	exited  chan struct{}
}

// requireE2E skips unless make test-viam set up the binaries, and refuses
// (fails under VLMRB_VIAM_REQUIRE=1, else skips) outside a loopback-only
// network namespace.
func requireE2E(t *testing.T) (server, module string) {
	t.Helper()
	server, module = os.Getenv("VLMRB_VIAM_SERVER"), os.Getenv("VLMRB_VIAM_MODULE")
	if server == "" || module == "" {
		t.Skip("VLMRB_VIAM_SERVER / VLMRB_VIAM_MODULE unset: run make test-viam")
	}
	if err := CheckLoopbackOnly(); err != nil {
		if os.Getenv("VLMRB_VIAM_REQUIRE") == "1" {
			t.Fatalf("refusing to start viam-server: %v", err)
		}
		t.Skipf("refusing to start viam-server: %v", err)
	}
	return server, module
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startViam writes cfg (plus network and the vlmrb module), starts
// viam-server on a free loopback port with serverEnv added to its
// environment (which the module inherits), and connects a robot client.
func startViam(t *testing.T, cfg map[string]any, serverEnv map[string]string) *viamServer {
	t.Helper()
	server, module := requireE2E(t)
	if err := CheckLoopbackOnly(); err != nil { // checked again right before exec
		t.Fatalf("refusing to start viam-server: %v", err)
	}
	s := &viamServer{addr: freeAddr(t), dir: t.TempDir(), log: &syncBuffer{}, exited: make(chan struct{})}
	cfg["network"] = map[string]any{"bind_address": s.addr}
	if _, ok := cfg["modules"]; !ok {
		cfg["modules"] = []any{map[string]any{"name": "vlmrb", "executable_path": module}}
	}
	s.cfgPath = filepath.Join(s.dir, "config.json")
	s.writeConfig(t, cfg)
	s.cmd = exec.Command(server, "-config", s.cfgPath, "-disable-mdns", "-ftdc=false", "-webrtc=false", "-no-tls")
	s.cmd.Env = append(os.Environ(), "HOME="+s.dir)
	for k, v := range serverEnv {
		s.cmd.Env = append(s.cmd.Env, k+"="+v)
	}
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.cmd.Wait(); close(s.exited) }()
	t.Cleanup(func() { s.shutdown(t) })
	logger := logging.NewLogger("e2e-client")
	logger.SetLevel(logging.WARN)
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		rob, err := client.New(ctx, s.addr, logger, client.WithDialOptions(rpc.WithInsecure(), rpc.WithForceDirectGRPC()))
		cancel()
		if err == nil {
			s.robot = rob
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("viam-server did not answer on %s: %v\n%s", s.addr, err, tail(s.log.String(), 4000))
		}
		time.Sleep(200 * time.Millisecond)
	}
	return s
}

func (s *viamServer) writeConfig(t *testing.T, cfg map[string]any) {
	t.Helper()
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	// in place: viam-server's watcher follows the file's Write events,
	// and a rename would replace the inode it watches
	if err := os.WriteFile(s.cfgPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func (s *viamServer) shutdown(t *testing.T) {
	if s.robot != nil {
		_ = s.robot.Close(context.Background())
	}
	select {
	case <-s.exited:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(15 * time.Second):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.exited
	}
	if d := os.Getenv("VLMRB_VIAM_LOGDIR"); d != "" {
		_ = os.WriteFile(filepath.Join(d, strings.ReplaceAll(t.Name(), "/", "_")+".log"), []byte(s.log.String()), 0o644)
	}
	if t.Failed() {
		t.Logf("viam-server log (tail):\n%s", tail(s.log.String(), 6000))
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// resource waits for a configured resource to appear on the robot.
func (s *viamServer) resource(t *testing.T, n resource.Name) resource.Resource {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		r, err := s.robot.ResourceByName(n)
		if err == nil {
			// a modular resource answers once its constructor ran
			if _, derr := r.DoCommand(context.Background(), map[string]any{"status": true}); derr == nil || !strings.Contains(derr.Error(), "not found") {
				return r
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("resource %s did not come up: %v\n%s", n, err, tail(s.log.String(), 4000))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func doCmd(t *testing.T, r resource.Resource, cmd map[string]any) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := r.DoCommand(ctx, cmd)
	if err != nil {
		t.Fatalf("DoCommand %v: %v", cmd, err)
	}
	return out
}

// runnerStatus returns the status map of a policy runner.
func runnerStatus(t *testing.T, r resource.Resource) map[string]any {
	t.Helper()
	st, ok := doCmd(t, r, map[string]any{"status": true})["status"].(map[string]any)
	if !ok {
		t.Fatal("status missing")
	}
	return st
}

func waitRunnerDone(t *testing.T, r resource.Resource, limit time.Duration) map[string]any {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		st := runnerStatus(t, r)
		if st["running"] == false {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("runner still running after %v: %v", limit, st)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// episodesOf decodes a sim arm's {"episodes": true} answer.
func episodesOf(t *testing.T, m map[string]any) []EpisodeResult {
	t.Helper()
	list, _ := m["episodes"].([]any)
	var out []EpisodeResult
	for _, e := range list {
		em := e.(map[string]any)
		seed, err := strconv.ParseUint(fmt.Sprint(em["seed"]), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, EpisodeResult{Seed: seed, Steps: int(em["steps"].(float64)), Return: em["return"].(float64), Success: em["success"].(bool)})
	}
	return out
}

func simComponents(task string, maxSteps int) []any {
	a := func(name, api, model string, extra map[string]any) map[string]any {
		attrs := map[string]any{"task": task, "max_steps": maxSteps}
		for k, v := range extra {
			attrs[k] = v
		}
		return map[string]any{"name": name, "api": api, "model": model, "attributes": attrs}
	}
	return []any{
		a("arm", "rdk:component:arm", "vlmrb:vlmrb:sim-arm", nil),
		a("gripper", "rdk:component:gripper", "vlmrb:vlmrb:sim-gripper", nil),
		a("poses", "rdk:component:pose_tracker", "vlmrb:vlmrb:sim-pose-tracker", nil),
		a("simcam", "rdk:component:camera", "vlmrb:vlmrb:sim-camera", map[string]any{"backend": "soft", "width": 160, "height": 120}),
	}
}
