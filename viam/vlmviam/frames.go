package vlmviam

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.viam.com/rdk/referenceframe"
	"go.viam.com/rdk/spatialmath"
)

// PoseTransformer puts a pose into another frame of the robot's frame
// system: viam-server's TransformPose (robot/client.RobotClient has it).
type PoseTransformer interface {
	TransformPose(ctx context.Context, query *referenceframe.PoseInFrame, destination string,
		additionalTransforms []*referenceframe.LinkInFrame) (*referenceframe.PoseInFrame, error)
}

// armBaseFrame is the frame-system name of an arm's base: rdk names the
// static frame a component's frame config defines "<name>_origin", and
// EndPosition reports the end effector in it.
func armBaseFrame(arm string) string { return arm + "_origin" }

// inArmFrame returns p in the arm's base frame (where targets, goal_mm
// and EndPosition live). A pose already there (parent "" or
// "<arm>_origin") is taken as is; any other parent goes through the
// frame system (TransformPose to "<arm>_origin"). A pose in "world" when
// the arm has no frame in the robot's config (so no frame system to ask,
// or one without the arm) is taken as is, as before frames were
// honoured: the arm's base is then the world. Anything else the frame
// system cannot place is an error naming both frames.
func (r *Rig) inArmFrame(ctx context.Context, who string, p *referenceframe.PoseInFrame) (spatialmath.Pose, error) {
	base := armBaseFrame(r.cfg.Arm)
	par := p.Parent()
	if par == "" || par == base {
		return p.Pose(), nil
	}
	if par == referenceframe.World && r.worldIsBase {
		return p.Pose(), nil
	}
	var fs PoseTransformer
	var err error
	if r.frames != nil {
		fs, err = r.frames(ctx)
	}
	if fs == nil {
		if par == referenceframe.World {
			// no frame system to ask (not under viam-server, or it did not
			// answer within frameDialTimeout): the arm's base is the world
			// for this episode
			r.worldIsBase = true
			return p.Pose(), nil
		}
		why := "no frame system to ask (not running under viam-server)"
		if err != nil {
			why = err.Error()
		}
		return nil, failedPrecondition("%s reports a pose in frame %q, and %s; report poses in arm %q's base frame or run under viam-server", who, par, why, r.cfg.Arm)
	}
	out, err := fs.TransformPose(ctx, p, base, nil)
	if err != nil {
		if par == referenceframe.World && missingFrame(err) {
			// the arm is not in the frame system: its base is the world
			r.worldIsBase = true
			return p.Pose(), nil
		}
		return nil, failedPrecondition("%s reports a pose in frame %q, which the frame system cannot put in arm %q's base frame %q: %v; give the arm and %q a frame in the robot config", who, par, r.cfg.Arm, base, err, par)
	}
	r.transformed++
	return out.Pose(), nil
}

// missingFrame says whether err is the frame system not knowing a frame.
func missingFrame(err error) bool {
	s := err.Error()
	return strings.Contains(s, "not in frame system") || strings.Contains(s, "not found")
}

// frameDialTimeout bounds dialling viam-server for its frame system.
const frameDialTimeout = 2 * time.Second

// parentFrames is the runner's frame system: viam-server's, through the
// module's robot client of it (dialled once, shared with the StopAll watch).
func parentFrames(ctx context.Context) (PoseTransformer, error) {
	// bounded: a control loop must not hang on a socket that does not answer
	ctx, cancel := context.WithTimeout(ctx, frameDialTimeout)
	defer cancel()
	// the StopAll watch may be dialling (holding the connection) on a
	// socket that never answers: wait for it no longer than the bound
	for !parentConn.TryLock() {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("viam-server's frame system: its connection is busy: %w", ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
	defer parentConn.Unlock()
	rc, err := dialParentLocked(ctx)
	if err != nil {
		return nil, fmt.Errorf("viam-server's frame system: %w", err)
	}
	return rc, nil
}
