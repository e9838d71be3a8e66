package replay

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// saveFixture builds a wrapped buffer (capacity 40, 57 adds) with PER or
// VLMRB state that differs from the defaults.
func saveFixture(t *testing.T, kind string) (*Buffer, Sampler) {
	t.Helper()
	b, refs := newTestBuffer(t, 40, 57)
	refs = refs[17:] // the valid ones
	rng := rand.New(rand.NewPCG(1, 2))
	vals := make([]float64, len(refs))
	for i := range vals {
		vals[i] = rng.NormFloat64()
	}
	switch kind {
	case "per":
		s, err := NewPER(b, PERConfig{Alpha: 0.6, Beta0: 0.4, BetaSteps: 50, Eps: 1e-6})
		if err != nil {
			t.Fatal(err)
		}
		s.UpdatePriorities(refs[:30], vals[:30])
		s.SetStep(7)
		return b, s
	case "vlmrb":
		cfg := DefaultVLMRBConfig()
		cfg.UseTD, cfg.Mapping, cfg.WarmupSteps = true, MapRaw, 100
		s, err := NewVLMRB(b, cfg)
		if err != nil {
			t.Fatal(err)
		}
		s.UpdatePriorities(refs[:25], vals[:25])
		for i := 5; i < 35; i += 2 {
			s.SetScore(refs[i], rng.Float64())
		}
		s.SetStep(42)
		return b, s
	}
	return b, NewUniform(b)
}

// fresh makes an empty buffer and sampler with the fixture's configs.
func fresh(t *testing.T, old *Buffer, s Sampler) (*Buffer, Sampler) {
	t.Helper()
	b, err := NewBuffer(old.Config())
	if err != nil {
		t.Fatal(err)
	}
	switch s := s.(type) {
	case *PER:
		p, _ := NewPER(b, s.Config())
		return b, p
	case *VLMRB:
		v, _ := NewVLMRB(b, s.Config())
		return b, v
	}
	return b, NewUniform(b)
}

func TestSaveLoadRoundTrip(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"uniform", "per", "vlmrb"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			b, s := saveFixture(t, kind)
			path := filepath.Join(t.TempDir(), "replay.bin")
			if err := b.SaveFile(path); err != nil {
				t.Fatal(err)
			}
			b2, s2 := fresh(t, b, s)
			if err := b2.LoadFile(path); err != nil {
				t.Fatal(err)
			}
			if b.size != b2.size || b.pos != b2.pos || b.adds != b2.adds {
				t.Fatalf("ring state %d/%d/%d, loaded %d/%d/%d", b.size, b.pos, b.adds, b2.size, b2.pos, b2.adds)
			}
			for _, f := range []struct {
				name string
				a, c any
			}{{"obs", b.obs, b2.obs}, {"next", b.nextObs, b2.nextObs}, {"act", b.act, b2.act}, {"hot", b.hot, b2.hot},
				{"env", b.env, b2.env}, {"ep", b.ep, b2.ep}, {"step", b.step, b2.step}} {
				if !reflect.DeepEqual(f.a, f.c) {
					t.Fatalf("%s differs after load", f.name)
				}
			}
			switch s := s.(type) {
			case *PER:
				s2 := s2.(*PER)
				if !reflect.DeepEqual(s.tree.leaf, s2.tree.leaf) || !reflect.DeepEqual(s.tree.vals, s2.tree.vals) || s.step != s2.step || s.maxP != s2.maxP || s.stats != s2.stats {
					t.Fatal("PER state differs after load")
				}
			case *VLMRB:
				s2 := s2.(*VLMRB)
				if !reflect.DeepEqual(s.score, s2.score) || !reflect.DeepEqual(s.scored, s2.scored) ||
					!reflect.DeepEqual(s.td, s2.td) || s.step != s2.step || s.maxTD != s2.maxTD || s.stats != s2.stats {
					t.Fatal("VLMRB state differs after load")
				}
				if !reflect.DeepEqual(s.tree.leaf, s2.tree.leaf) || !reflect.DeepEqual(s.tree.vals, s2.tree.vals) {
					t.Fatal("VLMRB leaves differ after load")
				}
			}
			// the same seed draws the same batches from both
			d1, d2 := NewBatch(16, 3, 2), NewBatch(16, 3, 2)
			r1, r2 := rand.New(rand.NewPCG(3, 3)), rand.New(rand.NewPCG(3, 3))
			for range 5 {
				s.Sample(d1, r1)
				s2.Sample(d2, r2)
				if !reflect.DeepEqual(d1, d2) {
					t.Fatal("loaded buffer samples differently")
				}
			}
			// the next Add continues the ring where the saved one stopped
			r := addN(b2, 57, 1)[0]
			if r.Slot != 17 || r.Gen != 2 {
				t.Fatalf("next add after load got %+v, want slot 17 gen 2", r)
			}
		})
	}
}

func TestLoadRejectsBadFiles(t *testing.T) {
	t.Parallel()
	b, s := saveFixture(t, "vlmrb")
	dir := t.TempDir()
	path := filepath.Join(dir, "replay.bin")
	if err := b.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	flip := func(off int) []byte {
		c := append([]byte(nil), good...)
		c[off] ^= 0x10
		return c
	}
	for _, c := range []struct {
		name, file, want string
	}{
		{"truncated", write("trunc.bin", good[:len(good)/2]), "no end marker"},
		{"truncated-trailer", write("trunc2.bin", good[:len(good)-3]), "no end marker"},
		{"empty", write("empty.bin", nil), "too short"},
		{"flipped-data", write("flip.bin", flip(len(good)/2)), "checksum mismatch"},
		{"flipped-header", write("fliph.bin", flip(3)), "checksum mismatch"},
		{"flipped-length", write("flipl.bin", flip(len(good)-trailerLen)), "trailer says"},
		{"appended", write("app.bin", append(append([]byte(nil), good...), 1, 2, 3)), "no end marker"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b2, _ := fresh(t, b, s)
			addN(b2, 0, 3) // existing contents must survive a rejected load
			before := append([]slotHot(nil), b2.hot...)
			err := b2.LoadFile(c.file)
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want ErrCorrupt mentioning %q", err, c.want)
			}
			if b2.Len() != 3 || !reflect.DeepEqual(before, b2.hot) {
				t.Fatal("rejected load changed the buffer")
			}
		})
	}
	// well-formed files that do not fit the receiver
	other, _ := NewBuffer(Config{Capacity: 41, ObsDim: 3, ActDim: 2})
	if err := other.LoadFile(path); err == nil || !strings.Contains(err.Error(), "capacity") {
		t.Fatalf("capacity mismatch: err = %v", err)
	}
	b3, _ := NewBuffer(b.Config())
	p3, _ := NewPER(b3, DefaultPERConfig())
	if err := b3.LoadFile(path); err == nil || !strings.Contains(err.Error(), "VLMRB sampler state") {
		t.Fatalf("kind mismatch: err = %v", err)
	}
	_ = p3
	b5, _ := NewBuffer(b.Config())
	for range 2 {
		if _, err := NewPER(b5, DefaultPERConfig()); err != nil {
			t.Fatal(err)
		}
	}
	if err := b5.LoadFile(path); err == nil || !strings.Contains(err.Error(), "1 sampler states") {
		t.Fatalf("count mismatch: err = %v", err)
	}
	b6, _ := NewBuffer(b.Config())
	if err := b6.LoadFile(path); err != nil || b6.Len() != 40 { // data only
		t.Fatalf("data-only load: %v (len %d)", err, b6.Len())
	}
	bp, sp := saveFixture(t, "per")
	pp := filepath.Join(dir, "per.bin")
	if err := bp.SaveFile(pp); err != nil {
		t.Fatal(err)
	}
	b4, _ := NewBuffer(bp.Config())
	if _, err := NewPER(b4, PERConfig{Alpha: 0.7, Beta0: 0.4, Eps: 1e-6}); err != nil {
		t.Fatal(err)
	}
	if err := b4.LoadFile(pp); err == nil || !strings.Contains(err.Error(), "Alpha") {
		t.Fatalf("alpha mismatch: err = %v", err)
	}
	_ = sp
	if err := b4.LoadFile(filepath.Join(dir, "missing.bin")); err == nil || errors.Is(err, ErrCorrupt) {
		t.Fatalf("missing file: err = %v", err)
	}
}

// onlyReader hides Seek so Load takes its read-into-memory path.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// TestSaveLoadStreams round-trips through an io.Writer and a plain
// io.Reader, and a reader positioned after other data.
func TestSaveLoadStreams(t *testing.T) {
	t.Parallel()
	b, s := saveFixture(t, "vlmrb")
	var buf bytes.Buffer
	if err := b.Save(&buf); err != nil {
		t.Fatal(err)
	}
	b2, _ := fresh(t, b, s)
	if err := b2.Load(onlyReader{bytes.NewReader(buf.Bytes())}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(b.obs, b2.obs) || !reflect.DeepEqual(s.(*VLMRB).score, b2.samplers[0].(*VLMRB).score) {
		t.Fatal("stream round trip differs")
	}
	prefixed := append([]byte("other checkpoint data"), buf.Bytes()...)
	r := bytes.NewReader(prefixed)
	if _, err := r.Seek(int64(len("other checkpoint data")), io.SeekStart); err != nil {
		t.Fatal(err)
	}
	b3, _ := fresh(t, b, s)
	if err := b3.Load(r); err != nil {
		t.Fatalf("load at an offset: %v", err)
	}
	bad := append([]byte(nil), buf.Bytes()...)
	bad[100] ^= 1
	if err := b3.Load(onlyReader{bytes.NewReader(bad)}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("corrupt stream: err = %v", err)
	}
}

// TestSaveIsAtomic checks a save leaves no temporary files and replaces an
// existing file whole.
func TestSaveIsAtomic(t *testing.T) {
	t.Parallel()
	b, s := saveFixture(t, "per")
	dir := t.TempDir()
	path := filepath.Join(dir, "r.bin")
	if err := os.WriteFile(path, []byte("old contents"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := b.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("directory holds %d entries after save, want 1", len(ents))
	}
	b2, _ := fresh(t, b, s)
	if err := b2.LoadFile(path); err != nil {
		t.Fatal(err)
	}
	if err := b.SaveFile(filepath.Join(dir, "no", "such", "dir.bin")); err == nil {
		t.Fatal("save into a missing directory succeeded")
	}
}
