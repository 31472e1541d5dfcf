package hb

// State implements the canonical representation of happens-before states of
// section 3.3 of Musuvathi and Qadeer, "Partial-order reduction for
// context-bounded state exploration" (MSR-TR-2007-12): a state is the set of
// its events <op, t, n, obj, m>, and the happens-before edges are implied by
// the events' fields.
//
// Invariants: seqs[t] holds the words of thread t's events in order (one
// word per access, a continuation flag on every word of an event but its
// first, and a last word for an outcome c > 0; see word), nev[t] counts
// its events, and hs[t] holds their hashes in order; for every object seen, objs[slot].readers has one entry per
// write of the object plus one for the initial value (so the object has
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
	nev   []int32 // events per thread
	// hs[t][k] is the hash of thread t's (k+1)-th event: LastHash and
	// Remove, which the CB recursion asks of every state it visits, read
	// it instead of hashing the event again.
	hs   [][]uint64
	idx  objIndex
	objs []objInfo // by slot of idx; only the first idx.n are in use
	pos  []int32   // Linearize scratch
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
	threads = max(threads, 0)
	s := &State{keys: keysOf(seed), seed: seed, seqs: make([][]word, 0, threads), nev: make([]int32, 0, threads),
		hs: make([][]uint64, 0, threads)}
	s.grow(threads)
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
	for len(s.nev) < len(s.seqs) {
		s.nev = append(s.nev, 0)
	}
	if cap(s.hs) < len(s.seqs) {
		s.hs = append(make([][]uint64, 0, len(s.seqs)), s.hs...)
	}
	var chunk []uint64 // room for the new threads' first hashes, in one allocation
	for len(s.hs) < len(s.seqs) {
		if len(s.hs) < cap(s.hs) {
			s.hs = s.hs[:len(s.hs)+1]
			if h := s.hs[len(s.hs)-1]; h != nil {
				s.hs[len(s.hs)-1] = h[:0]
				continue
			}
		} else {
			s.hs = append(s.hs, nil)
		}
		if len(chunk) == 0 {
			chunk = make([]uint64, (len(s.seqs)-len(s.hs)+1)*hashRoom)
		}
		s.hs[len(s.hs)-1], chunk = chunk[:0:hashRoom], chunk[hashRoom:]
	}
}

// hashRoom is the number of event hashes a thread's stack holds before it
// grows: a state's threads start with room for this many in one allocation.
const hashRoom = 32

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

// Add adds thread t's next event, the access st with outcome 0, and returns
// it. The event's M is computed from the state, for each of its accesses: a
// write is the next write of its object, a read reads the object's last write
// (or the initial value). Lock operations are writes.
func (s *State) Add(t ts.Tid, st ts.Step) Event { return s.AddOutcome(t, st, 0) }

// AddOutcome adds thread t's next event, the accesses of st with outcome c
// (0 <= c <= 2^29-1), and returns it.
func (s *State) AddOutcome(t ts.Tid, st ts.Step, c int) Event {
	if len(st.Also) == 0 && c == 0 && t >= 0 {
		// One word, the common case: kept to one call of objSlot.
		info := s.objSlot(st.Obj)
		last := len(info.readers) - 1
		op := KindOf(st.Op)
		m := last
		if op == W {
			if m = last + 1; m > maxM {
				panic(fmt.Sprintf("hb: Add: more than %d writes of o%d", maxM, st.Obj))
			}
			info.readers = append(info.readers, 0)
		} else {
			info.readers[last]++
		}
		s.grow(int(t) + 1)
		w := pack(op, st.Obj, m)
		s.seqs[t] = append(s.seqs[t], w)
		s.nev[t]++
		n := int(s.nev[t])
		h := s.keys.hash(t, n, w)
		s.hash ^= h
		s.hs[t] = append(s.hs[t], h)
		s.total++
		return w.event(t, n)
	}
	if t < 0 {
		panic(fmt.Sprintf("hb: Add: negative thread %d", t))
	}
	if c < 0 || c > maxM {
		panic(fmt.Sprintf("hb: Add: outcome %d out of range 0..%d", c, maxM))
	}
	s.grow(int(t) + 1)
	seq := s.seqs[t]
	start := len(seq)
	for i := range st.NumAccesses() {
		a := st.At(i)
		w := s.access(KindOf(a.Op), a.Obj)
		if i > 0 {
			w |= wCont
		}
		seq = append(seq, w)
	}
	if c > 0 {
		seq = append(seq, outWord(c))
	}
	s.seqs[t] = seq
	return s.added(t, seq[start:])
}

// addWords adds thread t's next event as the words ws describe it (their
// kinds, objects and outcome; the write numbers are computed again), and
// reports whether it made exactly ws.
func (s *State) addWords(t ts.Tid, ws []word) bool {
	s.grow(int(t) + 1)
	seq := s.seqs[t]
	start := len(seq)
	same := true
	for _, w := range ws {
		got := w
		if !w.outcome() {
			got = s.access(w.op(), w.obj()) | w&wCont
		}
		same = same && got == w
		seq = append(seq, got)
	}
	s.seqs[t] = seq
	s.added(t, seq[start:])
	return same
}

// load adds thread t's next event as the words ws, write numbers and all,
// whatever the state: Table.Load adds a stored state's events thread by
// thread, not in an order that would number them.
func (s *State) load(t ts.Tid, ws []word) {
	s.grow(int(t) + 1)
	s.seqs[t] = append(s.seqs[t], ws...)
	for _, w := range ws {
		if w.outcome() {
			continue
		}
		info := s.objSlot(w.obj())
		for len(info.readers) <= w.m() {
			info.readers = append(info.readers, 0)
		}
		if w.op() == R {
			info.readers[w.m()]++
		}
	}
	s.added(t, ws)
}

// addWord is addWords of an event of one word.
func (s *State) addWord(t ts.Tid, w word) bool {
	got := s.access(w.op(), w.obj())
	s.grow(int(t) + 1)
	s.seqs[t] = append(s.seqs[t], got)
	s.nev[t]++
	h := s.keys.hash(t, int(s.nev[t]), got)
	s.hash ^= h
	s.hs[t] = append(s.hs[t], h)
	s.total++
	return got == w
}

// addWordUnhashed is addWord without the update of the state's hash, for a
// caller that puts the hash back itself (Table.equal).
func (s *State) addWordUnhashed(t ts.Tid, w word) bool {
	got := s.access(w.op(), w.obj())
	s.grow(int(t) + 1)
	s.seqs[t] = append(s.seqs[t], got)
	s.nev[t]++
	s.hs[t] = append(s.hs[t], s.keys.hash(t, int(s.nev[t]), got))
	s.total++
	return got == w
}

// dropLast removes thread t's last event, which is maximal, as Remove does
// but, for an event of one word, without the update of the state's hash,
// for a caller that puts the hash back itself (Table.equal).
func (s *State) dropLast(t ts.Tid) {
	seq := s.seqs[t]
	k := len(seq) - 1
	w := seq[k]
	if !w.first() {
		s.Remove(t)
		return
	}
	s.unaccess(w)
	s.seqs[t] = seq[:k]
	s.nev[t]--
	s.hs[t] = s.hs[t][:len(s.hs[t])-1]
	s.total--
}

// added counts the event whose words ws were just appended to thread t's
// sequence, and returns it.
func (s *State) added(t ts.Tid, ws []word) Event {
	s.nev[t]++
	e := eventOf(t, int(s.nev[t]), ws)
	h := s.keys.event(e)
	s.hash ^= h
	s.hs[t] = append(s.hs[t], h)
	s.total++
	return e
}

// access records an access of kind op to object o and returns its word.
func (s *State) access(op Kind, o ts.Obj) word {
	info := s.objSlot(o)
	last := len(info.readers) - 1
	m := last
	if op == W {
		m = last + 1
		if m > maxM {
			panic(fmt.Sprintf("hb: Add: more than %d writes of o%d", maxM, o))
		}
		info.readers = append(info.readers, 0)
	} else {
		info.readers[last]++
	}
	return pack(op, o, m)
}

// unaccess undoes access for the access word w, the object's latest.
func (s *State) unaccess(w word) {
	i, _ := s.idx.lookup(w.obj())
	info := &s.objs[i]
	if w.op() == W {
		info.readers = info.readers[:len(info.readers)-1]
	} else {
		info.readers[len(info.readers)-1]--
	}
}

// nextWord returns the word of an access of kind op to object o made next.
func (s *State) nextWord(op Kind, o ts.Obj) word {
	last := 0
	if i, ok := s.idx.lookup(o); ok {
		last = len(s.objs[i].readers) - 1
	}
	if op == W {
		return pack(op, o, last+1)
	}
	return pack(op, o, last)
}

// NextEvent returns the event that Add(t, st) would add, without adding it.
// With [State.EventHash] it gives the successor's hash:
// s.Hash() ^ s.EventHash(s.NextEvent(t, st)).
func (s *State) NextEvent(t ts.Tid, st ts.Step) Event {
	if len(st.Also) != 0 {
		return s.NextEventOutcome(t, st, 0)
	}
	// One word, the common case.
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

// NextEventOutcome returns the event that AddOutcome(t, st, c) would add,
// without adding it.
func (s *State) NextEventOutcome(t ts.Tid, st ts.Step, c int) Event {
	n := s.ThreadLen(t) + 1
	w0 := s.nextWord(KindOf(st.Op), st.Obj)
	if len(st.Also) == 0 && c == 0 {
		return w0.event(t, n) // one word, the common case
	}
	// eventOf over the words, without storing them
	e := w0.event(t, n)
	r := uint64(0x6c62272e07bb0142)
	for _, a := range st.Also {
		r = mix(r ^ uint64(s.nextWord(KindOf(a.Op), a.Obj)|wCont))
		e.More++
	}
	if c > 0 {
		r = mix(r ^ uint64(outWord(c)))
		e.Outcome = c
	}
	e.rest = r | 1
	return e
}

// EventHash returns the hash of event e under the state's seed: the amount by
// which adding or removing e changes the state's hash. e is an event a State
// returned (the digest of its further accesses and outcome is not exported).
func (s *State) EventHash(e Event) uint64 {
	if e.rest == 0 {
		return s.keys.hash(e.Thread, e.N, pack(e.Op, e.Obj, e.M))
	}
	return s.keys.event(e)
}

// LastHash returns the hash of thread t's last event under the state's seed
// (see [State.EventHash]): the state without it has hash s.Hash() ^
// s.LastHash(t). It panics if t has no event.
func (s *State) LastHash(t ts.Tid) uint64 {
	hs := s.hs[t]
	return hs[len(hs)-1]
}

// Maximal reports whether thread t has an event and its last event is
// maximal in the happens-before order: no other event of the state depends on
// it. An access that writes an object is maximal when it is the object's last
// write and nobody has read it; a read is maximal when no write of the object
// follows the write it read; an event is maximal when all its accesses are.
func (s *State) Maximal(t ts.Tid) bool {
	if t < 0 || int(t) >= len(s.seqs) || len(s.seqs[t]) == 0 {
		return false
	}
	seq := s.seqs[t]
	if w := seq[len(seq)-1]; w.first() {
		i, _ := s.idx.lookup(w.obj())
		r := s.objs[i].readers
		last := len(r) - 1
		if w.op() == W {
			return w.m() == last && r[last] == 0
		}
		return w.m() == last
	}
	for _, w := range seq[lastStart(seq):] {
		if !w.outcome() && !s.maximal(w) {
			return false
		}
	}
	return true
}

// maximal reports whether no event of the state depends on the access w.
func (s *State) maximal(w word) bool {
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
	if t >= 0 && int(t) < len(s.seqs) && len(s.seqs[t]) > 0 {
		// One word, the common case: one lookup of the object.
		seq := s.seqs[t]
		k := len(seq) - 1
		if w := seq[k]; w.first() {
			i, _ := s.idx.lookup(w.obj())
			info := &s.objs[i]
			last := len(info.readers) - 1
			switch {
			case w.op() == W && w.m() == last && info.readers[last] == 0:
				info.readers = info.readers[:last]
			case w.op() == R && w.m() == last:
				info.readers[last]--
			default:
				s.notMaximal(t)
			}
			n := int(s.nev[t])
			s.seqs[t] = seq[:k]
			s.nev[t]--
			hs := s.hs[t]
			s.hash ^= hs[len(hs)-1]
			s.hs[t] = hs[:len(hs)-1]
			s.total--
			return w.event(t, n)
		}
	}
	if !s.Maximal(t) {
		s.notMaximal(t)
	}
	seq := s.seqs[t]
	n := int(s.nev[t])
	start := lastStart(seq)
	for _, w := range seq[start:] {
		if !w.outcome() {
			s.unaccess(w)
		}
	}
	e := eventOf(t, n, seq[start:])
	hs := s.hs[t]
	s.hash ^= hs[len(hs)-1]
	s.hs[t] = hs[:len(hs)-1]
	s.seqs[t] = seq[:start]
	s.nev[t]--
	s.total--
	return e
}

// notMaximal panics for Remove(t) of a thread whose last event is not
// maximal, or that has none.
func (s *State) notMaximal(t ts.Tid) {
	if t < 0 || int(t) >= len(s.seqs) || len(s.seqs[t]) == 0 {
		panic(fmt.Sprintf("hb: Remove(T%d): the thread has no events", t))
	}
	panic(fmt.Sprintf("hb: Remove(T%d): last event %v is not maximal: another event depends on it", t, s.lastEvent(t)))
}

func (s *State) lastEvent(t ts.Tid) Event {
	seq := s.seqs[t]
	return eventOf(t, int(s.nev[t]), seq[lastStart(seq):])
}

// Last returns thread t's last event, and false if t has none.
func (s *State) Last(t ts.Tid) (Event, bool) {
	if s.ThreadLen(t) == 0 {
		return Event{}, false
	}
	return s.lastEvent(t), true
}

// eventWords returns the words of thread t's n-th event, 1 <= n <= nev[t].
func (s *State) eventWords(t ts.Tid, n int) []word {
	seq := s.seqs[t]
	if len(seq) == int(s.nev[t]) {
		return seq[n-1 : n]
	}
	i := 0
	for k := 1; k < n; k++ {
		i = eventEnd(seq, i)
	}
	return seq[i:eventEnd(seq, i)]
}

// Event returns thread t's n-th event, n counted from 1. It panics if there
// is none.
func (s *State) Event(t ts.Tid, n int) Event {
	if n < 1 || n > s.ThreadLen(t) {
		panic(fmt.Sprintf("hb: Event(T%d, %d): thread has %d events", t, n, s.ThreadLen(t)))
	}
	return eventOf(t, n, s.eventWords(t, n))
}

// AppendAccesses appends the accesses of thread t's n-th event to dst, in
// the order of its step (the step's own first). It panics if there is no
// such event.
func (s *State) AppendAccesses(dst []EventAccess, t ts.Tid, n int) []EventAccess {
	if n < 1 || n > s.ThreadLen(t) {
		panic(fmt.Sprintf("hb: AppendAccesses(T%d, %d): thread has %d events", t, n, s.ThreadLen(t)))
	}
	for _, w := range s.eventWords(t, n) {
		if !w.outcome() {
			dst = append(dst, w.access())
		}
	}
	return dst
}

// Frontier sets in dst the threads whose last event is maximal (see
// [State.Maximal]) and clears every other bit of dst: these are the threads
// t for which the state has a predecessor that t's last event extends.
func (s *State) Frontier(dst *bitset.BitSet) {
	dst.ClearAll()
	for t, seq := range s.seqs {
		if len(seq) == 0 {
			continue
		}
		// A last event of one word, the common case, inline: the search's
		// CB recursion and Mark ask the frontier of every state they visit.
		var max bool
		if w := seq[len(seq)-1]; w.first() {
			i, _ := s.idx.lookup(w.obj())
			r := s.objs[i].readers
			last := len(r) - 1
			max = w.m() == last && (w.op() != W || r[last] == 0)
		} else {
			max = s.Maximal(ts.Tid(t))
		}
		if max {
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
	if t < 0 || int(t) >= len(s.nev) {
		return 0
	}
	return int(s.nev[t])
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
		l := len(seq)
		oseq := o.seq(t)
		if len(oseq) < l || !slices.Equal(seq, oseq[:l]) {
			return false
		}
		if len(oseq) > l && len(oseq) != int(o.nev[t]) && oseq[l]&wCont != 0 {
			return false // o's event there is longer: another outcome
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
// before switching, each move with its event's outcome. Every linearization
// of a state reaches the same state of a deterministic system.
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
				i := int(pos[t])
				c := 0
				if w := seq[i]; i+1 == len(seq) || seq[i+1].first() {
					// one word: the common case
					x, _ := s.idx.lookup(w.obj())
					info := &s.objs[x]
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
					pos[t]++
				} else {
					end := eventEnd(seq, i)
					if !s.ready(seq[i:end]) {
						break
					}
					for _, w := range seq[i:end] {
						if w.outcome() {
							c = w.m()
							continue
						}
						info := s.info(w.obj())
						if w.op() == R {
							info.lr++
						} else {
							info.lw, info.lr = int32(w.m()), 0
						}
					}
					pos[t] = int32(end)
				}
				dst = append(dst, ts.Move{Thread: ts.Tid(t), Outcome: c})
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

// info returns the record of object o, which the state has seen.
func (s *State) info(o ts.Obj) *objInfo {
	i, _ := s.idx.lookup(o)
	return &s.objs[i]
}

// ready reports whether every access of the event ws can be taken now in
// Linearize: a read once the write it reads is taken, a write once the
// write before it and all that write's reads are.
func (s *State) ready(ws []word) bool {
	for _, w := range ws {
		if w.outcome() {
			continue
		}
		info := s.info(w.obj())
		m := int32(w.m())
		if w.op() == R {
			if info.lw != m {
				return false
			}
		} else if info.lw != m-1 || info.lr != info.readers[m-1] {
			return false
		}
	}
	return true
}

// AppendEvents appends the state's events to dst, thread by thread, each
// thread's in order.
func (s *State) AppendEvents(dst []Event) []Event {
	for t, seq := range s.seqs {
		n := 0
		for i := 0; i < len(seq); {
			end := eventEnd(seq, i)
			n++
			dst = append(dst, eventOf(ts.Tid(t), n, seq[i:end]))
			i = end
		}
	}
	return dst
}

// Reset empties the state, keeping its memory, its seed and its room for
// threads.
func (s *State) Reset() {
	for t := range s.seqs {
		s.seqs[t] = s.seqs[t][:0]
		s.nev[t] = 0
		s.hs[t] = s.hs[t][:0]
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
	s.nev = s.nev[:len(o.seqs)]
	copy(s.nev, o.nev)
	s.hs = s.hs[:len(o.seqs)]
	for t := range s.hs {
		s.hs[t] = append(s.hs[t][:0], o.hs[t]...)
	}
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
// number: "{T0[W o0:1 W o1:1] T1[W o1:2]}". An event of several accesses joins
// them with "+", and an outcome c > 0 ends it in "/c": "W o0:1+R o2:0/1".
func (s *State) String() string {
	var b strings.Builder
	b.WriteByte('{')
	sep := ""
	for t, seq := range s.seqs {
		if len(seq) == 0 {
			continue
		}
		fmt.Fprintf(&b, "%sT%d[", sep, t)
		for i, w := range seq {
			switch {
			case w.outcome():
				fmt.Fprintf(&b, "/%d", w.m())
				continue
			case !w.first():
				b.WriteByte('+')
			case i > 0:
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
