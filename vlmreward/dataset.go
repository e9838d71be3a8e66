package vlmreward

import "fmt"

// Dataset is a ring of rated, downscaled frames (ERL-VLM's rating dataset;
// capacity 10,000 in the reference). The oldest rating is overwritten when
// it is full. A Dataset is for one goroutine at a time.
type Dataset struct {
	dim    int // uint8 values per image
	n      int // classes
	cap    int
	imgs   []uint8
	labels []int
	next   int
	size   int
	total  int64
}

// NewDataset returns an empty ring for capacity images of dim values
// (3·size·size) rated in nClasses classes.
func NewDataset(capacity, dim, nClasses int) (*Dataset, error) {
	if capacity <= 0 || dim <= 0 || nClasses < 2 || nClasses > 5 {
		return nil, fmt.Errorf("vlmreward: bad dataset (capacity %d, dim %d, classes %d; want classes 2–5)", capacity, dim, nClasses)
	}
	return &Dataset{dim: dim, n: nClasses, cap: capacity, imgs: make([]uint8, capacity*dim), labels: make([]int, capacity)}, nil
}

// Add stores one rated image (dim values, copied). It panics on a wrong
// length or a label outside [0, classes).
func (d *Dataset) Add(img []uint8, label int) {
	if len(img) != d.dim || label < 0 || label >= d.n {
		panic("vlmreward: Dataset.Add: bad image length or label")
	}
	copy(d.imgs[d.next*d.dim:], img)
	d.labels[d.next] = label
	d.next = (d.next + 1) % d.cap
	d.size = min(d.size+1, d.cap)
	d.total++
}

// Len is the number of ratings held; Total counts every Add.
func (d *Dataset) Len() int     { return d.size }
func (d *Dataset) Total() int64 { return d.total }
func (d *Dataset) Classes() int { return d.n }
func (d *Dataset) Dim() int     { return d.dim }

// Image returns the i-th stored image (0 ≤ i < Len; a view, not a copy).
func (d *Dataset) Image(i int) []uint8 { return d.imgs[i*d.dim : (i+1)*d.dim] }

// Label returns the i-th stored label.
func (d *Dataset) Label(i int) int { return d.labels[i] }

// Labels returns the stored labels (a view).
func (d *Dataset) Labels() []int { return d.labels[:d.size] }

// Counts returns the number of ratings per class.
func (d *Dataset) Counts() []int {
	c := make([]int, d.n)
	for _, y := range d.Labels() {
		c[y]++
	}
	return c
}

// Schedule says when to query ratings (papers.md §6.2.7): a first session
// at step First, then one every Every steps, PerSession queries each, until
// Budget queries have been made (the last session truncated to fit).
type Schedule struct {
	First      int64 // env step of the first session (10,000)
	Every      int64 // env steps between sessions (5,000)
	PerSession int   // queries per session (50)
	Budget     int   // total queries (10,000)
}

// DefaultSchedule is the reference MetaWorld schedule.
func DefaultSchedule() Schedule {
	return Schedule{First: 10000, Every: 5000, PerSession: 50, Budget: 10000}
}

// Queries returns how many frames to rate at env step (0 when no session is
// due), given that used queries were already spent.
func (s Schedule) Queries(step int64, used int) int {
	if step < s.First || used >= s.Budget || s.PerSession <= 0 {
		return 0
	}
	if step != s.First && (s.Every <= 0 || (step-s.First)%s.Every != 0) {
		return 0
	}
	return min(s.PerSession, s.Budget-used)
}
