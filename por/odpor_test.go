package por_test

import (
	"context"
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// On programs without blocking steps (no locks, no awaits) or assertions,
// ODPOR explores exactly one execution per terminal happens-before state
// (Mazurkiewicz trace).
func TestODPOROptimalWithoutBlocking(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{NoLocks: true, NoAwait: true, NoSync: true, NoAsserts: true}.Core()).Draw(t, "program")
		optimalOn[tstest.State](t, unchecked[tstest.State]{p})
	})
}

// optimalOn asserts that ODPOR explores sys exactly once per Mazurkiewicz
// trace (tstest.CheckOptimal), with no execution cut by its sleep sets and
// no planned branch found not enabled.
func optimalOn[S any](t tstest.TB, sys ts.TransitionSystem[S]) int {
	t.Helper()
	return optimalChoices(t, sys, false)
}

// optimalChoices is optimalOn, which allows sleep-blocked executions when
// choices is set: on systems with transitions of several outcomes ODPOR
// explores every outcome where it explores a transition, and some of those
// branches are cut by sleep sets (each trace is still explored once). Both
// allow them where a sleeping thread whose step may wait did not reject a
// wakeup sequence (Stats["waiting-sleepers"]; see the ODPOR doc), and only
// there.
func optimalChoices[S any](t tstest.TB, sys ts.TransitionSystem[S], choices bool) int {
	t.Helper()
	rep := tstest.CheckOptimal(t, sys, adapt(por.ODPOR[S]), tstest.ReductionOptions{Bound: ts.NoBound})
	if b := rep.Result.Stats["sleep-blocked"]; b != 0 && !choices && rep.Result.Stats["waiting-sleepers"] == 0 {
		t.Errorf("%d sleep-blocked executions, and no waiting sleeper", b)
	}
	if b := rep.Result.Stats["infeasible-branches"]; b != 0 {
		t.Errorf("%d wakeup-tree branches were not enabled", b)
	}
	return len(rep.Traces)
}

// With locks (taken in one order, always released) and awaits (which may
// block for ever), ODPOR is exactly optimal too. The programs keep their
// Check, which never fails here: a Checker costs nothing until a check fails.
func TestODPORWithBlocking(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		// NoDeadlocks keeps the mutex discipline (no release of a lock not
		// held, which Check would report); awaits still block.
		optimalOn[tstest.State](t, tstest.Programs(tstest.GenOptions{NoAsserts: true, NoDeadlocks: true}.Core()).Draw(t, "program"))
	})
}

// With locks taken in any order (so deadlocks) and awaits, ODPOR is exactly
// optimal; programs that release a lock they do not hold (a jump skipped its
// acquire) break the mutex contract and are left out.
func TestODPOROptimalDeadlocks(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{NoAsserts: true}.Core()).Draw(t, "program")
		if releasesUnheld(t, p) {
			return
		}
		optimalOn[tstest.State](t, unchecked[tstest.State]{p})
	})
}

// releasesUnheld reports whether some execution of p releases a lock its
// thread does not hold (the only check that fails in a program without
// assertions).
func releasesUnheld(t *rapid.T, p *tstest.Program) bool {
	bad := false
	_, err := ts.Explore(context.Background(), p, ts.Options{KeepGoing: true, OnViolation: func(v *ts.Violation) {
		bad = bad || v.Kind == ts.CheckFailure
	}})
	if err != nil {
		t.Fatal(err)
	}
	return bad
}

// optimal is optimalOn for a bundled model, its Check hidden.
func optimal[S any](t *testing.T, name string, sys ts.TransitionSystem[S]) int {
	t.Helper()
	var n int
	t.Run(name, func(t *testing.T) { n = optimalOn[S](t, unchecked[S]{sys}) })
	return n
}

// On the bundled acyclic models, with and without blocking (locks in
// filesystem, philosophers, locks3, pfscan and aget; awaits in bluetooth and
// the work-stealing queues; assume(false) in cpc-fig2-assume), ODPOR explores
// exactly the terminal HB states counted by brute force. -por.long adds the
// models where the brute force is slow.
func TestODPORModels(t *testing.T) {
	for n := 1; n <= 3; n++ {
		optimal(t, fmt.Sprintf("indexer-%d", n), models.NewIndexer(n))
	}
	for n := 1; n <= 2; n++ {
		optimal(t, fmt.Sprintf("filesystem-%d", n), models.NewFilesystem(n))
	}
	for n := 1; n <= 4; n++ {
		optimal(t, fmt.Sprintf("lastzero-%d", n), models.NewLastzero(n))
	}
	for n := 2; n <= 4; n++ {
		optimal(t, fmt.Sprintf("philosophers-%d", n), models.NewPhilosophers(n))
	}
	optimal(t, "aget-2", models.NewAGet(2))
	optimal(t, "aget-bug-2", models.NewAGetBuggy(2))
	for n := 1; n <= 2; n++ {
		optimal(t, fmt.Sprintf("bluetooth-%d", n), models.NewBluetooth(n))
		optimal(t, fmt.Sprintf("cpc-fig2-assume-%d", n), models.NewCPCFig2Assume(n))
	}
	for n := 2; n <= 4; n++ {
		optimal(t, fmt.Sprintf("inspect-example1-%d", n), models.NewInspectExample1(n))
	}
	optimal(t, "cbpor-fig1", models.NewCBPORFig1(0))
	optimal(t, "lost-update", models.NewLostUpdate(0))
	optimal(t, "mat-fig1", models.NewMATFig1(0))
	if got := optimal(t, "locks3", models.NewLocks3(0)); got != 6 {
		t.Errorf("locks3: %d terminal HB states, want 6", got)
	}
	if !*long {
		return
	}
	// Where the brute force takes seconds (pfscan-2, the queues) or minutes
	// (aget-bug-3).
	optimal(t, "pfscan-2", models.NewPFScan(2))
	optimal(t, "wsq", models.NewWSQ(1))
	optimal(t, "wsq-bug1", models.NewWSQBug1(1))
	optimal(t, "wsq-bug2", models.NewWSQBug2(1))
	optimal(t, "wsq-bug3", models.NewWSQBug3(1))
	optimal(t, "aget-3", models.NewAGet(3))
	optimal(t, "aget-bug-3", models.NewAGetBuggy(3))
}

// On random programs with every feature (locks, awaits, assertions), ODPOR
// reaches exactly the terminal states and violations of ts.Explore.
func TestODPORReductionRandom(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(genShape(t)).Draw(t, "program")
		tstest.CheckReduction(t, p, adapt(por.ODPOR[tstest.State]), tstest.ReductionOptions{Bound: ts.NoBound})
	})
}

// With every wakeup-tree insertion answering its weak-initial tests from the
// execution's chains (the default does so only for sequences longer than
// these programs make), ODPOR reaches exactly the terminal states and
// violations of ts.Explore on random programs with every feature, and on
// programs without checks explores each trace ts.Explore reaches exactly
// once; split into units on 2 workers, with every commit answering from its
// index (seqIndex), it does the same.
func TestODPORChainsAgainstExplore(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(genShape(t)).Draw(t, "program")
		tstest.CheckReduction(t, p, adapt(por.ODPORAllChains[tstest.State]), tstest.ReductionOptions{Bound: ts.NoBound})
		// Split into units, so that the commits read their indexes too.
		depth := rapid.IntRange(1, 4).Draw(t, "splitDepth")
		split := func(ctx context.Context, sys ts.TransitionSystem[tstest.State], opt por.Options) (ts.Result, error) {
			opt.Workers, opt.SplitAfter, opt.SplitDepth = 2, -1, depth
			return por.ODPORAllChains(ctx, sys, opt)
		}
		tstest.CheckReduction(t, p, adapt(split), tstest.ReductionOptions{Bound: ts.NoBound})
		q := tstest.Programs(tstest.GenOptions{NoAsserts: true, NoDeadlocks: true}.Core()).Draw(t, "optimal")
		tstest.CheckOptimal(t, q, adapt(por.ODPORAllChains[tstest.State]), tstest.ReductionOptions{Bound: ts.NoBound})
		tstest.CheckOptimal(t, q, adapt(split), tstest.ReductionOptions{Bound: ts.NoBound})
	})
}
