package vlmviam

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"go.viam.com/rdk/components/arm"
	"go.viam.com/rdk/components/arm/fake"
	"go.viam.com/rdk/logging"
	"go.viam.com/rdk/referenceframe"
	"go.viam.com/rdk/resource"
	"go.viam.com/rdk/spatialmath"
)

// ur5eModel is the UR5e kinematics of Viam's fake arm (arm-model ur5e),
// the arm the end-to-end tests drive. Since rdk v0.75 the universalrobots
// driver is its own module; rdk's fake arm still carries its kinematics.
func ur5eModel(t testing.TB) referenceframe.Model {
	t.Helper()
	cfg := resource.Config{
		Name:                "ur5e",
		API:                 arm.API,
		Model:               resource.DefaultModelFamily.WithModel("fake"),
		ConvertedAttributes: &fake.Config{ArmModel: "ur5e"},
	}
	a, err := fake.NewArm(context.Background(), nil, cfg, logging.NewTestLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	m, err := a.Kinematics(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestIKReachesForwardKinematicsGoals: for goals made by the UR5e's own
// forward kinematics from joints up to 0.2 rad away from the seed (more
// than one tick's move), the solution's forward kinematics is within the
// stated tolerance (0.01 mm, 1e-4 rad) of the goal.
func TestIKReachesForwardKinematicsGoals(t *testing.T) {
	m := ur5eModel(t)
	s, err := NewIK(m)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	home := []float64{0, -1.2, 1.5, -1.9, -1.57, 0} // an elbow-up pose away from singularities
	worstPos, worstRot := 0.0, 0.0
	for k := range 200 {
		want := make([]float64, len(home))
		seed := make([]float64, len(home))
		for i := range home {
			want[i] = home[i] + 0.6*(rng.Float64()-0.5)
			seed[i] = want[i] + 0.4*(rng.Float64()-0.5)
		}
		goal, err := m.Transform(copyInputs(want))
		if err != nil {
			t.Fatal(err)
		}
		q, _, _, err := s.Solve(seed, goal)
		if err != nil {
			t.Fatalf("goal %d: %v", k, err)
		}
		got, err := m.Transform(copyInputs(q))
		if err != nil {
			t.Fatal(err)
		}
		pos := got.Point().Sub(goal.Point()).Norm()
		rv := rotVec(spatialmath.PoseDelta(got, goal).Orientation().Quaternion())
		rot := math.Sqrt(rv[0]*rv[0] + rv[1]*rv[1] + rv[2]*rv[2])
		worstPos, worstRot = max(worstPos, pos), max(worstRot, rot)
		if pos > s.TolMM+1e-9 || rot > s.TolRad+1e-9 {
			t.Fatalf("goal %d: forward kinematics of the solution is %.3g mm / %.3g rad from the goal", k, pos, rot)
		}
	}
	t.Logf("worst of 200: %.2g mm, %.2g rad", worstPos, worstRot)
}

// TestIKRefusesUnreachable: a goal 2 m beyond the UR5e's reach (0.85 m)
// is an error, not a wrong answer.
func TestIKRefusesUnreachable(t *testing.T) {
	m := ur5eModel(t)
	s, _ := NewIK(m)
	home := []float64{0, -1.2, 1.5, -1.9, -1.57, 0}
	p, _ := m.Transform(copyInputs(home))
	far := spatialmath.NewPose(p.Point().Add(p.Point().Normalize().Mul(2000)), p.Orientation())
	if _, pos, _, err := s.Solve(home, far); err == nil {
		t.Fatalf("an unreachable goal was solved (%.3g mm left)", pos)
	}
}

// BenchmarkIKTick: one runner tick's IK solve on the UR5e: a 10 mm move
// of the end from the current joints.
func BenchmarkIKTick(b *testing.B) {
	m := ur5eModel(b)
	s, _ := NewIK(m)
	home := []float64{0, -1.2, 1.5, -1.9, -1.57, 0}
	p, _ := m.Transform(copyInputs(home))
	goal := spatialmath.NewPose(p.Point().Add(spatialmath.NewPoseFromPoint(p.Point()).Point().Normalize().Mul(10)), p.Orientation())
	b.ResetTimer()
	for b.Loop() {
		if _, _, _, err := s.Solve(home, goal); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "us/solve")
}
