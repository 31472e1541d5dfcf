package cbound

// Mark implements Algorithm 2 of Musuvathi and Qadeer, "Partial-order
// reduction for context-bounded state exploration" (MSR-TR-2007-12), section
// 3.1.
//
//	Mark(s): H = H ∪ {s}
//	         for x in {x | ∃t. next(x,t) = s ∧ CB(x,t) ≤ c}:
//	             if ∀t' ∈ E(x): next(x,t') ∈ H ∨ CB(x,t') > c then Mark(x)
//
// Invariant (Inv): an HB state is in the table iff every terminal state
// reachable from it within the bound is in the table. Search calls Mark on
// each terminal state it reaches (Inv is broken by the new terminal state
// alone), and Mark restores Inv by storing every prefix all of whose
// successors within the bound are now stored.
//
// The predecessors of s are s - t for t in the frontier F(s): removing t's
// last event. Lines 17-18 need, for each such x, E(x) and next(x, t') for
// every t' enabled at x. x is a prefix of the search's current state, so E(x)
// comes from the stack or a replay (cb.go), and t''s next step at x is its
// step after as many transitions as it has in x: the path's, or its step at
// the current state if the path has no more of t''s transitions (another
// thread's transition never changes a thread's step, only its status).
//
// A state whose Check fails is a terminal state of the search: nothing goes
// on from it. Its predecessors whose Check fails too (the assertion came
// earlier in some linearization) have no successors and are not predecessors
// of anything; they are skipped. Check is assumed to stay failed once it
// fails (a thread's failed assertion stays failed), so the prefixes of a
// state whose Check passes all pass.

import (
	"time"

	"github.com/bits-and-blooms/bitset"

	"github.com/weftlab/weft/hb"
	"github.com/weftlab/weft/ts"
)

// mark calls Mark on the current state: a terminal state of the search, or
// one whose Check fails (failed). The state is stored as a copy of its
// events; each predecessor Mark stores is kept as the state it precedes
// minus one event (hb.Table.InsertRemoved), in constant space.
func (e *hbSearch[S]) mark(failed bool) {
	if e.opt.timeMark {
		start := time.Now()
		defer func() { e.markNanos += time.Since(start).Nanoseconds() }()
	}
	e.memo.begin(e.cur, e.curH2)
	e.markScratch()
	id, _ := e.table.Insert(e.memo.x)
	e.setLevel(id, levelAll) // nothing moves on from a leaf
	e.markRec(id, levelAll, failed)
}

func (e *hbSearch[S]) markScratch() {
	if n := e.cur.Len() + 1; len(e.mfr) < n {
		e.mfr = append(e.mfr, make([]bitset.BitSet, n-len(e.mfr))...)
	}
}

// markRec is Mark on the scratch state x, just stored under id (with level
// lv, when the search is incremental). failed says x's Check fails, so that
// its predecessors may too.
func (e *hbSearch[S]) markRec(id int, lv uint8, failed bool) {
	m := e.memo
	x := m.x
	e.marks++
	if e.marks&255 == 0 && e.Cancelled() {
		panic(errStop)
	}
	fr := &e.mfr[x.Len()]
	x.Frontier(fr)
	for u, ok := fr.NextSet(0); ok; u, ok = fr.NextSet(u + 1) {
		t := ts.Tid(u)
		ev := m.remove(t)
		if ok, xl := e.markable(t, ev.Outcome, failed, lv); ok {
			// A predecessor already stored (Lemma 4 of the paper: it
			// cannot happen) is not marked again; under IterativePOR one
			// kept from a lower bound, complete only up to a lower level,
			// is marked at this bound.
			xid, added := e.table.InsertRemoved(x, id, ev)
			if !added && e.incr {
				if xl > e.level[xid] {
					e.level[xid] = xl // complete up to more than it was
					added = true
				}
			}
			if added {
				if e.incr {
					e.setLevel(xid, xl)
					xl = e.level[xid]
				}
				e.markRec(xid, xl, false)
			}
		}
		e.readd(t, ev)
	}
}

// markable reports whether the scratch state x, a predecessor of the state
// just stored by thread t's move with outcome ct, is to be marked: CB(x, t)
// <= c (line 17) and every move (t', c') of a thread t' enabled at x, each
// outcome c' of its transition, has next(x, (t', c')) stored or CB(x, t') >
// c (line 18). When the search is incremental (IterativePOR) it also
// returns x's level (see levels): at most below, the level of the state
// just stored, and for every other move (t', c') at most the level of
// next(x, (t', c')) if it is stored, or CB(x, t') - 1 if that is more.
func (e *hbSearch[S]) markable(t ts.Tid, ct int, failed bool, below uint8) (bool, uint8) {
	m := e.memo
	x := m.x
	if failed {
		if _, bad := e.enabledAt(); bad {
			return false, 0 // nothing moves from x: not a predecessor
		}
	}
	lt := int32(0) // a lower bound on CB(x, t)
	if e.incr {
		// Line 17 with the top bound: a predecessor that a higher bound
		// reaches is stored now if it is complete up to one (below).
		if !e.cbAtMost(t, e.top) {
			return false, 0
		}
		lt, _ = e.cbRange(t)
		// Levels above the top bound say no more than the top bound.
		below = uint8(min(max(int32(below), lt-1), e.top))
		if int32(below) < lt {
			return false, 0 // x's level is at most below
		}
	} else if e.bounded && !e.cbWithin(t) {
		return false, 0
	}
	var en, und *bitset.BitSet
	var steps []ts.Step
	if e.m.ValueDependent() {
		en, steps = e.stepsAt()
	} else {
		en, und = e.enabledSet()
	}
	lv := below
	// Threads whose status at x the stack does not decide (und) matter
	// only if one of their moves leads out of the table within the bound:
	// only then is x replayed to find out. (For x's level they are taken
	// as enabled, which can only lower it.)
	for pass, set := 0, en; pass < 2; pass, set = pass+1, und {
		if set == nil {
			break
		}
		for u, ok := set.NextSet(0); ok; u, ok = set.NextSet(u + 1) {
			v := ts.Tid(u)
			step, outs := e.stepAt(v), e.outsAt(v)
			if steps != nil {
				// Value-dependent steps: v's step at x, found where x's
				// enabled set was, may differ from its step on the path.
				step = steps[v]
			}
			within := -1 // CB(x, v) <= c, asked once for all of v's outcomes
			for c := range outs {
				if v == t && c == ct {
					continue // next(x, (t, ct)) is the state just stored
				}
				// CB(x, v) first: a memo lookup, where the table compares
				// the state's events.
				if e.bounded {
					if within < 0 {
						within = int(b2i(e.cbWithin(v)))
					}
					if within == 0 {
						if !e.incr {
							break
						}
						if lv = e.refusedLevel(v, step, c, lv); int32(lv) < lt {
							return false, 0
						}
						continue
					}
				}
				m.addStep(v, step, c)
				in, nl := e.stored(x)
				m.remove(v)
				if in {
					if lv = min(lv, nl); int32(lv) < lt {
						return false, 0
					}
					continue
				}
				if pass == 1 && !e.statusAt(v) {
					break // v is not enabled at x after all
				}
				return false, 0
			}
		}
	}
	if int32(lv) < lt {
		return false, 0 // complete only up to a bound that does not reach x by t
	}
	return true, lv
}

// stored reports whether the search counts the HB state s as stored, and
// its level: under IterativePOR, a state of the table whose level is at
// least the bound searched (kept from a lower bound, or stored at this one).
func (e *hbSearch[S]) stored(s *hb.State) (bool, uint8) {
	if !e.incr {
		return e.table.Contains(s), levelAll
	}
	id, ok := e.table.Lookup(s)
	if !ok {
		return false, 0
	}
	lv := e.level[id]
	return int32(lv) >= e.c, lv
}

// refusedLevel returns lv, a bound on the level of the scratch state x,
// lowered by x's move (v, oc), whose step is step and for which CB(x, v) >
// c, to the move's context bound less one, or the level of the state it
// reaches if that is stored and more.
func (e *hbSearch[S]) refusedLevel(v ts.Tid, step ts.Step, oc int, lv uint8) uint8 {
	m := e.memo
	lo, _ := e.cbRange(v)
	l := max(lo, e.c+1) - 1 // CB(x, v) > c is known
	if l >= int32(lv) {
		return lv // the move lowers nothing: no lookup
	}
	m.addStep(v, step, oc)
	if id, ok := e.table.Lookup(m.x); ok {
		l = max(l, int32(e.level[id]))
	}
	m.remove(v)
	return uint8(min(l, int32(lv)))
}

// stepAt returns thread u's next step at the scratch state x, a prefix of the
// current state: the step of its transition after as many as it has in x,
// the path's or (if the path has no more of u's) its step at the current
// state. Another thread's transition never changes a thread's step, except
// under value-dependent steps (ts.ValueDependent), where markable takes the
// step at x from the replay that found x's enabled set; the steps of x's own
// events are the path's in any case.
func (e *hbSearch[S]) stepAt(u ts.Tid) ts.Step {
	k := e.memo.x.ThreadLen(u)
	if k < len(e.tpos[u]) {
		i := e.tpos[u][k]
		return e.frames[i-1].steps[u]
	}
	return e.frames[e.depth-1].steps[u]
}

// outsAt returns the number of outcomes of thread u's next transition at the
// scratch state x, found as stepAt finds its step.
func (e *hbSearch[S]) outsAt(u ts.Tid) int {
	k := e.memo.x.ThreadLen(u)
	if k < len(e.tpos[u]) {
		i := e.tpos[u][k]
		return e.frames[i-1].outs[u]
	}
	return e.frames[e.depth-1].outs[u]
}
