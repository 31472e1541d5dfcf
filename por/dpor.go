package por

import (
	"context"

	"github.com/weftlab/weft/ts"
)

// DPOR is dynamic partial-order reduction: Flanagan and Godefroid, "Dynamic
// partial-order reduction for model checking software" (POPL 2005), with
// happens-before tracked by vector clocks and with sleep sets, as Figure 2.1
// of Yu Yang's thesis (Utah, 2009) presents it, but with the paper's
// backtrack rule rather than the thesis's shortcut (PAPER-NOTES, section 3).
//
// At every state s of the execution S, for every thread p that has a next
// step next(s,p), enabled or blocked, let i be the latest transition of S that
// is dependent with next(s,p), may be co-enabled with it, and does not happen
// before p (i ->S p, decided by p's vector clock). At pre(S,i), the state
// from which i was taken, the search adds to the backtrack set one thread of
// E = {q enabled at pre(S,i) | q = p, or q has a transition after i that
// happens before p}, preferring p, or every enabled thread if E is empty.
// A frame then explores its backtrack set, less the threads asleep.
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
func (e *explorer[S]) backtrackAll(f *frame[S]) {
	for p := range ts.Tid(e.n) {
		if f.status[p] == ts.Finished {
			continue
		}
		cp := e.clockOf(p)
		if i := e.latestRace(p, f.steps[p], cp, e.held[p]); i >= 0 {
			e.backtrackAt(i, p, cp)
		}
	}
}

// backtrackAt adds to the backtrack set of pre(S,i) a thread that lets p's
// step (whose thread has clock cp) come before transition i.
func (e *explorer[S]) backtrackAt(i int32, p ts.Tid, cp []uint32) {
	f := &e.stack[i]
	if f.status[p] == ts.Enabled {
		e.addBacktrack(f, p)
		return
	}
	// q has a transition after i that happens before p: p's clock counts
	// more of q's events than there are up to and including i.
	x := &e.ev[i]
	pick := ts.Tid(-1)
	for q := range ts.Tid(e.n) {
		if f.status[q] != ts.Enabled {
			continue
		}
		upto := f.count[q]
		if x.t == q {
			upto++
		}
		if cp[q] > upto {
			if f.bt.Test(uint(q)) || f.sleep.Test(uint(q)) {
				return // already there
			}
			if pick < 0 {
				pick = q
			}
		}
	}
	if pick >= 0 {
		e.addBacktrack(f, pick)
		return
	}
	for q := range ts.Tid(e.n) {
		if f.status[q] == ts.Enabled {
			e.addBacktrack(f, q)
		}
	}
}

func (e *explorer[S]) addBacktrack(f *frame[S], q ts.Tid) {
	if f.bt.Test(uint(q)) || f.sleep.Test(uint(q)) {
		return
	}
	f.bt.Set(uint(q))
	e.backtracks++
}
