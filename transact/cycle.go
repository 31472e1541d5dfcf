package transact

import "github.com/weftlab/weft/ts"

// Cycle detection, the usual answer to the ignoring problem (condition C3 of
// Clarke, Grumberg and Peled, Model Checking, pp. 150, 158), as the paper's
// section 5 compares CPC with it: a transaction is forcibly ended wherever a
// cycle is closed in its post-commit part, that is where its thread's
// transition from a state in the post-commit phase leads to a state on the
// depth-first search stack. Cycle detection alone is not sufficient (the
// paper's section 1: Figure 2 with assume(false) has no cycle, yet the
// transaction never completes), so it comes with the dead-end rule: a state
// in the post-commit phase from which the thread has no transition is forced
// too. Pre-commit cycles need nothing: a transaction that never commits can
// be moved, whole, after everything the other threads do (Theorem 1 of the
// paper), and they were all scheduled where it began.
//
// Both rules are decided on the record of Figure 6 whose thread is running
// the transaction; Xend then makes L24-L27 schedule every thread there.

// closesCycle applies the cycle rule to the record in stack slot d, whose
// thread t, in phase p, reached the state of record r already visited.
func (e *engine[S]) closesCycle(d int, t ts.Tid, p bool, r int32) {
	q := &e.stack[d]
	if p || q.xend || !e.records[r].onStack {
		return
	}
	q.xend = true
	e.records[q.rec].cpc = true
	e.force(d, CycleClosed)
}

// deadEnd is the dead-end rule: a record whose thread, past its commit, has
// no transition (it is blocked, or finished and stuck: a finished thread
// that exited ended its transaction already, by line L7).
func deadEnd(p bool, st ts.Status) Reason {
	if !p && st != ts.Enabled {
		return DeadEnd
	}
	return 0
}

// deadStep forces all threads at stack slot d, whose thread's transition, in
// the post-commit part of its transaction, led to a violating state: for the
// search, a dead end of the transaction (no search goes on from a violating
// state), which the paper's threads gone wrong are not (the other threads go
// on from there).
func (e *engine[S]) deadStep(d int) {
	q := &e.stack[d]
	if q.xend {
		return
	}
	q.xend = true
	e.records[q.rec].cpc = true
	e.force(d, DeadEnd)
}
