package cbound_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/hb"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// racesByFullSearch runs ts.Explore and reports whether any execution, up to
// its end or its violation, has a data race, and the fewest preemptions of
// such an execution.
func racesByFullSearch(t *rapid.T, p *tstest.Program) (racy bool, fewest int) {
	fewest = -1
	look := func(sched ts.Schedule) {
		run, err := ts.Replay[tstest.State](p, sched)
		if err != nil {
			t.Fatal(err)
		}
		if len(hb.Races(run.Trace.Events)) > 0 {
			racy = true
			if fewest < 0 || run.Trace.Preemptions < fewest {
				fewest = run.Trace.Preemptions
			}
		}
	}
	_, err := ts.Explore(context.Background(), p, ts.Options{
		KeepGoing:   true,
		OnTerminal:  func(_ any, s ts.Schedule) { look(s) },
		OnViolation: func(v *ts.Violation) { look(v.Trace.Schedule()) },
	})
	if err != nil {
		t.Fatal(err)
	}
	return racy, fewest
}

// syncOnlyViolations runs unbounded sync-only ICB with KeepGoing and returns
// its result and the races it reported, each checked to replay.
func syncOnlyViolations(t *rapid.T, p *tstest.Program) (res ts.Result, races int) {
	res, err := cbound.ICB(context.Background(), p, cbound.Options{Bound: cbound.Unbounded, SyncOnly: true,
		Options: ts.Options{KeepGoing: true, OnViolation: func(v *ts.Violation) {
			if v.Kind != ts.DataRace {
				return
			}
			races++
			run, err := ts.Replay[tstest.State](p, v.Trace.Schedule())
			if err != nil || len(hb.Races(run.Trace.Events)) == 0 {
				t.Fatalf("reported race %v does not replay: %v", v, err)
			}
		}}})
	if err != nil {
		t.Fatal(err)
	}
	return res, races
}

// Without assertions to end executions early, sync-only scheduling finds a
// data race exactly when the full search has one.
func TestSyncOnlyFindsEveryRace(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{MaxThreads: 3, NoAsserts: true}).Draw(t, "program")
		racy, _ := racesByFullSearch(t, p)
		if _, races := syncOnlyViolations(t, p); racy != (races > 0) {
			t.Fatalf("full search racy=%v, sync-only found %d races", racy, races)
		}
	})
}

// The guarantee of ICB Theorems 2-3: when sync-only search reports no race,
// the program is race-free and sync-only reaches the same terminal states and
// violations as the full search, with no more transitions; a program with a
// race or a violation gets some violation reported. (An assertion that fails
// before the racing access ends every sync-only execution there, so the
// violation reported may be that assertion rather than the race.)
func TestSyncOnlyPreservesRaceFreePrograms(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{MaxThreads: 3}).Draw(t, "program")
		racy, _ := racesByFullSearch(t, p)
		res, races := syncOnlyViolations(t, p)
		if racy && res.Violations == 0 {
			t.Fatalf("the full search has a race, sync-only reports nothing")
		}
		if racy || races > 0 {
			return // reported races were replayed by syncOnlyViolations
		}
		rep := tstest.CheckReduction(t, p, bounded(cbound.ICB[tstest.State], cbound.Options{Bound: cbound.Unbounded, SyncOnly: true}), tstest.ReductionOptions{Bound: ts.NoBound})
		// Transitions taken before a restart (a synchronization object
		// learned late) are work the final search does not need.
		if own := res.Transitions - res.Stats["restart-transitions"]; own > rep.Reference.Result.Transitions {
			t.Fatalf("sync-only took %d transitions, the full search %d", own, rep.Reference.Result.Transitions)
		}
	})
}

// syncOnlyAll runs unbounded sync-only ICB with KeepGoing and returns the
// kinds of violation it reports and the terminal states it reaches.
func syncOnlyAll(t *testing.T, p *tstest.Program) (kinds map[ts.ViolationKind]int, finals map[string]bool) {
	t.Helper()
	kinds, finals = map[ts.ViolationKind]int{}, map[string]bool{}
	_, err := cbound.ICB(context.Background(), p, cbound.Options{Bound: cbound.Unbounded, SyncOnly: true,
		Options: ts.Options{KeepGoing: true,
			OnViolation: func(v *ts.Violation) { kinds[v.Kind]++ },
			OnTerminal:  func(s any, _ ts.Schedule) { finals[s.(tstest.State).String()] = true },
		}})
	if err != nil {
		t.Fatal(err)
	}
	return kinds, finals
}

// An object with both plain and synchronization accesses: every access to it
// is a scheduling point, so the await sees x == 1 between the two plain
// writes, and the plain read after the await races with the second write.
func TestSyncOnlyMixedObjects(t *testing.T) {
	vars := []tstest.Var{{Name: "x"}}
	passes := &tstest.Program{Vars: vars, Code: [][]tstest.Instr{
		{tstest.Store(0, 1), tstest.Store(0, 2)},
		{tstest.Await(0, 1)},
	}}
	kinds, finals := syncOnlyAll(t, passes)
	if len(kinds) != 1 || kinds[ts.Deadlock] == 0 {
		t.Errorf("await x==1: violations %v, want only the deadlock where T1 waits for ever", kinds)
	}
	found := false
	for f := range finals {
		found = found || strings.Contains(f, "T1 done")
	}
	if !found {
		t.Errorf("await x==1: no terminal state where T1 passes; reached %v", finals)
	}
	racy := &tstest.Program{Vars: vars, Code: [][]tstest.Instr{
		{tstest.Store(0, 1), tstest.Store(0, 2)},
		{tstest.Await(0, 1), tstest.Load(0, 0)},
	}}
	if kinds, _ := syncOnlyAll(t, racy); kinds[ts.DataRace] == 0 {
		t.Errorf("await x==1; r0=x: violations %v, want the race of x=2 with r0=x", kinds)
	}
}

// A check that fails after a plain step ends its execution there; the state
// before that step becomes a scheduling point, so the interleavings that
// show the other threads' bugs are explored too.
func TestSyncOnlyFailureAfterPlainStep(t *testing.T) {
	// T0: r0=y; assert r0==0. T1: y=1; r0=x; assert r0!=0. y atomic, x plain.
	two := &tstest.Program{
		Vars: []tstest.Var{{Name: "x"}, {Name: "y", Sync: true}},
		Code: [][]tstest.Instr{
			{tstest.Load(0, 1), tstest.AssertEq(0, 0)},
			{tstest.Store(1, 1), tstest.Load(0, 0), tstest.AssertNe(0, 0)},
		},
	}
	var threads []ts.Tid
	_, err := cbound.ICB(context.Background(), two, cbound.Options{Bound: cbound.Unbounded, SyncOnly: true,
		Options: ts.Options{KeepGoing: true, OnViolation: func(v *ts.Violation) { threads = append(threads, v.Thread) }}})
	if err != nil || !slices.Contains(threads, 0) || !slices.Contains(threads, 1) {
		t.Errorf("failures by threads %v (%v), want both T0's and T1's", threads, err)
	}
	// T0: lock; unlock; x=1; assert r0==1. T1: lock; r0=x; unlock.
	hidden := &tstest.Program{
		Vars:  []tstest.Var{{Name: "x"}},
		Locks: []string{"m"},
		Code: [][]tstest.Instr{
			{tstest.Acquire(0), tstest.Release(0), tstest.Store(0, 1), tstest.AssertEq(0, 1)},
			{tstest.Acquire(0), tstest.Load(0, 0), tstest.Release(0)},
		},
	}
	if kinds, _ := syncOnlyAll(t, hidden); kinds[ts.DataRace] == 0 {
		t.Errorf("lock; unlock; x=1; assert: violations %v, want the race of x=1 with r0=x", kinds)
	}
}

// A global invariant: the steps that write what it reads are scheduling
// points, so an interleaving of plain writes that breaks it is explored.
func TestSyncOnlyInvariant(t *testing.T) {
	// T0: x=1; x=0. T1: y=1; y=0. Invariant: x+y != 2. No synchronization.
	p := &tstest.Program{
		Vars:       []tstest.Var{{Name: "x"}, {Name: "y"}},
		Invariants: []tstest.Cond{{X: 0, Y: 1, K: 2}},
		Code:       [][]tstest.Instr{{tstest.Store(0, 1), tstest.Store(0, 0)}, {tstest.Store(1, 1), tstest.Store(1, 0)}},
	}
	if kinds, _ := syncOnlyAll(t, p); kinds[ts.InvariantFailure] == 0 {
		t.Errorf("violations %v, want the invariant failure", kinds)
	}
}

// A race names its object as the trace does (the system's ObjNamer).
func TestSyncOnlyRaceNamesObject(t *testing.T) {
	p := &tstest.Program{
		Vars: []tstest.Var{{Name: "balance"}},
		Code: [][]tstest.Instr{{tstest.Store(0, 1)}, {tstest.Load(0, 0)}},
	}
	res, err := cbound.ICB(context.Background(), p, cbound.Options{SyncOnly: true, Bound: cbound.AtMost(1)})
	if err != nil || res.Violation == nil || res.Violation.Kind != ts.DataRace {
		t.Fatalf("got %v, %v; want a data race", res, err)
	}
	if msg := res.Violation.Err.Error(); !strings.HasPrefix(msg, "data race on balance: ") {
		t.Errorf("race message %q does not name the object", msg)
	}
	// Named when found: a system whose names change as it runs (package
	// threads names objects as an execution makes them) does not rename
	// the object of a race reported before.
	sys := &renaming{Program: p}
	res, err = cbound.ICB(context.Background(), sys, cbound.Options{SyncOnly: true, Bound: cbound.AtMost(1)})
	if err != nil || res.Violation == nil {
		t.Fatalf("got %v, %v; want a data race", res, err)
	}
	first := res.Violation.Err.Error()
	if again := res.Violation.Err.Error(); again != first || !strings.HasPrefix(first, "data race on name") {
		t.Errorf("race message %q, then %q: want one name given when found", first, again)
	}
}

// renaming is a program whose object names change at each call.
type renaming struct {
	*tstest.Program
	calls int
}

func (r *renaming) ObjName(o ts.Obj) string {
	r.calls++
	return fmt.Sprintf("name%d", r.calls)
}
