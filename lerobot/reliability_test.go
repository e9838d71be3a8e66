//go:build unix

package lerobot

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/vlmrb/vlmrb/internal/safefile"
)

// TestSpecialFilesRefused: meta/info.json or a data file that is a FIFO
// or a link to a device is refused at once (it used to block for ever on
// the FIFO and read /dev/zero until the cap).
func TestSpecialFilesRefused(t *testing.T) {
	t.Parallel()
	data := filepath.Join("data", "chunk-000", "file-000.parquet")
	for _, tc := range []struct{ file, kind string }{
		{filepath.Join("meta", "info.json"), "fifo"},
		{filepath.Join("meta", "info.json"), "zero"},
		{data, "fifo"},
		{data, "zero"},
	} {
		dir := filepath.Join(t.TempDir(), "ds")
		writeSynthetic(t, dir, []int{3, 2}, nil)
		p := filepath.Join(dir, tc.file)
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if tc.kind == "fifo" {
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
		} else if err := os.Symlink("/dev/zero", p); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		d, err := Open(dir, Limits{})
		if err == nil {
			err = d.ReadFrames(func(*FrameRow) error { return nil })
		}
		if !errors.Is(err, safefile.ErrNotRegular) {
			t.Errorf("%s as %s: %v, want ErrNotRegular", tc.file, tc.kind, err)
		}
		if el := time.Since(start); el > 5*time.Second {
			t.Errorf("%s as %s took %v", tc.file, tc.kind, el)
		}
	}
}

// FuzzReader: any meta/info.json, or any bytes as the data file, are read
// or refused with an error, never a panic or a hang. The first byte picks
// which file the rest replaces.
func FuzzReader(f *testing.F) {
	src := filepath.Join(f.TempDir(), "ds")
	if err := buildSmall(src); err != nil {
		f.Fatal(err)
	}
	info := filepath.Join(src, "meta", "info.json")
	data := filepath.Join(src, "data", "chunk-000", "file-000.parquet")
	origInfo, err := os.ReadFile(info)
	if err != nil {
		f.Fatal(err)
	}
	origData, err := os.ReadFile(data)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(append([]byte{0}, origInfo...))
	f.Add(append([]byte{1}, origData...))
	f.Add([]byte{0, '{', '}'})
	f.Fuzz(func(t *testing.T, in []byte) {
		wi, wd := origInfo, origData
		if len(in) > 0 {
			if in[0]&1 == 0 {
				wi = in[1:]
			} else {
				wd = in[1:]
			}
		}
		if err := os.WriteFile(info, wi, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(data, wd, 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := Open(src, Limits{MaxFrames: 1000, MaxDim: 64})
		if err != nil {
			return
		}
		_ = d.ReadFrames(func(*FrameRow) error { return nil })
	})
}

// buildSmall writes a dataset of two short episodes (the fuzz seed).
func buildSmall(dir string) error {
	w, err := Create(context.Background(), dir, Spec{FPS: 10, StateDim: 3, ActionDim: 2, NextState: true, Rewards: true})
	if err != nil {
		return err
	}
	for e, n := range []int{4, 3} {
		for s := range n {
			fr := synthetic(e, s, 3, 2)
			fr.Done = s == n-1
			if err := w.AddFrame(&fr); err != nil {
				return err
			}
		}
		if err := w.EndEpisode("task"); err != nil {
			return err
		}
	}
	_, err = w.Close()
	return err
}
