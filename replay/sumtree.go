package replay

import (
	"math"
	"math/rand/v2"
	"unsafe"
)

// fanout is the branching factor of the sum tree. Sixteen float32 leaves are
// one 64-byte cache line, so a descent reads one line at the leaf level.
const fanout = 16

// fanoutBits is log₂ fanout.
const fanoutBits = 4

// sumTree is a fanout-ary sum tree over non-negative leaves, laid out so a
// descent touches one cache line at the (large, DRAM-resident) leaf level.
//
// Level 0, the leaves, is a float32 array aligned to 64 bytes: a group of
// sixteen sibling leaves is exactly one cache line. Leaves are stored rounded
// to float32 (relative error ≤ 2⁻²⁴); a positive value below the smallest
// normal float32 is stored as that (≈1.18e-38) so it stays reachable, and a
// value above math.MaxFloat32 as MaxFloat32. Every sum above the leaves is
// float64: vals[k] (k ≥ 1) holds the node values of level k, vals[1][g] being
// the sum of leaf group g, and pre[k] each level-k group's exclusive prefix
// sums with the group's total in the unused first place:
// pre[k][g·F] = Σ_{r<F} vals[k][g·F+r] and pre[k][g·F+r] = Σ_{r'<r}
// vals[k][g·F+r'] for 0 < r < F. Level k+1's node g is level k's group g's
// total; the top level is a single group and total is its sum. (vals[0] and
// pre[0] are unused: a leaf group has no stored prefix sums.)
// Levels above the leaves are 16× smaller than the leaf array and stay in
// L2/L3 cache, so a descent costs about one memory line: the leaf line.
//
// A descent scans each group: above the leaves it finds the last child whose
// exclusive prefix is ≤ u (a branch-free four-step binary search, which a
// batched descent does as two four-way steps, see descendLevel; the
// prefix before child 0 is 0 and needs no compare) and checks u against the
// group total, in the same cache line — except in the top group, which a
// batch of sorted stratified draws enters together and which is split among
// them by one sweep over its boundaries. A leaf group has no stored sums: its
// line is halved (first eight, first four, first two, first one) with the
// partial sums computed in float64 on the fly (see leafScan; a batched
// descent takes each halving step for all its draws in one pass, leafLevel),
// the first half summed exactly as leafSum sums it, so the split matches the
// group total.
// Zero leaves are never picked.
//
// Every group's sums are recomputed from its children on update (never
// adjusted by a delta), so the tree never drifts: the total differs from an
// exact float64 sum of the stored float32 leaves by at most about
// (depth+1)·fanout·2⁻⁵³ relative, whatever sequence of updates came before
// (FuzzSumTree checks 1e-9, and that each stored leaf is within 2⁻²⁴ of the
// value written). A batched update writes all its leaves first, recomputes
// each written leaf group, then each dirty group of every level above once.
//
// sumTree is not safe for concurrent use; the owning sampler locks around it.
type sumTree struct {
	n     int         // leaves in use
	leaf  []float32   // level 0, 64-byte aligned, length a multiple of fanout
	vals  [][]float64 // vals[k], k ≥ 1: node values of level k
	pre   [][]float64 // pre[k], k ≥ 1: group prefix sums of level k
	total float64     // sum of all leaves

	// batched-update scratch: a stamp per group above the leaf level so
	// each dirty group is recomputed once per batch.
	stamp [][]uint32
	epoch uint32
	cur   []int32
	next  []int32

	// batched-descent scratch, one entry per draw.
	u    []float64
	node []int32
	c    []int32
	sink []float64 // touch-pass results, kept so the loads are not removed
}

// touchLen is the level size (in float64s) from which a descent first
// touches the groups it will scan: below it the level sits in L1/L2 cache.
const touchLen = 1 << 14

// prefetchMin is the fewest draws worth a separate leaf prefetch pass.
const prefetchMin = 32

// touchLeaves is the leaf count from which the leaf lines are touched first.
const touchLeaves = 1 << 15

func newSumTree(n int) *sumTree {
	if n <= 0 {
		panic("replay: sum tree needs a positive size")
	}
	t := &sumTree{n: n}
	var a arena
	l := roundUp(n, fanout)
	t.leaf = allocAligned64(&a, l)
	t.vals = append(t.vals, nil)
	t.pre = append(t.pre, nil)
	t.stamp = append(t.stamp, nil) // leaf groups are recomputed without stamps
	for l > fanout {
		l = roundUp(l/fanout, fanout)
		t.vals = append(t.vals, allocSlice[float64](&a, l))
		t.pre = append(t.pre, allocSlice[float64](&a, l))
		t.stamp = append(t.stamp, allocSlice[uint32](&a, l/fanout))
	}
	release(&a, t)
	return t
}

// allocAligned64 returns a zeroed []float32 of length n whose first element
// is 64-byte aligned (mapped arrays are page aligned; small ones are cut
// from a slightly larger make).
func allocAligned64(a *arena, n int) []float32 {
	s := allocSlice[float32](a, n)
	if uintptr(unsafe.Pointer(&s[0]))%64 == 0 {
		return s
	}
	s = make([]float32, n+fanout)
	off := (64 - int(uintptr(unsafe.Pointer(&s[0]))%64)) % 64 / 4
	return s[off : off+n : off+n]
}

func roundUp(x, m int) int { return (x + m - 1) / m * m }

// bytesPerLeaf is the tree's memory per leaf in use: float32 leaves, the
// float64 values and prefix sums of the levels above, and update stamps
// (≈ 5.4 bytes).
func (t *sumTree) bytesPerLeaf() float64 {
	n := 4 * len(t.leaf)
	for k := range t.vals {
		n += 8*len(t.vals[k]) + 8*len(t.pre[k]) + 4*len(t.stamp[k])
	}
	return float64(n) / float64(t.n)
}

// depth is the number of levels below the top group.
func (t *sumTree) depth() int { return len(t.vals) - 1 }

// leaves returns the stored leaves (length a multiple of fanout ≥ n).
func (t *sumTree) leaves() []float32 { return t.leaf }

// get returns leaf i.
func (t *sumTree) get(i int) float64 { return float64(t.leaf[i]) }

// minLeaf is the smallest normal float32, where positive leaves are floored.
const minLeaf = 0x1p-126

// toLeaf rounds a non-negative leaf value to its stored float32 (see
// sumTree): positive values never round to zero or to +Inf.
func toLeaf(v float64) float32 {
	if v < minLeaf {
		if v > 0 {
			return minLeaf
		}
		return 0
	}
	return float32(min(v, math.MaxFloat32))
}

// leafSum is the float64 sum of one leaf group, accumulated in two chains
// of eight as leafScan does: (l₀+…+l₇) + (l₈+…+l₁₅), each left to right.
func leafSum(l []float32) float64 {
	l = l[:fanout:fanout]
	a, b := float64(l[0]), float64(l[8])
	a += float64(l[1])
	b += float64(l[9])
	a += float64(l[2])
	b += float64(l[10])
	a += float64(l[3])
	b += float64(l[11])
	a += float64(l[4])
	b += float64(l[12])
	a += float64(l[5])
	b += float64(l[13])
	a += float64(l[6])
	b += float64(l[14])
	a += float64(l[7])
	b += float64(l[15])
	return a + b
}

// leafScan picks the leaf of one group holding prefix mass u by halving:
// it compares u with the sum of the first eight leaves (leafSum's first
// chain, so the halves split exactly where the group's total does), then
// with the first four of the chosen eight, the first two of the chosen four,
// and the first of the chosen two, subtracting the mass passed each time.
// That is 15 leaf reads and 11 adds instead of sixteen partial sums and
// sixteen compares. A leaf is picked right of u only when u is at least the
// mass left of it, so a zero leaf is never picked except by round-off past a
// range's end; then (and when u is past the group's total) the last positive
// leaf of the group is picked instead.
func leafScan(l []float32, u float64) int {
	l = l[:fanout:fanout]
	a := float64(l[0]) + float64(l[1]) + float64(l[2]) + float64(l[3]) +
		float64(l[4]) + float64(l[5]) + float64(l[6]) + float64(l[7])
	r := ge(u, a)
	u -= a * float64(r)
	o := int(r * 8)
	h := l[o : o+8 : o+8]
	q := float64(h[0]) + float64(h[1]) + float64(h[2]) + float64(h[3])
	r = ge(u, q)
	u -= q * float64(r)
	o2 := int(r * 4)
	h = h[o2 : o2+4 : o2+4]
	s := float64(h[0]) + float64(h[1])
	r = ge(u, s)
	u -= s * float64(r)
	o3 := int(r * 2)
	c := o + o2 + o3 + int(ge(u, float64(h[o3&2])))
	if l[c&(fanout-1)] == 0 {
		return leafEdge(l)
	}
	return c
}

// leafLevel is leafScan for every lane, step-major as descendLevel: each
// halving step is one pass over all lanes, with leafScan's exact
// arithmetic. node[j] enters as lane j's leaf group and leaves as its leaf.
func leafLevel(lf []float32, node []int32, u []float64, c []int32) {
	n := min(len(node), len(u), len(c))
	node, u, c = node[:n], u[:n], c[:n]
	for j, g := range node {
		base := int(g) * fanout
		l := lf[base : base+8 : base+8]
		a := float64(l[0]) + float64(l[1]) + float64(l[2]) + float64(l[3]) +
			float64(l[4]) + float64(l[5]) + float64(l[6]) + float64(l[7])
		r := ge(u[j], a)
		u[j] -= a * float64(r)
		c[j] = int32(base + int(r*8))
	}
	for j, cj := range c {
		i := int(cj)
		h := lf[i : i+4 : i+4]
		q := float64(h[0]) + float64(h[1]) + float64(h[2]) + float64(h[3])
		r := ge(u[j], q)
		u[j] -= q * float64(r)
		c[j] = cj + int32(r*4)
	}
	for j, cj := range c {
		i := int(cj)
		h := lf[i : i+2 : i+2]
		s := float64(h[0]) + float64(h[1])
		r := ge(u[j], s)
		u[j] -= s * float64(r)
		c[j] = cj + int32(r*2)
	}
	zero := false
	for j, cj := range c {
		i := int(cj)
		k := i + int(ge(u[j], float64(lf[i])))
		zero = zero || lf[k] == 0
		node[j] = int32(k)
	}
	if zero { // a zero leaf picked by round-off past a range's end: rare
		for j, k := range node {
			if lf[k] == 0 {
				base := int(k) &^ (fanout - 1)
				node[j] = int32(base + leafEdge(lf[base:base+fanout]))
			}
		}
	}
}

// leafEdge returns the last positive leaf of a group (0 if none).
func leafEdge(l []float32) int {
	for c := fanout - 1; c > 0; c-- {
		if l[c] > 0 {
			return c
		}
	}
	return 0
}

// prefix16 writes one group's exclusive prefix sums into p[1:16] and its
// total into p[0] (see sumTree), and returns the total. It runs two 8-long
// add chains side by side and then offsets the second, which halves the
// dependency chain; the prefixes are still non-decreasing because rounding
// is monotone.
func prefix16(p, v []float64) float64 {
	p, v = p[:fanout:fanout], v[:fanout:fanout]
	a, b := v[0], v[8]
	p[1] = a
	b1 := b
	a += v[1]
	p[2] = a
	b2 := b1 + v[9]
	a += v[2]
	p[3] = a
	b3 := b2 + v[10]
	a += v[3]
	p[4] = a
	b4 := b3 + v[11]
	a += v[4]
	p[5] = a
	b5 := b4 + v[12]
	a += v[5]
	p[6] = a
	b6 := b5 + v[13]
	a += v[6]
	p[7] = a
	b7 := b6 + v[14]
	a += v[7]
	p[8] = a
	b8 := b7 + v[15]
	p[9] = a + b1
	p[10] = a + b2
	p[11] = a + b3
	p[12] = a + b4
	p[13] = a + b5
	p[14] = a + b6
	p[15] = a + b7
	p[0] = a + b8
	return p[0]
}

// fixGroup recomputes group g of level k and pushes its total into level k+1.
func (t *sumTree) fixGroup(k, g int) {
	var s float64
	if k == 0 {
		s = leafSum(t.leaf[g*fanout:])
	} else {
		s = prefix16(t.pre[k][g*fanout:], t.vals[k][g*fanout:])
	}
	if k+1 < len(t.vals) {
		t.vals[k+1][g] = s
	} else {
		t.total = s
	}
}

// set writes leaf i (rounded by toLeaf) and recomputes its ancestors.
func (t *sumTree) set(i int, v float64) {
	t.leaf[i] = toLeaf(v)
	for k := range t.vals {
		i /= fanout
		t.fixGroup(k, i)
	}
}

// setMany writes leaves idx[j] = v[j] (rounded by toLeaf) and recomputes
// each dirty group once per level, from its children. Later duplicates in
// idx win.
func (t *sumTree) setMany(idx []int32, v []float64) {
	if len(idx) == 0 {
		return
	}
	if cap(t.sink) < len(idx) {
		t.sink = make([]float64, len(idx))
	}
	// touch pass: load every line the updates will read or write in the
	// large levels, with independent loads, so the misses overlap.
	if len(t.leaf) >= touchLeaves {
		for j, i := range idx {
			t.sink[j] += float64(t.leaf[i])
		}
	}
	for k := 1; k < len(t.vals); k++ {
		if len(t.vals[k]) < touchLen {
			break
		}
		vk, pk, sk := t.vals[k], t.pre[k], t.stamp[k]
		for j, i := range idx {
			g := int(i) >> (fanoutBits * k) &^ (fanout - 1) // first sibling of the level-k ancestor
			t.sink[j] += vk[g] + vk[g+fanout/2] + pk[g] + pk[g+fanout/2] + float64(sk[g/fanout])
		}
	}
	leaves := t.leaf
	for j, i := range idx {
		leaves[i] = toLeaf(v[j])
	}
	if cap(t.cur) < len(idx) {
		t.cur = make([]int32, 0, len(idx))
		t.next = make([]int32, 0, len(idx))
	}
	t.epoch++
	if t.epoch == 0 { // wrapped: clear stamps so no old stamp matches
		for _, s := range t.stamp {
			clear(s)
		}
		t.epoch = 1
	}
	// Level 0: every written leaf's group, duplicates recomputed (a
	// recompute is idempotent, and 256 random leaves rarely share a group),
	// which spares a stamp array as large as the level above.
	cur := t.cur[:0]
	for _, i := range idx {
		g := i / fanout
		t.fixGroup(0, int(g))
		cur = append(cur, g)
	}
	for k := 1; k < len(t.vals); k++ {
		st := t.stamp[k]
		next := t.next[:0]
		for _, c := range cur {
			g := c / fanout
			if st[g] == t.epoch {
				continue
			}
			st[g] = t.epoch
			t.fixGroup(k, int(g))
			next = append(next, g)
		}
		t.cur, t.next = next, cur
		cur = next
	}
	t.cur = cur[:0]
}

// rebuild recomputes every group from the leaves up.
func (t *sumTree) rebuild() {
	for g := range len(t.leaf) / fanout {
		t.fixGroup(0, g)
	}
	for k := 1; k < len(t.vals); k++ {
		for g := range len(t.vals[k]) / fanout {
			t.fixGroup(k, g)
		}
	}
}

// scan picks the child of one group (given by its prefix sums p, laid out
// as in sumTree) holding prefix mass u: the last child whose exclusive
// prefix is ≤ u. A zero-mass child shares its right neighbour's prefix, so
// the search passes it and never picks it. It returns the child and u minus
// the mass before it. If round-off left u at or beyond the group's total,
// the last positive child is picked.
func scan(p []float64, u float64) (int, float64) {
	p = p[:fanout:fanout]
	// Branch-free binary search (p[1:] is non-decreasing): four dependent
	// steps. u − s ≥ 0 exactly when s ≤ u (a nonzero difference never
	// rounds to zero), so the sign bit decides. (The masks never change an
	// index; they spare bounds checks.)
	c := 8 * ge(u, p[8])
	c += 4 * ge(u, p[(c+4)&15])
	c += 2 * ge(u, p[(c+2)&15])
	c += ge(u, p[(c+1)&15])
	if ge(u, p[0]) != 0 {
		return scanEdge(p)
	}
	return int(c), u - before(p, c)
}

// before returns the mass before child c of a group: p[c], or 0 for c = 0
// (where p[0] holds the total), without a branch.
func before(p []float64, c uint64) float64 {
	keep := -((c + fanout - 1) >> fanoutBits) // all ones for c ≥ 1, 0 for c = 0
	return math.Float64frombits(math.Float64bits(p[c&(fanout-1)]) & keep)
}

// descendLevel advances every lane one level: lane j picks, in the group of
// node[j] in lv, the child scan picks, with scan's arithmetic for u. The
// four-step binary search is done as two four-way steps: the number of the
// group's prefixes p[4], p[8], p[12] that are ≤ u picks the quarter, then
// the number of p[q+1], p[q+2], p[q+3] that are ≤ u the child in it (the
// prefixes are non-decreasing, so the count of those ≤ u is the index of
// the last one, which is what the binary search finds). It runs step-major:
// each step is one pass over all lanes, so every iteration of a pass is
// independent of the others and the CPU overlaps them (loads included)
// instead of waiting on one lane's chain. c is scratch of len(node).
func descendLevel(lv []float64, node []int32, u []float64, c []int32) {
	n := min(len(node), len(u), len(c))
	node, u, c = node[:n], u[:n], c[:n]
	for j, g := range node {
		base := int(g) * fanout
		p := lv[base : base+fanout : base+fanout]
		uj := u[j]
		c[j] = int32(4 * (ge(uj, p[4]) + ge(uj, p[8]) + ge(uj, p[12])))
	}
	edge := uint64(0)
	for j, cj := range c {
		base := int(node[j]) * fanout
		g := lv[base : base+fanout : base+fanout]
		uj := u[j]
		q := uint64(cj) & (fanout - 4)
		k := q + ge(uj, g[q+1]) + ge(uj, g[q+2]) + ge(uj, g[q+3])
		edge |= ge(uj, g[0])
		u[j] = uj - before(g, k)
		node[j] = int32(base + int(k&(fanout-1)))
	}
	if edge != 0 { // a lane at or past its group's total by round-off: rare
		for j := range node {
			base := int(node[j]) &^ (fanout - 1)
			g := lv[base : base+fanout : base+fanout]
			if r := u[j] + before(g, uint64(node[j])&(fanout-1)); ge(r, g[0]) != 0 {
				e, m := scanEdge(g)
				node[j], u[j] = int32(base+e), m
			}
		}
	}
}

// ge is 1 when u ≥ s and 0 otherwise, for finite non-negative s.
func ge(u, s float64) uint64 { return ^math.Float64bits(u-s) >> 63 }

// scanEdge handles a draw that round-off pushed to or past the group's total:
// it picks the last positive child, with u at that child's mass so the
// descent keeps to the right edge.
func scanEdge(p []float64) (int, float64) {
	p = p[:fanout:fanout]
	next := p[0] // the prefix after child c: the total for c = 15
	for c := fanout - 1; c > 0; c-- {
		if next > p[c] {
			return c, next - p[c]
		}
		next = p[c]
	}
	return 0, next
}

// splitTop is descendLevel for the top group, which every draw enters: the
// draws are sorted (u_j ascends with j), so instead of searching per draw it
// sweeps the children's boundaries once and hands each its run of draws,
// with scan's criterion (the last child whose exclusive prefix is ≤ u) and
// scan's right-edge rule for draws at or past the total.
func splitTop(p []float64, node []int32, u []float64) {
	p = p[:fanout:fanout]
	m := min(len(node), len(u))
	end := m
	for end > 0 && u[end-1] >= p[0] { // past the total by round-off
		end--
	}
	if end < m {
		e, r := scanEdge(p)
		for j := end; j < m; j++ {
			node[j], u[j] = int32(e), r
		}
	}
	j := 0
	for c := range fanout {
		stop := end
		if c+1 < fanout {
			hi := p[c+1]
			for stop = j; stop < end && u[stop] < hi; stop++ {
			}
		}
		b := before(p, uint64(c))
		for ; j < stop; j++ {
			node[j], u[j] = int32(c), u[j]-b
		}
	}
}

// descendLevels takes the draws (node, u) from below the top group down to
// their leaf groups.
func (t *sumTree) descendLevels(node []int32, u []float64) {
	for k := len(t.vals) - 2; k >= 1; k-- {
		lv := t.pre[k]
		if len(lv) >= touchLen {
			// touch pass: one independent load per cache line the
			// scans will read, so dozens of misses are in flight at
			// once instead of the two or three a scan-sized loop body
			// allows.
			for j := range u {
				base := int(node[j]) * fanout
				t.sink[j] = lv[base] + lv[base+fanout/2]
			}
		}
		descendLevel(lv, node, u, t.c[:len(node)])
	}
}

// descendPrefetched takes the draws from below the top group down to their
// leaf groups in two halves, level by level: after a half descends a level
// the lines its draws will read one level down (the leaf lines after level
// 1) are software-prefetched, so they arrive while the other half descends;
// a prefetch, unlike a touch load, does not hold up the instructions after
// it. Levels small enough to stay cached are not prefetched.
func (t *sumTree) descendPrefetched(node []int32, u []float64) {
	m := len(node)
	h := m / 2
	halves := [2][2]int{{0, h}, {h, m}}
	for k := len(t.vals) - 2; k >= 1; k-- {
		lv := t.pre[k]
		for _, r := range halves {
			nd, ud := node[r[0]:r[1]], u[r[0]:r[1]]
			descendLevel(lv, nd, ud, t.c[:len(nd)])
			if k == 1 {
				prefetchGroups(&t.leaf[0], nd)
			} else if next := t.pre[k-1]; len(next) >= touchLen {
				prefetchGroups64(&next[0], nd)
			}
		}
	}
}

// find returns the leaf holding prefix mass u ∈ [0, total).
func (t *sumTree) find(u float64) int {
	i := 0
	for k := len(t.vals) - 1; k >= 1; k-- {
		var c int
		c, u = scan(t.pre[k][i*fanout:], u)
		i = i*fanout + c
	}
	return i*fanout + leafScan(t.leaf[i*fanout:], u)
}

// sampleStratified writes len(dst) leaf indices drawn proportionally to the
// leaves, one per equal-mass stratum: draw j uses u_j = (j + U_j)·total/m.
// The u_j ascend, so neighbouring draws share upper groups; descending all
// draws level by level, with branch-free scans, keeps many independent cache
// misses in flight (at the leaf level, one line per draw). On amd64 a large
// tree's leaf lines and large levels' lines are software-prefetched a level
// ahead, one half of the batch's while the other half descends, so those
// misses overlap the descent (descendPrefetched). Each
// draw's marginal distribution averaged over the batch equals leaf/total. It
// needs total > 0.
//
// When mass is non-nil it receives each drawn leaf's stored value (from the
// leaf line the scan just read).
func (t *sumTree) sampleStratified(dst []int32, mass []float64, rng *rand.Rand) {
	m := len(dst)
	if m == 0 {
		return
	}
	if cap(t.u) < m {
		t.u = make([]float64, m)
		t.node = make([]int32, m)
		t.c = make([]int32, m)
		t.sink = make([]float64, m)
	}
	u, node := t.u[:m], t.node[:m]
	seg := t.total / float64(m)
	top := len(t.vals) - 1
	for j := range u {
		node[j], u[j] = 0, (float64(j)+rng.Float64())*seg
	}
	lf := t.leaf
	if top > 0 {
		splitTop(t.pre[top], node, u)
	}
	if havePrefetch && len(lf) >= touchLeaves && m >= 2*prefetchMin {
		t.descendPrefetched(node, u)
	} else {
		t.descendLevels(node, u)
		if len(lf) >= touchLeaves {
			for j := range u {
				t.sink[j] = float64(lf[int(node[j])*fanout])
			}
		}
	}
	leafLevel(lf, node, u, t.c[:m])
	copy(dst, node)
	if mass != nil {
		for j, i := range node {
			mass[j] = float64(lf[i])
		}
	}
}
