package hb

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/weftlab/weft/ts"
)

// Table is a visited set of happens-before states, the hashtable H of the
// cbpor paper's Algorithms 1 and 2. It finds candidates by hash and then
// compares events exactly, so a hash collision costs a comparison and never
// merges two different states.
//
// A state is stored in one of two ways. [Table.Insert] keeps a compact copy
// of every event (8 bytes an event). [Table.InsertAdded] and
// [Table.InsertRemoved] keep a state as a stored state plus or minus one
// event, in a constant number of bytes ([EntryBytes]): a search that stores
// each state it steps to (Algorithm 1), or each predecessor of a stored
// state (Algorithm 2's Mark), keeps memory linear in the number of states
// rather than in the sum of their lengths. Comparing a state with a stored
// one walks its chain of differences back to a copy, one event a step, so it
// costs what comparing the copies would.
//
// Each stored state gets a dense id, 0, 1, 2, ... in insertion order, so a
// strategy can keep what it knows about a state in a slice indexed by id.
// All states given to one table must share a seed. The zero Table is empty
// and ready to use. A Table is not safe for concurrent use: Lookup changes
// the state it is given while it compares, and restores it.
type Table struct {
	slots   []int32 // open addressing by hash: id+1, 0 for empty
	entries []tableEntry
	words   []word // full copies: thread count, each thread's length, the events
	seed    uint64
	undo    []undoStep // Lookup scratch
}

// entry kinds
const (
	entryFull    uint8 = iota // words[off:] holds the events
	entryAdded                // the state ref plus thread t's event w
	entryRemoved              // the state ref minus thread t's last event, w
)

type tableEntry struct {
	hash uint64
	w    word  // entryAdded, entryRemoved: the event added or removed
	ref  int32 // entryFull: offset in words; otherwise the id of the other state
	t    int32
	kind uint8
}

type undoStep struct {
	t       int32
	removed bool // Lookup removed t's last event w (else it added w)
	w       word
}

// EntryBytes is what a table keeps per state stored by InsertAdded or
// InsertRemoved, its index included (at the index's fullest).
const EntryBytes = int(unsafe.Sizeof(tableEntry{})) + 2*4*2

// Len returns the number of states in the table.
func (tb *Table) Len() int { return len(tb.entries) }

// Bytes returns the memory the table keeps, in bytes.
func (tb *Table) Bytes() int64 {
	return int64(cap(tb.slots))*4 + int64(cap(tb.entries))*int64(unsafe.Sizeof(tableEntry{})) + int64(cap(tb.words))*8
}

// Contains reports whether the table holds a state equal to s.
func (tb *Table) Contains(s *State) bool {
	_, ok := tb.Lookup(s)
	return ok
}

// Lookup returns the id of the stored state equal to s, if there is one.
func (tb *Table) Lookup(s *State) (id int, ok bool) {
	tb.checkSeed(s)
	if len(tb.slots) == 0 {
		return -1, false
	}
	mask := uint64(len(tb.slots) - 1)
	for i := s.hash & mask; ; i = (i + 1) & mask {
		v := tb.slots[i]
		if v == 0 {
			return -1, false
		}
		if tb.entries[v-1].hash == s.hash && tb.equal(int(v-1), s) {
			return int(v - 1), true
		}
	}
}

// Insert adds a copy of s unless the table holds an equal state. It returns
// the state's id and whether it was added.
func (tb *Table) Insert(s *State) (id int, added bool) {
	if id, ok := tb.Lookup(s); ok {
		return id, false
	}
	off := len(tb.words)
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
	return tb.add(s, tableEntry{ref: int32(off), kind: entryFull}), true
}

// InsertAdded adds s, which is the stored state ref with thread t's last
// event of s added, unless the table holds an equal state; it keeps s as
// that difference. It panics if t has no event in s or ref is out of range.
func (tb *Table) InsertAdded(s *State, ref int, t ts.Tid) (id int, added bool) {
	if id, ok := tb.Lookup(s); ok {
		return id, false
	}
	seq := s.seqs[t]
	w := seq[len(seq)-1]
	tb.checkRef(ref, s.hash^s.keys.hash(t, len(seq), w))
	return tb.add(s, tableEntry{w: w, ref: int32(ref), t: int32(t), kind: entryAdded}), true
}

// InsertRemoved adds s, which is the stored state ref with its event e (thread
// e.Thread's last) removed, unless the table holds an equal state; it keeps
// s as that difference. It panics if ref is out of range.
func (tb *Table) InsertRemoved(s *State, ref int, e Event) (id int, added bool) {
	if id, ok := tb.Lookup(s); ok {
		return id, false
	}
	w := pack(e.Op, e.Obj, e.M)
	tb.checkRef(ref, s.hash^s.keys.hash(e.Thread, e.N, w))
	return tb.add(s, tableEntry{w: w, ref: int32(ref), t: int32(e.Thread), kind: entryRemoved}), true
}

// checkRef panics unless ref is a stored state with hash h: the caller's
// description of the difference is wrong, and the table would be too.
func (tb *Table) checkRef(ref int, h uint64) {
	if ref < 0 || ref >= len(tb.entries) || tb.entries[ref].hash != h {
		panic(fmt.Sprintf("hb: Table: state %d is not the state the difference starts from", ref))
	}
}

// add appends entry x for s and indexes it.
func (tb *Table) add(s *State, x tableEntry) int {
	if len(tb.entries) == 0 {
		tb.seed = s.seed
	}
	x.hash = s.hash
	id := len(tb.entries)
	tb.entries = append(tb.entries, x)
	if 2*len(tb.entries) > len(tb.slots) {
		tb.rehash()
	} else {
		tb.place(id)
	}
	return id
}

// rehash doubles the index (load at most one half) and places every entry.
func (tb *Table) rehash() {
	tb.slots = make([]int32, max(16, 2*len(tb.slots)))
	for id := range tb.entries {
		tb.place(id)
	}
}

func (tb *Table) place(id int) {
	mask := uint64(len(tb.slots) - 1)
	for i := tb.entries[id].hash & mask; ; i = (i + 1) & mask {
		if tb.slots[i] == 0 {
			tb.slots[i] = int32(id + 1)
			return
		}
	}
}

func (tb *Table) checkSeed(s *State) {
	if len(tb.entries) > 0 && s.seed != tb.seed {
		panic(fmt.Sprintf("hb: Table: state hashed with seed %#x, table with %#x", s.seed, tb.seed))
	}
}

// equal reports whether entry i holds the events of s. Along a chain of
// differences it turns s into the state each entry refers to (removing an
// added event, adding a removed one), compares the copy at the chain's end,
// and undoes its changes to s.
func (tb *Table) equal(i int, s *State) bool {
	undo := tb.undo[:0]
	same := true
	for same {
		e := &tb.entries[i]
		if e.hash != s.hash {
			same = false
			break
		}
		t := ts.Tid(e.t)
		switch e.kind {
		case entryFull:
			same = tb.equalFull(i, s)
			i = -1
		case entryAdded:
			// s = ref + w iff w is t's last event of s, nothing depends
			// on it, and s without it is ref.
			seq := s.seq(int(t))
			if len(seq) == 0 || seq[len(seq)-1] != e.w || !s.Maximal(t) {
				same = false
				break
			}
			s.Remove(t)
			undo = append(undo, undoStep{t: e.t, removed: true, w: e.w})
		case entryRemoved:
			// s = ref - w iff adding t's next event as w makes ref.
			got := s.Add(t, stepOf(e.w))
			undo = append(undo, undoStep{t: e.t, w: e.w})
			if pack(got.Op, got.Obj, got.M) != e.w {
				same = false
			}
		}
		if i < 0 {
			break
		}
		i = int(e.ref)
	}
	for k := len(undo) - 1; k >= 0; k-- {
		u := undo[k]
		if u.removed {
			s.Add(ts.Tid(u.t), stepOf(u.w))
		} else {
			s.Remove(ts.Tid(u.t))
		}
	}
	tb.undo = undo[:0]
	return same
}

// stepOf is a step that makes the event of word w again: Add needs only its
// kind and object.
func stepOf(w word) ts.Step {
	if w.op() == R {
		return ts.Step{Obj: w.obj(), Op: ts.Read}
	}
	return ts.Step{Obj: w.obj(), Op: ts.Write}
}

// equalFull reports whether full entry i holds the events of s.
func (tb *Table) equalFull(i int, s *State) bool {
	off := int(tb.entries[i].ref)
	n := int(tb.words[off])
	lens := tb.words[off+1 : off+1+n]
	for t := n; t < len(s.seqs); t++ {
		if len(s.seqs[t]) > 0 {
			return false
		}
	}
	at := off + 1 + n
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
	var chain []int
	for tb.entries[id].kind != entryFull {
		chain = append(chain, id)
		id = int(tb.entries[id].ref)
	}
	off := int(tb.entries[id].ref)
	dst.Reset()
	n := int(tb.words[off])
	dst.grow(n)
	at := off + 1 + n
	for t := range n {
		l := int(tb.words[off+1+t])
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
	for k := len(chain) - 1; k >= 0; k-- {
		e := tb.entries[chain[k]]
		if e.kind == entryAdded {
			dst.Add(ts.Tid(e.t), stepOf(e.w))
		} else {
			dst.Remove(ts.Tid(e.t))
		}
	}
}

// Reset empties the table, keeping its memory.
func (tb *Table) Reset() {
	clear(tb.slots)
	tb.entries = tb.entries[:0]
	tb.words = tb.words[:0]
}
