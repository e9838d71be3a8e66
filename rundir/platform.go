package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/vlmrb/vlmrb/internal/atomicfile"
	"github.com/vlmrb/vlmrb/internal/platform"
	"github.com/vlmrb/vlmrb/internal/safefile"
	"github.com/vlmrb/vlmrb/nn"
)

// PlatformFile, in a run directory, lists every session of the run (the
// first start and each resume) with the machine, build and BLAS kernel it
// ran on: a run is a function of its config and seed only for a fixed BLAS
// kernel, so a reader can tell whether two runs (or two halves of one)
// are comparable bit for bit.
const PlatformFile = "platform.json"

// PlatformSession is one entry of PlatformFile.
type PlatformSession struct {
	Start time.Time `json:"start"`
	Step  int64     `json:"step"` // env step the session started from (0, or the checkpoint's)
	platform.Info
}

// maxPlatformFile bounds what recordPlatform reads back (a session is
// ≈ 0.5 kB; a run resumed thousands of times stays far below it).
const maxPlatformFile = 4 << 20

// SaveRunRecord writes dir's config.yaml and appends this session to its
// PlatformFile; man is the checkpoint the run resumes from (nil: fresh).
func SaveRunRecord(dir string, cfg *Config, man *Manifest) error {
	if err := SaveConfig(filepath.Join(dir, "config.yaml"), cfg); err != nil {
		return err
	}
	var step int64
	if man != nil {
		step = man.Step
	}
	return recordPlatform(dir, cfg.BLAS, step)
}

// recordPlatform appends this session to dir's PlatformFile. blas is the
// run's blas setting, recorded as the backend it resolves to (the run
// selects it after preparing its directory).
func recordPlatform(dir, blas string, step int64) error {
	path := filepath.Join(dir, PlatformFile)
	var sessions []PlatformSession
	b, err := safefile.ReadFile(path, maxPlatformFile)
	switch {
	case errors.Is(err, safefile.ErrTooLarge):
		return fmt.Errorf("%s is more than %d bytes, more than a run's record can be; move it away to start a new one", path, maxPlatformFile)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if err == nil {
		if err := json.Unmarshal(b, &sessions); err != nil {
			return fmt.Errorf("%s: %w (move it away to start a new record)", path, err)
		}
	}
	s := PlatformSession{Start: time.Now().UTC(), Step: step, Info: platform.Describe(platform.BLAS(nn.Library()))}
	if b, err := nn.ResolveBackend(blas); err == nil {
		s.BLAS.Backend = b
	}
	b, err = json.MarshalIndent(append(sessions, s), "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(path, append(b, '\n'))
}
