package lerobot

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// Limits bound what Open and ReadFrames accept, so a malformed or hostile
// dataset fails with an error instead of exhausting memory. Zero fields
// take the defaults.
type Limits struct {
	MaxFrames    int64 // frames in the dataset (default 50,000,000)
	MaxEpisodes  int64 // episodes (default 1,000,000)
	MaxDim       int   // elements of one vector feature (default 65,536)
	MaxMetaBytes int64 // info.json size (default 16 MiB)
}

func (l Limits) withDefaults() Limits {
	if l.MaxFrames <= 0 {
		l.MaxFrames = 50_000_000
	}
	if l.MaxEpisodes <= 0 {
		l.MaxEpisodes = 1_000_000
	}
	if l.MaxDim <= 0 {
		l.MaxDim = 65_536
	}
	if l.MaxMetaBytes <= 0 {
		l.MaxMetaBytes = 16 << 20
	}
	return l
}

// Dataset is an opened LeRobot v3.0 dataset: its info.json, tasks and
// episode table. Frames are read on demand by ReadFrames.
type Dataset struct {
	Dir      string
	Info     Info
	Tasks    []string // by task_index
	Episodes []Episode
	lim      Limits
	inFn     bool // ReadFrames is inside the caller's callback
}

// Episode is one row of meta/episodes.
type Episode struct {
	Index     int64
	Tasks     []string
	Length    int64
	From, To  int64 // global frame index range [From, To)
	DataChunk int64
	DataFile  int64
	Videos    map[string]VideoSpan // by video key
}

// VideoSpan locates an episode inside a video file: frames whose
// timestamps lie in [From, To) seconds.
type VideoSpan struct {
	Chunk, File int64
	From, To    float64
}

// Open reads meta/info.json, meta/tasks.parquet and meta/episodes and
// checks that they agree with each other (counts, contiguous index
// ranges) and with lim.
func Open(dir string, lim Limits) (_ *Dataset, err error) {
	lim = lim.withDefaults()
	d := &Dataset{Dir: dir, lim: lim}
	defer d.recoverMalformed(&err)
	if err := d.readInfo(); err != nil {
		return nil, err
	}
	if err := d.readTasks(); err != nil {
		return nil, err
	}
	if err := d.readEpisodes(); err != nil {
		return nil, err
	}
	return d, nil
}

// recoverMalformed turns a panic of the parquet decoder on a corrupt file
// into an error: file input never crashes the caller.
func (d *Dataset) recoverMalformed(err *error) {
	if p := recover(); p != nil {
		if d.inFn { // the caller's own panic, not the file's
			d.inFn = false
			panic(p)
		}
		*err = d.errf("malformed parquet file (%v); re-export the dataset", p)
	}
}

func (d *Dataset) errf(format string, a ...any) error {
	return fmt.Errorf("lerobot: dataset %s: %s", d.Dir, fmt.Sprintf(format, a...))
}

func (d *Dataset) readInfo() error {
	p := filepath.Join(d.Dir, "meta", "info.json")
	f, err := os.Open(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return d.errf("no meta/info.json; is it a LeRobot v3 dataset (robot-train record --lerobot writes one)?")
		}
		return fmt.Errorf("lerobot: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, d.lim.MaxMetaBytes+1))
	if err != nil {
		return fmt.Errorf("lerobot: %w", err)
	}
	if int64(len(b)) > d.lim.MaxMetaBytes {
		return d.errf("meta/info.json is larger than %d bytes", d.lim.MaxMetaBytes)
	}
	if err := json.Unmarshal(b, &d.Info); err != nil {
		return d.errf("meta/info.json: %v", err)
	}
	in := &d.Info
	switch {
	case in.CodebaseVersion != CodebaseVersion:
		return d.errf("codebase_version %q; this reader reads %s (convert older datasets with LeRobot's convert_dataset_v21_to_v30)", in.CodebaseVersion, CodebaseVersion)
	case !(in.FPS > 0):
		return d.errf("fps %g is not positive", in.FPS)
	case in.TotalFrames < 0 || int64(in.TotalFrames) > d.lim.MaxFrames:
		return d.errf("total_frames %d is outside [0, %d] (Limits.MaxFrames)", in.TotalFrames, d.lim.MaxFrames)
	case in.TotalEpisodes < 0 || int64(in.TotalEpisodes) > d.lim.MaxEpisodes:
		return d.errf("total_episodes %d is outside [0, %d] (Limits.MaxEpisodes)", in.TotalEpisodes, d.lim.MaxEpisodes)
	}
	if err := checkTemplate("data_path", in.DataPath); err != nil {
		return d.errf("%v", err)
	}
	if in.VideoPath != nil {
		if err := checkTemplate("video_path", *in.VideoPath); err != nil {
			return d.errf("%v", err)
		}
	}
	for k, f := range in.Features {
		n := 1
		for _, s := range f.Shape {
			if s <= 0 || s > d.lim.MaxDim {
				return d.errf("feature %s has shape %v (each size must be in [1, %d])", k, f.Shape, d.lim.MaxDim)
			}
			n *= s
		}
		if f.DType != "video" && f.DType != "image" && n > d.lim.MaxDim {
			return d.errf("feature %s has %d elements (Limits.MaxDim %d)", k, n, d.lim.MaxDim)
		}
		if f.Names != nil && len(f.Shape) == 1 && len(f.Names) != f.Shape[0] && len(f.Names) != 1 {
			return d.errf("feature %s names %d elements for shape %v", k, len(f.Names), f.Shape)
		}
	}
	return nil
}

// Meta reads meta/name (a plain file name, at most Limits.MaxMetaBytes);
// ok is false when the dataset has no such file.
func (d *Dataset) Meta(name string) (b []byte, ok bool, err error) {
	if name != filepath.Base(name) {
		return nil, false, fmt.Errorf("lerobot: meta file name %q is not a plain name", name)
	}
	f, err := os.Open(filepath.Join(d.Dir, "meta", name))
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("lerobot: %w", err)
	}
	defer f.Close()
	b, err = io.ReadAll(io.LimitReader(f, d.lim.MaxMetaBytes+1))
	if err != nil {
		return nil, false, fmt.Errorf("lerobot: %w", err)
	}
	if int64(len(b)) > d.lim.MaxMetaBytes {
		return nil, false, d.errf("meta/%s is larger than %d bytes", name, d.lim.MaxMetaBytes)
	}
	return b, true, nil
}

// Vector returns the dimension and per-element names (nil when unnamed)
// of a float32 vector feature, or ok false when the dataset lacks it.
// LeRobot datasets often name a whole vector with one word ("motors"),
// which is not a per-element name and is returned as nil.
func (in *Info) Vector(key string) (dim int, names []string, ok bool) {
	f, ok := in.Features[key]
	if !ok || len(f.Shape) != 1 {
		return 0, nil, false
	}
	if len(f.Names) == f.Shape[0] {
		names = f.Names
	}
	return f.Shape[0], names, true
}

func (d *Dataset) readTasks() error {
	type taskRow struct {
		TaskIndex int64  `parquet:"task_index"`
		Task      string `parquet:"task"`
	}
	rows, err := readAll[taskRow](filepath.Join(d.Dir, "meta", "tasks.parquet"), d.lim.MaxEpisodes)
	if err != nil {
		return d.errf("meta/tasks.parquet: %v", err)
	}
	d.Tasks = make([]string, len(rows))
	seen := make([]bool, len(rows))
	for _, r := range rows {
		if r.TaskIndex < 0 || r.TaskIndex >= int64(len(rows)) || seen[r.TaskIndex] {
			return d.errf("meta/tasks.parquet: task_index %d is out of range or repeated (%d tasks)", r.TaskIndex, len(rows))
		}
		seen[r.TaskIndex] = true
		d.Tasks[r.TaskIndex] = r.Task
	}
	if d.Info.TotalTasks != len(rows) {
		return d.errf("info.json total_tasks %d, meta/tasks.parquet has %d", d.Info.TotalTasks, len(rows))
	}
	return nil
}

// readEpisodes reads every meta/episodes/chunk-*/file-*.parquet in order.
func (d *Dataset) readEpisodes() error {
	files, err := filepath.Glob(filepath.Join(d.Dir, "meta", "episodes", "chunk-*", "file-*.parquet"))
	if err != nil || len(files) == 0 {
		return d.errf("no meta/episodes/chunk-*/file-*.parquet")
	}
	videoKeys := d.Info.VideoKeys()
	for _, p := range files {
		f, size, err := openFile(p)
		if err != nil {
			return err
		}
		pf, err := parquet.OpenFile(f, size)
		if err != nil {
			f.Close()
			return d.errf("%s: %v", rel(d.Dir, p), err)
		}
		if n := pf.NumRows(); int64(len(d.Episodes))+n > d.lim.MaxEpisodes {
			f.Close()
			return d.errf("more than %d episodes (Limits.MaxEpisodes)", d.lim.MaxEpisodes)
		}
		eps, err := readEpisodeRows(pf, videoKeys)
		f.Close()
		if err != nil {
			return d.errf("%s: %v", rel(d.Dir, p), err)
		}
		d.Episodes = append(d.Episodes, eps...)
	}
	if len(d.Episodes) != d.Info.TotalEpisodes {
		return d.errf("info.json total_episodes %d, meta/episodes has %d", d.Info.TotalEpisodes, len(d.Episodes))
	}
	var next int64
	for i, e := range d.Episodes {
		switch {
		case e.Index != int64(i):
			return d.errf("episode row %d has episode_index %d (want them in order from 0)", i, e.Index)
		case e.From != next || e.To-e.From != e.Length || e.Length <= 0:
			return d.errf("episode %d spans [%d, %d) with length %d; episodes must tile the frames contiguously from 0", e.Index, e.From, e.To, e.Length)
		}
		next = e.To
	}
	if next != int64(d.Info.TotalFrames) {
		return d.errf("episodes cover %d frames, info.json total_frames is %d", next, d.Info.TotalFrames)
	}
	return nil
}

// readEpisodeRows decodes the episode table through a generic row reader:
// its per-video columns are named after the video keys.
func readEpisodeRows(pf *parquet.File, videoKeys []string) ([]Episode, error) {
	sch := pf.Schema()
	col := func(name string) (int, bool) {
		lc, ok := sch.Lookup(name)
		return lc.ColumnIndex, ok
	}
	need := []string{"episode_index", "length", "dataset_from_index", "dataset_to_index"}
	idx := map[string]int{}
	for _, n := range need {
		i, ok := col(n)
		if !ok {
			return nil, fmt.Errorf("column %s is missing", n)
		}
		idx[n] = i
	}
	opt := []string{"data/chunk_index", "data/file_index"}
	for _, k := range videoKeys {
		for _, s := range []string{"chunk_index", "file_index", "from_timestamp", "to_timestamp"} {
			opt = append(opt, "videos/"+k+"/"+s)
		}
	}
	for _, n := range opt {
		if i, ok := col(n); ok {
			idx[n] = i
		}
	}
	tasksCol, hasTasks := sch.Lookup("tasks", "list", "element")
	r := parquet.NewReader(pf)
	defer func() { _ = r.Close() }()
	var out []Episode
	rows := make([]parquet.Row, 64)
	for {
		n, err := r.ReadRows(rows)
		for _, row := range rows[:n] {
			e := Episode{Videos: map[string]VideoSpan{}}
			vals := map[int][]parquet.Value{}
			for _, v := range row {
				vals[v.Column()] = append(vals[v.Column()], v)
			}
			i64 := func(name string) int64 {
				if i, ok := idx[name]; ok && len(vals[i]) > 0 && !vals[i][0].IsNull() {
					return vals[i][0].Int64()
				}
				return 0
			}
			f64 := func(name string) float64 {
				if i, ok := idx[name]; ok && len(vals[i]) > 0 && !vals[i][0].IsNull() {
					return vals[i][0].Double()
				}
				return 0
			}
			e.Index, e.Length = i64("episode_index"), i64("length")
			e.From, e.To = i64("dataset_from_index"), i64("dataset_to_index")
			e.DataChunk, e.DataFile = i64("data/chunk_index"), i64("data/file_index")
			if hasTasks {
				for _, v := range vals[tasksCol.ColumnIndex] {
					if !v.IsNull() {
						e.Tasks = append(e.Tasks, string(v.ByteArray()))
					}
				}
			}
			for _, k := range videoKeys {
				p := "videos/" + k + "/"
				e.Videos[k] = VideoSpan{Chunk: i64(p + "chunk_index"), File: i64(p + "file_index"),
					From: f64(p + "from_timestamp"), To: f64(p + "to_timestamp")}
			}
			out = append(out, e)
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// FrameRow is one frame as ReadFrames delivers it. Slices are nil for
// features the dataset lacks and are reused between calls: copy what you
// keep.
type FrameRow struct {
	Index, Episode, FrameIndex, TaskIndex int64
	Timestamp                             float32
	State, Action, NextState              []float32
	Reward                                float32
	Done, Success, Truncated              bool
	CameraTime                            float64 // s (converted camera recordings)
	Progress                              float64 // privileged task progress (Columns.Progress)
}

// Columns reports which optional features the frame table carries.
type Columns struct {
	State, Action, NextState, Reward, Done, Success, Truncated, Progress bool

	legacyProgress bool // Progress is in observation.progress (an older dataset)
}

func (c Columns) progressColumn() string {
	if c.legacyProgress {
		return LegacyKeyProgress
	}
	return KeyProgress
}

// Columns returns the optional features info.json declares.
func (d *Dataset) Columns() Columns {
	has := func(k string) bool { _, ok := d.Info.Features[k]; return ok }
	return Columns{State: has(KeyState), Action: has(KeyAction), NextState: has(KeyNextState),
		Reward: has(KeyReward), Done: has(KeyDone), Success: has(KeySuccess), Truncated: has(KeyTruncated),
		Progress: has(KeyProgress) || has(LegacyKeyProgress), legacyProgress: !has(KeyProgress) && has(LegacyKeyProgress)}
}

type dataRow struct {
	State      []float32 `parquet:"observation.state,list"`
	Action     []float32 `parquet:"action,list"`
	NextState  []float32 `parquet:"next.observation.state,list"`
	Timestamp  float32   `parquet:"timestamp"`
	FrameIndex int64     `parquet:"frame_index"`
	Episode    int64     `parquet:"episode_index"`
	Index      int64     `parquet:"index"`
	TaskIndex  int64     `parquet:"task_index"`
	Reward     float32   `parquet:"next.reward"`
	Done       bool      `parquet:"next.done"`
	Success    bool      `parquet:"next.success"`
	Truncated  bool      `parquet:"next.truncated"`
	CameraTime float64   `parquet:"vlmrb.camera_time"`
	Progress   float64   `parquet:"vlmrb.progress"`
	// datasets written before the privileged values left observation.*
	LegacyCameraTime float64 `parquet:"observation.camera_time"`
	LegacyProgress   float64 `parquet:"observation.progress"`
}

// readBatch is how many rows ReadFrames decodes at a time: memory stays
// bounded by the batch, whatever the file size.
const readBatch = 1024

// ReadFrames calls fn for every frame in global index order, checking as
// it goes that indices are contiguous, that every frame lies in its
// episode with frame_index counting from 0, and that vectors have the
// shapes info.json declares.
func (d *Dataset) ReadFrames(fn func(*FrameRow) error) (err error) {
	defer d.recoverMalformed(&err)
	cols := d.Columns()
	dims := map[string]int{}
	for _, k := range []string{KeyState, KeyAction, KeyNextState} {
		if n, _, ok := d.Info.Vector(k); ok {
			dims[k] = n
		}
	}
	var files []string // data files in the episodes' order
	seen := map[string]bool{}
	for _, e := range d.Episodes {
		p := d.Info.DataFile(e.DataChunk, e.DataFile)
		if !seen[p] {
			seen[p] = true
			files = append(files, p)
		}
	}
	var next int64
	ep := 0
	fr := &FrameRow{}
	buf := make([]dataRow, readBatch)
	for _, relp := range files {
		f, size, err := openFile(filepath.Join(d.Dir, filepath.FromSlash(relp)))
		if err != nil {
			return err
		}
		pf, err := parquet.OpenFile(f, size)
		if err != nil {
			f.Close()
			return d.errf("%s: %v", relp, err)
		}
		if err := checkDataSchema(pf.Schema(), cols); err != nil {
			f.Close()
			return d.errf("%s: %v", relp, err)
		}
		if next+pf.NumRows() > int64(d.Info.TotalFrames) {
			f.Close()
			return d.errf("%s holds more frames than info.json total_frames %d", relp, d.Info.TotalFrames)
		}
		r := parquet.NewGenericReader[dataRow](pf)
		for {
			n, rerr := r.Read(buf)
			for i := range buf[:n] {
				row := &buf[i]
				for ep < len(d.Episodes) && next >= d.Episodes[ep].To {
					ep++
				}
				e := d.Episodes[min(ep, len(d.Episodes)-1)]
				switch {
				case row.Index != next:
					err = d.errf("%s: frame index %d where %d was expected (indices must be contiguous)", relp, row.Index, next)
				case row.Episode != e.Index || row.FrameIndex != next-e.From:
					err = d.errf("%s: frame %d has episode_index %d, frame_index %d; episode %d starts at %d", relp, next, row.Episode, row.FrameIndex, e.Index, e.From)
				case row.TaskIndex < 0 || row.TaskIndex >= int64(len(d.Tasks)):
					err = d.errf("%s: frame %d has task_index %d of %d tasks", relp, next, row.TaskIndex, len(d.Tasks))
				case cols.State && len(row.State) != dims[KeyState],
					cols.Action && len(row.Action) != dims[KeyAction],
					cols.NextState && len(row.NextState) != dims[KeyNextState]:
					err = d.errf("%s: frame %d has state %d, action %d, next state %d values; info.json declares %d, %d, %d",
						relp, next, len(row.State), len(row.Action), len(row.NextState), dims[KeyState], dims[KeyAction], dims[KeyNextState])
				}
				if err != nil {
					break
				}
				*fr = FrameRow{Index: row.Index, Episode: row.Episode, FrameIndex: row.FrameIndex, TaskIndex: row.TaskIndex,
					Timestamp: row.Timestamp, Reward: row.Reward, Done: row.Done, Success: row.Success, Truncated: row.Truncated,
					CameraTime: row.CameraTime + row.LegacyCameraTime, Progress: row.Progress + row.LegacyProgress} // one of each pair is absent (0)
				if cols.State {
					fr.State = row.State
				}
				if cols.Action {
					fr.Action = row.Action
				}
				if cols.NextState {
					fr.NextState = row.NextState
				}
				d.inFn = true
				err = fn(fr)
				d.inFn = false
				if err != nil {
					break
				}
				next++
			}
			if err != nil {
				_ = r.Close()
				f.Close()
				return err
			}
			if rerr == io.EOF {
				break
			}
			if rerr != nil {
				_ = r.Close()
				f.Close()
				return d.errf("%s: %v", relp, rerr)
			}
		}
		_ = r.Close()
		f.Close()
	}
	if next != int64(d.Info.TotalFrames) {
		return d.errf("the data files hold %d frames, info.json total_frames is %d", next, d.Info.TotalFrames)
	}
	return nil
}

// checkDataSchema makes sure the columns info.json declares exist with the
// physical types dataRow decodes (float32 lists, float32 reward, booleans).
func checkDataSchema(s *parquet.Schema, cols Columns) error {
	want := []struct {
		on   bool
		path []string
		kind parquet.Kind
	}{
		{true, []string{KeyIndex}, parquet.Int64},
		{true, []string{KeyEpisode}, parquet.Int64},
		{true, []string{KeyFrameIndex}, parquet.Int64},
		{true, []string{KeyTaskIndex}, parquet.Int64},
		{cols.State, []string{KeyState, "list", "element"}, parquet.Float},
		{cols.Action, []string{KeyAction, "list", "element"}, parquet.Float},
		{cols.NextState, []string{KeyNextState, "list", "element"}, parquet.Float},
		{cols.Reward, []string{KeyReward}, parquet.Float},
		{cols.Done, []string{KeyDone}, parquet.Boolean},
		{cols.Success, []string{KeySuccess}, parquet.Boolean},
		{cols.Truncated, []string{KeyTruncated}, parquet.Boolean},
		{cols.Progress, []string{cols.progressColumn()}, parquet.Double},
	}
	for _, w := range want {
		if !w.on {
			continue
		}
		lc, ok := s.Lookup(w.path...)
		if !ok {
			return fmt.Errorf("column %s is missing (info.json declares it)", strings.Join(w.path, "."))
		}
		if k := lc.Node.Type().Kind(); k != w.kind {
			return fmt.Errorf("column %s is %s, this reader reads %s", w.path[0], k, w.kind)
		}
	}
	return nil
}

func readAll[T any](path string, maxRows int64) ([]T, error) {
	f, size, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	pf, err := parquet.OpenFile(f, size)
	if err != nil {
		return nil, err
	}
	if pf.NumRows() > maxRows {
		return nil, fmt.Errorf("%d rows (limit %d)", pf.NumRows(), maxRows)
	}
	r := parquet.NewGenericReader[T](pf)
	defer func() { _ = r.Close() }()
	out := make([]T, pf.NumRows())
	n, err := r.Read(out)
	if err != nil && err != io.EOF {
		return nil, err
	}
	return out[:n], nil
}

func openFile(p string) (*os.File, int64, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, 0, fmt.Errorf("lerobot: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("lerobot: %w", err)
	}
	return f, fi.Size(), nil
}

func rel(dir, p string) string {
	if r, err := filepath.Rel(dir, p); err == nil {
		return filepath.ToSlash(r)
	}
	return p
}
