package sac

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"

	"github.com/vlmrb/vlmrb/internal/atomicfile"
	"github.com/vlmrb/vlmrb/internal/safefile"
	"github.com/vlmrb/vlmrb/nn"
)

// Checkpoint file (see nn.Seal): magic "VLMRBSAC", version 1, CRC-32C.
// Payload, in order: Config as JSON; obsDim, actDim (u32); Update count
// (u64); log α; actor, critic 1, critic 2, target 1, target 2 (nn.MLP
// encodings); actor, critic 1, critic 2 and α optimisers (nn.Adam
// encodings); the PCG state; the last Metrics (8 float64 and a flag).
const (
	ckptMagic   = "VLMRBSAC"
	ckptVersion = 1
)

// MarshalBinary encodes everything needed to resume training
// bit-identically: networks, targets, optimiser state, α, the random
// generator's state, the update count and the Config.
func (a *Agent) MarshalBinary() ([]byte, error) {
	cfg, err := json.Marshal(a.cfg)
	if err != nil {
		return nil, err
	}
	b := nn.AppendBytes(nil, cfg)
	b = binary.LittleEndian.AppendUint32(b, uint32(a.obsDim))
	b = binary.LittleEndian.AppendUint32(b, uint32(a.actDim))
	b = binary.LittleEndian.AppendUint64(b, uint64(a.updates))
	b = nn.AppendFloat32s(b, a.logAlpha)
	for _, m := range []*nn.MLP{a.actor, a.q[0], a.q[1], a.qt[0], a.qt[1]} {
		p, _ := m.MarshalBinary()
		b = nn.AppendBytes(b, p)
	}
	for _, o := range []*nn.Adam{a.actorOpt, a.qOpt[0], a.qOpt[1], a.alphaOpt} {
		p, _ := o.MarshalBinary()
		b = nn.AppendBytes(b, p)
	}
	r, err := a.pcg.MarshalBinary()
	if err != nil {
		return nil, err
	}
	b = nn.AppendBytes(b, r)
	m := a.last
	for _, v := range []float64{m.QF1Loss, m.QF2Loss, m.QF1Value, m.QF2Value, m.ActorLoss, m.AlphaLoss, m.Alpha, m.Entropy} {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	flag := byte(0)
	if m.ActorUpdated {
		flag = 1
	}
	b = append(b, flag)
	return nn.Seal(ckptMagic, ckptVersion, b), nil
}

// Unmarshal decodes a checkpoint made by MarshalBinary into a new Agent.
// A truncated, corrupted or mismatched checkpoint is an error wrapping
// nn.ErrFormat.
func Unmarshal(data []byte) (*Agent, error) {
	v, p, err := nn.Unseal(ckptMagic, data)
	if err != nil {
		return nil, err
	}
	if v != ckptVersion {
		return nil, fmt.Errorf("%w: checkpoint version %d, this build reads %d", nn.ErrFormat, v, ckptVersion)
	}
	r := nn.NewReader(p)
	var cfg Config
	if err := json.Unmarshal(r.Bytes(), &cfg); err != nil && r.Err() == nil {
		return nil, fmt.Errorf("%w: config: %v", nn.ErrFormat, err)
	}
	obs, act := int(r.Uint32()), int(r.Uint32())
	updates := int64(r.Uint64())
	if r.Err() != nil {
		return nil, r.Err()
	}
	// the header's shapes must fit the bounds and the data that follows
	// before New allocates them: five networks' parameters and three
	// optimisers' two moments each are in the payload
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", nn.ErrFormat, err)
	}
	na, nq, err := c.netParams(obs, act)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", nn.ErrFormat, err)
	}
	if need := 4*(int64(na)+4*int64(nq)) + 8*(int64(na)+2*int64(nq)); int64(r.Remaining()) < need {
		return nil, fmt.Errorf("%w: header declares obs %d, act %d, hidden %v (%d bytes of networks and optimisers), but %d bytes follow",
			nn.ErrFormat, obs, act, c.Hidden, need, r.Remaining())
	}
	a, err := New(cfg, obs, act)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", nn.ErrFormat, err)
	}
	a.updates = updates
	r.Float32s(a.logAlpha)
	nets := []*nn.MLP{a.actor, a.q[0], a.q[1], a.qt[0], a.qt[1]}
	for i, m := range nets {
		var got nn.MLP
		if err := got.UnmarshalBinary(r.Bytes()); err != nil {
			a.Close()
			return nil, fmt.Errorf("sac: checkpoint network %d: %w", i, err)
		}
		if len(got.Params) != len(m.Params) {
			a.Close()
			return nil, fmt.Errorf("%w: network %d has %d parameters, config implies %d", nn.ErrFormat, i, len(got.Params), len(m.Params))
		}
		m.CopyFrom(&got)
	}
	opts := []*nn.Adam{a.actorOpt, a.qOpt[0], a.qOpt[1], a.alphaOpt}
	for i, o := range opts {
		var got nn.Adam
		if err := got.UnmarshalBinary(r.Bytes()); err != nil {
			a.Close()
			return nil, fmt.Errorf("sac: checkpoint optimiser %d: %w", i, err)
		}
		if len(got.M) != len(o.M) {
			a.Close()
			return nil, fmt.Errorf("%w: optimiser %d has %d moments, want %d", nn.ErrFormat, i, len(got.M), len(o.M))
		}
		*o = got
	}
	if err := a.pcg.UnmarshalBinary(r.Bytes()); err != nil && r.Err() == nil {
		a.Close()
		return nil, fmt.Errorf("%w: rng state: %v", nn.ErrFormat, err)
	}
	m := &a.last
	for _, f := range []*float64{&m.QF1Loss, &m.QF2Loss, &m.QF1Value, &m.QF2Value, &m.ActorLoss, &m.AlphaLoss, &m.Alpha, &m.Entropy} {
		*f = r.Float64()
	}
	m.ActorUpdated = r.Byte() == 1
	if err := r.Done(); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// MaxCheckpointBytes bounds the agent file Load reads: five networks and
// three optimisers of nn.MaxParams each fit.
const MaxCheckpointBytes = 4 << 30

// Save writes a checkpoint to path atomically (temporary file, fsync,
// rename), so an interrupted save leaves the previous checkpoint intact.
func (a *Agent) Save(path string) error {
	b, err := a.MarshalBinary()
	if err != nil {
		return fmt.Errorf("sac: save %s: %w", path, err)
	}
	if err := atomicfile.WriteBytes(path, b); err != nil {
		return fmt.Errorf("sac: save %s: %w", path, err)
	}
	return nil
}

// Load reads a checkpoint written by Save and returns an agent that
// continues exactly where the saved one stopped. The saved Config is used
// as is (Threads included).
func Load(path string) (*Agent, error) {
	data, err := safefile.ReadFile(path, MaxCheckpointBytes)
	if err != nil {
		return nil, fmt.Errorf("sac: load: %w", err)
	}
	a, err := Unmarshal(data)
	if err != nil {
		return nil, fmt.Errorf("sac: load %s: %w", path, err)
	}
	return a, nil
}
