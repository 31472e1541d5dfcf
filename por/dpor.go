package por

import (
	"context"

	"github.com/bits-and-blooms/bitset"

	"github.com/weftlab/weft/ts"
)

// DPOR is dynamic partial-order reduction: Flanagan and Godefroid, "Dynamic
// partial-order reduction for model checking software" (POPL 2005), with
// happens-before tracked by vector clocks and with sleep sets, as Figure 2.1
// of Yu Yang's thesis (Utah, 2009) presents it, but with the paper's
// backtrack rule rather than the shortcut of Yang's thesis.
//
// At every state s of the execution S, for every thread p that has a next
// step next(s,p), enabled or blocked, and for every transition i of S that is
// dependent with next(s,p), may be co-enabled with it, and does not happen
// before p (i ->S p, decided by p's vector clock), the search adds at
// pre(S,i), the state from which i was taken, a thread of E = {q enabled at
// pre(S,i) | q = p, or q has a transition after i that happens before p}
// (see backtrackAt for which), or every enabled thread if E is empty. A frame
// then explores its backtrack set, less the threads asleep.
//
// Flanagan and Godefroid take only the latest such i
// and count on the exploration it starts to reach the earlier ones. With
// sleep sets that exploration can be cut short: the thread it needs first
// may be asleep there, its sleep covering other executions than the one
// needed (a three-thread program with an await, kept as a rapid regression,
// loses a terminal state that way). So we apply the rule to every such i, as
// source-DPOR does for every race; the scan along the object's accesses stops
// at the first write that happens before p, since everything before it does
// too. On the fixtures the counts are those of the latest-only rule
// (inspect-2.3.1: 3, locks3: 6).
//
// Co-enabledness. Two steps made while their threads hold a common lock are
// never co-enabled, and neither are an acquire of lock l and a step made while
// another thread holds l. The locks a thread holds are tracked from its
// ts.Acquire and ts.Release steps, which must therefore behave as a mutex: an
// Acquire of a held lock is Blocked, a Release gives the lock back.
//
// Blocked threads. A blocked thread's next step counts: its latest race is
// usually the step that disabled it (a lock acquire) or that it waits to see
// change (a write of the awaited variable), and reversing it lets the thread
// run first. This relies on the contract that a step that enables or
// disables another thread's step is dependent with it (true of locks and of
// awaits, which read the variable they wait on).
//
// DPOR reaches every terminal state, deadlock and violation that ts.Explore
// reaches, and explores no more executions than Sleep. The analysis is also
// done at states where an execution ends (terminal, violating, or with every
// enabled thread asleep), so that the steps never taken there count too.
func DPOR[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options) (ts.Result, error) {
	return run(ctx, sys, opt, modeDPOR)
}

// backtrackAll applies the backtrack rule at the state of frame f, which
// follows the events e.ev, for every thread that has not finished.
//
// A state's rule mostly repeats its parent's: a thread that did not move
// has the same step, clock and locks, and races with the same events, plus
// the one just taken. So each thread keeps a record (ruled) of where the
// rule is not settled yet: applying it again to an event where it last found
// E in the backtrack set, added a thread of E, added every enabled thread,
// or found asleep an initial of the reversal that stays one, changes nothing
// while that event, the thread's step and clock stay (the frame's backtrack
// set only grows, its sleep set is fixed until the event is undone, and the
// reversal only grows at its end). The record holds over the prefix of the
// execution it shares with the current one, which event ids tell (see
// sharedPrefix): after a backtrack, only the events of the new branch are
// ruled on, with the open ones.
//
// Two cases stay open. Where all of E is asleep and p itself, asleep, is
// the only sleeping initial of the reversal, by its pending step, p stops
// being one when the execution grows by an event of the reversal dependent
// with its step: only the new events are looked at (breaksSelf) until then.
// Where the rule added the reversal's first enabled initial, it is applied
// again at every state, as it is to the coordinator's frames in a unit's
// worker (which logs it).
func (e *explorer[S]) backtrackAll(f *frame[S]) {
	k := int32(len(e.ev))
	if len(e.ruled) != e.n {
		// A new explorer, or a copy or recycled one (parallel.go), whose
		// events may carry ids from elsewhere.
		e.ruled = make([]ruled, e.n)
		for i := range e.ev {
			e.ids = max(e.ids, e.ev[i].id)
		}
	}
	for p := range ts.Tid(e.n) {
		if f.status[p] == ts.Finished {
			continue
		}
		r := &e.ruled[p]
		id := uint64(0)
		if j := e.thrLast[p]; j >= 0 {
			id = e.ev[j].id
		}
		st := f.steps[p]
		m := int32(0) // the events below m are ruled on in r
		if r.madeAt > 0 && r.id == id && r.step.Equal(st) {
			m = e.sharedPrefix(r.upTo, r.madeAt)
		}
		if m == r.upTo && len(r.open) == 0 && !e.touchedFrom(&st, m) {
			continue // nothing new: the record stands as it is
		}
		cp, hp := e.clockOf(p), e.held[p]
		e.pendingStep = st
		n := 0
		for _, o := range r.open {
			if o.j >= m {
				continue // undone
			}
			if o.checked >= 0 && !e.breaksSelf(o.j, &st, min(o.checked, m), k) {
				o.checked = k
				r.open[n] = o
				n++
				continue
			}
			switch e.backtrackAt(o.j, p, cp) {
			case ruleSelf:
				r.open[n] = openRule{j: o.j, checked: k}
				n++
			case ruleOpen:
				r.open[n] = openRule{j: o.j, checked: -1}
				n++
			}
		}
		r.open = r.open[:n]
		e.racesFrom(p, &st, cp, hp, m, r)
		r.id, r.madeAt, r.step, r.upTo = id, e.ids, st, k
	}
}

// ruled is a thread's record of the backtrack rule (see backtrackAll): with
// its last event id (0 for none) and step step, over the execution of upTo
// events made when the events' ids went up to madeAt (0: no record), the
// rule is settled for every event but those of open.
type ruled struct {
	id, madeAt uint64
	step       ts.Step
	upTo       int32
	open       []openRule
}

// openRule is an event on which a thread's rule is not settled: applied
// again at every state (checked -1), or settled while no event from checked
// on breaks its thread's place among the reversal's initials (breaksSelf).
type openRule struct {
	j, checked int32
}

// resetRuled forgets the records of a search that is over, keeping their
// buffers.
func resetRuled(rs []ruled) {
	for i := range rs {
		rs[i] = ruled{open: rs[i].open[:0]}
	}
}

// sharedPrefix returns how many events the current execution shares with
// the one of upTo events that ran when the ids went up to madeAt: those with
// ids up to madeAt, since an event still on the stack was there all along
// and ids grow along the stack.
func (e *explorer[S]) sharedPrefix(upTo int32, madeAt uint64) int32 {
	n := min(upTo, int32(len(e.ev)))
	if n == 0 || e.ev[n-1].id <= madeAt {
		return n
	}
	lo, hi := int32(0), n-1 // ev[hi].id > madeAt
	for lo < hi {
		mid := int32(uint32(lo+hi) >> 1)
		if e.ev[mid].id <= madeAt {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// touchedFrom reports whether an object of step st has an event from event
// m on.
func (e *explorer[S]) touchedFrom(st *ts.Step, m int32) bool {
	for a := range st.NumAccesses() {
		if e.objLast.get(st.At(a).Obj) >= m {
			return true
		}
	}
	return false
}

// breaksSelf reports whether an event of the reversal of event i, among
// events from to k, is dependent with step st of thread p, which moved
// before from: p's pending step then stops being an initial of the
// reversal (see initials).
func (e *explorer[S]) breaksSelf(i int32, st *ts.Step, from, k int32) bool {
	xi := &e.ev[i]
	for j := from; j < k; j++ {
		y := &e.ev[j]
		if y.clock[xi.t] < xi.n && dependent(&y.step, st) {
			return true
		}
	}
	return false
}

// rule is how far backtrackAt settled the rule on an event.
type rule uint8

const (
	ruleSettled rule = iota // applying it again changes nothing
	ruleOpen                // apply it again at the next state
	ruleSelf                // settled while p stays an initial (breaksSelf)
)

// backtrackAt adds to the backtrack set of pre(S,i) a thread that lets p's
// step (whose thread has clock cp) come before transition i.
//
// Flanagan and Godefroid add any one thread of E = {q enabled at pre(S,i) |
// q = p, or q has a transition after i that happens before p}. With sleep
// sets "any" is wrong: a thread asleep at pre(S,i) is not explored there, and
// its sleep covers the reversal only if its step can go first in it
// (lastzero-3 shows the miss). So: if a thread of E is in the backtrack set
// already, nothing is needed; otherwise we add one that is not asleep, p
// first; if all of E is asleep, nothing is needed when one of them is an
// initial of the reversal v = notdep(i,S).p (its sleep then covers v), and
// otherwise, as when E is empty, every enabled thread is added.
//
// It reports how far the rule is settled: whether applying it again, with
// the execution up to i and the step and clock of p the same, could change
// anything.
func (e *explorer[S]) backtrackAt(i int32, p ts.Tid, cp []uint32) rule {
	if f := &e.stack[i]; (int(i) >= e.base || e.aboveKnown) && f.status[p] == ts.Enabled && f.bt.Test(uint(p)) {
		// p is in E (it is enabled there) and in the backtrack set: the
		// rule is settled (scanE), whatever the rest of E.
		e.initUsed = false
		return ruleSettled
	}
	e.markE(i, p, cp)
	if int(i) < e.base {
		// A unit's worker: the frame is the coordinator's, which applies
		// the rule when it takes the unit's result (parallel.go). What the
		// rule reads of this execution (E, and the initials) is known here;
		// what it reads of the frame (its backtrack and sleep sets) is the
		// unit's input, changed only by the unit: the worker applies the
		// rule to its copy and logs only what adds a backtrack point (the
		// coordinator counts it).
		if !e.aboveKnown {
			init := e.initials(i, p, cp, e.pendingStep)
			e.log = append(e.log, logOp{kind: opBacktrack, frame: i, t: int32(p), bt: &backtrackLog{inE: bitsOf(&e.inE), init: bitsOf(init)}})
			return ruleOpen
		}
		before := e.backtracks
		res := e.ruleAt(i, p, cp)
		if e.backtracks != before {
			e.backtracks = before
			op := logOp{kind: opBacktrack, frame: i, t: int32(p), bt: &backtrackLog{inE: bitsOf(&e.inE)}}
			if e.initUsed {
				op.bt.init = bitsOf(&e.init)
			}
			e.log = append(e.log, op)
		}
		return res
	}
	return e.ruleAt(i, p, cp)
}

// ruleAt is backtrackAt on frame i, with E marked.
func (e *explorer[S]) ruleAt(i int32, p ts.Tid, cp []uint32) rule {
	f := &e.stack[i]
	e.initUsed = false
	if !e.scanE(f, p, &e.inE) {
		return ruleSettled
	}
	init := e.initials(i, p, cp, e.pendingStep)
	e.initUsed = true
	switch e.backtrackInitials(f, init) {
	case ts.Tid(-1):
		return ruleSettled // every enabled thread is in the backtrack set
	case -2:
		return ruleOpen // a later state's reversal may have another first initial
	}
	// An initial is asleep. The reversal only grows at its end, which keeps
	// the initials it has but p's pending step: unless it is the only one
	// asleep, that settles the rule.
	for u, ok := init.NextSet(0); ok; u, ok = init.NextSet(u + 1) {
		if f.sleep.Test(u) && (ts.Tid(u) != p || !e.initSelf) {
			return ruleSettled
		}
	}
	return ruleSelf
}

// markE sets e.inE to E, the threads enabled at frame i that are p or have
// an event after transition i that happens before p (cp is p's clock).
func (e *explorer[S]) markE(i int32, p ts.Tid, cp []uint32) {
	f := &e.stack[i]
	x := &e.ev[i]
	e.inE.ClearAll()
	for q := range ts.Tid(e.n) {
		if f.status[q] != ts.Enabled {
			continue
		}
		upto := f.count[q]
		if x.t == q {
			upto++
		}
		if q != p && cp[q] <= upto {
			continue // not in E
		}
		e.inE.Set(uint(q))
	}
}

// scanE applies the rule at frame f with E given: nothing when one of E is
// in the backtrack set already, else a thread of E not asleep (p first). It
// reports whether the rule needs the initials (backtrackInitials): every
// thread of E is asleep.
func (e *explorer[S]) scanE(f *frame[S], p ts.Tid, inE *bitset.BitSet) (needInitials bool) {
	pick := ts.Tid(-1)
	asleep := false
	for u, ok := inE.NextSet(0); ok; u, ok = inE.NextSet(u + 1) {
		q := ts.Tid(u)
		switch {
		case f.bt.Test(u):
			return false // covered
		case f.sleep.Test(u):
			asleep = true
		case pick < 0 || q == p:
			pick = q
		}
	}
	if pick >= 0 {
		e.addBacktrack(f, pick)
		return false
	}
	if asleep {
		return true
	}
	e.backtrackEnabled(f)
	return false
}

// backtrackInitials finishes the rule where all of E is asleep: nothing if
// an initial of the reversing sequence is asleep (what it would explore is
// covered), else its first enabled initial, else every enabled thread. It
// returns the sleeping initial it found, or -2 where it added an initial,
// or -1 where it added every enabled thread.
func (e *explorer[S]) backtrackInitials(f *frame[S], init *bitset.BitSet) ts.Tid {
	pick := ts.Tid(-1)
	for u, ok := init.NextSet(0); ok; u, ok = init.NextSet(u + 1) {
		if f.sleep.Test(u) {
			return ts.Tid(u)
		}
		if f.status[u] == ts.Enabled && pick < 0 {
			pick = ts.Tid(u)
		}
	}
	if pick >= 0 {
		e.addBacktrack(f, pick)
		return -2
	}
	e.backtrackEnabled(f)
	return -1
}

// backtrackEnabled adds every enabled thread to f's backtrack set.
func (e *explorer[S]) backtrackEnabled(f *frame[S]) {
	for q := range ts.Tid(e.n) {
		if f.status[q] == ts.Enabled {
			e.addBacktrack(f, q)
		}
	}
}

// initials returns the initials of v = notdep(i,S).p, where p's pending
// step st has clock cp (the clock of p's last transition): the threads whose first transition in v has no
// transition of v before it in the happens-before order. The set is the
// explorer's, overwritten by the next call; e.initSelf tells whether p is
// one by its pending step (it has no transition in notdep(i,S)).
func (e *explorer[S]) initials(i int32, p ts.Tid, cp []uint32, st ts.Step) *bitset.BitSet {
	e.init.ClearAll()
	first := e.firstN
	clear(first)
	xi := &e.ev[i]
	k := int32(len(e.ev))
	hasPred := func(c []uint32, self ts.Tid) bool {
		for u, n := range first {
			if n > 0 && ts.Tid(u) != self && c[u] >= n {
				return true
			}
		}
		return false
	}
	pred := false // a transition of v before p's step happens before it
	for j := i + 1; j < k; j++ {
		y := &e.ev[j]
		if y.clock[xi.t] >= xi.n {
			continue // happens after i
		}
		if y.t != p && (cp[y.t] >= y.n || ts.Dependent(y.step, st)) {
			pred = true
		}
		if first[y.t] == 0 {
			if !hasPred(y.clock, y.t) {
				e.init.Set(uint(y.t))
			}
			first[y.t] = y.n
		}
	}
	e.initSelf = first[p] == 0 && !pred
	if e.initSelf {
		e.init.Set(uint(p))
	}
	return &e.init
}

func (e *explorer[S]) addBacktrack(f *frame[S], q ts.Tid) {
	if f.bt.Test(uint(q)) || f.sleep.Test(uint(q)) {
		return
	}
	f.bt.Set(uint(q))
	e.backtracks++
}

// racesFrom applies the backtrack rule to every transition from event from
// on that races with thread p's step st (p's clock cp, p holding the locks
// hp): dependent on one of the objects st touches, may be co-enabled, and not
// happening before p. Flanagan and Godefroid take only the latest and count
// on the exploration it starts to find the earlier ones; with sleep sets that
// exploration may be cut (the thread it starts with can be asleep), so we
// take them all, as source-DPOR does. Along each object's chain the scan
// stops at the first write that happens before p, since everything before it
// on the object does too. The transitions on which the rule is not settled
// (see backtrackAt) are added to r's open events (r may be nil), and the
// first of them is returned, or the length of the execution.
func (e *explorer[S]) racesFrom(p ts.Tid, st *ts.Step, cp []uint32, hp []ts.Obj, from int32, r *ruled) int32 {
	e.pendingStep = *st
	k := int32(len(e.ev))
	first := k
	for a := range st.NumAccesses() {
		acc := st.At(a)
		for j := e.objLast.get(acc.Obj); j >= from; j = e.ev[j].prevOn(acc.Obj) {
			x := &e.ev[j]
			op, _ := x.step.OpOn(acc.Obj)
			if x.t != p && op == ts.Read && acc.Op == ts.Read {
				continue // two reads
			}
			if e.covers(cp, j) {
				if op != ts.Read {
					break
				}
				continue
			}
			if x.t == p || !e.coEnabled(j, st, hp) {
				continue
			}
			res := e.backtrackAt(j, p, cp)
			if res == ruleSettled {
				continue
			}
			first = min(first, j)
			switch {
			case r == nil:
			case res == ruleSelf:
				r.open = append(r.open, openRule{j: j, checked: k})
			default:
				r.open = append(r.open, openRule{j: j, checked: -1})
			}
		}
	}
	return first
}
