package por

import (
	"slices"
	"sync/atomic"

	"github.com/weftlab/weft/ts"
)

// Descents kept from one analysis of a race to the next.
//
// ODPOR analyses every race of every execution (see ODPOR): a race in the
// prefix an execution shares with the one before it is analysed again, and
// its reversal, notdep(e).e', inserted again into the wakeup tree of the
// state before e. On the bundled models that insertion mostly descends a
// long branch planned before and ends at its leaf (covered): most of the
// time of the search. The new reversal starts with the same events as the
// one before, those of notdep(e) in the shared prefix; only the events after
// the point where the executions part differ. The descent's first levels
// can therefore be taken as they were, where they read only those events.
//
// While an event e' of the execution stays, so do the events before it, and
// the wakeup tree of the state before e (a frame below the current one)
// only grows: a frame's branches other than the one being explored are
// removed only once that one is done, which pops e'. A node's children are
// kept in insertion order, so the first child of a node that passes the test
// of a descent is the same for any later descent that tests the same
// children the same way. The tests that depend only on the first events of
// the reversal are:
//
//   - a child whose thread has its first event (not taken yet) at index a of
//     the reversal: whether it is a weak initial depends on the events up to
//     a, and taking it removes event a;
//   - a child not enabled at the frame (level 0): skipped whatever follows;
//   - the branch being explored at the frame (e itself, level 0), whose
//     thread has no event in notdep(e) (its later events happen after e)
//     and which is not a weak initial of any reversal ending with e', which
//     depends on it: rejected whatever else the reversal holds.
//
// A descent records, level by level, as long as its tests are of these
// kinds, the node it reached, the events it took and the last index a it
// read; the record stays good while the execution's event behind that index
// does (its id is the same), and strict mode (KeepGoing past a failed check)
// has not changed. The next insertion of the same race's reversal (same
// event, candidate, frame and outcome) then starts from that node, and
// records further.

// descMemo is what the last insertion of a race's reversal found in its
// first levels, the ones whose tests read only the events of the reversal
// up to index ref (see above).
type descMemo struct {
	kid     uint64 // the id of the race's later event: the record is for it
	ci, j   int32  // its candidate, and the frame the reversal goes to
	out     int32  // the outcome of the reversal's last event
	strict  bool
	node    int32   // the node reached, with children; -1: nothing recorded
	level   int32   // its depth below the frame's root
	removed []int32 // the indices of the events taken on the way, in order
	ref     int32   // the last index of the reversal the tests read, or -1
	refPos  int32   // the execution's event at that index
	refID   uint64  // and its id
	path    []int32 // a coordinator's: the node taken at each level
}

// descentFor returns the record of the race of event k's candidate ci whose
// reversal ends with outcome out and goes to frame j, made anew if there
// is none for this event.
func (e *explorer[S]) descentFor(k int32, ci int, j int32, out int) *descMemo {
	for len(e.descents) <= int(k) {
		e.descents = append(e.descents, nil)
	}
	id := e.ev[k].id
	list := e.descents[k]
	free := -1
	for i := range list {
		m := &list[i]
		if m.kid != id {
			free = i
			continue
		}
		if m.ci == int32(ci) && m.j == j && m.out == int32(out) {
			return m
		}
	}
	if free < 0 {
		list = append(list, descMemo{})
		e.descents[k] = list
		free = len(list) - 1
	}
	m := &list[free]
	*m = descMemo{kid: id, ci: int32(ci), j: j, out: int32(out), node: -1, ref: -1, removed: m.removed[:0]}
	return m
}

// usable reports whether m's levels can be taken for the reversal being
// inserted now: they were recorded, in the same mode, and the events they
// read are still the execution's.
func (e *explorer[S]) usable(m *descMemo) bool {
	if m.node < 0 || m.strict != e.strict {
		return false
	}
	return m.ref < 0 || (int(m.refPos) < len(e.ev) && e.ev[m.refPos].id == m.refID)
}

// forget empties m for a descent that records from the root.
func (m *descMemo) forget(strict bool) {
	m.node, m.level, m.removed, m.ref, m.strict, m.path = -1, 0, m.removed[:0], -1, strict, m.path[:0]
}

// A coordinator's records (parallel.go). A unit's worker logs the
// reversals it makes for the coordinator's frames, and the coordinator
// inserts each again when it takes the result (commit), where the worker's
// own records, kept by its events' ids, do not apply. So the worker names
// in the log, for each reversal of a race, the entry of the race's previous
// reversal into the same frame with the same last outcome (prev), and how
// many of the two sequences' first events are the same events of its
// execution (stable): it knows their ids, and while an event stays, so do
// the events before it, and notdep up to it. Within a commit the
// coordinator's frames change only by the insertions it makes, so its
// trees only grow, and the levels recorded by the insertion of entry prev,
// whose tests read the reversal up to index ref, are taken as they were
// when ref < stable.

// logKey is a worker's memory of the last reversal of a race it logged
// into one frame: the race (its later event's id, its candidate), the frame
// and the last event's outcome; the log entry, and the execution's events
// of the sequence (their positions and ids).
type logKey struct {
	kid        uint64
	ci, j, out int32
	gen        uint64 // the unit's (logGen): entries of another unit's log are stale
	entry      int32
	pos        []int32
	ids        []uint64
}

// logRaceOf names in op, a race's reversal (e.race) that a worker logs for
// a coordinator's frame, the race, the previous entry of the race's
// reversal into the frame, and how many of its first events op's sequence
// shares with that entry's (see above). e.seqPos holds the execution's
// events of the sequence but its last.
func (e *explorer[S]) logRaceOf(op *logOp, out int32) {
	k := e.race.k
	for len(e.logKeys) <= int(k) {
		e.logKeys = append(e.logKeys, nil)
	}
	id := e.ev[k].id
	list := e.logKeys[k]
	var lk *logKey
	free := -1
	for i := range list {
		c := &list[i]
		if c.kid != id || c.gen != e.logGen {
			free = i
			continue
		}
		if c.ci == int32(e.race.ci) && c.j == op.frame && c.out == out {
			lk = c
			break
		}
	}
	op.kid, op.prev = id, -1
	keep := 0 // first events the sequence shares with lk's
	if lk != nil {
		// The first events that are still the execution's: a prefix
		// (LIFO), found by bisection.
		lo := e.stillThere(lk.pos, lk.ids, len(e.seqPos))
		op.prev, op.stable = lk.entry, int32(lo)
		if lo > 0 && lk.pos[lo-1] == e.seqPos[lo-1] {
			keep = lo
		}
	} else {
		if free < 0 {
			list = append(list, logKey{})
			e.logKeys[k] = list
			free = len(list) - 1
		}
		lk = &list[free]
		lk.kid, lk.ci, lk.j, lk.out, lk.gen = id, int32(e.race.ci), op.frame, out, e.logGen
	}
	lk.entry = int32(len(e.log))
	// The events shared are at the same positions, with the same ids: only
	// the rest is written (a fifth of them on indexer-16).
	lk.pos = append(lk.pos[:keep], e.seqPos[keep:]...)
	lk.ids = lk.ids[:keep]
	for _, p := range e.seqPos[keep:] {
		lk.ids = append(lk.ids, e.ev[p].id)
	}
}

// commitDescent sets e.descent and e.descentOK for the insertion of log
// entry i, at the coordinator's frame op.frame: the record of the race's
// previous entry, or a new one.
func (e *explorer[S]) commitDescent(log []logOp, i int) {
	op := &log[i]
	if op.kid == 0 || op.keep+int32(len(op.w)) == 0 {
		return
	}
	for len(e.recOf) < len(log) {
		e.recOf = append(e.recOf, -1)
	}
	x := int32(-1)
	if op.prev >= 0 && int(op.prev) < i {
		x = e.recOf[op.prev]
	}
	ok := x >= 0
	if !ok {
		x = int32(len(e.commitDescs))
		if cap(e.commitDescs) > len(e.commitDescs) {
			e.commitDescs = e.commitDescs[:x+1]
			m := &e.commitDescs[x]
			m.forget(e.strict)
		} else {
			e.commitDescs = append(e.commitDescs, descMemo{node: -1, ref: -1})
		}
	}
	e.recOf[i] = x
	m := &e.commitDescs[x]
	e.descent = m
	e.descentOK = ok && m.node >= 0 && m.strict == e.strict && m.ref < op.stable
	if chk := e.opt.checkDescent; chk != nil && e.descentOK {
		chk.commit.Add(1)
	}
}

// endCommit drops the coordinator's records: its frames change between
// commits otherwise than by growing.
func (e *explorer[S]) endCommit(n int) {
	e.commitDescs = e.commitDescs[:0]
	for i := range e.recOf[:min(n, len(e.recOf))] {
		e.recOf[i] = -1
	}
}

// notdepAt sets e.seqBuf to notdep(i, end) (see notdep) and e.seqPos to the
// indices in the execution of its events, and reports whether they are
// frame i's memo (see notdepMemo), which the caller must not change but by
// appending, and must stop using (restoreSeq) before the next notdepAt.
func (e *explorer[S]) notdepAt(i, end int32) bool {
	xi := &e.ev[i]
	if int(end-i) > notdepMemoMax || (int(i) >= len(e.notdeps) && e.notdepEvents > notdepEventsMax) {
		w, pos := e.seqBuf[:0], e.seqPos[:0]
		for j := i + 1; j < end; j++ {
			y := &e.ev[j]
			if y.clock[xi.t] < xi.n {
				w = append(w, wev{t: y.t, out: y.out, step: y.step})
				pos = append(pos, j)
			}
		}
		e.seqBuf, e.seqPos = w, pos
		return false
	}
	for len(e.notdeps) <= int(i) {
		e.notdeps = append(e.notdeps, notdepMemo{})
	}
	m := &e.notdeps[i]
	from, n := i+1, 0
	if m.id == xi.id {
		// The events still the execution's: a prefix (LIFO), found by
		// bisection; notdep up to the last of them is what it was.
		lo, hi := 0, len(m.pos)
		for lo < hi {
			mid := (lo + hi) / 2
			if p := m.pos[mid]; p < end && e.ev[p].id == m.ids[mid] {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		n = lo
		switch {
		case n == len(m.pos) && m.end > i && m.end <= end && e.ev[m.end-1].id == m.endID:
			from = m.end // the events it scanned are all still there
		case n > 0:
			from = m.pos[n-1] + 1
		}
	}
	m.id, m.end, m.endID = xi.id, end, e.ev[end-1].id
	e.notdepEvents -= int64(len(m.seq) - n)
	w, pos, ids := m.seq[:n], m.pos[:n], m.ids[:n]
	for j := from; j < end; j++ {
		y := &e.ev[j]
		if y.clock[xi.t] < xi.n {
			w = append(w, wev{t: y.t, out: y.out, step: y.step})
			pos = append(pos, j)
			ids = append(ids, y.id)
		}
	}
	e.notdepEvents += int64(len(w) - n)
	// Room for the event a reversal appends (insertReversal), so that
	// appending it does not copy the memo each time.
	w = slices.Grow(w, 1)
	m.seq, m.pos, m.ids = w, pos, ids
	if chk := e.opt.checkDescent; chk != nil {
		chk.notdeps.Add(1)
		if !slices.EqualFunc(w, e.notdep(nil, i, end), func(a, b wev) bool { return sameWev(&a, &b) }) {
			chk.notdepMisses.Add(1)
		}
	}
	e.ownSeq, e.seqPosOwn = e.seqBuf[:0], e.seqPos[:0]
	e.seqBuf, e.seqPos = w, pos
	return true
}

// restoreSeq gives e.seqBuf back its own buffer after notdepAt lent it a
// memo's.
func (e *explorer[S]) restoreSeq() {
	e.seqBuf, e.ownSeq = e.ownSeq, nil
	e.seqPos = e.seqPosOwn[:0]
}

// notdepMemo is the last notdep(i, end) built for frame i's event (its id),
// with its events' positions and ids. A race of event i's is analysed
// again in every execution that keeps event i, with a sequence that starts
// with the same events up to where the executions part: only the rest is
// built again (13% of serial indexer-16's instructions went to building
// sequences).
type notdepMemo struct {
	id    uint64
	end   int32  // the end it was built to
	endID uint64 // the id of the event before end
	seq   []wev
	pos   []int32
	ids   []uint64
}

// Bounds on the memos: a frame whose notdep may hold more events than
// notdepMemoMax builds it each time, and new frames stop keeping memos
// once they hold notdepEventsMax events in all (about 32 MB).
const (
	notdepMemoMax   = 1 << 12
	notdepEventsMax = 1 << 19
)

// descentCheck is, for tests (Options.checkDescent), the count of the
// records taken (usable), of their levels, of those whose node or events
// differ from what a descent from the root finds, and of the records a
// coordinator took (commit): atomic, for the workers of a parallel search.
type descentCheck struct {
	uses, levels, misses, commit atomic.Int64
	// notdepAt's memos: sequences built, and those that differ from
	// notdep's.
	notdeps, notdepMisses atomic.Int64
	// Insertions, and those that left their sequence with an event still
	// marked taken (insertAwake puts them back for the caller's next use).
	inserts, unrestored atomic.Int64
	// Weak-initial tests answered from the execution's chains
	// (chainInitial), and those whose answer differs from weakInitialIdx's
	// scan.
	chainTests, chainMisses atomic.Int64
	// The same for the tests answered from a commit's index (seqIndex).
	indexTests, indexMisses atomic.Int64
}

// sameWev reports whether x and y are the same event: thread, outcome and
// step.
func sameWev(x, y *wev) bool {
	return x.t == y.t && x.out == y.out && x.step.Equal(y.step)
}

// descent is where a descent of a few levels ended: the node, and the
// indices of the events it took, in order, the last event as -1.
type descent struct {
	node  int32
	taken []int32
}

// compare counts record m's use, and a miss if d, the descent made again
// from the root, differs from it (last: the index of the sequence's last
// event).
func (c *descentCheck) compare(d descent, m *descMemo, last int) {
	c.uses.Add(1)
	c.levels.Add(int64(m.level))
	same := d.node == m.node && len(d.taken) == len(m.removed)
	for i := 0; same && i < len(d.taken); i++ {
		a := d.taken[i]
		if a == int32(last) {
			a = -1
		}
		same = a == m.removed[i]
	}
	if !same {
		c.misses.Add(1)
	}
}

// descendAgain makes the first levels of insertAwake's descent of w into
// frame f's tree on a copy of w, without a record, and returns where it
// ended (node -1 if it stopped before).
func (e *explorer[S]) descendAgain(f *frame[S], w []wev, levels int) descent {
	w = append([]wev(nil), w...)
	d := descent{node: f.root}
	for level := range levels {
		next := int32(-1)
		for c := e.wt.nodes[d.node].first; c >= 0; c = e.wt.nodes[c].next {
			x := &e.wt.nodes[c]
			xt := ts.Tid(x.t)
			if level == 0 && f.status[xt] != ts.Enabled {
				continue
			}
			st := e.wt.step(x)
			ok, jq := weakInitialIdx(xt, int(x.out), &st, w, e.strict)
			if !ok {
				continue
			}
			if jq < 0 || (level == 0 && c == f.cur) {
				return descent{node: -1}
			}
			w[jq].t = -1
			d.taken = append(d.taken, int32(jq))
			next = c
			break
		}
		if next < 0 {
			return descent{node: -1}
		}
		d.node = next
	}
	return d
}
