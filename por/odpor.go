package por

import (
	"context"
	"math/bits"
	"slices"
	"sync/atomic"
	"time"

	"github.com/weftlab/weft/hb"
	"github.com/weftlab/weft/internal/grow"
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
// state stored on the search stack. A write that may wait (a Once's Do, a
// send on a full channel) is checked the same way once it has been seen
// Blocked or Idle (where a branch planned for it finds it waiting, it is
// analysed there as a waiting thread's step; a select of package threads
// with nothing ready is Idle): its race with a later write of the thread it
// waits for (the end of Do) cannot be reversed, so the reversal
// walks back along the object to that thread's earlier write (the start of
// Do), which the paper's rule, reversing only the latest race, never tries
// (TestODPORBlockingWrite, and a property test on random programs with
// such writes). Where an execution ends in a deadlock,
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
// search stops at its first violation or no check fails, and no sleeping
// thread whose step may wait lets a sequence through (see below): property-tested
// against the distinct terminal happens-before states counted by brute
// force, on random programs with locks (in any order, so with deadlocks) and
// awaits, and on every bundled acyclic model. Under KeepGoing past failed
// checks it still never reports two executions with one happens-before
// state, but some are cut by sleep sets (980 cut runs over 3000 random
// programs with assertions).
//
// # Sleeping threads whose steps may wait
//
// The paper's weak initials assume that a thread enabled after a sequence
// stays enabled until it moves: a sleeping thread independent of a whole
// wakeup sequence rejects it, since every execution the sequence starts
// can take that thread first. A step that waits breaks this: a later event
// of such an execution can disable it for good (another thread's P of the
// same semaphore), and the executions in which it never moves start with
// no sleeping thread. With s0 = s1 = 1 (capacity 1), T0: P(s0, s1);
// x1 := 1, T1: x1 := 2, T2: r := x1; P(s0) and T3: await x1 == 0; V(s1),
// T0 sleeps below the root's T3 branch and rejected there the reversal
// [T2's read] of T1's store and T2's read, and the deadlock in which T2
// reads 0 and takes s0 was lost (15 of 16 traces; found by an outside
// audit, TestAuditCutSleeperDisabled). So a sleeping thread whose step may
// wait (mayBlock: an await, an acquire of several objects, a step on an
// object some step has been seen waiting on) rejects a sequence only as an
// initial of it, where it moves in every execution the sequence starts.
// What counts is what is known when the sequence is tested: a lone lock
// acquire keeps the paper's rule (the race analysis pairs the acquires of
// a lock; the audits, with locks never released, found no loss), and so
// does a write that waits before any step on its object has been seen
// waiting (a V at its semaphore's cap early in the search), unless the
// system names the object with ts.Blocking: named objects count as seen
// waiting from the start, which also spares the infeasible branch and the
// sleep-blocked execution a V planned before it is known to wait costs
// (TestODPORBlockingNamed; the property test TestAuditCutNamed runs the
// audit's programs named, which Conformance checks).
// The cost is optimality, on such systems only: a sequence such a thread
// would have rejected is explored, and its executions may end with every
// enabled thread asleep (Result.Stats["sleep-blocked"]; never a trace
// twice). Result.Stats["waiting-sleepers"] counts those sequences; where
// it is zero, the search is as optimal as above, which the optimality
// tests check. On the bundled models only bluetooth with its checks hidden
// pays (6 sleep-blocked executions at two adders, 198 beside 6,546 at
// three; TestODPORWaitingSleepersOnModels). Measured once on random
// programs: over semaphores and awaits of 3 to 5 threads (cwPrograms,
// rapid seed 7), 226 sleep-blocked beside 10,997 executions, in 13 of 188
// programs; of 5 to 7 threads with locks, awaits and atomics (wideShape,
// seed 99), 12 beside 1.5 million. The same rule found a second lost trace
// (TestAuditCutBlockedLeaf): a branch planned for a V not yet seen waiting
// covered a later reversal, turned out Blocked and was dropped with it;
// the race recurs in later executions, and the thread that rejected its
// reversal there now waits on the V's semaphore.
//
// # Races of the shared prefix
//
// The paper analyses every race of every maximal execution, with notdep
// taken over the whole execution. A race in the prefix an execution shares
// with the one before it therefore gets a new reversal: its events after e'
// differ. Analysing each race once, in the first execution that holds it,
// misses traces. A thread asleep at pre(E,e) can be a weak initial of the
// first reversal and not of a later one, whose notdep holds an event that
// its next step depends on. Two random programs with a compare-and-swap and
// a multi-object await lost 2 of 30 and 21 of 174 traces that way (their
// rapid fail files are kept as regressions), and a thread that waits for
// ever at the end of an execution is another case (TestODPORDeadlockTraces).
//
// So weft analyses every race of every maximal execution, as the paper
// does. It did not always: it stopped analysing a race once its reversal
// had reached the wakeup tree (inserted there, or found covered by a branch
// planned there), on the reading that the branch planned for it covers the
// later reversals too. That reading is wrong. On five threads of plain
// loads and stores (T0 reads y; T1 and T2 write x; T3 writes y, then reads
// x; T4 reads y) it explored 22 of the 24 traces and missed 2 of the 24
// terminal states: the reversal of T4's read of y against T3's write, made
// under one order of the writes of x, does not cover the executions with
// the other order (TestODPORRacesOfEveryExecution, found by an outside
// audit with more threads than the property tests drew). Analysing every
// race of every execution costs 1.2-2.5x the time of that shortcut on the
// bundled models (casrot-10 and abp-2 the least, lastzero-12 and indexer-16
// the most). What stays shared between executions is only what depends on
// the events before a race: an event's candidates (an event with none is
// skipped, event.done), where a reversal can run and the step it takes
// there (the replays that found them are not made again), and the first
// levels of the reversal's insertion into the wakeup tree, those whose
// tests read only events the executions share (descent.go: each record is
// checked against a descent from the root in the property tests, and the
// search is the same with and without them; 42% of the levels skipped on
// indexer-16, 22% fewer instructions).
//
// # Several objects and outcomes
//
// A step that touches several objects races with the events on each of
// them; the candidates of all its objects are reversed as one set (only the
// latest, those that happen before no other candidate). A transition with
// several outcomes gives one event per outcome: different outcomes are
// different Mazurkiewicz traces, so wakeup-tree nodes and sleep-set entries
// are (thread, outcome) events, and a weak initial must match the outcome.
// Wherever the search takes a thread whose transition has several outcomes,
// planned or freely, it takes it with every outcome not asleep, as sibling
// branches. A reversal is planned for the outcome of the event it
// reverses, but the branch that realises it may be one planned earlier with
// the same prefix, which then takes the reversed thread with another
// outcome, and the executions of the other outcomes need not meet the race
// (one may end at a failed check before it): taking every outcome where a
// transition is taken covers both. Those sibling branches are added as
// leaves that plan nothing, so a reversal that reaches one is not covered
// by it (a leaf of a planned sequence is, in the paper, since the race
// analysis below it plans the rest; a sibling is explored later, with the
// sleep set the branches before it left, and its free run need not meet
// the race again): the reversal becomes its subtree. The cost is some sleep-blocked
// executions on such systems (each trace is still explored once; none on
// systems without outcomes). The sequence that reverses a race e ⋖ e' is
// the paper's, notdep(e) over the whole execution then e', also where an
// event of notdep(e) after e' has several outcomes: the sequence fixes it to
// the outcome this execution took, and where the search takes it, it takes
// the other outcomes too. (Stopping notdep at e' once outcomes had been
// seen, as weft did, is not enough: the shorter sequence has more weak
// initials, so sleeping threads reject it where they would not reject the
// whole one, and it starts with other threads. A random program lost 2 of
// its 24 traces that way; its rapid fail file is kept.) A waiting thread's pending step,
// never taken, is reversed once per outcome. The package's property tests
// check soundness and one execution per trace on random programs with
// outcomes, and a message-passing network where a reversal was absorbed by
// a branch of another outcome (a missed trace before this rule).
//
// A step that blocks and touches several objects (an await reading two
// variables, an acquire of two locks) can need a reversal the paper's rule
// never makes: the latest race is not reversible (the step cannot run
// there), and the earlier races it hid, on the step's other objects, are
// reversed directly; a sequence that cannot run because it takes the other
// candidates first is tried without them, and the walk back along the
// object goes on with the whole sequence, for the traces that keep those
// candidates before the step. Where one event is the latest race on two of
// the step's objects, the walk goes back along each: a select that sends on
// c0 or c1, after another select of both, races behind it with the last
// send on c0 along one and with the last send on c1 along the other, and
// only the second could run (walking along the first object alone, ODPOR
// explored 11 of the 19 traces of a program of three goroutines, found by
// the outside audit's channel programs: TestAuditODPORSelectEachObject).
//
// # Blocking steps of several objects that write
//
// A step that touches several objects, writes one at least and may wait (a
// P of two semaphores in one transition; a select of package threads over
// several channels, which writes each; a P of s that also waits for x ==
// 0) has its races analysed at every state where its thread waits, with
// the events so far, not only where the execution ends. At the end,
// notdep(e) of a race holds every later event that does not happen after
// e, among them events that disable the step again on its other objects:
// the reversal cannot run, and the walk back along one object meets the
// same events. Where the step is first seen waiting, those events have not
// happened yet, and the reversal made there can run. With s0 = s1 = 1, T0:
// P(s1); V(s0), T1: P(s0) and T2: P(s0, s1), the first execution is T0, T1,
// T0 with T2 waiting to the end: there its races are with V(s0) and P(s1),
// and neither reversal can run (T1's P(s0) stands before T2 in both).
// Analysed after T0's P(s1), where it first waits, its race with P(s1) is
// reversed by T2 alone at the start, the trace in which T2 takes both and
// T0 and T1 deadlock (TestODPORBlockingMultiObjectDeadlock). Likewise,
// with s = 0, T0: P(s), T1: V(s), T2: P(s) when x == 0, T3: x := 1 and T4:
// x := 1, T2 analysed only at the end reached 1 of the 2 terminal states
// (TestODPORGuardedWrite). Without this, found by outside audits, ODPOR
// lost such traces and deadlocks, and a program of three goroutines whose
// selects can deadlock passed it (8 of its 10 traces explored). Other
// systems are searched as before: only waiting steps of several objects
// that write are analysed early (steps of one object that wait, awaits and
// lock acquires of several objects never needed it in the audits). The
// property tests check it against a trace-counting reference on random
// programs over counting semaphores (2 to 6 threads; P, V, tryP, P of two,
// guarded P) and over channels with selects (TestAuditSem*,
// TestAuditThreadsChannels, TestAuditMultiSelects; thousands of programs
// with -audit).
//
// # Steps that wait on all of several objects
//
// A step of several objects may wait for a condition on all of them (a P
// of three semaphores, an await of x0 == 0 && x1 == 0, a lock acquire
// that also waits for x == 1), and no explored execution need see it
// waiting: the first takes it last, after events on each of its objects.
// Its latest race, with event j, is reversed by notdep(j) then the step,
// and notdep(j) can still hold another thread's event on another of its
// objects that disables it, hidden from the race analysis by a later event
// there. Walking back along one object meets the same event, so the
// reversal never runs, and the paper's recursion (the analysis of the
// execution in which it runs) never starts. With three semaphores a
// program explored 2 of its 3 traces; an await of two variables 2 of 4.
//
// weft analyses the state after pre(j).notdep(j) as one where the step's
// thread waits (cut.go): its races there, with the latest events left on
// each of its objects, are reversed by leaving those events out too, with
// everything that happens after them, recursively where the step still
// cannot run, and walking back along each object as above. Each sequence
// is the execution's events in order, from the earliest event left out,
// without the events left out and those happening after them: a prefix of
// an execution the search can take, as notdep(j) is, so the step is tried
// at every state it could be seen waiting at had the search run there.
// Only steps of several objects whose reversal cannot run take that path;
// on the bundled models it adds feasibility replays (twophase-2: 1,899 to
// 2,233), never an execution. Each reversal tries at most 4,096 such sets;
// past that the search stops with an error wrapping ts.ErrUnsupported (dpor
// explores such systems) rather than go on without them. Regression tests: TestAuditODPORThreeObjectWrite,
// TestAuditODPORConjunctiveWait, TestAuditODPORGuardedWrite (programs found
// by an outside audit, each a lost trace or deadlock before); property
// tests against a trace-counting reference: TestAuditMultiWrite* (P, V and
// awaits of up to three objects, guarded Ps and locks, locks of several).
//
// # Value-dependent steps
//
// With ts.ValueDependent, a thread's access to a declared object may be a
// Write at one state and a Read at another (a compare-and-swap that
// succeeds or fails). Races are computed, as the paper does, on the events
// of the execution explored, with the accesses they actually made there.
// When a race e ⋖ e' is reversed, the events of notdep(e) keep their
// accesses (they are reordered only past events independent of them, which
// do not change them), but e' runs without e before it, and e may be the
// write that made it a read: its access there is found by replaying
// pre(e).notdep(e) from the state stored on the stack, and the wakeup
// sequence ends with that access, so that the sleep-set and wakeup-tree
// tests (weak initials) compare the steps the new execution will really
// take. (Taking e' with its old access instead made three threads running
// cas(x, 0, 1) explore two of their three traces: the reversal of the
// second failed cas was wrongly found redundant with the first.) A step
// changes only through a write of its object, which is a race with it, so
// sleeping threads keep their steps while asleep, and wakeup-tree nodes
// record the accesses their branches take.
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
// the event of the next branch of f's wakeup tree.
func (e *explorer[S]) pickWakeup(f *frame[S]) (ts.Move, bool) {
	if f.cur >= 0 {
		e.branchDone(f)
	}
	for {
		c := e.wt.nodes[f.root].first
		if c < 0 && !f.tried {
			// Every planned branch turned out infeasible: explore as if
			// nothing had been planned.
			f.tried = true
			if t := e.freeChoice(f); t >= 0 {
				e.addOutcomes(f, f.root, t)
				continue
			}
			e.sleepBlocked++
		}
		if c < 0 {
			return ts.Move{}, false
		}
		t, out := ts.Tid(e.wt.nodes[c].t), int(e.wt.nodes[c].out)
		switch {
		case e.asleep(f, t, out):
			e.wt.remove(f.root, c) // covered
		case f.status[t] != ts.Enabled || out >= f.outs[t]:
			// Infeasible here, which the race analysis avoids on systems
			// that keep the independence contract: insert what lies below
			// it again, without it.
			e.infeasible++
			if e.lazy != nil {
				e.materialize(c)
			}
			seqs := e.wt.leaves(c, nil, e.reinsert[:0])
			e.wt.remove(f.root, c)
			e.race = raceState{k: -1}
			for _, w := range seqs {
				e.insertAt(e.depth-1, w)
			}
			e.reinsert = seqs[:0]
			if f.status[t].Waiting() {
				// Idle waits as Blocked does (a goroutine of package
				// threads in a select with nothing ready is Idle).
				e.learnBlocked(f, t)
			}
		default:
			f.cur, f.tried = c, true
			if f.outs[t] > 1 {
				// Where a thread's transition is explored, each of its
				// outcomes is: a reversal planned for one outcome may have
				// been absorbed by a branch planned with the same prefix
				// and another outcome of this transition, and the executions
				// that take the other outcomes need not meet that race.
				e.addRootChild(int32(e.depth-1), t)
			}
			return ts.Move{Thread: t, Outcome: out}, true
		}
	}
}

// branchDone puts the branch just explored from f (f.cur) to sleep there
// and removes it from the wakeup tree.
func (e *explorer[S]) branchDone(f *frame[S]) {
	if t := ts.Tid(e.wt.nodes[f.cur].t); f.outs[t] == 1 {
		f.sleep.Set(uint(t)) // sleepOn's usual case, without the event
	} else {
		x := e.wt.wev(f.cur)
		e.sleepOn(f, &x)
	}
	e.wt.remove(f.root, f.cur)
	f.cur = -1
}

// sleepOn puts event x to sleep at f once its branch is explored: the thread
// itself when it has one outcome, else the outcome.
func (e *explorer[S]) sleepOn(f *frame[S], x *wev) {
	if f.outs[x.t] == 1 {
		f.sleep.Set(uint(x.t))
		return
	}
	f.psleep = append(f.psleep, *x)
}

// addOutcomes makes node explore thread t with each of its outcomes at f that
// is not asleep, as sibling branches.
func (e *explorer[S]) addOutcomes(f *frame[S], node int32, t ts.Tid) {
	for c := range f.outs[t] {
		if !e.asleep(f, t, c) {
			e.wt.addChild(node, wev{t: t, out: c, step: f.steps[t]})
		}
	}
}

// insertAt inserts the wakeup sequence w into the wakeup tree of the frame
// i, unless an event asleep there is a weak initial of w.
func (e *explorer[S]) insertAt(i int, w []wev) {
	if i < e.base {
		// A unit's worker: the frame is the coordinator's, which inserts
		// w when it takes the unit's result, as this search would now,
		// unless the frame's sleep set (part of the unit's input) rejects
		// it.
		if !e.sleepKnown && e.asleepIn(&e.stack[i], w) {
			return
		}
		keep := e.logShared(i, w)
		op := logOp{kind: opInsert, frame: int32(i), strict: e.strict, keep: int32(keep), w: e.pool.logTo(&e.logChunks, &e.logAlso, w[keep:])}
		if e.logRace {
			e.logRaceOf(&op, int32(w[len(w)-1].out))
		}
		e.log = grow.Append(e.log, op)
		return
	}
	if !e.sleepKnown && e.asleepIn(&e.stack[i], w) {
		return
	}
	if t := e.opt.insertTimes; t != nil {
		start := time.Now()
		e.insertAwake(i, w)
		if len(*t) <= i {
			*t = append(*t, make([]time.Duration, i+1-len(*t))...)
		}
		(*t)[i] += time.Since(start)
		return
	}
	e.insertAwake(i, w)
}

// asleepIn reports whether an event asleep at frame f is a weak initial of
// w, which then plans nothing new there. A sleeper whose step may wait
// rejects w only as an initial of it (see waitingSleeper).
func (e *explorer[S]) asleepIn(f *frame[S], w []wev) bool {
	waiting := false
	for u, ok := f.sleep.NextSet(0); ok; u, ok = f.sleep.NextSet(u + 1) {
		if ok, j := weakInitialIdx(ts.Tid(u), anyOutcome, &f.steps[u], w, e.strict); ok {
			if j >= 0 || !e.mayBlock(f.steps[u]) {
				return true
			}
			waiting = true
		}
	}
	for i := range f.psleep {
		x := &f.psleep[i]
		if ok, j := weakInitialIdx(x.t, x.out, &x.step, w, e.strict); ok {
			if j >= 0 || !e.mayBlock(x.step) {
				return true
			}
			waiting = true
		}
	}
	if waiting {
		e.waitingSleepers++
	}
	return false
}

// sleepRejects reports whether the sleep set of frame j rejects the wakeup
// sequence notdep(j, upTo).p for each of p's outcomes out..out+outs-1 (p's
// step st), as asleepIn on each sequence would, without building them.
func (e *explorer[S]) sleepRejects(j int32, p ts.Tid, out, outs int, st *ts.Step, upTo int32) bool {
	f := &e.stack[j]
	words := f.sleep.Words()
	r := seqRef{xj: &e.ev[j], j: j, upTo: upTo, p: p, st: st}
	for r.out = out; r.out < out+outs; r.out++ {
		asleep := false
		for wi := 0; wi < len(words) && !asleep; wi++ {
			for w := words[wi]; w != 0 && !asleep; w &= w - 1 {
				u := ts.Tid(wi*64 + bits.TrailingZeros64(w))
				asleep = e.weakInitialAt(&r, u, anyOutcome, &f.steps[u])
			}
		}
		for i := 0; i < len(f.psleep) && !asleep; i++ {
			x := &f.psleep[i]
			asleep = e.weakInitialAt(&r, x.t, x.out, &x.step)
		}
		if !asleep {
			if e.waitingSleeper {
				e.waitingSleeper = false
				e.waitingSleepers++
			}
			return false
		}
	}
	e.waitingSleeper = false
	return true
}

// seqRef stands for the wakeup sequence notdep(j, upTo).(p, out, st), xj
// being event j, without its events.
type seqRef struct {
	xj      *event
	j, upTo int32
	p       ts.Tid
	out     int
	st      *ts.Step
	// taken: the sequence is insertMarking's, whose events taken
	// (takenAt) are not in it.
	taken bool
}

// weakInitialAt is weakInitial(q, qout, sq, w, e.strict) for the sequence w
// that r stands for, found from the execution's per-thread and per-object
// chains of events instead of a scan of w: q's first event in w is its
// first event after j if that is in notdep (if it is not, neither are q's
// later ones, which happen after it), else p's step for p; the events of w
// dependent with a step are on its objects.
func (e *explorer[S]) weakInitialAt(r *seqRef, q ts.Tid, qout int, sq *ts.Step) bool {
	y := int32(-1)
	for k := e.thrLast[q]; k > r.j; k = e.ev[k].prevThread {
		y = k
	}
	if y >= 0 && y < r.upTo {
		if x := &e.ev[y]; x.clock[r.xj.t] < r.xj.n {
			if qout != anyOutcome && x.out != qout {
				return false
			}
			return !e.dependsOn(r, y, y, &x.step)
		}
	}
	if q == r.p {
		if qout != anyOutcome && r.out != qout {
			return false
		}
		return !e.dependsOn(r, -1, r.upTo, r.st)
	}
	if e.strict || dependent(sq, r.st) || e.dependsOn(r, -1, r.upTo, sq) {
		return false
	}
	if e.mayBlock(*sq) {
		e.waitingSleeper = true // see waitingSleeper
		return false
	}
	return true
}

// dependsOn reports whether an event of notdep(j, end), for r's j, is
// dependent with step st: an event on one of st's objects, from the event
// before k on it (k an event touching all of st's objects, or -1 for the
// end of the execution) back to j, that is not a read where st reads, is
// before end, and does not happen after j.
func (e *explorer[S]) dependsOn(r *seqRef, k, end int32, st *ts.Step) bool {
	tj, nj := r.xj.t, r.xj.n
	for a := range st.NumAccesses() {
		o, read := st.Obj, st.Op == ts.Read
		var z int32
		switch {
		case a > 0:
			o, read = st.Also[a-1].Obj, st.Also[a-1].Op == ts.Read
			z = e.chainStart(o, k)
		case k >= 0 && len(e.ev[k].step.Also) == 0:
			z = e.ev[k].prev[0]
		default:
			z = e.chainStart(o, k)
		}
		for z > r.j {
			y := &e.ev[z]
			if z < end && y.clock[tj] < nj && (!r.taken || e.takenAt[z] != e.takenEpoch) {
				op := y.step.Op
				if len(y.step.Also) > 0 {
					op, _ = y.step.OpOn(o)
				}
				if op != ts.Read || !read {
					return true
				}
			}
			if len(y.step.Also) == 0 {
				z = y.prev[0]
			} else {
				z = y.prevOn(o)
			}
		}
	}
	return false
}

// sleepCheck is, for tests (Options.checkSleep), the count of the sleep-set
// verdicts sleepRejects gave, of those that rejected the sequence, and of
// those that differed from asleepIn's on the sequence built.
type sleepCheck struct {
	checks, rejected, misses int64
}

// checkSleepRejects counts sleepRejects' verdict asleep in c, comparing it
// with asleepIn's on the sequences it stands for.
func (e *explorer[S]) checkSleepRejects(c *sleepCheck, j int32, p ts.Tid, out, outs int, st ts.Step, upTo int32, asleep bool) {
	want := true
	w := e.notdep(nil, j, upTo)
	counted := e.waitingSleepers // sleepRejects has counted its verdict
	for o := out; o < out+outs; o++ {
		want = want && e.asleepIn(&e.stack[j], append(w, wev{t: p, out: o, step: st}))
	}
	e.waitingSleepers = counted
	c.checks++
	if asleep {
		c.rejected++
	}
	if asleep != want {
		c.misses++
	}
}

// insertAwake inserts w, of which no event asleep at frame i is a weak
// initial (see insertAt), into frame i's wakeup tree and reports whether the
// tree changed. With e.descent set (a race's reversal, see descent.go) it
// starts below the levels an earlier insertion of the race recorded, and
// records those it can.
func (e *explorer[S]) insertAwake(i int, w []wev) bool {
	// The chains, for long sequences only: on shorter ones the scans cost
	// no more than the chains' walks (lastzero-12's, of 8 to 40 events,
	// gain nothing in time).
	e.chains = e.seqChains && len(e.seqPos) == len(w)-1 && len(w) > e.chainLen(chainMin)
	if e.chains {
		e.seqLeft = seqRef{xj: &e.ev[i], j: int32(i), upTo: e.seqEnd, taken: true}
		e.takenEpoch++
		if e.takenEpoch == 0 { // wrapped: older marks would read as new
			clear(e.takenAt)
			e.takenEpoch = 1
		}
		if n := int(e.seqEnd); len(e.takenAt) < n {
			e.takenAt = slices.Grow(e.takenAt, n-len(e.takenAt))[:n]
		}
	}
	// The descent takes events from w in place (marking them, see
	// weakInitial) and puts them back after, so that the caller's
	// sequence (insertReversal reuses it for the next outcome) stays
	// whole: cheaper than a copy, as most sequences are covered.
	changed := e.insertMarking(i, w)
	e.chains, e.seqLeft.xj = false, nil
	for j := range w {
		if w[j].t < -takenBias/2 {
			w[j].t += takenBias
		}
	}
	if chk := e.opt.checkDescent; chk != nil {
		chk.inserts.Add(1)
		if slices.ContainsFunc(w, func(x wev) bool { return x.t < 0 }) {
			chk.unrestored.Add(1)
		}
	}
	return changed
}

// takenBias is taken from the thread of an event insertMarking takes from
// its sequence, which makes it negative (taken), and added back after: a
// pass over the sequence puts every event back, with no record of which
// were taken (which cost more, on indexer-16, than the pass).
const takenBias = 1 << 30

// takeEvent marks w's event a as taken, to be put back by insertAwake,
// and, where w's events are the execution's (chains), the execution's event
// as taken too.
func (e *explorer[S]) takeEvent(w []wev, a int) {
	if w[a].t >= 0 {
		w[a].t -= takenBias
		if e.chains && a < len(e.seqPos) {
			e.takenAt[e.seqPos[a]] = e.takenEpoch
		}
	}
}

// chainMin is the length of sequence above which insertMarking's tests
// read the execution's chains (chainInitial).
const chainMin = 40

// indexMin is the length of sequence above which a coordinator's commit
// indexes it (seqIndex) for insertMarking's tests.
const indexMin = 40

// chainLen returns bound (chainMin or indexMin), or the tests'
// replacement (Options.chainMin).
func (e *explorer[S]) chainLen(bound int) int {
	if e.opt.chainMin != 0 {
		return e.opt.chainMin
	}
	return bound
}

// chainInitial is weakInitialIdx(q, out, x's step, w[head:], e.strict) for
// insertMarking's sequence w (its events but the last the execution's, see
// seqChains) inserted at frame j, found from the execution's per-thread and
// per-object chains (as weakInitialAt is) instead of a scan of w, which on
// indexer-16 holds 46 events. q's events in notdep(j) are its first events
// after j, and insertMarking takes them in order: its first event left is
// the earliest of them not taken, found from the end of its chain, else the
// sequence's last event if it is q's and not taken. The events dependent
// with a step are on its objects' chains.
func (e *explorer[S]) chainInitial(q ts.Tid, out int, x *wnode, w []wev) (bool, int) {
	last := len(w) - 1
	r := &e.seqLeft
	xj := r.xj
	y := int32(-1) // q's first event left, if one of the execution's
	for k := e.thrLast[q]; k > r.j; k = e.ev[k].prevThread {
		if k < r.upTo && e.ev[k].clock[xj.t] < xj.n {
			if e.takenAt[k] == e.takenEpoch {
				break // and so were q's earlier events
			}
			y = k
		}
	}
	if y >= 0 {
		lo, hi := 0, len(e.seqPos)-1 // seqPos[hi] >= y: w holds y
		for lo < hi {
			if mid := int(uint(lo+hi) >> 1); e.seqPos[mid] < y {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		jq := lo
		ey := &e.ev[y]
		if out != anyOutcome && ey.out != out {
			return false, jq
		}
		return !e.dependsOn(r, y, y, &ey.step), jq
	}
	if lx := &w[last]; lx.t == q {
		if out != anyOutcome && lx.out != out {
			return false, last
		}
		return !e.dependsOn(r, -1, r.upTo, &lx.step), last
	}
	if e.strict {
		return false, -1
	}
	st := e.wt.step(x)
	lx := &w[last]
	return (lx.t < 0 || !dependent(&st, &lx.step)) && !e.dependsOn(r, -1, r.upTo, &st), -1
}

// checkInitial counts, for tests, a weak-initial test of child x against
// w[head:] answered without a scan (ok, jq), in tests, and in misses if the
// scan's answer differs.
func (e *explorer[S]) checkInitial(tests, misses *atomic.Int64, x *wnode, w []wev, head int, ok bool, jq int) {
	st := e.wt.step(x)
	want, wj := weakInitialIdx(ts.Tid(x.t), int(x.out), &st, w[head:], e.strict)
	if wj >= 0 {
		wj += head
	}
	tests.Add(1)
	if want != ok || wj != jq {
		misses.Add(1)
	}
}

// insertMarking is insertAwake, marking the events it takes in w.
func (e *explorer[S]) insertMarking(i int, w []wev) bool {
	f := &e.stack[i]
	e.insPath = e.insPath[:0]
	head := 0 // w's first event not taken
	left := len(w)
	node := f.root
	level := 0
	// A unit root on the way (a node at the split depth) whose subtree
	// grows: a coordinator's changes version, a predictor's is no longer
	// its original (see wnode.ver).
	unitLevel, unitRoot := -1, int32(-1)
	if e.role == roleCoordinator || e.role == rolePredictor {
		unitLevel = e.split - 1 - i
	}
	last := len(w) - 1
	m := e.descent
	rec := m != nil  // the levels so far are recorded in m
	ref := int32(-1) // the last index of w the recorded tests read
	if rec {
		if e.descentOK {
			if chk := e.opt.checkDescent; chk != nil {
				chk.compare(e.descendAgain(f, w, int(m.level)), m, last)
			}
			for _, a := range m.removed {
				if a < 0 {
					a = int32(last) // e', the last event whatever notdep(e) holds
				}
				e.takeEvent(w, int(a))
			}
			for head < len(w) && w[head].t < 0 {
				head++
			}
			left -= len(m.removed)
			node, level, ref = m.node, int(m.level), m.ref
			if e.recording {
				// What the skipped levels would have noted: the path for
				// planned, and a unit root passed (a coordinator's).
				for l, n := range m.path {
					e.insPath = append(e.insPath, n)
					if l == unitLevel {
						unitRoot = n
					}
				}
			}
		} else {
			m.forget(e.strict)
		}
	}
	nodes := e.wt.nodes // again where materialize grows the pool
	for {
		if left == 0 {
			return false // a prefix of a sequence in the tree
		}
		matched := false
		for c := nodes[node].first; c >= 0; c = nodes[c].next {
			x := &nodes[c]
			xt := ts.Tid(x.t)
			if level == 0 && f.status[xt] != ts.Enabled {
				continue // not enabled here: not an initial of anything
			}
			var ok bool
			var jq int
			if w[head].t == xt {
				// xt's first event is the first left (three times in four
				// on indexer-16): nothing comes before it.
				ok, jq = w[head].out == int(x.out), head
			} else if e.chains {
				ok, jq = e.chainInitial(xt, int(x.out), x, w)
				if chk := e.opt.checkDescent; chk != nil {
					e.checkInitial(&chk.chainTests, &chk.chainMisses, x, w, head, ok, jq)
				}
			} else if e.seqIdx != nil {
				ok, jq = e.indexInitial(e.seqIdx, xt, int(x.out), x, w)
				if chk := e.opt.checkDescent; chk != nil {
					e.checkInitial(&chk.indexTests, &chk.indexMisses, x, w, head, ok, jq)
				}
			} else {
				st := e.wt.step(x)
				if ok, jq = weakInitialIdx(xt, int(x.out), &st, w[head:], e.strict); jq >= 0 {
					jq += head
				}
			}
			if !ok {
				if rec {
					switch {
					case jq >= 0 && jq < last:
						ref = max(ref, int32(jq))
					case jq >= 0: // e' (see descent.go)
					case level == 0 && c == f.cur && w[last].t >= 0 && w[last].t != xt && (e.strict || dependentNode(&e.wt, x, &w[last].step)):
					default:
						rec = false
					}
				}
				continue
			}
			if jq >= 0 {
				e.takeEvent(w, jq)
				left--
				if jq == head { // mostly the first event goes
					for head++; head < len(w) && w[head].t < 0; head++ {
					}
				}
			}
			if level == 0 && c == f.cur {
				return false // the branch being explored
			}
			node, matched = c, true
			if rec {
				if jq >= 0 && x.first >= 0 {
					at := int32(jq)
					if jq < last {
						ref = max(ref, at)
					} else {
						at = -1
					}
					m.node, m.level, m.ref = c, int32(level+1), ref
					m.removed = append(m.removed, at)
					if e.recording {
						m.path = append(m.path, c)
					} else if ref >= 0 {
						m.refPos = e.seqPos[ref]
						m.refID = e.ev[m.refPos].id
					}
				} else {
					rec = false
				}
			}
			if e.recording {
				e.insPath = append(e.insPath, c) // for planned
			}
			if level == unitLevel {
				unitRoot = c
				if e.lazy != nil {
					e.materialize(c) // a predictor's, not copied yet
					nodes = e.wt.nodes
				}
			}
			break
		}
		// A leaf added only to take another outcome (see addRootChild)
		// plans nothing: w is not covered by it.
		nd := &nodes[node]
		if !matched || (nd.first < 0 && nd.extra) {
			w = appendUntaken(e.insBuf[:0], w)
			e.insBuf = w
			e.planned(i, w, false)
			if unitRoot >= 0 {
				e.wt.clock++
				e.wt.nodes[unitRoot].ver = e.wt.clock
				delete(e.src, unitRoot)
			}
			for _, x := range w {
				node = e.wt.addChild(node, x)
			}
			e.backtracks++
			return true
		}
		if nd.first < 0 {
			return false // a leaf: w is covered
		}
		level++
	}
}

// notdep appends to dst the events of the execution after event i, up to
// event end (excluded), that do not happen after event i.
func (e *explorer[S]) notdep(dst []wev, i, end int32) []wev {
	xi := &e.ev[i]
	for j := i + 1; j < end; j++ {
		y := &e.ev[j]
		if y.clock[xi.t] < xi.n {
			dst = append(dst, wev{t: y.t, out: y.out, step: y.step})
		}
	}
	return dst
}

// races reverses, at the execution's end, the races of each of its events
// (see ODPOR, "Races of the shared prefix"), skipping the events of the
// prefix shared with the last execution analysed that race with nothing
// (done).
func (e *explorer[S]) races() {
	end := int32(len(e.ev))
	from := int32(e.raceFrom)
	for k := range from {
		if !e.ev[k].done {
			e.reverseEvent(k, end)
		}
	}
	for k := from; k < end; k++ {
		e.reverseEvent(k, end)
	}
	e.raceFrom = int(end)
}

// reverseEvent reverses the races of event k.
func (e *explorer[S]) reverseEvent(k, end int32) {
	x := &e.ev[k]
	cq := e.zero
	if x.prevThread >= 0 {
		cq = e.ev[x.prevThread].clock
	}
	e.reverse(x.t, x.out, 1, x.step, cq, k, end)
}

// raceMemo is, for a race of an event whose step may block or change its
// access, the frame where its reversal runs (the walk back of reverseFrom)
// and the step it takes there, found by replaying.
type raceMemo struct {
	ci  int
	j   int32
	got ts.Step
}

// raceState names the race being reversed: candidate ci of event k's races
// (k is -1 for a step not taken), whose replays (raceMemo) and descents
// (descent.go) are kept for its later analyses.
type raceState struct {
	k  int32
	ci int
}

// reverseRace is reverseFrom for candidate ci of event k's races (k is -1
// for a step not taken), naming the race in e.race.
func (e *explorer[S]) reverseRace(c cand, ci int, k int32, p ts.Tid, out, outs int, st ts.Step, cq hb.VC, end int32, check bool) bool {
	e.race = raceState{k: k, ci: ci}
	return e.reverseFrom(c, p, out, outs, st, cq, end, check)
}

// raceMemo returns what an earlier analysis of the race being reversed
// (e.race) found by replaying, or nil.
func (e *explorer[S]) raceMemo() *raceMemo {
	if e.race.k < 0 {
		return nil
	}
	x := &e.ev[e.race.k]
	for i := range x.memo {
		if x.memo[i].ci == e.race.ci {
			return &x.memo[i]
		}
	}
	return nil
}

// rememberRace records that the reversal of the race being reversed runs at
// frame j, where its step is got.
func (e *explorer[S]) rememberRace(j int32, got ts.Step) {
	if e.race.k >= 0 {
		x := &e.ev[e.race.k]
		x.memo = append(x.memo, raceMemo{ci: e.race.ci, j: j, got: got})
	}
}

// chainStart returns the latest event on object o before event k, or before
// the end of the execution when k is -1 (a step not taken), or -1.
func (e *explorer[S]) chainStart(o ts.Obj, k int32) int32 {
	if k >= 0 {
		return e.ev[k].prevOn(o)
	}
	return e.objLast.get(o)
}

// findCands sets e.cands to the races of thread p's step st (event k, or
// -1), and records them for event k.
func (e *explorer[S]) findCands(p ts.Tid, st ts.Step, cq hb.VC, k int32) {
	e.cands = e.cands[:0]
	for a := range st.NumAccesses() {
		acc := st.At(a)
		switch acc.Op {
		case ts.Release:
			// A release races with nothing reversible: whatever follows it
			// on the lock cannot come before it.
			continue
		case ts.Acquire:
			for j := e.chainStart(acc.Obj, k); j >= 0; j = e.ev[j].prevOn(acc.Obj) {
				y := &e.ev[j]
				if op, _ := y.step.OpOn(acc.Obj); op != ts.Acquire {
					continue
				}
				if y.t != p && !e.covers(cq, j) {
					e.cands = append(e.cands, cand{j, acc.Obj})
				}
				break
			}
			continue
		}
		for j := e.chainStart(acc.Obj, k); j >= 0; j = e.ev[j].prevOn(acc.Obj) {
			y := &e.ev[j]
			op, _ := y.step.OpOn(acc.Obj)
			if y.t != p && (op != ts.Read || acc.Op != ts.Read) && !e.covers(cq, j) {
				e.cands = append(e.cands, cand{j, acc.Obj})
			}
			if op != ts.Read {
				break
			}
		}
	}
	if k >= 0 {
		x := &e.ev[k]
		x.cands, x.candsKnown = append(x.cands[:0], e.cands...), true
	}
}

// reverse inserts the wakeup sequences that reverse the races of thread p's
// step st: the event k of the execution (with outcome out; outs is 1), or,
// when k is -1, a step p never takes because the execution ends with p
// waiting (once for each of its outs outcomes from out). cq is p's clock
// before st, and end the length of the execution.
//
// The races of st are, on each object it touches, with the events that are
// dependent with it there, by another thread, and do not happen before p;
// of those only the latest ones (that happen before no other) are reversed,
// as the paper does: the executions that reversal starts reverse the earlier
// ones. A race is reversed by the sequence notdep(j).st at the state before
// event j; it must be feasible there. A lock acquire is always feasible before
// the previous acquire of its lock (the lock is free there, and nothing in
// notdep(j) takes it) when it is the step's only access; other steps that may
// block (an await: a read of a synchronization variable, any step on an
// object seen waiting, any step of several objects that acquires a lock)
// are checked by replaying the sequence. If st cannot be taken before j (j
// enabled it), it races with no event between j and st on that object
// either, so the search goes back along the object to the latest event
// before which it can.
func (e *explorer[S]) reverse(p ts.Tid, out, outs int, st ts.Step, cq hb.VC, k, end int32) {
	if k >= 0 && e.ev[k].candsKnown {
		// The candidates come from the events before k: known from an
		// earlier analysis of an execution that shares them.
		e.cands = append(e.cands[:0], e.ev[k].cands...)
	} else {
		e.findCands(p, st, cq, k)
	}
	if len(e.cands) == 0 {
		// About half the events of the bundled models race with nothing,
		// in every execution that holds them (the candidates are found
		// from the events before).
		if k >= 0 {
			e.ev[k].done = true
		}
		return
	}
	// A step on a value-dependent object may make another access where the
	// reversal puts it (a cas that failed after e succeeds before it): its
	// step there is found by replaying the sequence, like a step that may block.
	check := e.mayBlock(st) || e.m.TouchesValueDependent(st)
	failed := false
	for ci, c := range e.cands {
		if e.direct(ci) && !e.reverseRace(c, ci, k, p, out, outs, st, cq, end, check) {
			failed = true
		}
	}
	if failed {
		// A reversal that cannot run where it should (a step that blocks)
		// leaves the races it would have made the search reverse later, on
		// the step's other objects: reverse them here, each walking back
		// along its own object, also where one event is the latest race on
		// several (a select's sends on two channels after another select of
		// both): the earlier races behind it differ from object to object.
		for ci, c := range e.cands {
			if !e.direct(ci) {
				e.reverseRace(c, ci, k, p, out, outs, st, cq, end, check)
			}
		}
	}
}

// seenBefore reports whether candidate ci's event is an earlier candidate's
// too (found on another object).
func (e *explorer[S]) seenBefore(ci int) bool {
	for cj := range ci {
		if e.cands[cj].j == e.cands[ci].j {
			return true
		}
	}
	return false
}

// direct reports whether candidate ci is one of the latest races: not found
// on an earlier object, and happening before no other candidate.
func (e *explorer[S]) direct(ci int) bool {
	if e.seenBefore(ci) {
		return false
	}
	c := e.cands[ci]
	for _, c2 := range e.cands {
		if c2.j != c.j && e.covers(e.ev[c2.j].clock, c.j) {
			return false
		}
	}
	return true
}

// reverseFrom reverses the race of candidate c with thread p's step st,
// going back along c's object to the latest event before which st can run,
// and reports whether st could run before c's own event (if not, the races
// on st's other objects that c's event hid are left unreversed).
//
// A sequence notdep(j).st that cannot run because notdep(j) holds the other
// candidates (a step of several objects racing on each: an acquire of two
// locks held by two threads, an await of "x == 0 or y == 0" after writes of
// both) is tried again without them and what happens after them. That
// reverses the races with the other candidates too, so the walk goes on
// with the whole sequence: the traces where the other candidates stay
// before st need st before an earlier event on c's object.
func (e *explorer[S]) reverseFrom(c cand, p ts.Tid, out, outs int, st ts.Step, cq hb.VC, end int32, check bool) bool {
	if m := e.raceMemo(); check && m != nil {
		// Analysed before in an execution that shares the event: where the
		// step can run, and the step it takes there, depend only on the
		// events before it (those after it that notdep adds are
		// independent of it), so the replays need not be made again.
		if e.sleepRejects(m.j, p, out, outs, &m.got, end) {
			return m.j == c.j
		}
		e.seqBuf = e.notdep(e.seqBuf[:0], m.j, end)
		e.insertReversal(m.j, p, out, outs, m.got)
		return m.j == c.j
	}
	atC, cutDone, cutTried := false, false, false
	for j := c.j; j >= 0; j = e.earlierRace(j, c.o, p, st, cq) {
		if !check {
			// A step that never blocks is feasible anywhere: decide the
			// sleep set's verdict before building the sequence, which it
			// rejects four times in five on the bundled models.
			asleep := e.sleepRejects(j, p, out, outs, &st, end)
			if chk := e.opt.checkSleep; chk != nil {
				e.checkSleepRejects(chk, j, p, out, outs, st, end, asleep)
			}
			if asleep {
				return atC || j == c.j
			}
		}
		if !check {
			// Feasible anywhere: insert it, starting below the levels the
			// last insertion of this race recorded (descent.go).
			memo := e.notdepAt(j, end)
			e.memoDescent = !e.opt.noDescents && e.race.k >= 0 && int(j) >= e.base && e.role != roleCoordinator && e.role != rolePredictor
			// A worker's reversal for a coordinator's frame: the log names
			// the race, so that the coordinator keeps descent records too.
			e.logRace = !e.opt.noDescents && e.race.k >= 0 && int(j) < e.base && e.role == roleWorker
			// With one outcome, sleepRejects' verdict is asleepIn's on
			// the sequence (Options.checkSleep checks it).
			e.sleepKnown = outs == 1
			e.seqChains, e.seqEnd = true, end
			e.insertReversal(j, p, out, outs, st)
			e.memoDescent, e.sleepKnown, e.logRace, e.seqChains = false, false, false, false
			if memo {
				e.restoreSeq()
			}
			return atC || j == c.j
		}
		w := e.notdep(e.seqBuf[:0], j, end)
		e.seqBuf = w
		if got, ok := e.feasible(j, w, p, st, check); ok {
			if !cutTried {
				e.rememberRace(j, got)
			}
			e.insertReversal(j, p, out, outs, got)
			return atC || j == c.j
		}
		if !cutDone && len(e.cands) >= 2 {
			if w2, cut := e.withoutCands(w, j); cut {
				cutTried = true
				e.seqBuf = w2
				if got, ok := e.feasible(j, w2, p, st, check); ok {
					e.insertReversal(j, p, out, outs, got)
					atC, cutDone = j == c.j, true
				}
			}
		}
		if !st.Single() {
			// The step waits at the state after notdep(j): reverse its
			// races there (cut.go).
			cutTried = true
			e.cutReverse(j, p, out, outs, st, cq, e.race.k, end)
		}
	}
	return atC
}

// insertReversal inserts e.seqBuf followed by thread p's step got, once for
// each of its outcomes out..out+outs-1, at frame j.
func (e *explorer[S]) insertReversal(j int32, p ts.Tid, out, outs int, got ts.Step) {
	n := len(e.seqBuf)
	for o := out; o < out+outs; o++ {
		e.seqBuf = append(e.seqBuf[:n], wev{t: p, out: o, step: got})
		if e.memoDescent {
			e.descent = e.descentFor(e.race.k, e.race.ci, j, o)
			e.descentOK = e.usable(e.descent)
		}
		e.insertAt(int(j), e.seqBuf)
		e.descent, e.descentOK = nil, false
	}
}

// withoutCands removes in place from w = notdep(j) the events that are
// candidates later than j or happen after one, and reports whether it
// removed any.
func (e *explorer[S]) withoutCands(w []wev, j int32) ([]wev, bool) {
	// w holds the events after j not happening after j, in order; walk
	// them again to know their indices.
	xi := &e.ev[j]
	n, cut := 0, false
	idx := j + 1
	for i := range w {
		for e.ev[idx].clock[xi.t] >= xi.n {
			idx++ // happens after j: not in w
		}
		y := &e.ev[idx]
		idx++
		drop := false
		for _, c := range e.cands {
			if c.j > j && e.covers(y.clock, c.j) {
				drop = true
				break
			}
		}
		if drop {
			cut = true
			continue
		}
		w[n] = w[i]
		n++
	}
	return w[:n], cut
}

// earlierRace returns the latest event before event j on object o (which
// step st of thread p touches) that is dependent with st there and does not
// happen before p (clock cq), or -1.
func (e *explorer[S]) earlierRace(j int32, o ts.Obj, p ts.Tid, st ts.Step, cq hb.VC) int32 {
	mine, _ := st.OpOn(o)
	for j = e.ev[j].prevOn(o); j >= 0; j = e.ev[j].prevOn(o) {
		y := &e.ev[j]
		if op, _ := y.step.OpOn(o); op == ts.Read && mine == ts.Read {
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
// (its schedule is real) and makes the sequence infeasible. A replay that
// does not see the steps the execution saw means the system broke the
// contract, or that the state stored at j was modified: the state is
// checked, and a modified one stops the search with the error.
func (e *explorer[S]) feasible(j int32, w []wev, p ts.Tid, st ts.Step, check bool) (got ts.Step, ok bool) {
	if !check {
		return st, true
	}
	if e.Cancelled() {
		return st, false
	}
	e.replays++
	sched := append(e.replaySched[:0], e.sched[:j]...)
	defer func() {
		if r := recover(); r != nil {
			switch r.(type) {
			case *ts.CallbackError, *ts.SystemError:
				panic(r)
			}
			e.violation(&ts.Violation{Kind: ts.Panic, Thread: sched[len(sched)-1].Thread}, sched)
			ok = false
		}
		e.replaySched = sched[:0]
	}()
	s := e.stack[j].state
	for _, x := range w {
		sched = append(sched, ts.Move{Thread: x.t, Outcome: x.out})
		if got, status := e.m.Next(s, x.t); status != ts.Enabled || !got.Equal(x.step) {
			e.checkFrame(int(j))
			return got, false // the system is not what the analysis assumed
		}
		s = e.m.Apply(s, ts.Move{Thread: x.t, Outcome: x.out})
	}
	sched = append(sched, ts.Move{Thread: p})
	got, status := e.m.Next(s, p)
	return got, status == ts.Enabled
}

// checkFrame checks that the state of frame i is still what it was when the
// frame was pushed, and stops the search with the error if not.
func (e *explorer[S]) checkFrame(i int) {
	f := &e.stack[i]
	if err := e.m.Unchanged(f.state, e.baseline(i), e.sched[:i], f.taken, &e.current); err != nil {
		e.Fail(err)
	}
}

// pending analyses, where an execution ends at the state of frame f (not
// pushed yet), the next steps of the threads that have not finished: steps
// the execution does not take, whose races the analysis of its events cannot
// see. In a deadlock (or an end where threads wait, Idle) those are the
// waiting threads; at a failed check, every thread still running. Under
// KeepGoing with a Checker, executions end at failed checks before every
// thread has made its racing steps, so the waiting threads of every state
// are analysed too, and so, always, are waiting steps that write several
// objects (see ODPOR, "Blocking steps of several objects that write").
// waiting tells whether a thread waits at f: where none does and the
// execution goes on, there is nothing to analyse.
func (e *explorer[S]) pending(f *frame[S], ends, waiting bool) {
	if !ends && !waiting {
		return
	}
	end := int32(len(e.ev))
	for p := range ts.Tid(e.n) {
		st := f.status[p]
		if st.Waiting() {
			for a := range f.steps[p].NumAccesses() {
				e.blockObj(f.steps[p].At(a).Obj)
			}
		}
		if st == ts.Finished || (!ends && (st == ts.Enabled || !(e.strict || writesOfSeveral(f.steps[p])))) {
			continue
		}
		e.reverse(p, 0, f.outs[p], f.steps[p], e.clockOf(p), -1, end)
	}
}

// rootChildAt calls addRootChild on frame i, or, in a unit's worker where
// frame i is the coordinator's, logs the call for it.
func (e *explorer[S]) rootChildAt(i int32, q ts.Tid) {
	if int(i) < e.base {
		e.log = append(e.log, logOp{kind: opRootChild, frame: i, t: int32(q)})
		return
	}
	e.addRootChild(i, q)
}

// addRootChild makes f explore thread q with every outcome, as adding q to a
// backtrack set does, except the outcomes asleep or already branches, and
// reports whether it added any.
func (e *explorer[S]) addRootChild(i int32, q ts.Tid) bool {
	f := &e.stack[i]
	added := false
	for c := range f.outs[q] {
		if e.asleep(f, q, c) || e.rootChild(f, q, c) >= 0 {
			continue
		}
		e.insPath = e.insPath[:0]
		e.planned(int(i), []wev{{t: q, out: c, step: f.steps[q]}}, true)
		n := e.wt.addChild(f.root, wev{t: q, out: c, step: f.steps[q]})
		e.wt.nodes[n].extra = true
		e.backtracks++
		added = true
	}
	return added
}

// rootChild returns f's wakeup-tree child for thread q's outcome c, or -1.
func (e *explorer[S]) rootChild(f *frame[S], q ts.Tid, c int) int32 {
	for n := e.wt.nodes[f.root].first; n >= 0; n = e.wt.nodes[n].next {
		if x := &e.wt.nodes[n]; ts.Tid(x.t) == q && int(x.out) == c {
			return n
		}
	}
	return -1
}

// writesOfSeveral reports whether step st touches several objects and
// writes one of them at least (a P of two semaphores in one transition; a
// select of package threads over several channels, which writes each; a P
// of s that also waits for x == 0).
func writesOfSeveral(st ts.Step) bool {
	if st.Single() {
		return false
	}
	for a := range st.NumAccesses() {
		if st.At(a).Op == ts.Write {
			return true
		}
	}
	return false
}

// mayBlock reports whether step st may be disabled, so that whether it can
// be taken after a sequence has to be checked (by replay): a read of a
// synchronization variable (an await), any step on an object on which some
// step has been seen waiting, or a step of several objects that acquires a
// lock. (A lone lock acquire may block too; the race analysis knows where it
// cannot.)
func (e *explorer[S]) mayBlock(st ts.Step) bool {
	for a := range st.NumAccesses() {
		acc := st.At(a)
		if acc.Op == ts.Read && acc.Sync {
			return true
		}
		if acc.Op == ts.Acquire && !st.Single() {
			return true
		}
		if o := acc.Obj; o >= 0 && o < denseObjs {
			if e.blockedIn.Test(uint(o)) {
				return true
			}
		} else if len(e.blockedObjs) > 0 {
			if _, ok := e.blockedObjs[o]; ok {
				return true
			}
		}
	}
	return false
}

// blockObj adds o to the objects of steps seen waiting (blockedIn marks
// the small ones, which mayBlock tests there alone: every addition goes
// through here).
func (e *explorer[S]) blockObj(o ts.Obj) {
	if o >= 0 && o < denseObjs {
		if e.blockedIn.Test(uint(o)) {
			return
		}
		e.blockedIn.Set(uint(o))
	}
	e.blockedObjs[o] = struct{}{}
}

// seeBlocked records the objects of the waiting (Blocked or Idle) threads'
// steps at frame f that mayBlock does not already treat as blocking (a
// write that waits, such as a Once's Do or a send on a full channel, a
// select of package threads): a race with such a step may
// not be reversible where it is found, and reverseFrom then walks back to
// the latest earlier event before which the step can run, which it can only
// do if it replays the candidate sequences. Awaits (synchronization reads)
// and lone lock acquires are left out: the analysis already knows where
// they can run, and replaying them would only cost.
func (e *explorer[S]) seeBlocked(f *frame[S]) {
	for t := range ts.Tid(e.n) {
		if !f.status[t].Waiting() {
			continue
		}
		st := f.steps[t]
		for a := range st.NumAccesses() {
			acc := st.At(a)
			if acc.Op == ts.Write || (acc.Op == ts.Read && !acc.Sync) {
				for b := range st.NumAccesses() {
					e.blockObj(st.At(b).Obj)
				}
				break
			}
		}
	}
}

// learnBlocked handles a planned branch of thread p found Blocked (or Idle)
// at frame f (the top of the stack): p's step was not known to block when the race
// that planned it was reversed (an unmarked write that waits), so the
// reversal assumed it could run. Its objects are recorded, so that later
// reversals are replayed, and p's step is analysed here as a waiting
// thread's is at a deadlock: its races with the events of the stack are
// reversed where it can run, walking back along its objects, which plans
// the executions the infeasible branch stood for.
func (e *explorer[S]) learnBlocked(f *frame[S], p ts.Tid) {
	st := f.steps[p]
	for a := range st.NumAccesses() {
		e.blockObj(st.At(a).Obj)
	}
	e.reverse(p, 0, f.outs[p], st, e.clockOf(p), -1, int32(len(e.ev)))
}
