package hb

// State implements the canonical representation of happens-before states of
// section 3.3 of Musuvathi and Qadeer, "Partial-order reduction for
// context-bounded state exploration" (MSR-TR-2007-12): a state is the set of
// its events <op, t, n, obj, m>, and the happens-before edges are implied by
// the events' fields.
//
// Invariants: seqs[t][n-1] packs the (op, obj, m) of thread t's n-th event;
// for every object seen, objs[slot].readers has one entry per write of the
// object plus one for the initial value (so the object has
// len(readers)-1 writes), and readers[m] counts the reads of write m; hash is
// the XOR of the event hashes of all events; total is the number of events.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bits-and-blooms/bitset"
	"github.com/weftlab/weft/ts"
)

// State is a happens-before state: a set of canonical events, closed under
// happens-before, stored per thread as the sequence of each event's (op, obj,
// m). Equal states (the same event sets) have equal sequences, so equality is
// exact and costs one comparison per event; the hash is the XOR of a seeded
// hash of every event, kept up to date as events are added and removed.
//
// States are built by adding each thread's next event ([State.Add]) in the
// order an execution takes them, and shrunk by removing an event that nothing
// depends on ([State.Remove]). Once a State has seen its threads and objects,
// none of its methods allocates except Clone. The zero State is not usable;
// call [New].
type State struct {
	keys  keys
	seed  uint64
	hash  uint64
	total int
	seqs  [][]word
	idx   objIndex
	objs  []objInfo // by slot of idx; only the first idx.n are in use
	pos   []int32   // Linearize scratch
}

// objInfo is what a state knows of one object.
type objInfo struct {
	obj     ts.Obj
	readers []int32 // readers[m]: reads of write m; len(readers)-1 writes
	lw, lr  int32   // Linearize scratch: writes and reads of write lw taken
}

// New returns an empty state with room for the given number of threads, with
// hashes from [DefaultSeed]. Threads beyond that number can be added later.
func New(threads int) *State { return NewSeeded(threads, DefaultSeed) }

// NewSeeded is New with the event hash picked by seed. Hashes of states with
// different seeds are unrelated: keep one seed per search.
func NewSeeded(threads int, seed uint64) *State {
	s := &State{keys: keysOf(seed), seed: seed}
	s.grow(max(threads, 0))
	return s
}

// Seed returns the seed of the state's event hash.
func (s *State) Seed() uint64 { return s.seed }

// grow makes room for n threads, reusing sequences from before a truncation.
func (s *State) grow(n int) {
	for len(s.seqs) < n {
		if len(s.seqs) < cap(s.seqs) {
			s.seqs = s.seqs[:len(s.seqs)+1]
			s.seqs[len(s.seqs)-1] = s.seqs[len(s.seqs)-1][:0]
		} else {
			s.seqs = append(s.seqs, nil)
		}
	}
}

// objSlot returns the slot of object o, creating it.
func (s *State) objSlot(o ts.Obj) *objInfo {
	i, fresh := s.idx.slot(o)
	if fresh {
		if i < cap(s.objs) {
			s.objs = s.objs[:i+1]
		} else {
			s.objs = append(s.objs, objInfo{})
		}
		info := &s.objs[i]
		info.obj = o
		info.readers = append(info.readers[:0], 0)
	}
	return &s.objs[i]
}

// Add adds thread t's next event, the access st, and returns it. The event's
// M is computed from the state: a write is the next write of st.Obj, a read
// reads its last write (or the initial value). Lock operations are writes.
func (s *State) Add(t ts.Tid, st ts.Step) Event {
	if t < 0 {
		panic(fmt.Sprintf("hb: Add: negative thread %d", t))
	}
	info := s.objSlot(st.Obj)
	last := len(info.readers) - 1
	op := KindOf(st.Op)
	m := last
	if op == W {
		m = last + 1
		if m > maxM {
			panic(fmt.Sprintf("hb: Add: more than %d writes of o%d", maxM, st.Obj))
		}
		info.readers = append(info.readers, 0)
	} else {
		info.readers[last]++
	}
	s.grow(int(t) + 1)
	w := pack(op, st.Obj, m)
	s.seqs[t] = append(s.seqs[t], w)
	n := len(s.seqs[t])
	s.hash ^= s.keys.hash(t, n, w)
	s.total++
	return w.event(t, n)
}

// NextEvent returns the event that Add(t, st) would add, without adding it.
// With [State.EventHash] it gives the successor's hash:
// s.Hash() ^ s.EventHash(s.NextEvent(t, st)).
func (s *State) NextEvent(t ts.Tid, st ts.Step) Event {
	last := 0
	if i, ok := s.idx.lookup(st.Obj); ok {
		last = len(s.objs[i].readers) - 1
	}
	op := KindOf(st.Op)
	m := last
	if op == W {
		m++
	}
	return Event{Op: op, Thread: t, N: s.ThreadLen(t) + 1, Obj: st.Obj, M: m}
}

// EventHash returns the hash of event e under the state's seed: the amount by
// which adding or removing e changes the state's hash.
func (s *State) EventHash(e Event) uint64 {
	return s.keys.hash(e.Thread, e.N, pack(e.Op, e.Obj, e.M))
}

// Maximal reports whether thread t has an event and its last event is
// maximal in the happens-before order: no other event of the state depends on
// it. A write of an object is maximal when it is the object's last write and
// nobody has read it; a read is maximal when no write of the object follows
// the write it read.
func (s *State) Maximal(t ts.Tid) bool {
	if t < 0 || int(t) >= len(s.seqs) || len(s.seqs[t]) == 0 {
		return false
	}
	w := s.seqs[t][len(s.seqs[t])-1]
	i, _ := s.idx.lookup(w.obj())
	r := s.objs[i].readers
	last := len(r) - 1
	if w.op() == W {
		return w.m() == last && r[last] == 0
	}
	return w.m() == last
}

// Remove removes thread t's last event and returns it. Only an event in the
// frontier can go (see [State.Maximal]): removing any other would leave a
// set that no execution reaches. Remove panics if t has no events or its last
// event is not maximal, as indexing out of range does: strategies remove only
// threads they found in the frontier, so anything else is a bug in the caller.
func (s *State) Remove(t ts.Tid) Event {
	if !s.Maximal(t) {
		if t < 0 || int(t) >= len(s.seqs) || len(s.seqs[t]) == 0 {
			panic(fmt.Sprintf("hb: Remove(T%d): the thread has no events", t))
		}
		panic(fmt.Sprintf("hb: Remove(T%d): last event %v is not maximal: another event depends on it", t, s.lastEvent(t)))
	}
	seq := s.seqs[t]
	n := len(seq)
	w := seq[n-1]
	s.seqs[t] = seq[:n-1]
	i, _ := s.idx.lookup(w.obj())
	info := &s.objs[i]
	if w.op() == W {
		info.readers = info.readers[:len(info.readers)-1]
	} else {
		info.readers[len(info.readers)-1]--
	}
	s.hash ^= s.keys.hash(t, n, w)
	s.total--
	return w.event(t, n)
}

func (s *State) lastEvent(t ts.Tid) Event {
	seq := s.seqs[t]
	return seq[len(seq)-1].event(t, len(seq))
}

// Last returns thread t's last event, and false if t has none.
func (s *State) Last(t ts.Tid) (Event, bool) {
	if s.ThreadLen(t) == 0 {
		return Event{}, false
	}
	return s.lastEvent(t), true
}

// Event returns thread t's n-th event, n counted from 1. It panics if there
// is none.
func (s *State) Event(t ts.Tid, n int) Event {
	if n < 1 || n > s.ThreadLen(t) {
		panic(fmt.Sprintf("hb: Event(T%d, %d): thread has %d events", t, n, s.ThreadLen(t)))
	}
	return s.seqs[t][n-1].event(t, n)
}

// Frontier sets in dst the threads whose last event is maximal (see
// [State.Maximal]) and clears every other bit of dst: these are the threads
// t for which the state has a predecessor that t's last event extends.
func (s *State) Frontier(dst *bitset.BitSet) {
	dst.ClearAll()
	for t := range s.seqs {
		if s.Maximal(ts.Tid(t)) {
			dst.Set(uint(t))
		}
	}
}

// Hash returns the state's hash: the XOR of its events' hashes. Equal states
// have equal hashes (under one seed); see the package documentation for the
// chance that different states collide.
func (s *State) Hash() uint64 { return s.hash }

// Len returns the number of events in the state.
func (s *State) Len() int { return s.total }

// ThreadLen returns the number of events of thread t in the state.
func (s *State) ThreadLen(t ts.Tid) int {
	if t < 0 || int(t) >= len(s.seqs) {
		return 0
	}
	return len(s.seqs[t])
}

// Threads returns the number of threads the state has room for: at least one
// more than the largest thread with an event.
func (s *State) Threads() int { return len(s.seqs) }

// Equal reports whether s and o hold the same events. Threads without events
// do not count, so states of different room are equal if their events are.
func (s *State) Equal(o *State) bool {
	if s == o {
		return true
	}
	if s.total != o.total || s.seed == o.seed && s.hash != o.hash {
		return false
	}
	n := max(len(s.seqs), len(o.seqs))
	for t := range n {
		if !slices.Equal(s.seq(t), o.seq(t)) {
			return false
		}
	}
	return true
}

func (s *State) seq(t int) []word {
	if t < len(s.seqs) {
		return s.seqs[t]
	}
	return nil
}

// PrefixOf reports whether s is a prefix of o: a subset of o's events closed
// under o's happens-before order, so that adding events to s can reach o.
// Every state is a prefix of itself; the paper's strict prefix is
// s.PrefixOf(o) && s.Len() < o.Len().
func (s *State) PrefixOf(o *State) bool {
	if s.total > o.total {
		return false
	}
	for t, seq := range s.seqs {
		if len(seq) == 0 {
			continue
		}
		oseq := o.seq(t)
		if len(oseq) < len(seq) || !slices.Equal(seq, oseq[:len(seq)]) {
			return false
		}
	}
	// Each thread's events are a prefix of o's. What can still be missing is
	// a read in o of some write m that s overwrites with write m+1: o orders
	// that read before write m+1, so s must hold every read of m that o has.
	for i := range s.idx.n {
		r := s.objs[i].readers
		writes := len(r) - 1
		if writes == 0 {
			continue
		}
		j, ok := o.idx.lookup(s.objs[i].obj)
		if !ok {
			return false
		}
		or := o.objs[j].readers
		if len(or) < len(r) || !slices.Equal(r[:writes], or[:writes]) {
			return false
		}
	}
	return true
}

// Linearize appends to dst a schedule that produces the state: its threads in
// an order that respects happens-before, running each thread as far as it can
// before switching. Every linearization of a state reaches the same state of
// a deterministic system.
func (s *State) Linearize(dst ts.Schedule) ts.Schedule {
	for i := range s.idx.n {
		s.objs[i].lw, s.objs[i].lr = 0, 0
	}
	if cap(s.pos) < len(s.seqs) {
		s.pos = make([]int32, len(s.seqs))
	}
	pos := s.pos[:len(s.seqs)]
	clear(pos)
	for left := s.total; left > 0; {
		progress := false
		for t, seq := range s.seqs {
			for int(pos[t]) < len(seq) {
				w := seq[pos[t]]
				i, _ := s.idx.lookup(w.obj())
				info := &s.objs[i]
				m := int32(w.m())
				if w.op() == R {
					if info.lw != m {
						break
					}
					info.lr++
				} else {
					if info.lw != m-1 || info.lr != info.readers[m-1] {
						break
					}
					info.lw, info.lr = m, 0
				}
				dst = append(dst, ts.Move{Thread: ts.Tid(t)})
				pos[t]++
				left--
				progress = true
			}
		}
		if !progress {
			panic("hb: Linearize: the state has no linearization (corrupted)")
		}
	}
	return dst
}

// AppendEvents appends the state's events to dst, thread by thread, each
// thread's in order.
func (s *State) AppendEvents(dst []Event) []Event {
	for t, seq := range s.seqs {
		for n, w := range seq {
			dst = append(dst, w.event(ts.Tid(t), n+1))
		}
	}
	return dst
}

// Reset empties the state, keeping its memory, its seed and its room for
// threads.
func (s *State) Reset() {
	for t := range s.seqs {
		s.seqs[t] = s.seqs[t][:0]
	}
	for i := range s.idx.n {
		s.objs[i].readers = append(s.objs[i].readers[:0], 0)
	}
	s.hash, s.total = 0, 0
}

// Clone returns a copy of s that shares no memory with it.
func (s *State) Clone() *State {
	c := &State{}
	c.CopyFrom(s)
	return c
}

// CopyFrom makes s a copy of o, seed included, reusing s's memory.
func (s *State) CopyFrom(o *State) {
	if s == o {
		return
	}
	s.keys, s.seed, s.hash, s.total = o.keys, o.seed, o.hash, o.total
	s.grow(len(o.seqs))
	for t := range s.seqs {
		s.seqs[t] = append(s.seqs[t][:0], o.seq(t)...)
	}
	s.seqs = s.seqs[:len(o.seqs)]
	s.idx.copyFrom(&o.idx)
	if cap(s.objs) < o.idx.n {
		s.objs = append(s.objs[:cap(s.objs)], make([]objInfo, o.idx.n-cap(s.objs))...)
	}
	s.objs = s.objs[:o.idx.n]
	for i := range s.objs {
		s.objs[i].obj = o.objs[i].obj
		s.objs[i].readers = append(s.objs[i].readers[:0], o.objs[i].readers...)
	}
}

// String lists the events thread by thread, each as op, object and write
// number: "{T0[W o0:1 W o1:1] T1[W o1:2]}".
func (s *State) String() string {
	var b strings.Builder
	b.WriteByte('{')
	sep := ""
	for t, seq := range s.seqs {
		if len(seq) == 0 {
			continue
		}
		fmt.Fprintf(&b, "%sT%d[", sep, t)
		for n, w := range seq {
			if n > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%v o%d:%d", w.op(), w.obj(), w.m())
		}
		b.WriteByte(']')
		sep = " "
	}
	b.WriteByte('}')
	return b.String()
}
