package cbound_test

import (
	"context"
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
		p := tstest.Programs(tstest.GenOptions{MaxThreads: 3, NoAsserts: true}.Core()).Draw(t, "program")
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
		p := tstest.Programs(tstest.GenOptions{MaxThreads: 3}.Core()).Draw(t, "program")
		racy, _ := racesByFullSearch(t, p)
		res, races := syncOnlyViolations(t, p)
		if racy && res.Violations == 0 {
			t.Fatalf("the full search has a race, sync-only reports nothing")
		}
		if racy || races > 0 {
			return // reported races were replayed by syncOnlyViolations
		}
		rep := tstest.CheckReduction(t, p, bounded(cbound.ICB[tstest.State], cbound.Options{Bound: cbound.Unbounded, SyncOnly: true}), tstest.ReductionOptions{Bound: ts.NoBound})
		if res.Transitions > rep.Reference.Result.Transitions {
			t.Fatalf("sync-only took %d transitions, the full search %d", res.Transitions, rep.Reference.Result.Transitions)
		}
	})
}
