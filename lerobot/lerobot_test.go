package lerobot

import (
	"context"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// synthetic builds frame t of episode e: values that identify the frame,
// so a reader that swaps or drops rows fails the comparison.
func synthetic(e, t, stateDim, actDim int) Frame {
	f := Frame{State: make([]float64, stateDim), Action: make([]float64, actDim), NextState: make([]float64, stateDim)}
	for i := range f.State {
		f.State[i] = float64(e*1000+t) + float64(i)/8
		f.NextState[i] = f.State[i] + 1
	}
	for i := range f.Action {
		f.Action[i] = float64(i)/4 - float64(t%3)/8
	}
	f.Reward = float64(t%2) / 2
	return f
}

func writeSynthetic(t *testing.T, dir string, lengths []int, cams []Camera) *Summary {
	t.Helper()
	sp := Spec{FPS: 10, StateDim: 5, ActionDim: 2, StateNames: []string{"a", "b", "c", "d", "e"},
		NextState: true, Rewards: true, Cameras: cams}
	w, err := Create(context.Background(), dir, sp)
	if err != nil {
		t.Fatal(err)
	}
	for e, n := range lengths {
		for s := range n {
			f := synthetic(e, s, 5, 2)
			f.Done = s == n-1
			f.Truncated = f.Done && e%2 == 0
			f.Success = f.Done && e%2 == 1
			for _, c := range cams {
				img := image.NewRGBA(image.Rect(0, 0, c.Width, c.Height))
				for i := range img.Pix {
					img.Pix[i] = uint8(16 * (s % 16))
				}
				f.Images = append(f.Images, img)
			}
			if err := w.AddFrame(&f); err != nil {
				t.Fatal(err)
			}
		}
		task := "task one"
		if e == 2 {
			task = "task two"
		}
		if err := w.EndEpisode(task); err != nil {
			t.Fatal(err)
		}
	}
	s, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "ds")
	lengths := []int{7, 3, 5}
	writeSynthetic(t, dir, lengths, nil)
	d, err := Open(dir, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Info.TotalFrames != 15 || d.Info.TotalEpisodes != 3 || len(d.Tasks) != 2 || d.Tasks[1] != "task two" {
		t.Fatalf("info %+v tasks %q", d.Info, d.Tasks)
	}
	var from int64
	for i, e := range d.Episodes {
		if e.Length != int64(lengths[i]) || e.From != from || len(e.Tasks) != 1 {
			t.Fatalf("episode %d: %+v", i, e)
		}
		from += e.Length
	}
	var n int
	err = d.ReadFrames(func(r *FrameRow) error {
		e, s := int(r.Episode), int(r.FrameIndex)
		want := synthetic(e, s, 5, 2)
		for i, v := range r.State {
			if v != float32(want.State[i]) || r.NextState[i] != float32(want.NextState[i]) {
				t.Fatalf("frame %d state %v", r.Index, r.State)
			}
		}
		for i, v := range r.Action {
			if v != float32(want.Action[i]) {
				t.Fatalf("frame %d action %v", r.Index, r.Action)
			}
		}
		last := s == lengths[e]-1
		if r.Reward != float32(want.Reward) || r.Done != last || r.Truncated != (last && e%2 == 0) || r.Success != (last && e%2 == 1) {
			t.Fatalf("frame %d: %+v", r.Index, r)
		}
		if wantTS := float32(float64(s) / 10); r.Timestamp != wantTS {
			t.Fatalf("frame %d timestamp %g, want %g", r.Index, r.Timestamp, wantTS)
		}
		if wantTask := int64(0); e == 2 && r.TaskIndex != 1 || e != 2 && r.TaskIndex != wantTask {
			t.Fatalf("frame %d task %d", r.Index, r.TaskIndex)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 15 {
		t.Fatalf("read %d frames", n)
	}
}

func TestVideoFrameCounts(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("ffprobe"); err != nil {
		t.Skip("no ffprobe")
	}
	dir := filepath.Join(t.TempDir(), "ds")
	s := writeSynthetic(t, dir, []int{4, 6}, []Camera{{Name: "front", Width: 96, Height: 64}, {Name: "top", Width: 64, Height: 64}})
	d, err := Open(dir, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"observation.images.front", "observation.images.top"} {
		p := filepath.Join(dir, d.Info.VideoFile(k, 0, 0))
		out, err := exec.Command("ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
			"-show_entries", "stream=nb_read_frames,codec_name,pix_fmt", "-of", "csv=p=0", p).Output()
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Split(strings.TrimSpace(string(out)), ",")
		if n, _ := strconv.Atoi(f[len(f)-1]); n != 10 {
			t.Fatalf("%s: ffprobe %q, want 10 frames", k, out)
		}
		if !strings.Contains(string(out), "yuv420p") {
			t.Fatalf("%s: %q", k, out)
		}
		if v := d.Episodes[1].Videos[k]; v.From != 0.4 || v.To != 1.0 {
			t.Fatalf("%s episode 1 span %+v", k, v)
		}
	}
	if s.Codec != CodecAV1 && s.Codec != CodecH264 {
		t.Fatalf("codec %q", s.Codec)
	}
}

func TestCreateRefusesExistingDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := Create(context.Background(), dir, Spec{FPS: 10, StateDim: 1}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("err %v", err)
	}
}

func TestAbortLeavesNothing(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	w, err := Create(context.Background(), filepath.Join(parent, "ds"), Spec{FPS: 10, StateDim: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AddFrame(&Frame{State: []float64{1}}); err != nil {
		t.Fatal(err)
	}
	w.Abort()
	ents, _ := os.ReadDir(parent)
	if len(ents) != 0 {
		t.Fatalf("left %v", ents)
	}
}

func TestLimits(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "ds")
	writeSynthetic(t, dir, []int{7, 3, 5}, nil)
	if _, err := Open(dir, Limits{MaxFrames: 14}); err == nil || !strings.Contains(err.Error(), "MaxFrames") {
		t.Fatalf("MaxFrames 14: %v", err)
	}
	if _, err := Open(dir, Limits{MaxDim: 4}); err == nil || !strings.Contains(err.Error(), "shape") {
		t.Fatalf("MaxDim 4: %v", err)
	}
	if _, err := Open(dir, Limits{MaxMetaBytes: 64}); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("MaxMetaBytes 64: %v", err)
	}
	if _, err := Open(t.TempDir(), Limits{}); err == nil || !strings.Contains(err.Error(), "info.json") {
		t.Fatalf("empty dir: %v", err)
	}
}

// An episode begun with BeginEpisode is written in pieces of flushRows
// frames and reads back whole, in order, under its task.
func TestLongEpisodeFlushes(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "ds")
	w, err := Create(context.Background(), dir, Spec{FPS: 30, StateDim: 1})
	if err != nil {
		t.Fatal(err)
	}
	const n = 2*flushRows + 5
	for ep := range 2 {
		if err := w.BeginEpisode([]string{"a", "b"}[ep]); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if err := w.AddFrame(&Frame{State: []float64{float64(i)}}); err != nil {
				t.Fatal(err)
			}
			if ep == 0 && i == flushRows && len(w.rows) != 1 {
				t.Fatalf("%d rows held after %d frames", len(w.rows), i+1)
			}
		}
		if err := w.EndEpisode(""); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	d, err := Open(dir, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var k int64
	err = d.ReadFrames(func(r *FrameRow) error {
		if r.State[0] != float32(r.FrameIndex) || r.TaskIndex != r.Episode || r.Index != k {
			t.Fatalf("frame %d: %+v", k, r)
		}
		k++
		return nil
	})
	if err != nil || k != 2*n || d.Tasks[1] != "b" {
		t.Fatalf("%d frames, tasks %q, err %v", k, d.Tasks, err)
	}
}

// A corrupt frame table gives an error, never a panic: truncated files
// fail to open, and bytes overwritten anywhere either fail a check or
// leave a table that still reads.
func TestCorruptDataFile(t *testing.T) {
	t.Parallel()
	src := filepath.Join(t.TempDir(), "ds")
	writeSynthetic(t, src, []int{7, 3, 5}, nil)
	data := filepath.Join("data", "chunk-000", "file-000.parquet")
	orig, err := os.ReadFile(filepath.Join(src, data))
	if err != nil {
		t.Fatal(err)
	}
	read := func(b []byte) error {
		if err := os.WriteFile(filepath.Join(src, data), b, 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := Open(src, Limits{})
		if err != nil {
			return err
		}
		return d.ReadFrames(func(*FrameRow) error { return nil })
	}
	for _, n := range []int{0, 4, len(orig) / 2, len(orig) - 9} {
		if err := read(orig[:n]); err == nil {
			t.Errorf("data file truncated to %d of %d bytes read without error", n, len(orig))
		}
	}
	for off := 4; off < len(orig)-8; off += 97 { // a stride that lands in pages, headers and the footer
		b := append([]byte(nil), orig...)
		for i := off; i < min(off+8, len(b)-8); i++ {
			b[i] ^= 0xff
		}
		_ = read(b) // must return, with or without an error
	}
	if err := read(orig); err != nil {
		t.Fatalf("the restored file: %v", err)
	}
}
