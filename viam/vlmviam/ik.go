package vlmviam

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/num/quat"

	"go.viam.com/rdk/referenceframe"
	"go.viam.com/rdk/spatialmath"
)

// IK is a damped-least-squares inverse kinematics solver on an arm's own
// kinematic model (its ModelFrame: what viam-server reads from the arm's
// kinematics file, so a real arm's joints and link lengths). The runner's
// joint control path uses it: each tick moves the target by at most a
// few mm, so a handful of Newton steps from the measured joints (the
// seed) converge, in microseconds, where MoveToPosition would plan a
// whole motion.
//
// The error is 6-D: position (mm) and orientation as a rotation vector
// (rad) scaled by RotWeight mm/rad. The Jacobian is by central
// differences of Transform. Joints are clamped to the model's limits.
type IK struct {
	Model     referenceframe.Model
	RotWeight float64 // mm per rad in the error (100: 1° ≈ 1.7 mm)
	Lambda    float64 // damping (mm); larger is slower but steadier near singularities
	MaxIter   int
	TolMM     float64 // position tolerance (mm)
	TolRad    float64 // orientation tolerance (rad)
}

// NewIK returns a solver for model with the defaults used by the runner.
func NewIK(model referenceframe.Model) (*IK, error) {
	if model == nil || len(model.DoF()) == 0 {
		return nil, errors.New("the arm has no kinematic model with joints (ModelFrame)")
	}
	return &IK{Model: model, RotWeight: 100, Lambda: 1, MaxIter: 30, TolMM: 0.01, TolRad: 1e-4}, nil
}

// ikErr returns the 6-D error from the pose at q to goal.
func (s *IK) ikErr(q []float64, goal spatialmath.Pose, dst []float64) error {
	p, err := s.Model.Transform(copyInputs(q))
	if err != nil {
		return err
	}
	d := goal.Point().Sub(p.Point())
	dst[0], dst[1], dst[2] = d.X, d.Y, d.Z
	rv := rotVec(quat.Mul(goal.Orientation().Quaternion(), quat.Conj(p.Orientation().Quaternion())))
	dst[3], dst[4], dst[5] = rv[0]*s.RotWeight, rv[1]*s.RotWeight, rv[2]*s.RotWeight
	return nil
}

// rotVec is the rotation vector (axis·angle, rad) of unit quaternion q.
func rotVec(q quat.Number) [3]float64 {
	if q.Real < 0 {
		q = quat.Scale(-1, q)
	}
	v := math.Sqrt(q.Imag*q.Imag + q.Jmag*q.Jmag + q.Kmag*q.Kmag)
	if v < 1e-12 {
		return [3]float64{2 * q.Imag, 2 * q.Jmag, 2 * q.Kmag}
	}
	k := 2 * math.Atan2(v, q.Real) / v
	return [3]float64{k * q.Imag, k * q.Jmag, k * q.Kmag}
}

// Solve returns joint values (the model's units: rad for revolute, mm for
// prismatic) that put the end at goal, starting from seed, with the
// position and orientation error reached. It fails when the error stays
// above the tolerances after MaxIter steps (an unreachable goal or a
// singularity): the caller falls back or stops.
func (s *IK) Solve(seed []float64, goal spatialmath.Pose) (q []float64, posErrMM, rotErrRad float64, err error) {
	lim := s.Model.DoF()
	n := len(lim)
	if len(seed) != n {
		return nil, 0, 0, fmt.Errorf("ik: %d seed joints for a %d-joint model", len(seed), n)
	}
	q = append([]float64(nil), seed...)
	e := make([]float64, 6)
	ep, em := make([]float64, 6), make([]float64, 6)
	J := mat.NewDense(6, n, nil)
	A := mat.NewDense(6, 6, nil)
	var x mat.VecDense
	errs := func() (float64, float64) {
		return math.Hypot(math.Hypot(e[0], e[1]), e[2]), math.Hypot(math.Hypot(e[3], e[4]), e[5]) / s.RotWeight
	}
	for it := 0; ; it++ {
		if err := s.ikErr(q, goal, e); err != nil {
			return nil, 0, 0, err
		}
		posErrMM, rotErrRad = errs()
		if posErrMM <= s.TolMM && rotErrRad <= s.TolRad {
			return q, posErrMM, rotErrRad, nil
		}
		if it >= s.MaxIter {
			return q, posErrMM, rotErrRad, fmt.Errorf("ik: no solution within %g mm / %g rad after %d steps (left %.3g mm, %.3g rad)",
				s.TolMM, s.TolRad, s.MaxIter, posErrMM, rotErrRad)
		}
		// de/dq by central differences: J holds −de/dq = d(pose)/dq
		const h = 1e-6
		for j := range n {
			qj := q[j]
			q[j] = qj + h
			if err := s.ikErr(q, goal, ep); err != nil {
				return nil, 0, 0, err
			}
			q[j] = qj - h
			if err := s.ikErr(q, goal, em); err != nil {
				return nil, 0, 0, err
			}
			q[j] = qj
			for i := range 6 {
				J.Set(i, j, (em[i]-ep[i])/(2*h))
			}
		}
		// Δq = Jᵀ (J Jᵀ + λ² I)⁻¹ e
		A.Mul(J, J.T())
		for i := range 6 {
			A.Set(i, i, A.At(i, i)+s.Lambda*s.Lambda)
		}
		if err := x.SolveVec(A, mat.NewVecDense(6, append([]float64(nil), e...))); err != nil {
			return q, posErrMM, rotErrRad, fmt.Errorf("ik: %w", err)
		}
		var dq mat.VecDense
		dq.MulVec(J.T(), &x)
		for j := range n {
			q[j] = min(max(q[j]+dq.AtVec(j), lim[j].Min), lim[j].Max)
		}
	}
}

// copyInputs copies joint values: since rdk v0.75 referenceframe.Input is
// float64, and this replaces FloatsToInputs / InputsToFloats, which also
// returned a fresh slice.
func copyInputs(in []float64) []float64 { return append([]float64(nil), in...) }
