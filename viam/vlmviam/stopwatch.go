package vlmviam

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.viam.com/rdk/logging"
	"go.viam.com/rdk/resource"
	"go.viam.com/rdk/robot/client"
	"go.viam.com/rdk/services/generic"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// How viam-server's StopAll reaches the policy runner.
//
// viam-server (rdk v0.73) stops only resources whose gRPC client is a
// resource.Actuator; a generic service's client has no Stop, so StopAll
// never calls Runner.Stop. What StopAll does do first is cancel every
// operation in flight on viam-server, and every call a module makes to
// viam-server is such an operation. So while a run is going the runner
// keeps one "sentinel" call open through viam-server to itself
// (DoCommand {"stop_watch": run}): module → viam-server → module. The
// handler blocks until its context ends. When StopAll cancels the
// operation, viam-server cancels the call into the module, the handler's
// context is cancelled although the run is still going, and the runner
// stops exactly as Stop does. Sentinels are renewed every
// sentinelRenew with an overlap, so one is always in flight.
//
// The same rule makes StopAll's own Stop calls to modular arms and
// grippers fail with "context canceled" (StopAll cancels its own
// operation before it calls Stop); the runner therefore stops its arm
// itself, with a fresh context, when it stops.
const (
	sentinelLife  = 30 * time.Second
	sentinelRenew = 10 * time.Second
)

var parentConn = struct {
	sync.Mutex
	addr string
	rc   *client.RobotClient
}{}

// SetParentAddress tells the package where viam-server's module socket
// is (the module's main derives it from its own socket path). Without
// it the policy runner cannot see StopAll and says so in its log.
func SetParentAddress(addr string) {
	parentConn.Lock()
	defer parentConn.Unlock()
	parentConn.addr = addr
}

// ParentAddressFromSocket returns viam-server's module socket for a
// module started with socket path sock: viam-server puts both in one
// temporary folder, its own named parent.sock (rdk robot/web StartModule,
// module/modmanager). With VIAM_TCP_SOCKETS set, it is 127.0.0.1:14998.
func ParentAddressFromSocket(sock string) string {
	if v := os.Getenv("VIAM_TCP_SOCKETS"); v != "" && v != "false" && v != "0" {
		return "127.0.0.1:14998"
	}
	if sock == "" || strings.Contains(sock, ":") {
		return ""
	}
	return filepath.Join(filepath.Dir(sock), "parent.sock")
}

// parentRobot returns a robot client of viam-server, dialled once.
func parentRobot(ctx context.Context, logger logging.Logger) (*client.RobotClient, error) {
	parentConn.Lock()
	defer parentConn.Unlock()
	return dialParentLocked(ctx)
}

// dialParentLocked is parentRobot with parentConn held.
func dialParentLocked(ctx context.Context) (*client.RobotClient, error) {
	if parentConn.rc != nil {
		return parentConn.rc, nil
	}
	if parentConn.addr == "" {
		return nil, errors.New("viam-server's module socket is unknown (not started by viam-server)")
	}
	addr := parentConn.addr
	if !strings.Contains(addr, ":") {
		addr = "unix://" + addr
	}
	l := logging.NewLogger("vlmrb.stop-watch")
	l.SetLevel(logging.WARN)
	opts := []client.RobotClientOption{client.WithDisableSessions()}
	if n := os.Getenv("VIAM_MODULE_NAME"); n != "" {
		opts = append(opts, client.WithModName(n))
	}
	rc, err := client.New(ctx, addr, l, opts...)
	if err != nil {
		return nil, err
	}
	parentConn.rc = rc
	return rc, nil
}

// stopWatchCommand is the handler side of a sentinel: it blocks until
// the call's context ends (StopAll, or the caller gave up) or the run it
// watches ends. A context cancelled while run is still the current run
// stops the runner with reason "stop_all".
func (r *Runner) stopWatchCommand(ctx context.Context, v any) (map[string]any, error) {
	run, _ := v.(float64)
	r.mu.Lock()
	done := r.done
	cur := r.runID
	r.mu.Unlock()
	if done == nil || float64(cur) != run {
		return map[string]any{"stop_watch": "not running"}, nil
	}
	r.mu.Lock()
	if r.runID == cur && r.done == done {
		r.stat.StopAllWatched = true
	}
	r.mu.Unlock()
	t := time.NewTimer(sentinelLife)
	defer t.Stop()
	select {
	case <-done:
		return map[string]any{"stop_watch": "run ended"}, nil
	case <-t.C:
		return map[string]any{"stop_watch": "renew"}, nil
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.Canceled) {
			r.stopFor(int64(run), "stop_all")
		}
		return nil, ctx.Err()
	}
}

// watchStopAll keeps sentinels in flight for run until ctx ends.
func (r *Runner) watchStopAll(ctx context.Context, run int64) {
	parentConn.Lock()
	known := parentConn.addr != ""
	parentConn.Unlock()
	if !known {
		r.logger.Debugw("policy-runner: not started by viam-server; StopAll is not watched")
		return
	}
	backoff := 100 * time.Millisecond
	warned := false
	var self resource.Resource
	for self == nil {
		rc, err := parentRobot(ctx, r.logger)
		if err == nil {
			self, err = rc.ResourceByName(generic.Named(r.Name().ShortName()))
		}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if !warned {
				r.logger.Warnw("policy-runner: cannot watch for StopAll yet; retrying", "err", err)
				warned = true
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, 2*time.Second)
		}
	}
	if warned {
		r.logger.Infow("policy-runner: watching for StopAll")
	}
	ended := make(chan error, 4)
	launch := func() {
		go func() {
			cctx, cancel := context.WithTimeout(ctx, sentinelLife+5*time.Second)
			defer cancel()
			_, err := self.DoCommand(cctx, map[string]any{"stop_watch": float64(run)})
			ended <- err
		}()
	}
	launch()
	renew := time.NewTicker(sentinelRenew)
	defer renew.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-renew.C:
			launch()
		case err := <-ended:
			if ctx.Err() != nil {
				return
			}
			if status.Code(err) == codes.Canceled || errors.Is(err, context.Canceled) {
				r.stopFor(run, "stop_all")
				return
			}
			if err != nil && status.Code(err) != codes.DeadlineExceeded {
				r.logger.Warnw("policy-runner: StopAll sentinel failed; renewing", "err", err)
				select {
				case <-ctx.Done():
					return
				case <-time.After(backoff):
				}
				launch()
			}
		}
	}
}
