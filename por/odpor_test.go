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
		p := tstest.Programs(tstest.GenOptions{NoLocks: true, NoAwait: true, NoSync: true, NoAsserts: true}).Draw(t, "program")
		optimalOn(t, unchecked[tstest.State]{p})
	})
}

// optimalOn asserts that ODPOR explores sys exactly once per terminal
// happens-before state, counted by brute force: never two executions with
// one state, none ts.Explore does not reach, none cut by its sleep sets.
func optimalOn(t *rapid.T, sys ts.TransitionSystem[tstest.State]) {
	want := classes(t, sys)
	got, res := explored(t, sys, por.ODPOR[tstest.State])
	if res.Executions != int64(len(want)) {
		t.Fatalf("odpor explores %d executions, there are %d terminal HB states", res.Executions, len(want))
	}
	for k, n := range got {
		if n > 1 {
			t.Fatalf("odpor explores %d executions with HB state %s", n, k)
		}
		if want[k] == 0 {
			t.Fatalf("odpor reaches HB state %s, which ts.Explore does not", k)
		}
	}
	if b := res.Stats["sleep-blocked"]; b != 0 {
		t.Fatalf("%d sleep-blocked executions", b)
	}
	if b := res.Stats["infeasible-branches"]; b != 0 {
		t.Fatalf("%d wakeup-tree branches were not enabled", b)
	}
}

// With locks (taken in one order, always released) and awaits (which may
// block for ever), ODPOR is exactly optimal too. The programs keep their
// Check, which never fails here: a Checker costs nothing until a check fails.
func TestODPORWithBlocking(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		// NoDeadlocks keeps the mutex discipline (no release of a lock not
		// held, which Check would report); awaits still block.
		optimalOn(t, tstest.Programs(tstest.GenOptions{NoAsserts: true, NoDeadlocks: true}).Draw(t, "program"))
	})
}

// With locks taken in any order (so deadlocks) and awaits, ODPOR is exactly
// optimal; programs that release a lock they do not hold (a jump skipped its
// acquire) break the mutex contract and are left out.
func TestODPOROptimalDeadlocks(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{NoAsserts: true}).Draw(t, "program")
		if releasesUnheld(t, p) {
			return
		}
		optimalOn(t, unchecked[tstest.State]{p})
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

// optimal asserts that ODPOR explores sys (its Check hidden) exactly once per
// terminal happens-before state, counted by brute force: never two
// executions with one state, none that ts.Explore does not reach, none
// sleep-blocked. It returns the count.
func optimal[S any](t *testing.T, name string, sys ts.TransitionSystem[S]) int {
	t.Helper()
	want := classes(t, unchecked[S]{sys})
	got, res := explored(t, unchecked[S]{sys}, por.ODPOR[S])
	if res.Executions != int64(len(want)) {
		t.Errorf("%s: odpor %d executions, %d terminal HB states", name, res.Executions, len(want))
	}
	for k, n := range got {
		if n != 1 || want[k] == 0 {
			t.Errorf("%s: HB state %s explored %d times (brute force: %d)", name, k, n, want[k])
		}
	}
	if b := res.Stats["sleep-blocked"]; b != 0 {
		t.Errorf("%s: %d sleep-blocked executions", name, b)
	}
	if b := res.Stats["infeasible-branches"]; b != 0 {
		t.Errorf("%s: %d wakeup-tree branches were not enabled", name, b)
	}
	return len(want)
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
