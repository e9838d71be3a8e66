package lerobot

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// A dataset written before the privileged progress left observation.*
// (observation.progress) still reads, with its progress.
func TestReadsLegacyProgressColumn(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	w, err := Create(context.Background(), dir, Spec{FPS: 10, StateDim: 2, ActionDim: 1, Rewards: true, Progress: true})
	if err != nil {
		t.Fatal(err)
	}
	var want []float64
	for e := range 2 {
		for s := range 5 {
			f := Frame{State: []float64{float64(s), 1}, Action: []float64{0.5}, Reward: 1, Done: s == 4, Progress: float64(e) + float64(s)/10}
			want = append(want, f.Progress)
			if err := w.AddFrame(&f); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.EndEpisode("reach"); err != nil {
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
	var rows []FrameRow
	if err := d.ReadFrames(func(f *FrameRow) error { rows = append(rows, *f); return nil }); err != nil {
		t.Fatal(err)
	}
	// rewrite it as the old writer laid it out: the column and the feature
	// under observation.progress
	g := parquet.Group{
		KeyTimestamp: parquet.Leaf(parquet.FloatType), KeyFrameIndex: parquet.Int(64), KeyEpisode: parquet.Int(64),
		KeyIndex: parquet.Int(64), KeyTaskIndex: parquet.Int(64),
		KeyState: parquet.List(parquet.Leaf(parquet.FloatType)), KeyAction: parquet.List(parquet.Leaf(parquet.FloatType)),
		KeyReward: parquet.Leaf(parquet.FloatType), KeyDone: parquet.Leaf(parquet.BooleanType),
		KeySuccess: parquet.Leaf(parquet.BooleanType), KeyTruncated: parquet.Leaf(parquet.BooleanType),
		LegacyKeyProgress: parquet.Leaf(parquet.DoubleType),
	}
	var old []any
	for _, r := range rows {
		old = append(old, map[string]any{KeyTimestamp: r.Timestamp, KeyFrameIndex: r.FrameIndex, KeyEpisode: r.Episode,
			KeyIndex: r.Index, KeyTaskIndex: r.TaskIndex, KeyState: r.State, KeyAction: r.Action, KeyReward: r.Reward,
			KeyDone: r.Done, KeySuccess: r.Success, KeyTruncated: r.Truncated, LegacyKeyProgress: r.Progress})
	}
	err = writeParquetFile(filepath.Join(dir, "data", "chunk-000", "file-000.parquet"), func(f *os.File) error {
		pw := parquet.NewGenericWriter[any](f, parquet.NewSchema("schema", g))
		if _, err := pw.Write(old); err != nil {
			return err
		}
		return pw.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	infoPath := filepath.Join(dir, "meta", "info.json")
	b, err := os.ReadFile(infoPath)
	if err != nil {
		t.Fatal(err)
	}
	var info map[string]any
	if err := json.Unmarshal(b, &info); err != nil {
		t.Fatal(err)
	}
	fs := info["features"].(map[string]any)
	fs[LegacyKeyProgress] = fs[KeyProgress]
	delete(fs, KeyProgress)
	if b, err = json.Marshal(info); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(infoPath, b, 0o644); err != nil {
		t.Fatal(err)
	}

	d, err = Open(dir, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Columns().Progress {
		t.Fatal("the legacy dataset's progress column is not seen")
	}
	var got []float64
	if err := d.ReadFrames(func(f *FrameRow) error { got = append(got, f.Progress); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d frames, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("frame %d progress %g, want %g", i, got[i], want[i])
		}
	}
}
