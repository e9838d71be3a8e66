package replay

// Ref names one replay slot at one generation. A priority or score written
// with a Ref whose generation no longer matches the slot is discarded: the
// slot has been overwritten since the Ref was taken.
type Ref struct {
	Slot int32  // index into the buffer
	Gen  uint32 // the slot's generation when the transition was stored
}

// Batch is caller-owned storage for n sampled transitions. Samplers fill it
// in place; NewBatch sizes it once and it is reused for every sample.
// Row i of a matrix field is [i*dim, (i+1)*dim).
type Batch struct {
	ObsDim, ActDim int

	Obs        []float32 // n×ObsDim observations
	Actions    []float32 // n×ActDim actions
	Rewards    []float32 // n rewards
	NextObs    []float32 // n×ObsDim next observations
	Terminated []float32 // n flags: 1 when the episode ended in a terminal state (no bootstrap)
	Truncated  []float32 // n flags: 1 when the episode was cut by a time limit (bootstrap)
	Weights    []float32 // n importance weights; 1 for uniform sampling
	Refs       []Ref     // n sampled slots, for priority updates
}

// NewBatch returns a Batch with storage for n transitions.
func NewBatch(n, obsDim, actDim int) *Batch {
	if n <= 0 || obsDim <= 0 || actDim <= 0 {
		panic("replay: NewBatch needs positive n, obsDim and actDim")
	}
	return &Batch{
		ObsDim:     obsDim,
		ActDim:     actDim,
		Obs:        make([]float32, n*obsDim),
		Actions:    make([]float32, n*actDim),
		Rewards:    make([]float32, n),
		NextObs:    make([]float32, n*obsDim),
		Terminated: make([]float32, n),
		Truncated:  make([]float32, n),
		Weights:    make([]float32, n),
		Refs:       make([]Ref, n),
	}
}

// Len returns the number of transitions the batch holds.
func (b *Batch) Len() int { return len(b.Rewards) }
