package vlmreward

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/vlmrb/vlmrb/internal/atomicfile"
	"github.com/vlmrb/vlmrb/nn"
)

const modelMagic = "VRWDMDL1"

// Save writes the model (config, every member's parameters and Adam
// moments) to path atomically in nn's checksummed container.
func (m *Model) Save(path string) error {
	cfg, err := json.Marshal(m.Cfg)
	if err != nil {
		return err
	}
	p := nn.AppendBytes(nil, cfg)
	for k, c := range m.Members {
		p = nn.AppendFloat32s(p, c.Params)
		p = nn.AppendFloat32s(p, m.opt[k].M)
		p = nn.AppendFloat32s(p, m.opt[k].V)
		p = nn.AppendBytes(p, fmt.Appendf(nil, "%d", m.opt[k].T))
	}
	p = nn.AppendBytes(p, fmt.Appendf(nil, "%d", m.Updates))
	return atomicfile.WriteBytes(path, nn.Seal(modelMagic, 1, p))
}

// LoadModel reads a model written by Save. The RNG restarts from the
// saved seed (stratified batch orders after a resume differ).
func LoadModel(path string) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ver, payload, err := nn.Unseal(modelMagic, data)
	if err != nil {
		return nil, fmt.Errorf("vlmreward: %s: %w", path, err)
	}
	if ver != 1 {
		return nil, fmt.Errorf("vlmreward: %s: unsupported version %d", path, ver)
	}
	r := nn.NewReader(payload)
	var cfg ModelConfig
	if err := json.Unmarshal(r.Bytes(), &cfg); err != nil {
		return nil, fmt.Errorf("vlmreward: %s: config: %w", path, err)
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
			return nil, fmt.Errorf("vlmreward: %s: member %d optimiser step: %w (the file is damaged; retrain or restore a backup)", path, k, err)
		}
	}
	if _, err := fmt.Sscan(string(r.Bytes()), &m.Updates); err != nil {
		return nil, fmt.Errorf("vlmreward: %s: update count: %w (the file is damaged; retrain or restore a backup)", path, err)
	}
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("vlmreward: %s: %w", path, err)
	}
	return m, nil
}
