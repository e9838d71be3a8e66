package rundir

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/vlmrb/vlmrb/internal/atomicfile"
	"github.com/vlmrb/vlmrb/internal/safefile"
)

// ManifestVersion is the checkpoint manifest format version.
const ManifestVersion = 1

// ManifestFile records one file of a checkpoint.
type ManifestFile struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Manifest describes a complete checkpoint. It is written last; a
// checkpoint directory without a manifest whose files all verify is
// incomplete and never resumed from.
type Manifest struct {
	Version  int              `json:"version"`
	Step     int64            `json:"step"`     // env steps taken (all envs)
	Updates  int64            `json:"updates"`  // gradient updates
	Episodes int64            `json:"episodes"` // finished training episodes
	Counters map[string]int64 `json:"counters,omitempty"`
	// RNG holds each random stream's state (MarshalBinary, hex).
	RNG     map[string]string `json:"rng,omitempty"`
	Elapsed float64           `json:"elapsed_s"` // training wall time so far (s)
	Created time.Time         `json:"created"`
	Files   []ManifestFile    `json:"files"`
}

// CheckpointPart is one file of a checkpoint and the function that writes it.
type CheckpointPart struct {
	Name  string
	Write func(w io.Writer) error
}

const ckptPrefix = "step-"

// CheckpointName is the directory name of the checkpoint at env step step.
func CheckpointName(step int64) string { return fmt.Sprintf("%s%012d", ckptPrefix, step) }

// CheckpointRoot is where a run keeps its checkpoints.
func CheckpointRoot(runDir string) string { return filepath.Join(runDir, "checkpoints") }

type countingHash struct {
	w io.Writer
	h hash.Hash
	n int64
}

func (c *countingHash) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.h.Write(p[:n])
	c.n += int64(n)
	return n, err
}

// SaveCheckpoint writes parts and then the manifest m into
// RUN_DIR/checkpoints/step-N, each file atomically, and then removes all
// but the newest keep complete checkpoints (and any incomplete ones).
// It returns the checkpoint directory.
func SaveCheckpoint(runDir string, m *Manifest, parts []CheckpointPart, keep int) (string, error) {
	root := CheckpointRoot(runDir)
	dir, err := WriteCheckpointDir(root, CheckpointName(m.Step), m, parts)
	if err != nil {
		return "", err
	}
	return dir, pruneCheckpoints(root, m.Step, keep)
}

// WriteCheckpointDir writes parts and their manifest into root/name: into
// a hidden directory first, renamed into place when complete, so an
// existing checkpoint of that name stays whole until then.
func WriteCheckpointDir(root, name string, m *Manifest, parts []CheckpointPart) (string, error) {
	dir := filepath.Join(root, name)
	tmp := filepath.Join(root, ".tmp-"+name)
	// checkpoints are deleted and replaced here: never through a link
	if err := safefile.CheckDir(filepath.Dir(root), tmp); err != nil {
		return "", fmt.Errorf("checkpoint: %w", err)
	}
	if err := safefile.CheckDir(filepath.Dir(root), dir); err != nil {
		return "", fmt.Errorf("checkpoint: %w", err)
	}
	if err := os.RemoveAll(tmp); err != nil {
		return "", fmt.Errorf("checkpoint: clear %s: %w", tmp, err)
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return "", fmt.Errorf("checkpoint: %w", err)
	}
	m.Version = ManifestVersion
	m.Created = time.Now().UTC()
	m.Files = m.Files[:0]
	for _, p := range parts {
		var ch *countingHash
		err := atomicfile.Write(filepath.Join(tmp, p.Name), 0o644, func(w io.Writer) error {
			ch = &countingHash{w: w, h: sha256.New()}
			return p.Write(ch)
		})
		if err != nil {
			return "", fmt.Errorf("checkpoint %s: %w", p.Name, err)
		}
		m.Files = append(m.Files, ManifestFile{Name: p.Name, Size: ch.n, SHA256: hex.EncodeToString(ch.h.Sum(nil))})
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return "", fmt.Errorf("checkpoint manifest: %w", err)
	}
	if err := atomicfile.WriteBytes(filepath.Join(tmp, "manifest.json"), append(b, '\n')); err != nil {
		return "", err
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", fmt.Errorf("checkpoint: replace %s: %w", dir, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", fmt.Errorf("checkpoint: %w", err)
	}
	return dir, atomicfile.SyncDir(root)
}

// BestName is the checkpoint directory (under checkpoints/) that holds the
// agent of the evaluation with the highest success rate so far (ties:
// the higher mean return; then the earlier step), with its eval.json.
const BestName = "best"

// ListCheckpoints returns the step numbers of checkpoint directories, newest first.
func ListCheckpoints(root string) ([]int64, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var steps []int64
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), ckptPrefix) {
			continue
		}
		s, err := strconv.ParseInt(strings.TrimPrefix(e.Name(), ckptPrefix), 10, 64)
		if err == nil {
			steps = append(steps, s)
		}
	}
	sort.Slice(steps, func(i, j int) bool { return steps[i] > steps[j] })
	return steps, nil
}

func pruneCheckpoints(root string, current int64, keep int) error {
	steps, err := ListCheckpoints(root)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	// hidden directories of saves that were killed before their rename
	if ents, err := os.ReadDir(root); err == nil {
		for _, e := range ents {
			if e.IsDir() && strings.HasPrefix(e.Name(), ".tmp-") {
				if err := os.RemoveAll(filepath.Join(root, e.Name())); err != nil {
					return fmt.Errorf("checkpoint: remove %s: %w", e.Name(), err)
				}
			}
		}
	}
	kept := 0
	for _, s := range steps {
		dir := filepath.Join(root, CheckpointName(s))
		if s <= current && kept < keep {
			if _, err := VerifyCheckpoint(dir); err == nil {
				kept++
				continue
			}
		}
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("checkpoint: remove old %s: %w", dir, err)
		}
	}
	return nil
}

// VerifyCheckpoint reads dir's manifest and checks every file's size and
// SHA-256. It returns the manifest when the checkpoint is complete.
func VerifyCheckpoint(dir string) (*Manifest, error) {
	m, err := readManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s%w", dir, err)
	}
	for _, f := range m.Files {
		if err := verifyFile(filepath.Join(dir, f.Name), f); err != nil {
			return nil, fmt.Errorf("checkpoint %s: %w", dir, err)
		}
	}
	return m, nil
}

// Bounds on what a checkpoint's manifest may declare, checked before a
// file is read: a part is at most MaxPartBytes (a replay buffer of a
// million 100-value observations is 1 GB); one read into memory whole
// (agent.bin, reward.bin, state.json) at most MaxAgentBytes.
const (
	MaxPartBytes  = 64 << 30
	MaxAgentBytes = 4 << 30
	MaxStateBytes = 64 << 20 // state.json
	maxParts      = 64       // files listed in one manifest
)

// errBadManifest marks a manifest that lies about its files.
var errBadManifest = errors.New("corrupt manifest")

// readManifest reads and checks dir's manifest.json (errors start with
// ": " for the caller's prefix): at most maxManifestBytes, a regular
// file, plain file names, sizes within MaxPartBytes.
func readManifest(dir string) (*Manifest, error) {
	b, err := safefile.ReadFile(filepath.Join(dir, "manifest.json"), maxManifestBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf(" has no manifest (incomplete): %w", err)
	}
	if err != nil {
		return nil, fmt.Errorf(": %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf(": %w: %v", errBadManifest, err)
	}
	if m.Version != ManifestVersion {
		return nil, fmt.Errorf(": manifest version %d, this build reads %d", m.Version, ManifestVersion)
	}
	if len(m.Files) > maxParts {
		return nil, fmt.Errorf(": %w: %d files listed (at most %d)", errBadManifest, len(m.Files), maxParts)
	}
	for _, f := range m.Files {
		if f.Name == "" || f.Name == "." || f.Name == ".." || strings.ContainsAny(f.Name, `/\`) || f.Name == "manifest.json" {
			return nil, fmt.Errorf(": %w: file name %q", errBadManifest, f.Name)
		}
		if f.Size < 0 || f.Size > MaxPartBytes {
			return nil, fmt.Errorf(": %w: %s of %d bytes (a part is at most %d)", errBadManifest, f.Name, f.Size, int64(MaxPartBytes))
		}
	}
	return &m, nil
}

// verifyFile checks the file at path against its manifest entry: a
// regular file (a link to one is followed; a FIFO, device or directory is
// refused without reading), of the recorded size (checked before
// reading), with the recorded SHA-256 (at most Size bytes are read).
func verifyFile(path string, mf ManifestFile) error {
	f, err := safefile.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = hashPart(f, mf)
	return err
}

// hashPart checks f, opened by safefile.Open, against mf and returns the
// file's bytes when keep is set by ReadPart.
func hashPart(f *os.File, mf ManifestFile) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() != mf.Size {
		return nil, fmt.Errorf("%s is %d bytes, manifest says %d", mf.Name, st.Size(), mf.Size)
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, mf.Size+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", mf.Name, err)
	}
	if n != mf.Size {
		return nil, fmt.Errorf("%s is %d bytes, manifest says %d", mf.Name, n, mf.Size)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != mf.SHA256 {
		return nil, fmt.Errorf("%s checksum mismatch", mf.Name)
	}
	return nil, nil
}

// ReadPart reads checkpoint dir's file name whole, as its manifest entry
// declares it (size at most limit, checked before allocating; SHA-256
// checked on the bytes returned, so the data used is the data verified).
func ReadPart(dir string, man *Manifest, name string, limit int64) ([]byte, error) {
	var mf *ManifestFile
	for i := range man.Files {
		if man.Files[i].Name == name {
			mf = &man.Files[i]
		}
	}
	if mf == nil {
		return nil, fmt.Errorf("checkpoint %s: manifest lists no %s", dir, name)
	}
	if mf.Size > limit {
		return nil, fmt.Errorf("checkpoint %s: %s of %d bytes is over the limit of %d for it", dir, name, mf.Size, limit)
	}
	b, err := safefile.ReadFile(filepath.Join(dir, name), mf.Size)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", dir, err)
	}
	if int64(len(b)) != mf.Size {
		return nil, fmt.Errorf("checkpoint %s: %s is %d bytes, manifest says %d", dir, name, len(b), mf.Size)
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != mf.SHA256 {
		return nil, fmt.Errorf("checkpoint %s: %s checksum mismatch", dir, name)
	}
	return b, nil
}

// ErrNoCheckpoint means a run directory holds no complete checkpoint.
var ErrNoCheckpoint = errors.New("no complete checkpoint")

// LatestCheckpoint returns the newest complete checkpoint of runDir.
// Incomplete or corrupt ones (a run killed while writing) are skipped.
func LatestCheckpoint(runDir string) (string, *Manifest, error) {
	root := CheckpointRoot(runDir)
	steps, err := ListCheckpoints(root)
	if err != nil {
		if os.IsNotExist(err) {
			return "", nil, fmt.Errorf("%s: %w (no checkpoints/ directory)", runDir, ErrNoCheckpoint)
		}
		return "", nil, err
	}
	var reasons []string
	for _, s := range steps {
		dir := filepath.Join(root, CheckpointName(s))
		m, err := VerifyCheckpoint(dir)
		if err == nil {
			return dir, m, nil
		}
		reasons = append(reasons, err.Error())
	}
	if len(reasons) > 0 {
		return "", nil, fmt.Errorf("%s: %w (%s)", runDir, ErrNoCheckpoint, strings.Join(reasons, "; "))
	}
	return "", nil, fmt.Errorf("%s: %w", runDir, ErrNoCheckpoint)
}
