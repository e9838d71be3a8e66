package rundir

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/vlmrb/vlmrb/internal/atomicfile"
	"github.com/vlmrb/vlmrb/internal/safefile"
)

// Row is one log record: the env step it was taken at and metric values by
// key ("rollout/ep_rew_mean", "losses/qf1_loss", ...).
type Row struct {
	Step   int64
	Values map[string]float64
}

// MetricsLog writes rows to metrics.jsonl, metrics.csv and (optionally)
// TensorBoard, and keeps them in memory for the learning-curve plots.
// The CSV header is the union of all keys seen; when a new key appears the
// CSV is rewritten atomically from memory (as Stable-Baselines3 does).
type MetricsLog struct {
	dir   string
	rows  []Row
	keys  []string // sorted CSV columns after "step"
	jsonl *os.File
	csv   *os.File
	tb    *EventWriter
}

// OpenMetricsLog opens the metric files in dir. Rows already in
// metrics.jsonl with a step ≤ keepUpTo are kept (a resumed run continues
// them); later rows, written after the checkpoint being resumed, are
// dropped so the files never hold two histories. keepUpTo < 0 starts fresh.
func OpenMetricsLog(dir string, keepUpTo int64, tensorboard bool) (*MetricsLog, error) {
	l := &MetricsLog{dir: dir}
	if keepUpTo >= 0 {
		rows, err := ReadMetricsJSONL(filepath.Join(dir, "metrics.jsonl"))
		if err != nil && !os.IsNotExist(err) {
			return nil, err
		}
		for _, r := range rows {
			if r.Step <= keepUpTo {
				l.rows = append(l.rows, r)
				l.addKeys(r.Values)
			}
		}
	}
	// rewrite both files from the kept rows (atomic), then append
	if err := atomicfile.Write(filepath.Join(dir, "metrics.jsonl"), 0o644, func(w io.Writer) error {
		for _, r := range l.rows {
			if err := writeJSONRow(w, r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if err := l.rewriteCSV(); err != nil {
		return nil, err
	}
	var err error
	if l.jsonl, err = os.OpenFile(filepath.Join(dir, "metrics.jsonl"), os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
		return nil, fmt.Errorf("open metrics.jsonl: %w", err)
	}
	if tensorboard {
		if l.tb, err = NewEventWriter(filepath.Join(dir, "tb")); err != nil {
			l.jsonl.Close()
			l.csv.Close()
			return nil, err
		}
	}
	return l, nil
}

// MaxMetricsBytes bounds the metrics.jsonl ReadMetricsJSONL reads (a
// million-step run logged every 1000 steps writes about 1 MB).
const MaxMetricsBytes = 256 << 20

// ReadMetricsJSONL reads the rows of a metrics.jsonl file. A torn last line
// (the process was killed mid-write) is ignored.
func ReadMetricsJSONL(path string) ([]Row, error) {
	b, err := safefile.ReadFile(path, MaxMetricsBytes)
	if err != nil {
		return nil, err
	}
	return ParseMetricsJSONL(b)
}

// ParseMetricsJSONL parses the contents of a metrics.jsonl file, as
// ReadMetricsJSONL does.
func ParseMetricsJSONL(b []byte) ([]Row, error) {
	var rows []Row
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			continue // torn write at the end of a killed run
		}
		r := Row{Values: map[string]float64{}}
		for k, v := range m {
			f, ok := v.(float64)
			if !ok {
				if v == nil { // NaN is written as null
					f, ok = math.NaN(), true
				}
			}
			if !ok {
				continue
			}
			if k == "step" {
				r.Step = int64(f)
			} else {
				r.Values[k] = f
			}
		}
		rows = append(rows, r)
	}
	return rows, sc.Err()
}

func writeJSONRow(w io.Writer, r Row) error {
	keys := sortedKeys(r.Values)
	var b bytes.Buffer
	b.WriteString(`{"step":`)
	b.WriteString(strconv.FormatInt(r.Step, 10))
	for _, k := range keys {
		kb, _ := json.Marshal(k)
		b.WriteByte(',')
		b.Write(kb)
		b.WriteByte(':')
		v := r.Values[k]
		if math.IsNaN(v) || math.IsInf(v, 0) {
			b.WriteString("null")
		} else {
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
	}
	b.WriteString("}\n")
	_, err := w.Write(b.Bytes())
	return err
}

func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// addKeys merges new keys into the CSV columns; it reports whether any were new.
func (l *MetricsLog) addKeys(v map[string]float64) bool {
	grew := false
	for k := range v {
		i := sort.SearchStrings(l.keys, k)
		if i < len(l.keys) && l.keys[i] == k {
			continue
		}
		l.keys = append(l.keys, "")
		copy(l.keys[i+1:], l.keys[i:])
		l.keys[i] = k
		grew = true
	}
	return grew
}

func (l *MetricsLog) csvRecord(r Row) []string {
	rec := make([]string, 1+len(l.keys))
	rec[0] = strconv.FormatInt(r.Step, 10)
	for i, k := range l.keys {
		if v, ok := r.Values[k]; ok {
			rec[i+1] = strconv.FormatFloat(v, 'g', -1, 64)
		}
	}
	return rec
}

func (l *MetricsLog) rewriteCSV() error {
	if l.csv != nil {
		l.csv.Close()
		l.csv = nil
	}
	path := filepath.Join(l.dir, "metrics.csv")
	err := atomicfile.Write(path, 0o644, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		if err := cw.Write(append([]string{"step"}, l.keys...)); err != nil {
			return err
		}
		for _, r := range l.rows {
			if err := cw.Write(l.csvRecord(r)); err != nil {
				return err
			}
		}
		cw.Flush()
		return cw.Error()
	})
	if err != nil {
		return err
	}
	l.csv, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("open metrics.csv: %w", err)
	}
	return nil
}

// Write appends one row to every sink.
func (l *MetricsLog) Write(r Row) error {
	vals := make(map[string]float64, len(r.Values))
	for k, v := range r.Values {
		vals[k] = v
	}
	r.Values = vals
	l.rows = append(l.rows, r)
	if err := writeJSONRow(l.jsonl, r); err != nil {
		return fmt.Errorf("write metrics.jsonl: %w", err)
	}
	if l.addKeys(r.Values) {
		if err := l.rewriteCSV(); err != nil {
			return err
		}
	} else {
		cw := csv.NewWriter(l.csv)
		if err := cw.Write(l.csvRecord(r)); err != nil {
			return fmt.Errorf("write metrics.csv: %w", err)
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return fmt.Errorf("write metrics.csv: %w", err)
		}
	}
	if l.tb != nil {
		if err := l.tb.WriteScalars(r.Step, r.Values); err != nil {
			return err
		}
		return l.tb.Flush()
	}
	return nil
}

// Rows returns the rows logged so far (including those kept on resume).
func (l *MetricsLog) Rows() []Row { return l.rows }

// Sync flushes every file to disk (before a checkpoint).
func (l *MetricsLog) Sync() error {
	if l.tb != nil {
		if err := l.tb.Flush(); err != nil {
			return err
		}
	}
	for _, f := range []*os.File{l.jsonl, l.csv} {
		if f != nil {
			if err := f.Sync(); err != nil {
				return fmt.Errorf("fsync %s: %w", f.Name(), err)
			}
		}
	}
	return nil
}

// Close flushes and closes every file.
func (l *MetricsLog) Close() error {
	err := l.Sync()
	for _, f := range []*os.File{l.jsonl, l.csv} {
		if f != nil {
			if e := f.Close(); e != nil && err == nil {
				err = e
			}
		}
	}
	if l.tb != nil {
		if e := l.tb.Close(); e != nil && err == nil {
			err = e
		}
	}
	return err
}

// FormatTable renders values as the grouped table Stable-Baselines3 prints:
// one section per prefix ("rollout/", "eval/", ...), keys indented below.
func FormatTable(step int64, values map[string]float64) string {
	groups := map[string][]string{}
	for k := range values {
		g, _, ok := strings.Cut(k, "/")
		if !ok {
			g = ""
		}
		groups[g] = append(groups[g], k)
	}
	names := make([]string, 0, len(groups))
	for g := range groups {
		names = append(names, g)
	}
	sort.Strings(names)
	type line struct{ k, v string }
	var lines []line
	kw, vw := len("time/"), len(strconv.FormatInt(step, 10))
	for _, g := range names {
		keys := groups[g]
		sort.Strings(keys)
		if g != "" {
			lines = append(lines, line{g + "/", ""})
		}
		for _, k := range keys {
			name := k
			if g != "" {
				name = "    " + strings.TrimPrefix(k, g+"/")
			}
			lines = append(lines, line{name, formatValue(values[k])})
		}
	}
	if _, ok := values["time/total_timesteps"]; !ok {
		lines = append(lines, line{"    total_timesteps", strconv.FormatInt(step, 10)})
	}
	for _, l := range lines {
		kw = max(kw, len(l.k))
		vw = max(vw, len(l.v))
	}
	var b strings.Builder
	sep := strings.Repeat("-", kw+vw+7) + "\n"
	b.WriteString(sep)
	for _, l := range lines {
		_, _ = fmt.Fprintf(&b, "| %-*s | %-*s |\n", kw, l.k, vw, l.v)
	}
	b.WriteString(sep)
	return b.String()
}

func formatValue(v float64) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case v == math.Trunc(v) && math.Abs(v) < 1e9:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) >= 1e4 || math.Abs(v) < 1e-3:
		return strconv.FormatFloat(v, 'e', 3, 64)
	default:
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
}
