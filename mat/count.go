package mat

// Counting the schedules a set of token-passing pairs allows, by a dynamic
// program over the lattice of position vectors, without enumerating them.
//
// Invariant: count(pos, last) is the number of ways to complete a prefix that
// has taken pos[t] events of each thread t (end events included) and whose
// last event is thread last's, such that every switch is a token-passing
// pair. It depends only on (pos, last), which is what makes it a dynamic
// program.

import (
	"encoding/binary"
	"math"
	"math/big"

	"github.com/weftlab/weft/ts"
)

// lattice is the word model: threads as sequences of events, end events
// last, and the moves a set of pairs allows.
type lattice struct {
	tp          *Pairs
	lens        []int
	oneEndOrder bool // end events only in thread order: ⊣a before ⊣b ...
	radix       []uint64
	fits        bool // keys fit a uint64
}

func newLattice(tp *Pairs, oneEndOrder bool) *lattice {
	l := &lattice{tp: tp, lens: tp.lens, oneEndOrder: oneEndOrder, fits: true}
	prod := uint64(len(tp.lens) + 1) // last thread, -1..n-1
	for _, n := range tp.lens {
		r := uint64(n + 2)
		l.radix = append(l.radix, r)
		if prod > math.MaxUint64/r {
			l.fits = false
		}
		prod *= r
	}
	return l
}

// key encodes (pos, last) as a number; only when l.fits.
func (l *lattice) key(pos []int, last ts.Tid) uint64 {
	k := uint64(last + 1)
	for t, p := range pos {
		k = k*l.radix[t] + uint64(p)
	}
	return k
}

// skey encodes (pos, last) as a string, whatever the sizes.
func (l *lattice) skey(pos []int, last ts.Tid) string {
	buf := binary.AppendUvarint(nil, uint64(last+1))
	for _, p := range pos {
		buf = binary.AppendUvarint(buf, uint64(p))
	}
	return string(buf)
}

// allowed reports whether thread u may take its next event (pos[u]) after a
// prefix at pos whose last event is thread last's (-1: the empty prefix).
func (l *lattice) allowed(pos []int, last, u ts.Tid) bool {
	n := l.lens[u]
	if pos[u] > n {
		return false // ended
	}
	if pos[u] == n && l.oneEndOrder {
		for t := range u {
			if pos[t] <= l.lens[t] {
				return false
			}
		}
	}
	if last < 0 || u == last {
		return true
	}
	return l.tp.has(l.tp.base[last]+pos[last]-1, l.tp.base[u]+pos[u])
}

func (l *lattice) done(pos []int) bool {
	for t, p := range pos {
		if p <= l.lens[t] {
			return false
		}
	}
	return true
}

// Count returns the number of schedules tp allows: words over the threads'
// events, virtual end events included, in which each thread's events are in
// program order and every switch from one thread to another (the last event
// of one followed by the next event of the other) is a pair of tp. The first
// event is free. With oneEndOrder the end events must come in thread order
// (⊣a before ⊣b ...), which is what Explore does by default.
//
// For two threads and the MAT pairs the count equals the number of
// Mazurkiewicz classes (with end events; with oneEndOrder, of the real
// accesses), by the paper's Theorems 2 and 3, which our tests confirm by
// brute force.
func Count(tp *Pairs, oneEndOrder bool) *big.Int {
	l := newLattice(tp, oneEndOrder)
	memo := map[string]*big.Int{}
	pos := make([]int, len(l.lens))
	var count func(last ts.Tid) *big.Int
	count = func(last ts.Tid) *big.Int {
		if l.done(pos) {
			return big.NewInt(1)
		}
		k := l.skey(pos, last)
		if c, ok := memo[k]; ok {
			return c
		}
		c := new(big.Int)
		for u := range ts.Tid(len(pos)) {
			if l.allowed(pos, last, u) {
				pos[u]++
				c.Add(c, count(u))
				pos[u]--
			}
		}
		memo[k] = c
		return c
	}
	return count(-1)
}

// completer answers, with memory, whether a prefix can be completed into an
// allowed schedule in the word model. Explore uses it to avoid prefixes that
// lead nowhere. It needs l.fits.
type completer struct {
	l    *lattice
	memo map[uint64]bool
	// full, if set, is asked every 4096 entries the memo adds whether
	// memory is short; once it says so, ok stops at once (its answers are
	// then meaningless) and stopped is set.
	full    func() bool
	added   int
	stopped bool
}

func newCompleter(l *lattice) *completer {
	return &completer{l: l, memo: make(map[uint64]bool)}
}

// ok reports whether the prefix at pos with last event thread last's can be
// completed. pos is restored before it returns.
func (c *completer) ok(pos []int, last ts.Tid) bool {
	if c.stopped {
		return false
	}
	if c.l.done(pos) {
		return true
	}
	k := c.l.key(pos, last)
	if v, seen := c.memo[k]; seen {
		return v
	}
	v := false
	for u := range ts.Tid(len(pos)) {
		if c.l.allowed(pos, last, u) {
			pos[u]++
			v = c.ok(pos, u)
			pos[u]--
			if v || c.stopped {
				break
			}
		}
	}
	if c.stopped {
		return false
	}
	c.memo[k] = v
	if c.added++; c.added&4095 == 0 && c.full != nil && c.full() {
		c.stopped = true
	}
	return v
}
