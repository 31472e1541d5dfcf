package hb

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/weftlab/weft/internal/offheap"
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
// costs what comparing the copies would (a chain of removals only, what Mark
// stores, is compared word by word with the copy's first events, the state
// left alone); a state that would be kept more
// than 8 differences (and a quarter of its events) from a copy is kept as a
// copy, which adds at most 32 bytes a state, amortized, and keeps the walks
// short.
//
// Each stored state gets a dense id, 0, 1, 2, ... in insertion order, so a
// strategy can keep what it knows about a state in a slice indexed by id.
// All states given to one table must share a seed. The zero Table is empty
// and ready to use. A Table is not safe for concurrent use: Lookup changes
// the state it is given while it compares, and restores it. Nor may it be
// copied once it holds states: past 2 MB its states, their events and its
// index are in memory it maps for them and unmaps when it moves them, which
// a copy would go on reading; Free gives that memory back at once.
type Table struct {
	// slots is the index, open addressing by hash: 0 for empty, else the
	// id+1 in the low 32 bits and the hash's top 32 bits above, so that a
	// probe passes a slot of another hash without reading its entry (a
	// cache miss each, on a table of millions).
	slots    []uint64
	slotsMem *offheap.Region
	entries  []tableEntry
	words    []word // full copies: thread count, each thread's length, the events
	// Where entries and words are once large (offheap: memory mapped for
	// them, grown without copies, in huge pages where the system has
	// them); kept with them.
	entriesMem, wordsMem *offheap.Region
	seed                 uint64
	undo                 []undoStep // Lookup scratch
	drop                 []int32    // Lookup scratch (equalRemoved)
}

// entry kinds
const (
	entryFull    uint8 = iota // words[off:] holds the events
	entryAdded                // the state ref plus thread t's event
	entryRemoved              // the state ref minus thread t's last event
)

// tableEntry is one stored state. The event of an entryAdded or
// entryRemoved is w itself when it is one word (one access, outcome 0), the
// common case; an event of several words is kept in words, and w holds
// their offset and number (multi).
type tableEntry struct {
	hash  uint64
	w     word  // entryAdded, entryRemoved: the event added or removed
	ref   int32 // entryFull: offset in words; otherwise the id of the other state
	t     int32
	kind  uint8
	multi bool
	chain uint16 // entries to follow to a full copy
}

// maxChain caps the chain of differences a comparison walks: a state that
// would be kept further than maxChain entries, and a quarter of its events,
// from a full copy is kept as one. Comparing a state with a stored one costs
// a step of the chain (an event taken off or put back) per entry on the way;
// a copy costs 8 bytes an event, so that copies add at most 32 bytes a
// state, amortized (a quarter of the events' 8 bytes).
const maxChain = 8

// chained reports whether a state of n events kept as a difference from
// entry ref would be too far from a copy (maxChain).
func (tb *Table) chained(ref, n int) bool {
	if ref < 0 || ref >= len(tb.entries) {
		return false // the Insert* method panics
	}
	c := int(tb.entries[ref].chain)
	return c >= maxChain && c >= n/4
}

type undoStep struct {
	t       int32
	removed bool // Lookup removed t's last event (else it added it)
	multi   bool // the event is the words w locates (else w)
	w       word
}

// EntryBytes is what a table keeps per state stored by InsertAdded or
// InsertRemoved, its index included (at the index's fullest), when the event
// that makes the difference is one access with outcome 0. An event of
// several words adds 8 bytes a word, unless InsertRemoved finds them stored
// already.
const EntryBytes = int(unsafe.Sizeof(tableEntry{})) + 2*8*2

// Len returns the number of states in the table.
func (tb *Table) Len() int { return len(tb.entries) }

// OffHeapBytes returns what of Bytes is outside the Go heap, which
// runtime.MemStats does not count: the states, their events and the index
// once each passes 2 MB (see the Table type).
func (tb *Table) OffHeapBytes() int64 {
	var b int64
	if tb.entriesMem != nil {
		b += int64(cap(tb.entries)) * int64(unsafe.Sizeof(tableEntry{}))
	}
	if tb.wordsMem != nil {
		b += int64(cap(tb.words)) * 8
	}
	if tb.slotsMem != nil {
		b += int64(cap(tb.slots)) * 8
	}
	return b
}

// Bytes returns the memory the table keeps, in bytes.
func (tb *Table) Bytes() int64 {
	return int64(cap(tb.slots))*8 + int64(cap(tb.entries))*int64(unsafe.Sizeof(tableEntry{})) + int64(cap(tb.words))*8
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
	mask, tag := uint64(len(tb.slots)-1), s.hash>>32
	for i := s.hash & mask; ; i = (i + 1) & mask {
		v := tb.slots[i]
		if v == 0 {
			return -1, false
		}
		if id := int(uint32(v)) - 1; v>>32 == tag && tb.entries[id].hash == s.hash && tb.equal(id, s) {
			return id, true
		}
	}
}

// MayContain reports whether the table holds a state whose hash is h: false
// says that it holds no state of hash h, true that Lookup has one to compare.
func (tb *Table) MayContain(h uint64) bool {
	if len(tb.slots) == 0 {
		return false
	}
	mask, tag := uint64(len(tb.slots)-1), h>>32
	for i := h & mask; ; i = (i + 1) & mask {
		v := tb.slots[i]
		if v == 0 {
			return false
		}
		if v>>32 == tag && tb.entries[uint32(v)-1].hash == h {
			return true
		}
	}
}

// LookupNext returns the id of the stored state equal to s with e added,
// if there is one, leaving s as it is: e is thread e.Thread's next event as
// [State.NextEvent] or [State.NextEventOutcome] returns it, of one access
// and outcome 0 (it panics on any other). A stored state kept as a copy, or
// as a chain of removals from one (what Mark stores), is compared word by
// word with s and e, with no event put on s and taken off again.
func (tb *Table) LookupNext(s *State, e Event) (id int, ok bool) {
	if e.rest != 0 {
		panic("hb: Table.LookupNext: an event of several words")
	}
	tb.checkSeed(s)
	if len(tb.slots) == 0 {
		return -1, false
	}
	w := pack(e.Op, e.Obj, e.M)
	h := s.hash ^ s.keys.hash(e.Thread, e.N, w)
	mask, tag := uint64(len(tb.slots)-1), h>>32
	for i := h & mask; ; i = (i + 1) & mask {
		v := tb.slots[i]
		if v == 0 {
			return -1, false
		}
		if id := int(uint32(v)) - 1; v>>32 == tag && tb.entries[id].hash == h && tb.equalNext(id, s, e.Thread, w) {
			return id, true
		}
	}
}

// equalNext reports whether entry i holds the events of s with thread t's
// event of one word w added.
func (tb *Table) equalNext(i int, s *State, t ts.Tid, w word) bool {
	if same, ok := tb.equalRemoved(i, s, int(t), w); ok {
		return same
	}
	saved := s.hash
	s.addWord(t, w)
	same := tb.equal(i, s)
	s.dropLast(t)
	s.hash = saved
	return same
}

// Insert adds a copy of s unless the table holds an equal state. It returns
// the state's id and whether it was added.
func (tb *Table) Insert(s *State) (id int, added bool) {
	if id, ok := tb.Lookup(s); ok {
		return id, false
	}
	return tb.insertFull(s), true
}

// insertFull adds a copy of s, which the table does not hold.
func (tb *Table) insertFull(s *State) int {
	off := len(tb.words)
	n := len(s.seqs)
	for n > 0 && len(s.seqs[n-1]) == 0 {
		n--
	}
	tb.appendWords(word(n))
	for _, seq := range s.seqs[:n] {
		tb.appendWords(word(len(seq)))
	}
	for _, seq := range s.seqs[:n] {
		tb.appendWords(seq...)
	}
	return tb.add(s, tableEntry{ref: int32(off), kind: entryFull})
}

// InsertAdded adds s, which is the stored state ref with thread t's last
// event of s added, unless the table holds an equal state; it keeps s as
// that difference. It panics if t has no event in s or ref is out of range.
func (tb *Table) InsertAdded(s *State, ref int, t ts.Tid) (id int, added bool) {
	if id, ok := tb.Lookup(s); ok {
		return id, false
	}
	if tb.chained(ref, s.total) {
		return tb.insertFull(s), true
	}
	seq := s.seqs[t]
	n := int(s.nev[t])
	if w := seq[len(seq)-1]; w.first() {
		tb.checkRef(ref, s.hash^s.keys.hash(t, n, w))
		return tb.add(s, tableEntry{w: w, ref: int32(ref), t: int32(t), kind: entryAdded}), true
	}
	ws := seq[lastStart(seq):]
	tb.checkRef(ref, s.hash^s.keys.event(eventOf(t, n, ws)))
	off := len(tb.words)
	tb.appendWords(ws...)
	return tb.add(s, tableEntry{w: span(off, len(ws)), ref: int32(ref), t: int32(t), kind: entryAdded, multi: true}), true
}

// InsertRemoved adds s, which is the stored state ref with its event e (thread
// e.Thread's last) removed, unless the table holds an equal state; it keeps
// s as that difference. It panics if ref is out of range, or ref is not s
// with e added.
func (tb *Table) InsertRemoved(s *State, ref int, e Event) (id int, added bool) {
	if id, ok := tb.Lookup(s); ok {
		return id, false
	}
	if tb.chained(ref, s.total) {
		return tb.insertFull(s), true
	}
	tb.checkRef(ref, s.hash^s.keys.event(e))
	if e.rest == 0 {
		w := pack(e.Op, e.Obj, e.M)
		return tb.add(s, tableEntry{w: w, ref: int32(ref), t: int32(e.Thread), kind: entryRemoved}), true
	}
	// The event's words are stored already, in ref or in a state it is
	// kept relative to: refer to them there.
	w := tb.find(ref, e.Thread, e.N)
	if eventOf(e.Thread, e.N, tb.span(w)) != e {
		panic(fmt.Sprintf("hb: Table: state %d does not hold event %v", ref, e))
	}
	return tb.add(s, tableEntry{w: w, ref: int32(ref), t: int32(e.Thread), kind: entryRemoved, multi: true}), true
}

// span returns the word that locates n words at offset off of words.
func span(off, n int) word {
	if uint64(off) > 1<<32-1 || uint64(n) > 1<<32-1 {
		panic("hb: Table: more than 2^32 words stored")
	}
	return word(off)<<32 | word(n)
}

// span returns the words that w locates.
func (tb *Table) span(w word) []word {
	off, n := int(w>>32), int(uint32(w))
	return tb.words[off : off+n]
}

// find locates, as span does, the words of thread t's n-th event of the
// stored state id, an event of several words: it follows the chain of
// differences to the entry that stores the event, counting t's events in
// each state along it.
func (tb *Table) find(id int, t ts.Tid, n int) word {
	have := n // t's events in state id: its last is the one sought
	for {
		e := &tb.entries[id]
		switch {
		case e.kind == entryFull:
			off := int(e.ref)
			threads := int(tb.words[off])
			if int(t) >= threads {
				panic(fmt.Sprintf("hb: Table: state %d has no event %d of T%d", id, n, t))
			}
			at := off + 1 + threads
			for u := range int(t) {
				at += int(tb.words[off+1+u])
			}
			seq := tb.words[at : at+int(tb.words[off+1+int(t)])]
			i := 0
			for k := 1; k < n && i < len(seq); k++ {
				i = eventEnd(seq, i)
			}
			if i >= len(seq) {
				panic(fmt.Sprintf("hb: Table: state %d has no event %d of T%d", id, n, t))
			}
			return span(at+i, eventEnd(seq, i)-i)
		case ts.Tid(e.t) != t:
		case e.kind == entryAdded && have == n:
			if !e.multi {
				panic(fmt.Sprintf("hb: Table: event %d of T%d in state %d is one word", n, t, id))
			}
			return e.w
		case e.kind == entryAdded:
			have--
		default: // entryRemoved
			have++
		}
		id = int(e.ref)
	}
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
	if x.kind != entryFull {
		x.chain = tb.entries[x.ref].chain
		if x.chain < 1<<16-1 {
			x.chain++
		}
	}
	id := len(tb.entries)
	tb.entries, tb.entriesMem = offheap.Grow(tb.entries, tb.entriesMem, 1)
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
	old := tb.slotsMem
	tb.slots, tb.slotsMem = offheap.Make[uint64](max(16, 2*len(tb.slots)))
	old.Free()
	for id := range tb.entries {
		tb.place(id)
	}
}

func (tb *Table) place(id int) {
	mask, h := uint64(len(tb.slots)-1), tb.entries[id].hash
	for i := h & mask; ; i = (i + 1) & mask {
		if tb.slots[i] == 0 {
			tb.slots[i] = h>>32<<32 | uint64(uint32(id+1))
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
// and undoes its changes to s. Only the first entry's hash, which the index
// matched, is compared: the changes leave s's hash alone (it is put back at
// the end), so that a step of the chain costs no hashing, and the events
// compared decide.
func (tb *Table) equal(i int, s *State) bool {
	if tb.entries[i].hash != s.hash {
		return false
	}
	if same, ok := tb.equalRemoved(i, s, -1, 0); ok {
		return same
	}
	saved := s.hash
	undo := tb.undo[:0]
	same := true
	for same {
		e := &tb.entries[i]
		t := ts.Tid(e.t)
		switch e.kind {
		case entryFull:
			same = tb.equalFull(i, s)
			i = -1
		case entryAdded:
			// s = ref + the event iff it is t's last event of s and
			// nothing depends on it; then s without it must be ref.
			if !tb.isLast(s, t, e) || !s.Maximal(t) {
				same = false
				break
			}
			s.dropLast(t)
			undo = append(undo, undoStep{t: e.t, removed: true, multi: e.multi, w: e.w})
		case entryRemoved:
			// s = ref - the event iff adding it as t's next makes ref.
			if e.multi {
				same = s.addWords(t, tb.span(e.w))
			} else {
				same = s.addWordUnhashed(t, e.w)
			}
			undo = append(undo, undoStep{t: e.t, multi: e.multi, w: e.w})
		}
		if i < 0 {
			break
		}
		i = int(e.ref)
	}
	for k := len(undo) - 1; k >= 0; k-- {
		u := undo[k]
		switch {
		case !u.removed:
			s.dropLast(ts.Tid(u.t))
		case u.multi:
			s.addWords(ts.Tid(u.t), tb.span(u.w))
		default:
			s.addWordUnhashed(ts.Tid(u.t), u.w)
		}
	}
	tb.undo = undo[:0]
	s.hash = saved
	return same
}

// equalRemoved compares s with entry i without changing s when i is a full
// copy or a chain of removals from one (the predecessors Mark stores): each
// thread's events in i are then the first ones of the copy's, all but as
// many last ones as the chain removes of the thread (removing an event
// changes no other event's words), so the comparison is one of words, with
// no event taken off or put back. It reports false for ok on any other
// chain. With pt >= 0, s is compared as if thread pt's event of one word pw
// followed its others (LookupNext).
func (tb *Table) equalRemoved(i int, s *State, pt int, pw word) (same, ok bool) {
	if len(tb.drop) < len(s.seqs) {
		tb.drop = make([]int32, len(s.seqs))
	}
	drop := tb.drop // events removed, by thread; all 0 between calls
	for tb.entries[i].kind == entryRemoved {
		e := &tb.entries[i]
		if int(e.t) >= len(drop) {
			clear(drop)
			return false, false // s has no room for e.t: the fallback decides
		}
		drop[e.t]++
		i = int(e.ref)
	}
	same, ok = tb.equalPrefixes(i, s, drop, pt, pw)
	clear(drop)
	return same, ok
}

// equalPrefixes reports whether s, with thread pt's event pw last if pt >=
// 0, holds, thread by thread, the events of the full copy i but drop[t] last
// ones of each thread t; false for ok if the copy does not hold that many.
// It is the table's hottest comparison (Mark asks every stored successor of
// every predecessor it examines): one pass over the copy's words.
func (tb *Table) equalPrefixes(i int, s *State, drop []int32, pt int, pw word) (same, ok bool) {
	if tb.entries[i].kind != entryFull {
		return false, false
	}
	off := int(tb.entries[i].ref)
	n := int(tb.words[off])
	for t := n; t < len(drop); t++ {
		if drop[t] > 0 {
			return false, false // removes an event the copy does not hold: not a chain of Mark's
		}
	}
	seqs := s.seqs
	for t := n; t < len(seqs); t++ {
		if len(seqs[t]) > 0 {
			return false, true
		}
	}
	if pt >= n {
		return false, true // the copy has no event of pt
	}
	if n > len(drop) || n > len(seqs) {
		return false, false // s has no room for the copy's threads: the fallback decides
	}
	drop, seqs = drop[:n], seqs[:n]
	lens := tb.words[off+1 : off+1+n]
	ws := tb.words[off+1+n:]
	for t, q := range seqs {
		l := lens[t]
		f := ws[:l:l]
		ws = ws[l:]
		if drop[t] != 0 || t == pt {
			// The few threads the chain removes from, or the probe adds to.
			for k := drop[t]; k > 0; k-- {
				if len(f) == 0 {
					return false, false // more removed than the copy holds: not a chain of Mark's
				}
				f = f[:lastStart(f)]
			}
			if t == pt {
				if len(f) == 0 || f[len(f)-1] != pw {
					return false, true
				}
				f = f[:len(f)-1]
			}
		}
		if len(q) != len(f) {
			return false, true
		}
		for k, w := range f {
			if q[k] != w {
				return false, true
			}
		}
	}
	return true, true
}

// isLast reports whether the event of entry e is thread t's last event of s.
func (tb *Table) isLast(s *State, t ts.Tid, e *tableEntry) bool {
	seq := s.seq(int(t))
	if len(seq) == 0 {
		return false
	}
	if !e.multi {
		return seq[len(seq)-1] == e.w
	}
	ws := tb.span(e.w)
	return len(seq) >= len(ws) && slices.Equal(seq[len(seq)-len(ws):], ws)
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
		seq := tb.words[at : at+l]
		for i := 0; i < l; {
			end := eventEnd(seq, i)
			dst.load(ts.Tid(t), seq[i:end])
			i = end
		}
		at += l
	}
	for k := len(chain) - 1; k >= 0; k-- {
		e := tb.entries[chain[k]]
		switch {
		case e.kind == entryRemoved:
			dst.Remove(ts.Tid(e.t))
		case e.multi:
			dst.addWords(ts.Tid(e.t), tb.span(e.w))
		default:
			dst.addWord(ts.Tid(e.t), e.w)
		}
	}
}

// appendWords appends ws to tb.words.
func (tb *Table) appendWords(ws ...word) {
	tb.words, tb.wordsMem = offheap.Grow(tb.words, tb.wordsMem, len(ws))
	tb.words = append(tb.words, ws...)
}

// Free empties the table and gives back the memory it mapped for its
// largest arrays now, rather than when the collector finds the table
// unreachable: for a search that is over. The table is ready for use
// again.
func (tb *Table) Free() {
	tb.slotsMem.Free()
	tb.entriesMem.Free()
	tb.wordsMem.Free()
	*tb = Table{}
}

// Reset empties the table, keeping its memory.
func (tb *Table) Reset() {
	clear(tb.slots)
	tb.entries = tb.entries[:0]
	tb.words = tb.words[:0]
}
