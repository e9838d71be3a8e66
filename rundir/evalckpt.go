package rundir

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vlmrb/vlmrb/sac"
)

// AgentCheckpoint is the checkpoint evaluation loads, and the newer ones
// it passed over.
type AgentCheckpoint struct {
	Dir      string
	Manifest *Manifest
	// Skipped lists each newer checkpoint that could not be used, with
	// the reason ("checkpoints/step-…: agent.bin checksum mismatch").
	Skipped []string
}

// maxManifestBytes bounds a manifest read (a real one is < 2 KB).
const maxManifestBytes = 1 << 20

// LatestAgentCheckpoint returns runDir's newest checkpoint whose manifest
// and agent.bin verify. Unlike LatestCheckpoint it reads nothing else:
// a damaged replay buffer does not stop an evaluation.
func LatestAgentCheckpoint(runDir string) (*AgentCheckpoint, error) {
	root := CheckpointRoot(runDir)
	steps, err := ListCheckpoints(root)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%s: %w (no checkpoints/ directory)", runDir, ErrNoCheckpoint)
		}
		return nil, err
	}
	ac := &AgentCheckpoint{}
	for _, s := range steps {
		dir := filepath.Join(root, CheckpointName(s))
		m, err := verifyAgentOnly(dir)
		if err == nil {
			ac.Dir, ac.Manifest = dir, m
			return ac, nil
		}
		ac.Skipped = append(ac.Skipped, err.Error())
	}
	if len(ac.Skipped) > 0 {
		return ac, fmt.Errorf("%s: %w (%s)", runDir, ErrNoCheckpoint, strings.Join(ac.Skipped, "; "))
	}
	return ac, fmt.Errorf("%s: %w", runDir, ErrNoCheckpoint)
}

func verifyAgentOnly(dir string) (*Manifest, error) {
	m, err := readManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("%s%w", filepath.Base(dir), err)
	}
	for _, f := range m.Files {
		if f.Name == "agent.bin" {
			if err := verifyFile(filepath.Join(dir, f.Name), f); err != nil {
				return nil, fmt.Errorf("%s: %w", filepath.Base(dir), err)
			}
			return m, nil
		}
	}
	return nil, fmt.Errorf("%s: manifest lists no agent.bin", filepath.Base(dir))
}

// LoadAgentCheckpoint is LoadAgent that also says which checkpoint it
// used and which newer ones it skipped, and why.
func LoadAgentCheckpoint(runDir string) (*sac.Agent, Config, *AgentCheckpoint, error) {
	cfg, err := loadRunConfig(runDir)
	if err != nil {
		return nil, cfg, nil, err
	}
	ac, err := LatestAgentCheckpoint(runDir)
	if err != nil {
		return nil, cfg, ac, &ConfigError{Msg: fmt.Sprintf("%v: train longer or let the run reach a checkpoint", err)}
	}
	b, err := ReadPart(ac.Dir, ac.Manifest, "agent.bin", MaxAgentBytes)
	if err != nil {
		return nil, cfg, ac, err
	}
	a, err := sac.Unmarshal(b)
	if err != nil {
		return nil, cfg, ac, fmt.Errorf("load agent from %s: %w", ac.Dir, err)
	}
	return a, cfg, ac, nil
}
