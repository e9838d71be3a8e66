package replay

import (
	"math"
	"math/rand/v2"
)

// fanout is the branching factor of the sum tree. Sixteen float64 children
// are 128 bytes: two adjacent cache lines, which the hardware's adjacent-line
// prefetcher fetches together. A 10⁶-leaf tree is then 5 levels deep instead
// of 20, and the descent touches 5 node groups instead of 20 scattered nodes.
const fanout = 16

// fanoutBits is log₂ fanout.
const fanoutBits = 4

// sumTree is a fanout-ary sum tree over non-negative float64 leaves, laid
// out for descents that touch one contiguous group per level.
//
// Level 0 holds the leaves. vals[k] holds the node values of level k, in
// groups of fanout siblings; pre[k] holds each group's inclusive prefix sums,
// pre[k][g·F+r] = Σ_{r'≤r} vals[k][g·F+r']. The value of node g at level k+1
// is its group's total, vals[k+1][g] = pre[k][g·F+F−1]. The top level is a
// single group; total = its last prefix. Every level's length is a multiple
// of fanout (padding leaves are 0).
//
// A descent reads only pre: at each level it counts the prefix sums ≤ u
// (sixteen independent compares, no branches, no serial add chain), which is
// the child's index, and subtracts the prefix before it.
//
// Every group's prefix is recomputed from its values on update (never
// adjusted by a delta), so the tree never drifts: the total differs from an
// exact sum of the leaves by at most about (depth+1)·fanout·2⁻⁵³ relative,
// whatever sequence of updates came before.
//
// sumTree is not safe for concurrent use; the owning sampler locks around it.
type sumTree struct {
	n     int         // leaves in use
	vals  [][]float64 // vals[0] = leaves
	pre   [][]float64 // group prefix sums per level
	total float64     // sum of all leaves

	// batched-update scratch: a stamp per group so each dirty group is
	// recomputed once per batch.
	stamp [][]uint32
	epoch uint32
	cur   []int32
	next  []int32

	// batched-descent scratch, one entry per draw.
	u    []float64
	node []int32
	sink []float64 // touch-pass results, kept so the loads are not removed
}

// touchLen is the level size (in float64s) from which a descent first
// touches the groups it will scan: below it the level sits in L1/L2 cache.
const touchLen = 1 << 14

func newSumTree(n int) *sumTree {
	if n <= 0 {
		panic("replay: sum tree needs a positive size")
	}
	t := &sumTree{n: n}
	var a arena
	l := roundUp(n, fanout)
	for {
		t.vals = append(t.vals, allocSlice[float64](&a, l))
		t.pre = append(t.pre, allocSlice[float64](&a, l))
		t.stamp = append(t.stamp, allocSlice[uint32](&a, l/fanout))
		if l <= fanout {
			break
		}
		l = roundUp(l/fanout, fanout)
	}
	release(&a, t)
	return t
}

func roundUp(x, m int) int { return (x + m - 1) / m * m }

// bytesPerLeaf is the tree's memory per leaf in use: values, prefix sums and
// update stamps over all levels (≈ 17.3 bytes).
func (t *sumTree) bytesPerLeaf() float64 {
	n := 0
	for k := range t.vals {
		n += 8*len(t.vals[k]) + 8*len(t.pre[k]) + 4*len(t.stamp[k])
	}
	return float64(n) / float64(t.n)
}

// depth is the number of levels below the top group.
func (t *sumTree) depth() int { return len(t.vals) - 1 }

// leaves returns the leaf values (length a multiple of fanout ≥ n).
func (t *sumTree) leaves() []float64 { return t.vals[0] }

// get returns leaf i.
func (t *sumTree) get(i int) float64 { return t.vals[0][i] }

// prefix16 writes the inclusive prefix sums of one group of values into p
// and returns the group's total. It runs two 8-long add chains side by side
// and then offsets the second, which halves the dependency chain; the result
// is still non-decreasing because rounding is monotone.
func prefix16(p, v []float64) float64 {
	p, v = p[:fanout:fanout], v[:fanout:fanout]
	a, b := v[0], v[8]
	p[0] = a
	b1 := b
	a += v[1]
	p[1] = a
	b2 := b1 + v[9]
	a += v[2]
	p[2] = a
	b3 := b2 + v[10]
	a += v[3]
	p[3] = a
	b4 := b3 + v[11]
	a += v[4]
	p[4] = a
	b5 := b4 + v[12]
	a += v[5]
	p[5] = a
	b6 := b5 + v[13]
	a += v[6]
	p[6] = a
	b7 := b6 + v[14]
	a += v[7]
	p[7] = a
	b8 := b7 + v[15]
	p[8] = a + b1
	p[9] = a + b2
	p[10] = a + b3
	p[11] = a + b4
	p[12] = a + b5
	p[13] = a + b6
	p[14] = a + b7
	p[15] = a + b8
	return p[15]
}

// fixGroup recomputes group g of level k and pushes its total into level k+1.
func (t *sumTree) fixGroup(k, g int) {
	s := prefix16(t.pre[k][g*fanout:], t.vals[k][g*fanout:])
	if k+1 < len(t.vals) {
		t.vals[k+1][g] = s
	} else {
		t.total = s
	}
}

// set writes leaf i and recomputes its ancestors.
func (t *sumTree) set(i int, v float64) {
	t.vals[0][i] = v
	for k := range t.vals {
		i /= fanout
		t.fixGroup(k, i)
	}
}

// setMany writes leaves idx[j] = v[j] and recomputes each dirty group once.
// Later duplicates in idx win.
func (t *sumTree) setMany(idx []int32, v []float64) {
	if len(idx) == 0 {
		return
	}
	if cap(t.sink) < len(idx) {
		t.sink = make([]float64, len(idx))
	}
	// touch pass: load every line the updates will read or write in the
	// large levels, with independent loads, so the misses overlap.
	for k := range t.vals {
		if len(t.vals[k]) < touchLen {
			break
		}
		vk, pk, sk := t.vals[k], t.pre[k], t.stamp[k]
		for j, i := range idx {
			g := int(i) >> (fanoutBits * k) &^ (fanout - 1) // first sibling of the level-k ancestor
			t.sink[j] += vk[g] + vk[g+fanout/2] + pk[g] + pk[g+fanout/2] + float64(sk[g/fanout])
		}
	}
	leaves := t.vals[0]
	for j, i := range idx {
		leaves[i] = v[j]
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
	cur := append(t.cur[:0], idx...)
	for k := range t.vals {
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
	for k := range t.vals {
		if k+1 < len(t.vals) {
			clear(t.vals[k+1])
		}
		for g := range len(t.vals[k]) / fanout {
			t.fixGroup(k, g)
		}
	}
}

// scan picks the child of one group (given by its prefix sums p) holding
// prefix mass u: the number of prefix sums ≤ u, i.e. the first child whose
// prefix exceeds u. Zero-mass children share their left neighbour's prefix,
// so they are counted past and never picked. It returns the child and u
// minus the mass before it. If round-off left u at or beyond the group's
// total, the last positive child is picked.
func scan(p []float64, u float64) (int, float64) {
	p = p[:fanout:fanout]
	// Branch-free binary search for the number of prefix sums ≤ u (p is
	// non-decreasing): five dependent steps, about 25 instructions, so many
	// lanes' scans overlap. u − s ≥ 0 exactly when s ≤ u (a nonzero
	// difference never rounds to zero), so the sign bit decides.
	// (The masks never change an index; they spare bounds checks.)
	c := 8 * ge(u, p[7])
	c += 4 * ge(u, p[(c+3)&15])
	c += 2 * ge(u, p[(c+1)&15])
	c += ge(u, p[c&15])
	c += ge(u, p[c&15]) // c ≤ 15 before this step, 16 when every prefix ≤ u
	if c >= fanout {
		return scanEdge(p)
	}
	// mass before child c: p[c−1], or 0 for c = 0 (no branch).
	before := p[max(int(c)-1, 0)] * float64(min(c, 1))
	return int(c), u - before
}

// descendLevel advances every lane one level: lane j scans the group of
// node[j] in lv. Four lanes are interleaved step by step, so the CPU has four
// independent five-step chains in a short instruction window instead of
// one; the arithmetic is exactly scan's.
func descendLevel(lv []float64, node []int32, u []float64) {
	j := 0
	for ; j+4 <= len(u) && j+4 <= len(node); j += 4 {
		b0, b1, b2, b3 := int(node[j])*fanout, int(node[j+1])*fanout, int(node[j+2])*fanout, int(node[j+3])*fanout
		p0, p1 := lv[b0:b0+fanout:b0+fanout], lv[b1:b1+fanout:b1+fanout]
		p2, p3 := lv[b2:b2+fanout:b2+fanout], lv[b3:b3+fanout:b3+fanout]
		u0, u1, u2, u3 := u[j], u[j+1], u[j+2], u[j+3]
		c0, c1, c2, c3 := 8*ge(u0, p0[7]), 8*ge(u1, p1[7]), 8*ge(u2, p2[7]), 8*ge(u3, p3[7])
		c0 += 4 * ge(u0, p0[(c0+3)&15])
		c1 += 4 * ge(u1, p1[(c1+3)&15])
		c2 += 4 * ge(u2, p2[(c2+3)&15])
		c3 += 4 * ge(u3, p3[(c3+3)&15])
		c0 += 2 * ge(u0, p0[(c0+1)&15])
		c1 += 2 * ge(u1, p1[(c1+1)&15])
		c2 += 2 * ge(u2, p2[(c2+1)&15])
		c3 += 2 * ge(u3, p3[(c3+1)&15])
		c0 += ge(u0, p0[c0&15])
		c1 += ge(u1, p1[c1&15])
		c2 += ge(u2, p2[c2&15])
		c3 += ge(u3, p3[c3&15])
		c0 += ge(u0, p0[c0&15])
		c1 += ge(u1, p1[c1&15])
		c2 += ge(u2, p2[c2&15])
		c3 += ge(u3, p3[c3&15])
		if (c0|c1|c2|c3)&fanout != 0 { // a lane past its group's total: rare
			for k := j; k < j+4; k++ {
				base := int(node[k]) * fanout
				c, r := scan(lv[base:], u[k])
				node[k], u[k] = int32(base+c), r
			}
			continue
		}
		u[j] = u0 - p0[max(int(c0)-1, 0)]*float64(min(c0, 1))
		u[j+1] = u1 - p1[max(int(c1)-1, 0)]*float64(min(c1, 1))
		u[j+2] = u2 - p2[max(int(c2)-1, 0)]*float64(min(c2, 1))
		u[j+3] = u3 - p3[max(int(c3)-1, 0)]*float64(min(c3, 1))
		node[j], node[j+1], node[j+2], node[j+3] = int32(b0+int(c0)), int32(b1+int(c1)), int32(b2+int(c2)), int32(b3+int(c3))
	}
	for ; j < len(u); j++ {
		base := int(node[j]) * fanout
		c, r := scan(lv[base:], u[j])
		node[j], u[j] = int32(base+c), r
	}
}

// ge is 1 when u ≥ s and 0 otherwise, for finite non-negative s.
func ge(u, s float64) uint64 { return ^math.Float64bits(u-s) >> 63 }

// scanEdge handles a draw that round-off pushed to or past the group's total:
// it picks the last positive child, with u at that child's mass so the
// descent keeps to the right edge.
func scanEdge(p []float64) (int, float64) {
	for c := fanout - 1; c > 0; c-- {
		if p[c] > p[c-1] {
			return c, p[c] - p[c-1]
		}
	}
	return 0, p[0]
}

// find returns the leaf holding prefix mass u ∈ [0, total).
func (t *sumTree) find(u float64) int {
	top := len(t.pre) - 1
	i, u := scan(t.pre[top], u)
	for k := top - 1; k >= 0; k-- {
		var c int
		c, u = scan(t.pre[k][i*fanout:], u)
		i = i*fanout + c
	}
	return i
}

// sampleStratified writes len(dst) leaf indices drawn proportionally to the
// leaves, one per equal-mass stratum: draw j uses u_j = (j + U_j)·total/m.
// The u_j ascend, so neighbouring draws share upper groups; descending all
// draws level by level, with branch-free scans, keeps many independent cache
// misses in flight. Each draw's marginal distribution averaged over the batch
// equals leaf/total. It needs total > 0.
//
// When mass is non-nil it receives each drawn leaf's value, read from the
// prefix sums already in cache (p[c] − p[c−1]) instead of from the leaf
// array, which would cost another cache miss per draw. The difference of two
// prefix sums of at most sixteen non-negative terms is within
// 16·2⁻⁵³·(group total) of the leaf, so it is used only when the leaf is at
// least massTol of its group's total (relative error ≤ 2e-9); smaller leaves
// are read exactly.
func (t *sumTree) sampleStratified(dst []int32, mass []float64, rng *rand.Rand) {
	m := len(dst)
	if m == 0 {
		return
	}
	if cap(t.u) < m {
		t.u = make([]float64, m)
		t.node = make([]int32, m)
		t.sink = make([]float64, m)
	}
	u, node := t.u[:m], t.node[:m]
	seg := t.total / float64(m)
	top := len(t.pre) - 1
	g := t.pre[top]
	for j := range u {
		c, r := scan(g, (float64(j)+rng.Float64())*seg)
		node[j], u[j] = int32(c), r
	}
	for k := top - 1; k >= 0; k-- {
		lv := t.pre[k]
		if len(lv) >= touchLen {
			// touch pass: one independent load per cache line the scans
			// will read, so up to dozens of misses are in flight at once
			// instead of the two or three a scan-sized loop body allows.
			for j := range u {
				base := int(node[j]) * fanout
				t.sink[j] = lv[base] + lv[base+fanout/2]
			}
		}
		descendLevel(lv, node, u)
	}
	copy(dst, node)
	if mass != nil {
		p0, v0 := t.pre[0], t.vals[0]
		for j, i := range node {
			base, c := int(i)&^(fanout-1), int(i)&(fanout-1)
			g := p0[base : base+fanout : base+fanout]
			l := g[c] - g[max(c-1, 0)]*float64(min(c, 1))
			if l < massTol*g[fanout-1] {
				l = v0[i]
			}
			mass[j] = l
		}
	}
}

// massTol is the smallest leaf-to-group ratio for which sampleStratified
// takes a leaf's value from prefix differences (see there).
const massTol = 1e-6
