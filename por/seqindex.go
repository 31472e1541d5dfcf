package por

import (
	"slices"
	"unsafe"

	"github.com/weftlab/weft/ts"
)

// seqIndex indexes a wakeup sequence by thread and by object, for the
// weak-initial tests of insertMarking where the sequence is not the
// execution's (a coordinator taking a unit's log: the events are the
// worker's, below the split), so that a test walks the events of one thread
// or one object instead of scanning the sequence. A coordinator keeps one
// per frame (commitSeq): a log's sequences into a frame mostly share their
// first events with the previous one, so the index is cut back to what
// they share and extended with the rest, as the sequence itself is.
type seqIndex struct {
	n           int     // the sequence's first n events are indexed
	first, last []int32 // by thread: its first and last indexed event, or -1
	ev          []idxEvent
	alsoPrev    []int32 // the links of the steps' Also accesses (idxEvent.also)
	objLast     lastTable
}

// idxEvent is an indexed event's links.
type idxEvent struct {
	prevT, next int32 // its thread's previous and next indexed event, or -1
	prev        int32 // the previous indexed event on its step's object, or -1
	also        int32 // where the links of its step's Also start in alsoPrev
}

// memoryUsed returns the bytes ix holds, for the memory budget.
func (ix *seqIndex) memoryUsed() int64 {
	return int64(cap(ix.first)+cap(ix.last)+cap(ix.alsoPrev))*4 + int64(cap(ix.ev))*int64(unsafe.Sizeof(idxEvent{})) +
		int64(cap(ix.objLast.dense))*4 + int64(len(ix.objLast.sparse))*mapEntryBytes
}

// extend indexes w's events from ix.n on; threads are below n.
func (ix *seqIndex) extend(w []wev, n int) {
	for len(ix.first) < n {
		ix.first = append(ix.first, -1)
		ix.last = append(ix.last, -1)
	}
	ev := slices.Grow(ix.ev[:ix.n], len(w)-ix.n)[:len(w)]
	for k := ix.n; k < len(w); k++ {
		x := &w[k]
		y := &ev[k]
		p := ix.last[x.t]
		y.prevT, y.next = p, -1
		if p >= 0 {
			ev[p].next = int32(k)
		} else {
			ix.first[x.t] = int32(k)
		}
		ix.last[x.t] = int32(k)
		y.prev = ix.objLast.swap(x.step.Obj, int32(k))
		y.also = int32(len(ix.alsoPrev))
		for _, a := range x.step.Also {
			ix.alsoPrev = append(ix.alsoPrev, ix.objLast.swap(a.Obj, int32(k)))
		}
	}
	ix.ev = ev
	ix.n = len(w)
}

// truncate forgets the indexed events of w from k on, w being the sequence
// indexed (its events from k on not yet replaced).
func (ix *seqIndex) truncate(w []wev, k int) {
	if k >= ix.n {
		return
	}
	for i := ix.n - 1; i >= k; i-- {
		x, y := &w[i], &ix.ev[i]
		for a := len(x.step.Also); a > 0; a-- {
			ix.objLast.set(x.step.Also[a-1].Obj, ix.alsoPrev[int(y.also)+a-1])
		}
		ix.objLast.set(x.step.Obj, y.prev)
		p := y.prevT
		ix.last[x.t] = p
		if p >= 0 {
			ix.ev[p].next = -1
		} else {
			ix.first[x.t] = -1
		}
	}
	ix.alsoPrev = ix.alsoPrev[:ix.ev[k].also]
	ix.ev = ix.ev[:k]
	ix.n = k
}

// dependsBefore reports whether an event of w before event y and not
// taken (see weakInitial) is dependent with y.
func (ix *seqIndex) dependsBefore(w []wev, y int32) bool {
	st := &w[y].step
	if ix.dependsFrom(w, ix.ev[y].prev, st.Obj, st.Op == ts.Read) {
		return true
	}
	also := ix.alsoPrev[ix.ev[y].also:]
	for a, x := range st.Also {
		if ix.dependsFrom(w, also[a], x.Obj, x.Op == ts.Read) {
			return true
		}
	}
	return false
}

// dependsAny reports whether an event of w not taken is dependent with
// step st.
func (ix *seqIndex) dependsAny(w []wev, st *ts.Step) bool {
	if ix.dependsFrom(w, ix.objLast.get(st.Obj), st.Obj, st.Op == ts.Read) {
		return true
	}
	for _, x := range st.Also {
		if ix.dependsFrom(w, ix.objLast.get(x.Obj), x.Obj, x.Op == ts.Read) {
			return true
		}
	}
	return false
}

// dependsFrom reports whether an event of w not taken, from event z back
// along object o's links, makes an access to o dependent with an access
// that reads o (read) or writes it.
func (ix *seqIndex) dependsFrom(w []wev, z int32, o ts.Obj, read bool) bool {
	for z >= 0 {
		y := &w[z]
		if y.step.Obj == o {
			if y.t >= 0 && (y.step.Op != ts.Read || !read) {
				return true
			}
			z = ix.ev[z].prev
			continue
		}
		next := int32(-2)
		for i, x := range y.step.Also {
			if x.Obj == o {
				if y.t >= 0 && (x.Op != ts.Read || !read) {
					return true
				}
				next = ix.alsoPrev[int(ix.ev[z].also)+i]
				break
			}
		}
		if next == -2 {
			panic("por: a sequence's index links an event that does not touch the object")
		}
		z = next
	}
	return false
}

// indexInitial is weakInitialIdx(q, out, x's step, w[head:], e.strict) for
// insertMarking's sequence w, indexed whole by ix: q's first event not
// taken is found along its thread's links (the descent takes a thread's
// events in order, so the taken ones come first), and the events dependent
// with a step along its objects'.
func (e *explorer[S]) indexInitial(ix *seqIndex, q ts.Tid, out int, x *wnode, w []wev) (bool, int) {
	y := int32(-1)
	if int(q) < len(ix.first) {
		y = ix.first[q]
	}
	for y >= 0 && w[y].t < 0 {
		y = ix.ev[y].next
	}
	if y >= 0 {
		if out != anyOutcome && w[y].out != out {
			return false, int(y)
		}
		return !ix.dependsBefore(w, y), int(y)
	}
	if e.strict {
		return false, -1
	}
	st := e.wt.step(x)
	return !ix.dependsAny(w, &st), -1
}
