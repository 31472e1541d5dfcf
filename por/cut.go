package por

import (
	"fmt"
	"slices"

	"github.com/weftlab/weft/hb"
	"github.com/weftlab/weft/ts"
)

// A step of several objects that waits for a condition on all of them (a P
// of two semaphores, an await of x0 == 0 && x1 == 0) can need a reversal
// that leaves out events on several of its objects at once. Reversing its
// race with event j puts it after notdep(j): the events after j that do not
// happen after j. When it cannot run there, other events of that sequence
// disable it, on its other objects, and the paper's recursion (reverse the
// races of the new execution, in which the step runs) never starts, since
// no execution runs it.
//
// cutReverse does what the analysis of that execution would do had it run
// up to where the step waits: the state after pre(j).notdep(j) is one where
// the step's thread waits, and its races there are with the latest events
// on each of its objects that remain. Each is reversed the same way, by
// leaving it out too (with everything that happens after it), and, where
// that cannot run either, recursively, and by walking back along its object
// as reverseFrom does (keeping it, for the executions in which it stays
// before the step). The sequences are the execution's events, in order,
// after the earliest event left out, without the events left out and those
// happening after them: a prefix of an execution equivalent to one the
// search can take, as notdep(j) is.
//
// Only steps of several objects whose feasibility is checked by replay
// take this path, and only where a reversal cannot run.

// cutBudget bounds the sets of left-out events cutReverse tries for one
// reversal. Each costs a replay; the audits' programs need at most a few
// dozen. Past it the search stops with an error (ts.ErrUnsupported) rather
// than go on without the rest, which could lose traces.
const cutBudget = 4096

// cutState is cutReverse's scratch: the sets tried for the reversal being
// analysed, and per recursion level the races found.
type cutState struct {
	seen  [][]int32 // sets tried, each sorted
	store []int32   // backing of seen
	races [][]cand  // per level
	tried int
}

// inCut reports whether event y is one of cut's events or happens after one.
func (e *explorer[S]) inCut(y int32, cut []int32) bool {
	c := e.ev[y].clock
	for _, x := range cut {
		if e.covers(c, x) {
			return true
		}
	}
	return false
}

// cutSeq sets e.seqBuf to the events after the earliest of cut, up to end,
// that are not in cut and do not happen after one of them, and returns that
// earliest event: the frame where the sequence starts.
func (e *explorer[S]) cutSeq(cut []int32, end int32) int32 {
	m := slices.Min(cut)
	w := e.seqBuf[:0]
	for y := m + 1; y < end; y++ {
		if !e.inCut(y, cut) {
			x := &e.ev[y]
			w = append(w, wev{t: x.t, out: x.out, step: x.step})
		}
	}
	e.seqBuf = w
	return m
}

// cutRaces appends to dst the races of thread p's step st (event k, or -1)
// among the events before end that cut leaves: on each of st's objects, the
// latest events dependent with st there, by another thread, not happening
// before p (clock cq), as findCands finds them in a whole execution.
func (e *explorer[S]) cutRaces(dst []cand, cut []int32, p ts.Tid, st ts.Step, cq hb.VC, k int32) []cand {
	for a := range st.NumAccesses() {
		acc := st.At(a)
		if acc.Op == ts.Release {
			continue
		}
		for j := e.chainStart(acc.Obj, k); j >= 0; j = e.ev[j].prevOn(acc.Obj) {
			if e.inCut(j, cut) {
				continue
			}
			y := &e.ev[j]
			op, _ := y.step.OpOn(acc.Obj)
			if acc.Op == ts.Acquire {
				if op != ts.Acquire {
					continue
				}
				if y.t != p && !e.covers(cq, j) {
					dst = append(dst, cand{j, acc.Obj})
				}
				break
			}
			if y.t != p && (op != ts.Read || acc.Op != ts.Read) && !e.covers(cq, j) {
				dst = append(dst, cand{j, acc.Obj})
			}
			if op != ts.Read {
				break
			}
		}
	}
	return dst
}

// cutSeen reports whether the set cut (sorted) was tried for this
// reversal, and records it if not.
func (c *cutState) cutSeen(cut []int32) bool {
	for _, s := range c.seen {
		if slices.Equal(s, cut) {
			return true
		}
	}
	n := len(c.store)
	c.store = append(c.store, cut...)
	c.seen = append(c.seen, c.store[n:len(c.store):len(c.store)])
	return false
}

// cutReverse starts the analysis of a reversal of thread p's step st that
// cannot run after notdep(j): see the top of this file. It reports whether
// it inserted a sequence.
func (e *explorer[S]) cutReverse(j int32, p ts.Tid, out, outs int, st ts.Step, cq hb.VC, k, end int32) bool {
	c := &e.cut
	c.seen, c.store, c.tried = c.seen[:0], c.store[:0], 0
	cut := []int32{j}
	c.cutSeen(cut)
	return e.cutFrom(cut, 0, p, out, outs, st, cq, k, end)
}

// cutFrom reverses the races of p's step at the state the events left by
// cut lead to, where it waits.
func (e *explorer[S]) cutFrom(cut []int32, level int, p ts.Tid, out, outs int, st ts.Step, cq hb.VC, k, end int32) bool {
	c := &e.cut
	for len(c.races) <= level {
		c.races = append(c.races, nil)
	}
	races := e.cutRaces(c.races[level][:0], cut, p, st, cq, k)
	c.races[level] = races
	inserted := false
	for _, r := range races {
		// Leave r out; where the step cannot run without it, walk back
		// along r's object, keeping r, as reverseFrom does.
		for h := r.j; h >= 0; h = e.cutEarlier(h, r.o, cut, p, st, cq) {
			next := append(slices.Clone(cut), h)
			slices.Sort(next)
			if c.cutSeen(next) {
				continue
			}
			if budget := e.opt.cutBudget; c.tried >= cutBudget || (budget > 0 && c.tried >= budget) {
				e.Fail(fmt.Errorf("%w: odpor: reversing a race of thread %d's step %v, which touches several objects and may wait, "+
					"needs more than %d replays; dpor explores such systems", ts.ErrUnsupported, p, st, c.tried))
				return inserted
			}
			c.tried++
			m := e.cutSeq(next, end)
			if got, ok := e.feasible(m, e.seqBuf, p, st, true); ok {
				e.insertReversal(m, p, out, outs, got)
				inserted = true
				break
			}
			if e.cutFrom(next, level+1, p, out, outs, st, cq, k, end) {
				inserted = true
			}
		}
	}
	return inserted
}

// cutEarlier is earlierRace among the events cut leaves.
func (e *explorer[S]) cutEarlier(j int32, o ts.Obj, cut []int32, p ts.Tid, st ts.Step, cq hb.VC) int32 {
	for j = e.earlierRace(j, o, p, st, cq); j >= 0 && e.inCut(j, cut); j = e.earlierRace(j, o, p, st, cq) {
	}
	return j
}
