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
	if n := e.cur.Len() + 2; len(e.mfr) < n { // Mark may start one event past cur (tryMark)
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
	if !e.keepsMemory() {
		panic(errStop) // one Mark can store exponentially many predecessors
	}
	fr := &e.mfr[x.Len()]
	x.Frontier(fr)
	limit := e.c // line 17's bound (IterativePOR's: the top one)
	if e.incr {
		limit = e.top
	}
	only := e.markOnly
	e.markOnly = -1 // the recursion takes every predecessor
	for u, ok := fr.NextSet(0); ok; u, ok = fr.NextSet(u + 1) {
		t := ts.Tid(u)
		if only >= 0 && t != only {
			continue
		}
		loaded := false // e.mrow holds the predecessor's bounds
		if (e.bounded || e.incr) && !failed {
			// Line 17 from the memo, where it has x - t, without
			// taking the event off.
			if loaded = e.peekCB(t); loaded {
				if lo, _ := e.cbMark(t); lo > limit {
					continue
				}
			}
		}
		ev := m.remove(t)
		if ok, xl := e.markable(t, ev.Outcome, failed, lv, loaded); ok {
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
// c (line 18); loaded says e.mrow holds x's bounds already. When the
// search is incremental (IterativePOR) it also returns x's level (see
// levels): at most below, the level of the state just stored, and for
// every other move (t', c') at most the level of next(x, (t', c')) if it
// is stored, or CB(x, t') - 1 if that is more.
func (e *hbSearch[S]) markable(t ts.Tid, ct int, failed bool, below uint8, loaded bool) (bool, uint8) {
	if failed {
		if _, bad := e.enabledAt(); bad {
			return false, 0 // nothing moves from x: not a predecessor
		}
	}
	if (e.bounded || e.incr) && !loaded {
		e.loadCB() // x's bounds for every thread: one memo lookup
	}
	lt := int32(0) // a lower bound on CB(x, t)
	if e.incr {
		// Line 17 with the top bound: a predecessor that a higher bound
		// reaches is stored now if it is complete up to one (below).
		if !e.markCB(t, e.top) {
			return false, 0
		}
		lt, _ = e.cbMark(t)
		// Levels above the top bound say no more than the top bound.
		below = uint8(min(max(int32(below), lt-1), e.top))
		if int32(below) < lt {
			return false, 0 // x's level is at most below
		}
	} else if e.bounded {
		if !e.markCB(t, e.c) {
			return false, 0
		}
	}
	// E(x): replayed (value-dependent steps, or a stack too deep to derive
	// from), or derived thread by thread as the loop below needs it: a
	// thread over the bound needs no status (cb-por2), and the stack
	// decides most of the others.
	var en *bitset.BitSet
	var steps []ts.Step
	lazy := false
	switch {
	case e.m.ValueDependent():
		en, steps = e.stepsAt()
	case !e.canDerive():
		en, _ = e.enabledAt()
	default:
		lazy = true
		e.undX.ClearAll()
	}
	lv := below
	// A thread's status at x matters only for a move that is not stored:
	// a move whose state is stored was taken from x in some execution
	// (the table holds only states executions reach, and x with the
	// move's event is one), so its thread is enabled at x. Under
	// IterativePOR a move over the bound lowers x's level, so its status
	// is asked there too. Threads whose status at x the stack does not
	// decide (undX) matter only if one of their moves leads out of the
	// table within the bound: only then is x replayed to find out, after
	// the threads it decides (pass 0). (For x's level they are taken as
	// enabled, which can only lower it.)
	top := &e.frames[e.depth-1]
	for pass := 0; pass < 2; pass++ {
		if pass == 1 && !lazy {
			break
		}
		for i := 0; i < e.n; i++ {
			u := i
			if pass == 1 {
				next, ok := e.undX.NextSet(uint(i))
				if !ok {
					break
				}
				i = int(next)
				u = i
			} else if u += int(e.refuser); u >= e.n {
				u -= e.n
			}
			v := ts.Tid(u)
			// t is enabled at x: x with its event is the state just
			// stored.
			within := -1 // CB(x, v) <= c, asked once for all of v's outcomes
			if pass == 0 && v != t {
				if !e.incr && e.bounded {
					lo, hi := e.cbMark(v)
					if lo > e.c {
						continue // over the bound, enabled or not
					}
					if hi <= e.c {
						within = 1 // no need to read them again below
					}
				}
				if lazy {
					if e.ownFinish && top.status[v] == ts.Finished && e.memo.x.ThreadLen(v) == len(e.tpos[v]) {
						continue // Finished at x too (derive0)
					}
				} else if !en.Test(uint(u)) {
					continue
				}
			}
			// v's status at x is still to be derived (lazy, pass 0)
			derive := lazy && pass == 0 && v != t
			outs := e.outsAt(v)
			if v == t && outs == 1 {
				continue // next(x, (t, ct)) is the state just stored
			}
			step := e.stepAt(v)
			if steps != nil {
				// Value-dependent steps: v's step at x, found where x's
				// enabled set was, may differ from its step on the path.
				step = steps[v]
			}
			for c := range outs {
				if v == t && c == ct {
					continue // next(x, (t, ct)) is the state just stored
				}
				// CB(x, v) first: x's bounds, where the table compares
				// the state's events.
				if e.bounded {
					if within < 0 {
						within = int(b2i(e.markCB(v, e.c)))
					}
					if within == 0 {
						if !e.incr {
							break
						}
						if derive {
							if !e.derivedEnabled(v) {
								break
							}
							derive = false
						}
						lo, _ := e.cbMark(v)
						if lv = e.refusedLevel(v, step, c, lo, lv); int32(lv) < lt {
							return false, 0
						}
						continue
					}
				}
				in, nl := e.storedNext(v, step, c)
				if in {
					if lv = min(lv, nl); int32(lv) < lt {
						return false, 0
					}
					continue
				}
				if derive {
					if !e.derivedEnabled(v) {
						break
					}
					derive = false
				}
				if pass == 1 && !e.statusAt(v) {
					break // v is not enabled at x after all
				}
				e.refuser = v
				return false, 0
			}
		}
	}
	if int32(lv) < lt {
		return false, 0 // complete only up to a bound that does not reach x by t
	}
	return true, lv
}

// derivedEnabled reports whether thread v is enabled at the scratch state x,
// read off the stack; where the stack does not decide it, it reports false
// after adding v to e.undX, for markable's second pass.
func (e *hbSearch[S]) derivedEnabled(v ts.Tid) bool {
	enabled, ok := e.derive(v)
	if !ok {
		e.undX.Set(uint(v))
		return false
	}
	return enabled
}

// loadCB copies the memo's bounds on CB(x, t) of every thread t at the
// scratch state x (computing them if the memo has none) into e.mrow, where
// cbMark reads them: Mark asks them for every thread of x, with one lookup.
func (e *hbSearch[S]) loadCB() {
	m := e.memo
	x := m.x
	if len(e.mrow) < m.cb.cur.w {
		e.mrow = make([]uint64, m.cb.cur.w)
	}
	if x.Len() == 0 {
		clear(e.mrow)
		return
	}
	key := keyOf(x.Hash(), m.x2)
	if r := m.cb.get(key); r != nil {
		m.hits++
		copy(e.mrow, r)
		return
	}
	base := e.cbFrontier(false)
	copy(e.mrow, e.cbStore(key, base))
	m.val = m.val[:base]
}

// peekCB is loadCB for x - t, where t is in the frontier of the scratch
// state x, before t's event is taken off: it reports whether the memo had
// the bounds.
func (e *hbSearch[S]) peekCB(t ts.Tid) bool {
	m := e.memo
	if len(e.mrow) < m.cb.cur.w {
		e.mrow = make([]uint64, m.cb.cur.w)
	}
	if m.x.Len() == 1 {
		clear(e.mrow) // x - t is the initial state
		return true
	}
	r, _ := m.peekRow(t)
	if r == nil {
		return false
	}
	m.hits++
	copy(e.mrow, r)
	return true
}

// cbMark returns the bounds on CB(x, v) that loadCB read. It is
// cbGens.value written out: Mark asks it several times per predecessor, and
// the compiler does not inline that call into the search's methods.
func (e *hbSearch[S]) cbMark(v ts.Tid) (lo, hi int32) {
	g := &e.memo.cb
	t := int(v)
	w := e.mrow[t>>g.perShift] >> ((uint(t&(g.per-1)) << g.valShift) & 63)
	return int32(w & g.max), int32(w >> (uint(g.bits) & 63) & g.max)
}

// markCB reports whether CB(x, v) <= b at the scratch state x, from the
// bounds loadCB read where they decide it, else from the exact value,
// which it keeps in e.mrow.
func (e *hbSearch[S]) markCB(v ts.Tid, b int32) bool {
	lo, hi := e.cbMark(v)
	if hi <= b {
		return true
	}
	if lo > b {
		return false
	}
	cb := e.cbExact(v)
	e.memo.cb.replace(e.mrow, int(v), cb, cb)
	return cb <= b
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

// storedNext is stored for next(x, (v, c)), the scratch state x with v's
// next event, whose step is step, with outcome c. An event of one word, the
// common case, is looked up without changing x (hb.Table.LookupNext);
// otherwise x is changed only if the table holds a state with that hash
// (most states not stored have none), and then only for the lookup: its
// second fingerprint and path positions (memo.addStep) are left as they
// are.
func (e *hbSearch[S]) storedNext(v ts.Tid, step ts.Step, c int) (bool, uint8) {
	x := e.memo.x
	ev := x.NextEventOutcome(v, step, c)
	if ev.More == 0 && ev.Outcome == 0 {
		id, ok := e.table.LookupNext(x, ev)
		if !ok {
			return false, 0
		}
		if !e.incr {
			return true, levelAll
		}
		lv := e.level[id]
		return int32(lv) >= e.c, lv
	}
	if !e.table.MayContain(x.Hash() ^ x.EventHash(ev)) {
		return false, 0
	}
	x.AddOutcome(v, step, c)
	in, lv := e.stored(x)
	x.Remove(v)
	return in, lv
}

// refusedLevel returns lv, a bound on the level of the scratch state x,
// lowered by x's move (v, oc), whose step is step and for which lo <= CB(x,
// v) and CB(x, v) > c, to the move's context bound less one, or the level of the state it
// reaches if that is stored and more.
func (e *hbSearch[S]) refusedLevel(v ts.Tid, step ts.Step, oc int, lo int32, lv uint8) uint8 {
	m := e.memo
	l := max(lo, e.c+1) - 1 // CB(x, v) > c is known
	if l >= int32(lv) {
		return lv // the move lowers nothing: no lookup
	}
	m.x.AddOutcome(v, step, oc) // for the lookup only, as in storedNext
	if id, ok := e.table.Lookup(m.x); ok {
		l = max(l, int32(e.level[id]))
	}
	m.x.Remove(v)
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
