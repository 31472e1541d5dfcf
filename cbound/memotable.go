package cbound

import (
	"math/bits"

	"github.com/weftlab/weft/internal/offheap"
)

// cbKey is an HB state's two independent 64-bit fingerprints: its hash and
// the second fingerprint the search keeps beside it. {0, 0} marks an empty
// slot; a state with both fingerprints 0 is stored as {0, 1}.
type cbKey struct{ h1, h2 uint64 }

func keyOf(h1, h2 uint64) cbKey {
	if h1|h2 == 0 {
		h2 = 1
	}
	return cbKey{h1, h2}
}

// cbTable maps a state to bounds on CB(x, t) for every thread t, packed in
// w words a slot: open addressing with linear probing over one array that
// holds each slot's key and values side by side, so that a lookup touches
// one cache line, mostly, and an entry costs its key and its values, 24
// bytes for up to 16 threads at bound 2, where a Go map of one entry per
// (state, thread) kept some 70 bytes per pair.
type cbTable struct {
	slots []uint64 // per slot: h1, h2, then w words of values
	// mem is the mapped memory slots is in from 2 MB (nil: the Go heap),
	// where a new array faults in 2 MB at a time.
	mem   *offheap.Region
	w     int
	n     int // entries in use
	shift uint
	nslot int // slots, a power of two (no division on a lookup)
	// grows, if set, is told the bytes of the array a growth is about to
	// allocate (beside the one it replaces), before it does: the memory
	// budget is asked there, as the array doubles.
	grows func(bytes int64)
}

func (t *cbTable) stride() int { return 2 + t.w }

func (t *cbTable) len() int { return t.nslot }

func (t *cbTable) init(slots, w int) {
	t.w, t.n, t.nslot = w, 0, slots
	if cap(t.slots) >= slots*(2+w) {
		t.slots = t.slots[:slots*(2+w)]
		clear(t.slots)
	} else {
		t.mem.Free()
		t.slots, t.mem = offheap.Make[uint64](slots * (2 + w))
	}
	t.shift = uint(64 - bits.TrailingZeros(uint(slots)))
}

// slot returns the slot of k: where it is, or the empty slot where it goes.
func (t *cbTable) slot(k cbKey) (int, bool) {
	st := 2 + t.w
	for i := int((k.h1 * 0x9e3779b97f4a7c15) >> t.shift); ; i = (i + 1) & (t.nslot - 1) {
		b := i * st
		h1, h2 := t.slots[b], t.slots[b+1]
		if h1 == k.h1 && h2 == k.h2 {
			return i, true
		}
		if h1|h2 == 0 {
			return i, false
		}
	}
}

func (t *cbTable) row(i int) []uint64 {
	st := t.stride()
	return t.slots[i*st+2 : (i+1)*st : (i+1)*st]
}

// insert adds k, which is not in t, doubling t past 3/4 full (linear
// probing slows down fast above), and returns
// its values, cleared, to fill.
func (t *cbTable) insert(k cbKey) []uint64 {
	if len(t.slots) == 0 || (t.n+1)*4 > t.len()*3 {
		t.grow()
	}
	i, _ := t.slot(k)
	st := t.stride()
	t.slots[i*st], t.slots[i*st+1] = k.h1, k.h2
	t.n++
	r := t.row(i)
	clear(r)
	return r
}

func (t *cbTable) grow() {
	if t.grows != nil && len(t.slots) > 0 {
		t.grows(2 * int64(cap(t.slots)) * 8)
	}
	old := *t
	t.slots, t.mem = nil, nil
	t.init(max(2*old.len(), 256), old.w)
	st := old.stride()
	for i := range old.len() {
		if old.slots[i*st]|old.slots[i*st+1] != 0 {
			copy(t.insert(cbKey{old.slots[i*st], old.slots[i*st+1]}), old.row(i))
		}
	}
	old.mem.Free()
}

func (t *cbTable) bytes() int64 { return int64(cap(t.slots)) * 8 }

// free gives back the table's memory, mapped or not.
func (t *cbTable) free() {
	t.mem.Free()
	t.slots, t.mem, t.n, t.nslot = nil, nil, 0, 0
}

// cbGens is the CB memo in two generations: the newer takes every insertion
// and, between operations, becomes the older once it holds cap entries; the
// older is then dropped (its memory reused). An entry found in the older is
// copied to the newer. Nothing here depends on timing or randomness, so a
// search's figures are the same on every run.
type cbGens struct {
	cur, old cbTable
	cap      int // entries of one generation
	bits     int // bits a value
	per      int // values a word, a power of two
	// shifts: a thread's word is t >> perShift, its place in the word
	// (t & (per-1)) << valShift: no division on a lookup
	perShift, valShift uint
	max                uint64
}

func newCBGens(threads, bitsPer, capEntries int) cbGens {
	g := cbGens{cap: max(capEntries, 1), bits: bitsPer, per: 64 / (2 * bitsPer), max: 1<<bitsPer - 1}
	g.perShift = uint(bits.TrailingZeros(uint(g.per)))
	g.valShift = uint(bits.TrailingZeros(uint(2 * bitsPer)))
	w := (threads + g.per - 1) / g.per
	g.cur.init(256, max(w, 1))
	g.old.w = g.cur.w
	return g
}

// get returns the values of k, or nil.
func (g *cbGens) get(k cbKey) []uint64 {
	if i, ok := g.cur.slot(k); ok {
		return g.cur.row(i)
	}
	if g.old.n == 0 {
		return nil
	}
	if i, ok := g.old.slot(k); ok {
		r := g.cur.insert(k)
		copy(r, g.old.row(i))
		return r
	}
	return nil
}

// put returns k's values, cleared, inserting k if it is not there.
func (g *cbGens) put(k cbKey) []uint64 {
	if r := g.get(k); r != nil {
		clear(r)
		return r
	}
	return g.cur.insert(k)
}

// value reads thread t's bounds in a row.
func (g *cbGens) value(r []uint64, t int) (lo, hi int32) {
	w := r[t>>g.perShift] >> ((uint(t&(g.per-1)) << g.valShift) & 63)
	return int32(w & g.max), int32(w >> (uint(g.bits) & 63) & g.max)
}

// setRow writes every thread t's bounds lo[t], hi[t] (each at most g.max)
// in a row whose values are 0.
func (g *cbGens) setRow(r []uint64, lo, hi []int32) {
	hi = hi[:len(lo)]
	b, per := uint(g.bits), g.per
	for i := range r {
		var w uint64
		end := min(len(lo), (i+1)*per)
		for t := end - 1; t >= i*per; t-- {
			w = w<<(2*b) | uint64(lo[t]) | uint64(hi[t])<<b
		}
		r[i] = w
	}
}

// replace writes thread t's bounds (each at most g.max) in a row over the
// ones it holds.
func (g *cbGens) replace(r []uint64, t int, lo, hi int32) {
	sh := (uint(t&(g.per-1)) << g.valShift) & 63
	all := uint64(1)<<uint(2*g.bits) - 1 // all ones when a value's bounds fill the word
	i := t >> g.perShift
	r[i] = r[i]&^(all<<sh) | (uint64(lo)|uint64(hi)<<uint(g.bits))<<sh
}

// rotate starts a new generation if the newer is full; called only between
// operations.
func (g *cbGens) rotate() {
	if g.cur.n >= g.cap {
		slots := g.cur.len()
		g.old, g.cur = g.cur, g.old
		g.cur.init(slots, g.old.w)
	}
}

func (g *cbGens) len() int { return g.cur.n + g.old.n }

func (g *cbGens) reset() {
	g.cur.init(g.cur.len(), g.cur.w)
	g.old.n = 0
	g.old.slots = g.old.slots[:0]
}

func (g *cbGens) bytes() int64 { return g.cur.bytes() + g.old.bytes() }

// free gives back both generations' memory, for a memo whose search is over.
func (g *cbGens) free() {
	g.cur.free()
	g.old.free()
}
