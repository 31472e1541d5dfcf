package hb

import (
	"fmt"
	"slices"

	"github.com/weftlab/weft/ts"
)

// Table is a visited set of happens-before states, the hashtable H of the
// cbpor paper's Algorithms 1 and 2. It finds candidates by hash and then
// compares events exactly, so a hash collision costs a comparison and never
// merges two different states. It stores its own compact copy of each state
// it inserts, in one growing arena; later changes to the inserted State do
// not affect it.
//
// Each stored state gets a dense id, 0, 1, 2, ... in insertion order, so a
// strategy can keep what it knows about a state in a slice indexed by id.
// All states given to one table must share a seed. The zero Table is empty
// and ready to use.
type Table struct {
	index   map[uint64]int32 // hash -> newest entry with that hash
	entries []tableEntry
	words   []word // per entry: thread count, each thread's length, the events
	seed    uint64
}

type tableEntry struct {
	hash uint64
	off  int   // start of the entry in words
	next int32 // the previous entry with the same hash, or -1
}

// Len returns the number of states in the table.
func (tb *Table) Len() int { return len(tb.entries) }

// Contains reports whether the table holds a state equal to s.
func (tb *Table) Contains(s *State) bool {
	_, ok := tb.Lookup(s)
	return ok
}

// Lookup returns the id of the stored state equal to s, if there is one.
func (tb *Table) Lookup(s *State) (id int, ok bool) {
	tb.checkSeed(s)
	i, ok := tb.index[s.hash]
	for ok && i >= 0 {
		if tb.equal(int(i), s) {
			return int(i), true
		}
		i = tb.entries[i].next
	}
	return -1, false
}

// Insert adds a copy of s unless the table holds an equal state. It returns
// the state's id and whether it was added.
func (tb *Table) Insert(s *State) (id int, added bool) {
	if id, ok := tb.Lookup(s); ok {
		return id, false
	}
	if tb.index == nil {
		tb.index = make(map[uint64]int32)
	}
	if len(tb.entries) == 0 {
		tb.seed = s.seed
	}
	prev, ok := tb.index[s.hash]
	if !ok {
		prev = -1
	}
	id = len(tb.entries)
	tb.entries = append(tb.entries, tableEntry{hash: s.hash, off: len(tb.words), next: prev})
	tb.index[s.hash] = int32(id)
	n := len(s.seqs)
	for n > 0 && len(s.seqs[n-1]) == 0 {
		n--
	}
	tb.words = append(tb.words, word(n))
	for _, seq := range s.seqs[:n] {
		tb.words = append(tb.words, word(len(seq)))
	}
	for _, seq := range s.seqs[:n] {
		tb.words = append(tb.words, seq...)
	}
	return id, true
}

func (tb *Table) checkSeed(s *State) {
	if len(tb.entries) > 0 && s.seed != tb.seed {
		panic(fmt.Sprintf("hb: Table: state hashed with seed %#x, table with %#x", s.seed, tb.seed))
	}
}

// equal reports whether entry i holds the events of s.
func (tb *Table) equal(i int, s *State) bool {
	e := tb.entries[i]
	if e.hash != s.hash {
		return false
	}
	n := int(tb.words[e.off])
	lens := tb.words[e.off+1 : e.off+1+n]
	for t := n; t < len(s.seqs); t++ {
		if len(s.seqs[t]) > 0 {
			return false
		}
	}
	at := e.off + 1 + n
	for t, l := range lens {
		end := at + int(l)
		if !slices.Equal(s.seq(t), tb.words[at:end]) {
			return false
		}
		at = end
	}
	return true
}

// Load makes dst the state stored under id, keeping dst's seed (and so
// recomputing its hash under it). It panics if id is out of range.
func (tb *Table) Load(id int, dst *State) {
	e := tb.entries[id]
	dst.Reset()
	n := int(tb.words[e.off])
	dst.grow(n)
	at := e.off + 1 + n
	for t := range n {
		l := int(tb.words[e.off+1+t])
		for k, w := range tb.words[at : at+l] {
			dst.seqs[t] = append(dst.seqs[t], w)
			dst.hash ^= dst.keys.hash(ts.Tid(t), k+1, w)
			info := dst.objSlot(w.obj())
			for len(info.readers) <= w.m() {
				info.readers = append(info.readers, 0)
			}
			if w.op() == R {
				info.readers[w.m()]++
			}
		}
		dst.total += l
		at += l
	}
}

// Reset empties the table, keeping its memory.
func (tb *Table) Reset() {
	clear(tb.index)
	tb.entries = tb.entries[:0]
	tb.words = tb.words[:0]
}
