package por

import (
	"context"

	"github.com/weftlab/weft/hb"
	"github.com/weftlab/weft/ts"
)

// ODPOR is optimal dynamic partial-order reduction: Algorithm 2 (source
// sets with wakeup trees) of Abdulla, Aronis, Jonsson and Sagonas, "Optimal
// dynamic partial order reduction" (POPL 2014).
//
// Each state keeps a sleep set and a wakeup tree (see wakeup.go). Where an
// execution E ends, every race e ⋖ e' of E not analysed yet (e and e' of
// different threads, dependent, e happening before e' with nothing in
// between) is reversed: the wakeup sequence v = notdep(e,E).e' (the
// transitions after e that do not happen after it, then e') is inserted into
// the wakeup tree of pre(E,e) unless a thread asleep there is a weak initial
// of v. A state explores its wakeup tree's branches in order and then, if it
// had none, any one enabled thread not asleep.
//
// Invariant: the threads explored from a state, with its sleep set, form a
// source set for the executions from it, and no two explored executions are
// equivalent (Theorems 7.4 and 7.5 of the paper, for systems in which no
// transition disables another).
//
// # Blocking and failed checks
//
// The paper assumes that no transition disables another and that every
// execution runs until no thread can move. Locks and awaits break the first:
// a race may not be reversible where it is found. weft reverses a race only
// where the reversal can run: a lock acquire races with the previous acquire
// of its lock (never with the release between them, which it needs), and an
// await that a write enabled races with the latest earlier write before which
// it could already pass, found by replaying the candidate sequence from the
// state stored on the search stack. Where an execution ends in a deadlock,
// the blocked threads' next steps are analysed as if they were taken there,
// so that the executions in which they do get to run are planned too.
// Because independent steps neither enable nor disable each other, a
// sleeping thread stays enabled, and a thread independent of a whole
// sequence can still be taken after it, so the paper's weak initials and
// sleep sets carry over unchanged.
//
// A failed check under KeepGoing breaks the second: the execution ends there
// and the other threads' later steps are never seen. The failing transition
// is then made dependent with every other thread's next step, and from the
// first failure on, a thread is a weak initial of a sequence only if it is
// one of its initials, and the blocked threads of every state are analysed,
// not only those of the last.
//
// With that, ODPOR reaches every terminal state, deadlock and violation
// ts.Explore reaches (property-tested on random programs with locks, awaits
// and assertions). It is optimal (one execution per Mazurkiewicz trace,
// none sleep-blocked, Result.Stats["sleep-blocked"] zero) whenever the
// search stops at its first violation or no check fails: property-tested
// against the distinct terminal happens-before states counted by brute
// force, on random programs with locks (in any order, so with deadlocks) and
// awaits, and on every bundled acyclic model. Under KeepGoing past failed
// checks it still never reports two executions with one happens-before
// state, but some are cut by sleep sets (980 cut runs over 3000 random
// programs with assertions).
//
// The analysis relies on the independence contract of package por (see the
// package documentation). A system that breaks it can leave a planned branch
// not enabled; ODPOR then drops that branch, plans its continuation again
// and counts it in Result.Stats["infeasible-branches"], so it stays sound but
// may lose optimality. Result.Stats["feasibility-replays"] counts the
// replays.
func ODPOR[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options) (ts.Result, error) {
	return run(ctx, sys, opt, modeODPOR)
}

// pickWakeup finishes the branch just explored from f, if any, and returns
// the thread of the next branch of f's wakeup tree, or -1.
func (e *explorer[S]) pickWakeup(f *frame[S]) ts.Tid {
	if f.cur >= 0 {
		f.sleep.Set(uint(e.wt.nodes[f.cur].t))
		e.wt.remove(f.root, f.cur)
		f.cur = -1
	}
	for {
		c := e.wt.nodes[f.root].first
		if c < 0 && !f.tried {
			// Every planned branch turned out infeasible: explore as if
			// nothing had been planned.
			f.tried = true
			if t := e.freeChoice(f); t >= 0 {
				e.wt.addChild(f.root, t, f.steps[t])
				continue
			}
			e.sleepBlocked++
		}
		if c < 0 {
			return -1
		}
		t := e.wt.nodes[c].t
		switch {
		case f.sleep.Test(uint(t)):
			e.wt.remove(f.root, c) // covered
		case f.status[t] != ts.Enabled:
			// Infeasible here, which the race analysis avoids on systems
			// that keep the independence contract: insert what lies below
			// it again, without it.
			e.infeasible++
			seqs := e.wt.leaves(c, nil, e.reinsert[:0])
			e.wt.remove(f.root, c)
			for _, w := range seqs {
				e.insertAt(e.depth-1, w)
			}
			e.reinsert = seqs[:0]
		default:
			f.cur, f.tried = c, true
			return t
		}
	}
}

// insertAt inserts the wakeup sequence w into the wakeup tree of the frame
// i, unless a thread asleep there is a weak initial of w.
func (e *explorer[S]) insertAt(i int, w []wev) {
	f := &e.stack[i]
	for u, ok := f.sleep.NextSet(0); ok; u, ok = f.sleep.NextSet(u + 1) {
		if weakInitial(ts.Tid(u), f.steps[u], w, e.strict) {
			return
		}
	}
	node := f.root
	level := 0
	for {
		if len(w) == 0 {
			return // a prefix of a sequence in the tree
		}
		matched := false
		for c := e.wt.nodes[node].first; c >= 0; c = e.wt.nodes[c].next {
			x := &e.wt.nodes[c]
			if level == 0 && f.status[x.t] != ts.Enabled {
				continue // not enabled here: not an initial of anything
			}
			if weakInitial(x.t, x.step, w, e.strict) {
				w = withoutFirst(w, x.t)
				if level == 0 && c == f.cur {
					return // the branch being explored
				}
				node, matched = c, true
				break
			}
		}
		if !matched {
			for _, x := range w {
				node = e.wt.addChild(node, x.t, x.step)
			}
			e.backtracks++
			return
		}
		if e.wt.nodes[node].first < 0 {
			return // a leaf: w is covered
		}
		level++
	}
}

// notdep appends to dst the transitions of the execution after event i, up to
// event end (excluded), that do not happen after event i.
func (e *explorer[S]) notdep(dst []wev, i, end int32) []wev {
	xi := &e.ev[i]
	for j := i + 1; j < end; j++ {
		y := &e.ev[j]
		if y.clock[xi.t] < xi.n {
			dst = append(dst, wev{y.t, y.step})
		}
	}
	return dst
}

// races reverses the races of the events not analysed yet, at the end of an
// execution.
func (e *explorer[S]) races() {
	end := int32(len(e.ev))
	for k := int32(e.raceFrom); k < end; k++ {
		x := &e.ev[k]
		cq := e.zero
		if x.prevThread >= 0 {
			cq = e.ev[x.prevThread].clock
		}
		e.reverse(x.t, x.step, cq, x.prevObj, end)
	}
	e.raceFrom = int(end)
}

// reverse inserts the wakeup sequences that reverse the races of thread p's
// step st (an event of the execution, or a step p never takes because the
// execution ends with p blocked), given p's clock cq before st and from, the
// latest event on st's object before st. end is the length of the execution.
//
// The races of st are with the events on its object that are dependent with
// it, by another thread, and do not happen before p; of those only the
// latest ones (that happen before no other) are reversed, as the paper does:
// the executions that reversal starts reverse the earlier ones. A race is
// reversed by the sequence notdep(j).st at the state before event j; it must
// be feasible there. A lock acquire is always feasible before the previous
// acquire of its lock (the lock is free there, and nothing in notdep(j)
// takes it); other steps that may block (an await: a read of a
// synchronization variable, or any step on an object seen Blocked) are
// checked by replaying the sequence. If st cannot be taken before j (j
// enabled it), it races with no event between j and st either, so the
// search goes back along the object to the latest event before which it
// can.
func (e *explorer[S]) reverse(p ts.Tid, st ts.Step, cq hb.VC, from, end int32) {
	e.cands = e.cands[:0]
	switch st.Op {
	case ts.Release:
		// A release races with nothing reversible: whatever follows it on
		// the lock cannot come before it.
		return
	case ts.Acquire:
		for j := from; j >= 0; j = e.ev[j].prevObj {
			y := &e.ev[j]
			if y.step.Op != ts.Acquire {
				continue
			}
			if y.t != p && !e.covers(cq, j) {
				w := e.notdep(e.seqBuf[:0], j, end)
				e.seqBuf = append(w, wev{p, st})
				e.insertAt(int(j), e.seqBuf)
			}
			return
		}
		return
	}
	for j := from; j >= 0; j = e.ev[j].prevObj {
		y := &e.ev[j]
		if y.t != p && ts.Dependent(y.step, st) && !e.covers(cq, j) {
			e.cands = append(e.cands, j)
		}
		if y.step.Op != ts.Read {
			break
		}
	}
	check := e.mayBlock(st)
	for _, j := range e.cands {
		direct := true
		for _, j2 := range e.cands {
			if j2 != j && e.covers(e.ev[j2].clock, j) {
				direct = false
				break
			}
		}
		if !direct {
			continue
		}
		for j >= 0 {
			w := e.notdep(e.seqBuf[:0], j, end)
			e.seqBuf = w
			if got, ok := e.feasible(j, w, p, st, check); ok {
				e.seqBuf = append(e.seqBuf, wev{p, got})
				e.insertAt(int(j), e.seqBuf)
				break
			}
			j = e.earlierRace(j, p, st, cq)
		}
	}
}

// earlierRace returns the latest event before event j on st's object that is
// dependent with thread p's step st and does not happen before p (clock
// cq), or -1.
func (e *explorer[S]) earlierRace(j int32, p ts.Tid, st ts.Step, cq hb.VC) int32 {
	for j = e.ev[j].prevObj; j >= 0; j = e.ev[j].prevObj {
		y := &e.ev[j]
		if !ts.Dependent(y.step, st) {
			continue
		}
		if e.covers(cq, j) {
			return -1 // and so is everything dependent before it
		}
		if y.t != p {
			return j
		}
	}
	return -1
}

// feasible reports whether thread p can take its step after the sequence w
// from the state before event j, and returns the step it takes there. Unless
// check is set it trusts that p's step st is enabled there, as it is for
// steps that never block. A panic in the replay is reported as a violation
// (its schedule is real) and makes the sequence infeasible.
func (e *explorer[S]) feasible(j int32, w []wev, p ts.Tid, st ts.Step, check bool) (got ts.Step, ok bool) {
	if !check {
		return st, true
	}
	e.replays++
	sched := append(e.replaySched[:0], e.sched[:j]...)
	defer func() {
		if r := recover(); r != nil {
			e.violation(&ts.Violation{Kind: ts.Panic, Thread: sched[len(sched)-1].Thread}, sched)
			ok = false
		}
		e.replaySched = sched[:0]
	}()
	s := e.stack[j].state
	for _, x := range w {
		sched = append(sched, ts.Move{Thread: x.t})
		if got, status := e.sys.Next(s, x.t); status != ts.Enabled || !got.Equal(x.step) {
			return got, false // the system is not what the analysis assumed
		}
		s = e.sys.Apply(s, x.t)
	}
	sched = append(sched, ts.Move{Thread: p})
	got, status := e.sys.Next(s, p)
	return got, status == ts.Enabled
}

// pending analyses, where an execution ends at the state of frame f (not
// pushed yet), the next steps of the threads that have not finished: steps
// the execution does not take, whose races the analysis of its events cannot
// see. In a deadlock those are the blocked threads; at a failed check, every
// thread still running. Under KeepGoing with a Checker, executions end at
// failed checks before every thread has made its racing steps, so the
// blocked threads of every state are analysed too.
func (e *explorer[S]) pending(f *frame[S], ends bool) {
	end := int32(len(e.ev))
	for p := range ts.Tid(e.n) {
		st := f.status[p]
		if st == ts.Blocked {
			e.blockedObjs[f.steps[p].Obj] = struct{}{}
		}
		if st == ts.Finished || (!ends && (st == ts.Enabled || !e.strict)) {
			continue
		}
		from, ok := e.objLast[f.steps[p].Obj]
		if !ok {
			continue
		}
		e.reverse(p, f.steps[p], e.clockOf(p), from, end)
	}
}

// rootChild returns f's wakeup-tree child of thread q, or -1.
func (e *explorer[S]) rootChild(f *frame[S], q ts.Tid) int32 {
	for c := e.wt.nodes[f.root].first; c >= 0; c = e.wt.nodes[c].next {
		if e.wt.nodes[c].t == q {
			return c
		}
	}
	return -1
}

// addRootChild makes f explore thread q, as adding q to a backtrack set
// does, unless q is asleep or already a branch.
func (e *explorer[S]) addRootChild(f *frame[S], q ts.Tid) {
	if f.sleep.Test(uint(q)) || e.rootChild(f, q) >= 0 {
		return
	}
	e.wt.addChild(f.root, q, f.steps[q])
	e.backtracks++
}

// mayBlock reports whether step st may be disabled, so that whether it can
// be taken after a sequence has to be checked (by replay): a read of a
// synchronization variable (an await) or any step on an object on which some
// step has been seen Blocked. (A lock acquire may block too; the race
// analysis knows where it cannot.)
func (e *explorer[S]) mayBlock(st ts.Step) bool {
	if st.Op == ts.Read && st.Sync {
		return true
	}
	_, ok := e.blockedObjs[st.Obj]
	return ok
}

// freeChoice returns the thread a frame explores when nothing is planned:
// the one that moved last if it can go on, else the first enabled thread not
// asleep, or -1.
func (e *explorer[S]) freeChoice(f *frame[S]) ts.Tid {
	if l := f.last; l >= 0 && f.status[l] == ts.Enabled && !f.sleep.Test(uint(l)) {
		return l
	}
	for t := range ts.Tid(e.n) {
		if f.status[t] == ts.Enabled && !f.sleep.Test(uint(t)) {
			return t
		}
	}
	return -1
}
