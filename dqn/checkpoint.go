package dqn

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"

	"github.com/vlmrb/vlmrb/internal/atomicfile"
	"github.com/vlmrb/vlmrb/internal/safefile"
	"github.com/vlmrb/vlmrb/nn"
)

// Checkpoint file (see nn.Seal): magic "VLMRBDQN", version 1, CRC-32C.
// Payload, in order: Config as JSON; obsDim, nActions (u32); Update count
// (u64); the online network's first layer and rest, then the target's
// (nn.MLP encodings); the two optimisers (nn.Adam encodings); the PCG
// state; the last Metrics (4 float64).
const (
	ckptMagic   = "VLMRBDQN"
	ckptVersion = 1
)

// MarshalBinary encodes everything needed to resume training
// bit-identically: networks, optimiser state, the random generator's
// state, the update count and the Config.
func (a *Agent) MarshalBinary() ([]byte, error) {
	cfg, err := json.Marshal(a.cfg)
	if err != nil {
		return nil, err
	}
	b := nn.AppendBytes(nil, cfg)
	b = binary.LittleEndian.AppendUint32(b, uint32(a.obsDim))
	b = binary.LittleEndian.AppendUint32(b, uint32(a.nActions))
	b = binary.LittleEndian.AppendUint64(b, uint64(a.updates))
	for _, m := range []*nn.MLP{a.q.first, a.q.rest, a.qt.first, a.qt.rest} {
		p, _ := m.MarshalBinary()
		b = nn.AppendBytes(b, p)
	}
	for _, o := range a.opt {
		p, _ := o.MarshalBinary()
		b = nn.AppendBytes(b, p)
	}
	r, err := a.pcg.MarshalBinary()
	if err != nil {
		return nil, err
	}
	b = nn.AppendBytes(b, r)
	m := a.last
	for _, v := range []float64{m.TDLoss, m.QValues, m.Target, m.GradNorm} {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
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
	obs, acts := int(r.Uint32()), int(r.Uint32())
	updates := int64(r.Uint64())
	if r.Err() != nil {
		return nil, r.Err()
	}
	// shapes within bounds and their parameters (online and target
	// networks, two Adam moments) in the data before New allocates them
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", nn.ErrFormat, err)
	}
	np, err := c.netParams(obs, acts)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", nn.ErrFormat, err)
	}
	if need := 16 * int64(np); int64(r.Remaining()) < need {
		return nil, fmt.Errorf("%w: header declares obs %d, %d actions, hidden %v (%d bytes of networks and optimisers), but %d bytes follow",
			nn.ErrFormat, obs, acts, c.Hidden, need, r.Remaining())
	}
	a, err := New(cfg, obs, acts)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", nn.ErrFormat, err)
	}
	a.updates = updates
	for i, m := range []*nn.MLP{a.q.first, a.q.rest, a.qt.first, a.qt.rest} {
		var got nn.MLP
		if err := got.UnmarshalBinary(r.Bytes()); err != nil {
			return nil, fmt.Errorf("dqn: checkpoint network %d: %w", i, err)
		}
		if len(got.Params) != len(m.Params) {
			return nil, fmt.Errorf("%w: network %d has %d parameters, config implies %d", nn.ErrFormat, i, len(got.Params), len(m.Params))
		}
		m.CopyFrom(&got)
	}
	for i, o := range a.opt {
		var got nn.Adam
		if err := got.UnmarshalBinary(r.Bytes()); err != nil {
			return nil, fmt.Errorf("dqn: checkpoint optimiser %d: %w", i, err)
		}
		if len(got.M) != len(o.M) {
			return nil, fmt.Errorf("%w: optimiser %d has %d moments, want %d", nn.ErrFormat, i, len(got.M), len(o.M))
		}
		*o = got
	}
	if err := a.pcg.UnmarshalBinary(r.Bytes()); err != nil && r.Err() == nil {
		return nil, fmt.Errorf("%w: rng state: %v", nn.ErrFormat, err)
	}
	m := &a.last
	for _, f := range []*float64{&m.TDLoss, &m.QValues, &m.Target, &m.GradNorm} {
		*f = r.Float64()
	}
	if err := r.Done(); err != nil {
		return nil, err
	}
	return a, nil
}

// MaxCheckpointBytes bounds the agent file Load reads.
const MaxCheckpointBytes = 2 << 30

// Save writes a checkpoint to path atomically (temporary file, fsync,
// rename).
func (a *Agent) Save(path string) error {
	b, err := a.MarshalBinary()
	if err != nil {
		return fmt.Errorf("dqn: save %s: %w", path, err)
	}
	if err := atomicfile.WriteBytes(path, b); err != nil {
		return fmt.Errorf("dqn: save %s: %w", path, err)
	}
	return nil
}

// Load reads a checkpoint written by Save and returns an agent that
// continues exactly where the saved one stopped.
func Load(path string) (*Agent, error) {
	data, err := safefile.ReadFile(path, MaxCheckpointBytes)
	if err != nil {
		return nil, fmt.Errorf("dqn: load: %w", err)
	}
	a, err := Unmarshal(data)
	if err != nil {
		return nil, fmt.Errorf("dqn: load %s: %w", path, err)
	}
	return a, nil
}
