package vlmreward

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/vlmrb/vlmrb/internal/atomicfile"
	"github.com/vlmrb/vlmrb/internal/safefile"
	"github.com/vlmrb/vlmrb/nn"
)

const (
	modelMagic   = "VRWDMDL1"
	learnerMagic = "VRWDLRN1"
)

// MarshalBinary encodes the model (config, every member's parameters and
// Adam moments) in nn's checksummed container.
func (m *Model) MarshalBinary() ([]byte, error) {
	cfg, err := json.Marshal(m.Cfg)
	if err != nil {
		return nil, err
	}
	p := nn.AppendBytes(nil, cfg)
	for k, c := range m.Members {
		p = nn.AppendFloat32s(p, c.Params)
		p = nn.AppendFloat32s(p, m.opt[k].M)
		p = nn.AppendFloat32s(p, m.opt[k].V)
		p = nn.AppendBytes(p, fmt.Appendf(nil, "%d", m.opt[k].T))
	}
	p = nn.AppendBytes(p, fmt.Appendf(nil, "%d", m.Updates))
	return nn.Seal(modelMagic, 1, p), nil
}

// Save writes the model to path atomically (see MarshalBinary).
func (m *Model) Save(path string) error {
	b, err := m.MarshalBinary()
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(path, b)
}

// LoadModel reads a model written by Save. The RNG restarts from the
// saved seed (stratified batch orders after a resume differ).
func LoadModel(path string) (*Model, error) {
	data, err := safefile.ReadFile(path, maxModelFile)
	if err != nil {
		return nil, err
	}
	m, err := UnmarshalModel(data)
	if err != nil {
		return nil, fmt.Errorf("vlmreward: %s: %w", path, err)
	}
	return m, nil
}

// maxModelFile bounds the file LoadModel reads.
const maxModelFile = 1 << 30

// UnmarshalModel decodes a model encoded by MarshalBinary.
func UnmarshalModel(data []byte) (*Model, error) {
	r, err := openV1(modelMagic, "reward-model", data)
	if err != nil {
		return nil, err
	}
	var cfg ModelConfig
	if err := json.Unmarshal(r.Bytes(), &cfg); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	// the header's shapes must be in bounds and their parameters and
	// optimiser moments in the data before NewModel allocates them
	np, err := cnnParams(cfg.CNN)
	if err != nil {
		return nil, err
	}
	if cfg.Ensemble < 1 || cfg.Ensemble > MaxEnsemble {
		return nil, fmt.Errorf("vlmreward: ensemble of %d members (1..%d)", cfg.Ensemble, MaxEnsemble)
	}
	if need := int64(cfg.Ensemble) * 12 * int64(np); int64(r.Remaining()) < need {
		return nil, fmt.Errorf("vlmreward: the header declares %d members of %d parameters (%d bytes), %d bytes follow", cfg.Ensemble, np, need, r.Remaining())
	}
	m, err := NewModel(cfg)
	if err != nil {
		return nil, err
	}
	for k, c := range m.Members {
		r.Float32s(c.Params)
		r.Float32s(m.opt[k].M)
		r.Float32s(m.opt[k].V)
		if _, err := fmt.Sscan(string(r.Bytes()), &m.opt[k].T); err != nil {
			return nil, fmt.Errorf("member %d optimiser step: %w (the file is damaged; retrain or restore a backup)", k, err)
		}
	}
	if _, err := fmt.Sscan(string(r.Bytes()), &m.Updates); err != nil {
		return nil, fmt.Errorf("update count: %w (the file is damaged; retrain or restore a backup)", err)
	}
	if err := r.Done(); err != nil {
		return nil, err
	}
	return m, nil
}

// learnerState is the JSON part of a Learner checkpoint.
type learnerState struct {
	Stats   LearnerStats
	Trained bool
	// Dataset ring position
	Next, Size int
	Total      int64
	Labels     []int
	// Relabeler/RewardTable slots in use
	Slots int
	// Relabeler's reward transform
	Shift, Scale float64
}

// MarshalBinary encodes what a Learner has learned and stored: the reward
// model, the rating dataset, every slot's frame and reward (Relabeler and
// RewardTable) and the counters. The recent episodes' query candidates
// are not kept: after a restore, queries come from the episodes that
// follow it.
func (l *Learner) MarshalBinary() ([]byte, error) {
	mb, err := l.Model.MarshalBinary()
	if err != nil {
		return nil, err
	}
	d, rl, t := l.Data, l.Relabel, l.Relabel.Table
	st := learnerState{Stats: l.Stats, Trained: l.trained, Next: d.next, Size: d.size, Total: d.total,
		Labels: d.labels[:d.size], Slots: len(rl.has), Shift: rl.shift, Scale: rl.scale}
	sj, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	rl.mu.Lock()
	defer rl.mu.Unlock()
	t.mu.RLock()
	defer t.mu.RUnlock()
	p := nn.AppendBytes(nil, sj)
	p = nn.AppendBytes(p, mb)
	p = nn.AppendBytes(p, d.imgs[:d.size*d.dim])
	// slots with a frame: slot, generation, frame; then every table entry
	n := 0
	for _, ok := range rl.has {
		if ok {
			n++
		}
	}
	p = binary.LittleEndian.AppendUint64(p, uint64(n))
	for s, ok := range rl.has {
		if ok {
			p = binary.LittleEndian.AppendUint32(p, uint32(s))
			p = binary.LittleEndian.AppendUint32(p, rl.gens[s])
			p = append(p, rl.imgs[s*rl.dim:(s+1)*rl.dim]...)
		}
	}
	p = t.appendLocked(p)
	return nn.Seal(learnerMagic, 1, p), nil
}

// UnmarshalBinary restores state written by MarshalBinary into a Learner
// built with the same configuration and replay capacity.
func (l *Learner) UnmarshalBinary(data []byte) error {
	r, err := openV1(learnerMagic, "reward-learner", data)
	if err != nil {
		return err
	}
	var st learnerState
	if err := json.Unmarshal(r.Bytes(), &st); err != nil {
		return fmt.Errorf("reward learner state: %w", err)
	}
	m, err := UnmarshalModel(r.Bytes())
	if err != nil {
		return fmt.Errorf("reward model: %w", err)
	}
	d, rl := l.Data, l.Relabel
	if m.InputLen() != l.Model.InputLen() || m.Cfg.Classes != l.Model.Cfg.Classes {
		return errors.New("the saved reward model has another frame size or class count than this run's config")
	}
	if st.Slots != len(rl.has) || st.Size > d.cap || st.Next >= d.cap || len(st.Labels) != st.Size {
		return errors.New("the saved reward learner was sized for another replay or dataset capacity")
	}
	imgs := r.Bytes()
	if len(imgs) != st.Size*d.dim {
		return errors.New("reward learner: rating dataset images truncated")
	}
	n := int(r.Uint64())
	if r.Err() != nil || n > len(rl.has) {
		return errors.New("reward learner: bad frame count")
	}
	// decode into fresh storage so a failure leaves the learner as it was
	has := make([]bool, len(rl.has))
	gens := make([]uint32, len(rl.gens))
	frames := make([]uint8, len(rl.imgs))
	for range n {
		s := int(r.Uint32())
		g := r.Uint32()
		if r.Err() != nil || s < 0 || s >= len(has) {
			return errors.New("reward learner: bad slot in frame table")
		}
		for i := range rl.dim {
			frames[s*rl.dim+i] = r.Byte()
		}
		has[s], gens[s] = true, g
	}
	t := rl.Table
	tg, tset, trew := t.read(r)
	if err := r.Done(); err != nil {
		return fmt.Errorf("reward learner: %w", err)
	}
	for _, y := range st.Labels {
		if y < 0 || y >= d.n {
			return fmt.Errorf("reward learner: label %d outside %d classes", y, d.n)
		}
	}
	l.Model = m
	copy(d.imgs, imgs)
	copy(d.labels, st.Labels)
	d.next, d.size, d.total = st.Next, st.Size, st.Total
	rl.mu.Lock()
	rl.has, rl.gens, rl.imgs = has, gens, frames
	rl.shift, rl.scale = st.Shift, st.Scale
	if !(rl.scale > 0) { // written before the transform existed
		rl.shift, rl.scale = 0, 1
	}
	rl.mu.Unlock()
	t.mu.Lock()
	t.gen, t.set, t.reward = tg, tset, trew
	t.mu.Unlock()
	l.Stats, l.trained = st.Stats, st.Trained
	return nil
}

// appendLocked appends every slot's generation, set flag and reward
// (t.mu held for reading).
func (t *RewardTable) appendLocked(p []byte) []byte {
	for s := range t.gen {
		p = binary.LittleEndian.AppendUint32(p, t.gen[s])
		set := byte(0)
		if t.set[s] {
			set = 1
		}
		p = append(p, set)
		p = binary.LittleEndian.AppendUint32(p, math.Float32bits(t.reward[s]))
	}
	return p
}

// read decodes a table of t's size written by appendLocked.
func (t *RewardTable) read(r *nn.Reader) (gen []uint32, set []bool, reward []float32) {
	gen, set, reward = make([]uint32, len(t.gen)), make([]bool, len(t.set)), make([]float32, len(t.reward))
	for s := range gen {
		gen[s] = r.Uint32()
		set[s] = r.Byte() == 1
		reward[s] = math.Float32frombits(r.Uint32())
	}
	return gen, set, reward
}

const tableMagic = "VRWDTAB1"

// MarshalBinary encodes the table (for checkpoints).
func (t *RewardTable) MarshalBinary() ([]byte, error) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	p := binary.LittleEndian.AppendUint64(nil, uint64(len(t.gen)))
	return nn.Seal(tableMagic, 1, t.appendLocked(p)), nil
}

// UnmarshalBinary restores a table of the same capacity written by
// MarshalBinary; on error t is unchanged.
func (t *RewardTable) UnmarshalBinary(data []byte) error {
	r, err := openV1(tableMagic, "reward-table", data)
	if err != nil {
		return err
	}
	if n := r.Uint64(); n != uint64(len(t.gen)) {
		return fmt.Errorf("the saved reward table has %d slots, this run's replay has %d", n, len(t.gen))
	}
	gen, set, reward := t.read(r)
	if err := r.Done(); err != nil {
		return fmt.Errorf("reward table: %w", err)
	}
	t.mu.Lock()
	t.gen, t.set, t.reward = gen, set, reward
	t.mu.Unlock()
	return nil
}

// openV1 checks a sealed container's magic, checksum and version (1) and
// returns a reader over its payload.
func openV1(magic, what string, data []byte) (*nn.Reader, error) {
	ver, payload, err := nn.Unseal(magic, data)
	if err != nil {
		return nil, err
	}
	if ver != 1 {
		return nil, fmt.Errorf("unsupported %s version %d", what, ver)
	}
	return nn.NewReader(payload), nil
}
