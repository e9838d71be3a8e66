package lerobot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"math"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
)

// Camera is one video stream of a dataset: its name (the video key is
// ImagePrefix + Name) and frame size (pixels; even, as yuv420p needs).
type Camera struct {
	Name          string
	Width, Height int
}

// Spec says what a dataset holds. Zero-length state or action leaves the
// feature out (a camera-only recording).
type Spec struct {
	FPS       float64 // frames per second of the data and the videos
	RobotType string  // info.json robot_type ("" writes null)
	// StateDim and ActionDim are the lengths of observation.state and
	// action; StateNames/ActionNames (nil, or one per element) name them.
	StateDim, ActionDim     int
	StateNames, ActionNames []string
	// NextState adds next.observation.state (s_{t+1}) to every frame.
	NextState bool
	// Rewards adds next.reward, next.done, next.success and next.truncated.
	Rewards bool
	// CameraTime adds observation.camera_time (float64 s).
	CameraTime bool
	// Progress adds observation.progress (float64, privileged task
	// progress of simulated episodes).
	Progress bool
	Cameras  []Camera
	Codec    string // auto (default) | av1 | h264
	FFmpeg   string // ffmpeg executable (default "ffmpeg" on PATH)
}

// Frame is one row of the dataset: the observation, the action taken in
// it and what followed. Images holds one frame per Spec.Cameras entry.
type Frame struct {
	State, Action, NextState []float64
	Reward                   float64
	Done, Truncated, Success bool
	CameraTime               float64 // s since the first frame (Spec.CameraTime)
	Progress                 float64 // task progress in [0, 1] (Spec.Progress)
	Images                   []*image.RGBA
}

// Summary describes a written dataset.
type Summary struct {
	Dir      string
	Episodes int
	Frames   int64
	Codec    string           // av1 | h264 | "" (no cameras)
	Bytes    int64            // all files
	Files    map[string]int64 // relative path → bytes
}

// Writer writes one LeRobot v3.0 dataset. Frames are added with AddFrame
// and grouped into episodes by EndEpisode; Close finishes the videos,
// writes the metadata and moves the dataset into place. Until Close
// succeeds the dataset lives in a hidden temporary directory next to the
// destination, so a crash never leaves a half-written dataset under the
// destination name. A Writer is for one goroutine.
type Writer struct {
	dir, tmp string
	spec     Spec
	codec    string
	enc      []*encoder
	data     *parquet.GenericWriter[any]
	dataFile *os.File

	tasks    []string
	taskIdx  map[string]int64
	episodes []episodeMeta
	rows     []any // the open episode's rows not yet written
	epTask   string
	epBegun  bool // BeginEpisode named the open episode's task
	epFrames int64
	frames   int64

	stState, stAction, stNext, stReward, stTime *runStats
	stImg                                       []*imageStats
	extra                                       map[string][]byte
	closed                                      bool
}

type episodeMeta struct {
	index, length, from int64
	task                string
	videoFrom           int64 // frames of the videos before this episode
}

// Create starts a dataset that Close will put at dir. dir must not exist.
func Create(ctx context.Context, dir string, spec Spec) (*Writer, error) {
	if err := spec.check(); err != nil {
		return nil, err
	}
	if _, err := os.Stat(dir); err == nil {
		return nil, fmt.Errorf("lerobot: %s already exists; pick a new dataset directory or remove it", dir)
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("lerobot: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".tmp-")
	if err != nil {
		return nil, fmt.Errorf("lerobot: %w", err)
	}
	w := &Writer{dir: dir, tmp: tmp, spec: spec, taskIdx: map[string]int64{}}
	if err := w.open(ctx); err != nil {
		w.Abort()
		return nil, err
	}
	return w, nil
}

func (s *Spec) check() error {
	switch {
	case !(s.FPS > 0) || math.IsInf(s.FPS, 0):
		return fmt.Errorf("lerobot: fps %g must be positive", s.FPS)
	case s.StateDim < 0 || s.ActionDim < 0:
		return fmt.Errorf("lerobot: negative state or action size")
	case s.StateNames != nil && len(s.StateNames) != s.StateDim:
		return fmt.Errorf("lerobot: %d state names for %d values", len(s.StateNames), s.StateDim)
	case s.ActionNames != nil && len(s.ActionNames) != s.ActionDim:
		return fmt.Errorf("lerobot: %d action names for %d values", len(s.ActionNames), s.ActionDim)
	case s.NextState && s.StateDim == 0:
		return fmt.Errorf("lerobot: next state without a state")
	}
	seen := map[string]bool{}
	for _, c := range s.Cameras {
		if c.Name == "" || seen[c.Name] {
			return fmt.Errorf("lerobot: camera names must be unique and non-empty (got %q)", c.Name)
		}
		seen[c.Name] = true
		if c.Width <= 0 || c.Height <= 0 || c.Width%2 != 0 || c.Height%2 != 0 {
			return fmt.Errorf("lerobot: camera %s is %dx%d; width and height must be positive and even (yuv420p)", c.Name, c.Width, c.Height)
		}
	}
	return nil
}

func (w *Writer) open(ctx context.Context) error {
	sp := &w.spec
	if len(sp.Cameras) > 0 {
		bin := sp.FFmpeg
		if bin == "" {
			bin = "ffmpeg"
		}
		ff, err := exec.LookPath(bin)
		if err != nil {
			return fmt.Errorf("%w (%v)", ErrNoFFmpeg, err)
		}
		minSide := math.MaxInt
		for _, c := range sp.Cameras {
			minSide = min(minSide, c.Width, c.Height)
		}
		if w.codec, err = pickCodec(ctx, ff, sp.Codec, minSide); err != nil {
			return err
		}
		for _, c := range sp.Cameras {
			p := filepath.Join(w.tmp, filepath.FromSlash(expand(VideoPath, ImagePrefix+c.Name, 0, 0)))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return fmt.Errorf("lerobot: %w", err)
			}
			e, err := startEncoder(ff, w.codec, p, c.Width, c.Height, sp.FPS)
			if err != nil {
				return err
			}
			w.enc = append(w.enc, e)
			w.stImg = append(w.stImg, newImageStats())
		}
	}
	p := filepath.Join(w.tmp, filepath.FromSlash(expand(DataPath, "", 0, 0)))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("lerobot: %w", err)
	}
	f, err := os.Create(p)
	if err != nil {
		return fmt.Errorf("lerobot: %w", err)
	}
	w.dataFile = f
	w.data = parquet.NewGenericWriter[any](f, w.dataSchema(), parquet.Compression(&parquet.Snappy))
	w.stTime = newRunStats(1)
	if sp.StateDim > 0 {
		w.stState = newRunStats(sp.StateDim)
		w.stState.round32 = true
	}
	if sp.ActionDim > 0 {
		w.stAction = newRunStats(sp.ActionDim)
		w.stAction.round32 = true
	}
	if sp.NextState {
		w.stNext = newRunStats(sp.StateDim)
		w.stNext.round32 = true
	}
	if sp.Rewards {
		w.stReward = newRunStats(1)
	}
	return nil
}

// dataSchema is the frame table's schema: float32 lists for vectors,
// float32 timestamp and reward, int64 indices, booleans for flags (the
// Arrow types LeRobot's features map to).
func (w *Writer) dataSchema() *parquet.Schema {
	sp := &w.spec
	g := parquet.Group{
		KeyTimestamp:  parquet.Leaf(parquet.FloatType),
		KeyFrameIndex: parquet.Int(64),
		KeyEpisode:    parquet.Int(64),
		KeyIndex:      parquet.Int(64),
		KeyTaskIndex:  parquet.Int(64),
	}
	list := parquet.List(parquet.Leaf(parquet.FloatType))
	if sp.StateDim > 0 {
		g[KeyState] = list
	}
	if sp.ActionDim > 0 {
		g[KeyAction] = list
	}
	if sp.NextState {
		g[KeyNextState] = list
	}
	if sp.Rewards {
		g[KeyReward] = parquet.Leaf(parquet.FloatType)
		g[KeyDone] = parquet.Leaf(parquet.BooleanType)
		g[KeySuccess] = parquet.Leaf(parquet.BooleanType)
		g[KeyTruncated] = parquet.Leaf(parquet.BooleanType)
	}
	if sp.CameraTime {
		g[KeyCameraTime] = parquet.Leaf(parquet.DoubleType)
	}
	if sp.Progress {
		g[KeyProgress] = parquet.Leaf(parquet.DoubleType)
	}
	return parquet.NewSchema("schema", g)
}

// AddFrame appends one frame to the open episode.
func (w *Writer) AddFrame(f *Frame) error {
	sp := &w.spec
	if w.closed {
		return errors.New("lerobot: AddFrame after Close")
	}
	if len(f.State) != sp.StateDim || len(f.Action) != sp.ActionDim || (sp.NextState && len(f.NextState) != sp.StateDim) {
		return fmt.Errorf("lerobot: frame has state %d, action %d, next state %d values; the dataset has %d, %d, %d",
			len(f.State), len(f.Action), len(f.NextState), sp.StateDim, sp.ActionDim, sp.StateDim)
	}
	if len(f.Images) != len(sp.Cameras) {
		return fmt.Errorf("lerobot: frame has %d images for %d cameras", len(f.Images), len(sp.Cameras))
	}
	for i, img := range f.Images {
		if err := w.enc[i].write(img); err != nil {
			return err
		}
		w.stImg[i].add(img)
	}
	ts := float32(float64(w.epFrames) / sp.FPS)
	row := map[string]any{
		KeyTimestamp:  ts,
		KeyFrameIndex: w.epFrames,
		KeyEpisode:    int64(len(w.episodes)),
		KeyIndex:      w.frames,
		KeyTaskIndex:  int64(0), // set at EndEpisode, when the task is known
	}
	w.stTime.add([]float64{float64(ts)})
	if sp.StateDim > 0 {
		row[KeyState] = to32(f.State)
		w.stState.add(f.State)
	}
	if sp.ActionDim > 0 {
		row[KeyAction] = to32(f.Action)
		w.stAction.add(f.Action)
	}
	if sp.NextState {
		row[KeyNextState] = to32(f.NextState)
		w.stNext.add(f.NextState)
	}
	if sp.Rewards {
		row[KeyReward] = float32(f.Reward)
		row[KeyDone], row[KeySuccess], row[KeyTruncated] = f.Done, f.Success, f.Truncated
		w.stReward.add([]float64{float64(float32(f.Reward))})
	}
	if sp.CameraTime {
		row[KeyCameraTime] = f.CameraTime
	}
	if sp.Progress {
		row[KeyProgress] = f.Progress
	}
	w.rows = append(w.rows, row)
	w.epFrames++
	w.frames++
	if w.epBegun && len(w.rows) >= flushRows {
		return w.flush(w.taskIndex(w.epTask))
	}
	return nil
}

// flushRows is how many frames of an episode begun with BeginEpisode are
// held before they go to the parquet writer: memory stays bounded however
// long the episode (a live camera recording) runs.
const flushRows = 4096

// BeginEpisode names the task of the episode that the next frames open.
// It is optional; with it the episode's frames are written as they come
// instead of being held until EndEpisode.
func (w *Writer) BeginEpisode(task string) error {
	if w.epFrames > 0 {
		return errors.New("lerobot: BeginEpisode inside an episode; call EndEpisode first")
	}
	w.epTask, w.epBegun = task, true
	return nil
}

func (w *Writer) taskIndex(task string) int64 {
	ti, ok := w.taskIdx[task]
	if !ok {
		ti = int64(len(w.tasks))
		w.taskIdx[task] = ti
		w.tasks = append(w.tasks, task)
	}
	return ti
}

// flush writes the held rows with task index ti.
func (w *Writer) flush(ti int64) error {
	for _, r := range w.rows {
		r.(map[string]any)[KeyTaskIndex] = ti
	}
	if _, err := w.data.Write(w.rows); err != nil {
		return fmt.Errorf("lerobot: write frames: %w", err)
	}
	clear(w.rows)
	w.rows = w.rows[:0]
	return nil
}

// EndEpisode closes the open episode under the task's instruction text
// (the one BeginEpisode gave when task is ""). An episode needs at least
// one frame.
func (w *Writer) EndEpisode(task string) error {
	if w.epFrames == 0 {
		return errors.New("lerobot: EndEpisode with no frames")
	}
	if w.epBegun && task != "" && task != w.epTask {
		return fmt.Errorf("lerobot: EndEpisode(%q) for an episode begun as %q", task, w.epTask)
	}
	if w.epBegun {
		task = w.epTask
	}
	if err := w.flush(w.taskIndex(task)); err != nil {
		return err
	}
	w.epBegun = false
	for _, s := range []*runStats{w.stTime, w.stState, w.stAction, w.stNext, w.stReward} {
		if s != nil {
			s.endEpisode()
		}
	}
	for _, s := range w.stImg {
		s.endEpisode()
	}
	from := w.frames - w.epFrames
	w.episodes = append(w.episodes, episodeMeta{index: int64(len(w.episodes)), length: w.epFrames, from: from, task: task, videoFrom: from})
	w.epFrames = 0
	return nil
}

// SetMeta adds a file meta/name (a plain name such as vlmrb.json) with
// content b, written at Close. LeRobot's loader ignores files it does not
// know; vlmrb keeps the recording's provenance there.
func (w *Writer) SetMeta(name string, b []byte) error {
	if name == "" || name != filepath.Base(name) || name == "info.json" || name == "stats.json" || name == "tasks.parquet" {
		return fmt.Errorf("lerobot: meta file name %q is not a free plain file name", name)
	}
	if w.extra == nil {
		w.extra = map[string][]byte{}
	}
	w.extra[name] = append([]byte(nil), b...)
	return nil
}

// Episodes returns the number of completed episodes.
func (w *Writer) Episodes() int { return len(w.episodes) }

// Abort discards everything written so far.
func (w *Writer) Abort() {
	if w.closed {
		return
	}
	w.closed = true
	for _, e := range w.enc {
		e.kill()
	}
	if w.dataFile != nil {
		_ = w.dataFile.Close()
	}
	_ = os.RemoveAll(w.tmp)
}

// Close finishes the videos and the frame table, writes meta/ and renames
// the dataset into place. Frames of an episode that was not ended are
// dropped. On error nothing is left at the destination.
func (w *Writer) Close() (*Summary, error) {
	if w.closed {
		return nil, errors.New("lerobot: Close called twice")
	}
	if len(w.episodes) == 0 {
		w.Abort()
		return nil, errors.New("lerobot: no complete episode to write")
	}
	if err := w.finish(); err != nil {
		w.Abort()
		return nil, err
	}
	w.closed = true
	if err := os.Rename(w.tmp, w.dir); err != nil {
		_ = os.RemoveAll(w.tmp)
		return nil, fmt.Errorf("lerobot: move dataset into place: %w", err)
	}
	syncDir(filepath.Dir(w.dir))
	return w.summary()
}

func (w *Writer) finish() error {
	// frames of an unfinished episode never reached the table; the
	// videos are cut back to the last episode by ending them here is not
	// possible, so an unfinished episode is an error for cameras
	if w.epFrames > 0 && len(w.enc) > 0 {
		return fmt.Errorf("lerobot: %d frames of an unfinished episode are in the videos; call EndEpisode before Close", w.epFrames)
	}
	for _, e := range w.enc {
		if err := e.finish(); err != nil {
			return err
		}
	}
	w.enc = nil
	if err := w.data.Close(); err != nil {
		return fmt.Errorf("lerobot: frame table: %w", err)
	}
	if err := w.dataFile.Sync(); err != nil {
		return fmt.Errorf("lerobot: %w", err)
	}
	if err := w.dataFile.Close(); err != nil {
		return fmt.Errorf("lerobot: %w", err)
	}
	w.dataFile = nil
	if err := w.writeTasks(); err != nil {
		return err
	}
	if err := w.writeEpisodes(); err != nil {
		return err
	}
	if err := w.writeStats(); err != nil {
		return err
	}
	for name, b := range w.extra {
		if err := writeFileSync(filepath.Join(w.tmp, "meta", name), b); err != nil {
			return err
		}
	}
	return w.writeInfo()
}

// pandasTasksMeta is the pandas metadata pyarrow writes for LeRobot's
// tasks DataFrame (index "task", one column task_index), so that
// pandas.read_parquet restores the task strings as the index.
const pandasTasksMeta = `{"index_columns": ["task"], "column_indexes": [{"name": null, "field_name": null, "pandas_type": "unicode", "numpy_type": "object", "metadata": {"encoding": "UTF-8"}}], "columns": [{"name": "task_index", "field_name": "task_index", "pandas_type": "int64", "numpy_type": "int64", "metadata": null}, {"name": "task", "field_name": "task", "pandas_type": "unicode", "numpy_type": "object", "metadata": null}], "creator": {"library": "pyarrow", "version": "17.0.0"}, "pandas_version": "2.2.3"}`

func (w *Writer) writeTasks() error {
	type taskRow struct {
		TaskIndex int64  `parquet:"task_index"`
		Task      string `parquet:"task"`
	}
	rows := make([]taskRow, len(w.tasks))
	for i, t := range w.tasks {
		rows[i] = taskRow{TaskIndex: int64(i), Task: t}
	}
	return writeParquetFile(filepath.Join(w.tmp, "meta", "tasks.parquet"), func(f *os.File) error {
		return parquet.Write(f, rows, parquet.Compression(&parquet.Snappy), parquet.KeyValueMetadata("pandas", pandasTasksMeta))
	})
}

func (w *Writer) writeEpisodes() error {
	g := parquet.Group{
		"episode_index":             parquet.Int(64),
		"tasks":                     parquet.List(parquet.String()),
		"length":                    parquet.Int(64),
		"dataset_from_index":        parquet.Int(64),
		"dataset_to_index":          parquet.Int(64),
		"data/chunk_index":          parquet.Int(64),
		"data/file_index":           parquet.Int(64),
		"meta/episodes/chunk_index": parquet.Int(64),
		"meta/episodes/file_index":  parquet.Int(64),
	}
	for _, c := range w.spec.Cameras {
		k := "videos/" + ImagePrefix + c.Name + "/"
		g[k+"chunk_index"], g[k+"file_index"] = parquet.Int(64), parquet.Int(64)
		g[k+"from_timestamp"], g[k+"to_timestamp"] = parquet.Leaf(parquet.DoubleType), parquet.Leaf(parquet.DoubleType)
	}
	feats := w.episodeStatFeatures()
	for _, f := range feats {
		for _, k := range episodeStatKeys {
			if k == "count" {
				g["stats/"+f.key+"/"+k] = parquet.List(parquet.Int(64)) // [n], images too
			} else {
				g["stats/"+f.key+"/"+k] = f.leaf()
			}
		}
	}
	rows := make([]any, len(w.episodes))
	for i, e := range w.episodes {
		r := map[string]any{
			"episode_index": e.index, "tasks": []string{e.task}, "length": e.length,
			"dataset_from_index": e.from, "dataset_to_index": e.from + e.length,
			"data/chunk_index": int64(0), "data/file_index": int64(0),
			"meta/episodes/chunk_index": int64(0), "meta/episodes/file_index": int64(0),
		}
		for _, c := range w.spec.Cameras {
			k := "videos/" + ImagePrefix + c.Name + "/"
			r[k+"chunk_index"], r[k+"file_index"] = int64(0), int64(0)
			r[k+"from_timestamp"] = float64(e.videoFrom) / w.spec.FPS
			r[k+"to_timestamp"] = float64(e.videoFrom+e.length) / w.spec.FPS
		}
		for _, f := range feats {
			for k, v := range f.eps[i].json() {
				if k == "count" {
					r["stats/"+f.key+"/"+k] = []int64{f.eps[i].n}
				} else {
					r["stats/"+f.key+"/"+k] = f.value(v)
				}
			}
		}
		rows[i] = r
	}
	p := filepath.Join(w.tmp, "meta", "episodes", "chunk-000", "file-000.parquet")
	return writeParquetFile(p, func(f *os.File) error {
		pw := parquet.NewGenericWriter[any](f, parquet.NewSchema("schema", g), parquet.Compression(&parquet.Snappy))
		if _, err := pw.Write(rows); err != nil {
			return err
		}
		return pw.Close()
	})
}

func (w *Writer) writeStats() error {
	st := map[string]any{KeyTimestamp: w.stTime.json(false)}
	idx, epi := w.indexStats()
	st[KeyIndex] = idx.json(false)
	st[KeyEpisode] = epi.json(false)
	if w.stState != nil {
		st[KeyState] = w.stState.json(false)
	}
	if w.stAction != nil {
		st[KeyAction] = w.stAction.json(false)
	}
	if w.stNext != nil {
		st[KeyNextState] = w.stNext.json(false)
	}
	if w.stReward != nil {
		st[KeyReward] = w.stReward.json(false)
	}
	for i, c := range w.spec.Cameras {
		st[ImagePrefix+c.Name] = w.stImg[i].json()
	}
	b, err := json.MarshalIndent(st, "", "    ")
	if err != nil {
		return fmt.Errorf("lerobot: stats: %w", err)
	}
	return writeFileSync(filepath.Join(w.tmp, "meta", "stats.json"), append(b, '\n'))
}

// indexStats are the statistics of the index and episode_index columns,
// episode by episode.
func (w *Writer) indexStats() (idx, epi *runStats) {
	idx, epi = newRunStats(1), newRunStats(1)
	for _, e := range w.episodes {
		for i := range e.length {
			idx.add([]float64{float64(e.from + i)})
			epi.add([]float64{float64(e.index)})
		}
		idx.endEpisode()
		epi.endEpisode()
	}
	return idx, epi
}

// episodeStatKeys are the statistics of each feature in the episode
// table's stats/FEATURE/STAT columns, as LeRobot v3.0 stores them.
var episodeStatKeys = append([]string{"min", "max", "mean", "std", "count"}, QuantileKeys...)

// episodeStatFeature is one feature's per-episode statistics.
type episodeStatFeature struct {
	key   string
	eps   []episodeStats
	image bool // values are [C][1][1], as LeRobot stores image stats
}

func (f episodeStatFeature) leaf() parquet.Node {
	if f.image {
		return parquet.List(parquet.List(parquet.List(parquet.Leaf(parquet.DoubleType))))
	}
	return parquet.List(parquet.Leaf(parquet.DoubleType))
}

func (f episodeStatFeature) value(v []float64) any {
	if !f.image {
		return v
	}
	out := make([][][]float64, len(v))
	for i, x := range v {
		out[i] = [][]float64{{x}}
	}
	return out
}

// episodeStatFeatures lists the features with per-episode statistics.
func (w *Writer) episodeStatFeatures() []episodeStatFeature {
	idx, epi := w.indexStats()
	fs := []episodeStatFeature{{key: KeyTimestamp, eps: w.stTime.eps}, {key: KeyIndex, eps: idx.eps}, {key: KeyEpisode, eps: epi.eps}}
	for _, s := range []struct {
		key string
		st  *runStats
	}{{KeyState, w.stState}, {KeyAction, w.stAction}, {KeyNextState, w.stNext}, {KeyReward, w.stReward}} {
		if s.st != nil {
			fs = append(fs, episodeStatFeature{key: s.key, eps: s.st.eps})
		}
	}
	for i, c := range w.spec.Cameras {
		fs = append(fs, episodeStatFeature{key: ImagePrefix + c.Name, eps: w.stImg[i].eps, image: true})
	}
	return fs
}

// Info returns the info.json the writer describes.
func (w *Writer) info() *Info {
	sp := &w.spec
	scalar := func(dtype string) Feature { return Feature{DType: dtype, Shape: []int{1}} }
	fs := map[string]Feature{
		KeyTimestamp:  scalar("float32"),
		KeyFrameIndex: scalar("int64"),
		KeyEpisode:    scalar("int64"),
		KeyIndex:      scalar("int64"),
		KeyTaskIndex:  scalar("int64"),
	}
	if sp.StateDim > 0 {
		fs[KeyState] = Feature{DType: "float32", Shape: []int{sp.StateDim}, Names: sp.StateNames}
	}
	if sp.ActionDim > 0 {
		fs[KeyAction] = Feature{DType: "float32", Shape: []int{sp.ActionDim}, Names: sp.ActionNames}
	}
	if sp.NextState {
		fs[KeyNextState] = Feature{DType: "float32", Shape: []int{sp.StateDim}, Names: sp.StateNames}
	}
	if sp.Rewards {
		fs[KeyReward] = scalar("float32")
		fs[KeyDone], fs[KeySuccess], fs[KeyTruncated] = scalar("bool"), scalar("bool"), scalar("bool")
	}
	if sp.CameraTime {
		fs[KeyCameraTime] = scalar("float64")
	}
	if sp.Progress {
		fs[KeyProgress] = scalar("float64")
	}
	for _, c := range sp.Cameras {
		fs[ImagePrefix+c.Name] = Feature{DType: "video", Shape: []int{c.Height, c.Width, 3},
			Names: []string{"height", "width", "channels"},
			Info: &VideoInfo{Height: c.Height, Width: c.Width, Codec: w.codec, PixFmt: "yuv420p",
				FPS: sp.FPS, Channels: 3}}
	}
	in := &Info{
		CodebaseVersion: CodebaseVersion, TotalEpisodes: len(w.episodes), TotalFrames: int(w.frames),
		TotalTasks: len(w.tasks), ChunksSize: ChunksSize, DataFilesSizeInMB: DataFilesSizeInMB,
		VideoFilesSizeInMB: VideoFilesSizeInMB, FPS: sp.FPS,
		Splits:   map[string]string{"train": fmt.Sprintf("0:%d", len(w.episodes))},
		DataPath: DataPath, Features: fs,
	}
	if sp.RobotType != "" {
		in.RobotType = &sp.RobotType
	}
	if len(sp.Cameras) > 0 {
		vp := VideoPath
		in.VideoPath = &vp
	}
	return in
}

func (w *Writer) writeInfo() error {
	b, err := marshalInfo(w.info())
	if err != nil {
		return fmt.Errorf("lerobot: info.json: %w", err)
	}
	return writeFileSync(filepath.Join(w.tmp, "meta", "info.json"), b)
}

func (w *Writer) summary() (*Summary, error) {
	s := &Summary{Dir: w.dir, Episodes: len(w.episodes), Frames: w.frames, Codec: w.codec, Files: map[string]int64{}}
	err := filepath.WalkDir(w.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(w.dir, p)
		s.Files[filepath.ToSlash(rel)] = fi.Size()
		s.Bytes += fi.Size()
		return nil
	})
	return s, err
}

func to32(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}

func writeParquetFile(path string, write func(*os.File) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("lerobot: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("lerobot: %w", err)
	}
	if err := write(f); err != nil {
		_ = f.Close()
		return fmt.Errorf("lerobot: %s: %w", filepath.Base(path), err)
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return fmt.Errorf("lerobot: %w", err)
	}
	return f.Close()
}

func writeFileSync(path string, b []byte) error {
	return writeParquetFile(path, func(f *os.File) error { _, err := f.Write(b); return err })
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
