package cbound_test

import (
	"context"
	"testing"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/hb"
	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// syncOnlyOnModel compares sync-only ICB with the full search on a bundled
// model: it finds a race iff some execution of the full search has one, and
// on a race-free model reaches the same terminal states and violations with
// fewer transitions. It returns whether the model is racy.
func syncOnlyOnModel[S any](t *testing.T, name string, sys ts.TransitionSystem[S]) bool {
	t.Helper()
	ctx := context.Background()
	racy := false
	look := func(sched ts.Schedule) {
		if racy {
			return
		}
		run, err := ts.Replay(sys, sched)
		if err != nil {
			t.Fatal(err)
		}
		racy = len(hb.Races(run.Trace.Events)) > 0
	}
	full, err := ts.Explore(ctx, sys, ts.Options{KeepGoing: true,
		OnTerminal:  func(_ any, s ts.Schedule) { look(s) },
		OnViolation: func(v *ts.Violation) { look(v.Trace.Schedule()) }})
	if err != nil {
		t.Fatal(err)
	}
	races := 0
	so, err := cbound.ICB(ctx, sys, cbound.Options{Bound: cbound.Unbounded, SyncOnly: true, Options: ts.Options{KeepGoing: true,
		OnViolation: func(v *ts.Violation) {
			if v.Kind == ts.DataRace {
				races++
			}
		}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%-16s racy %-5v full: %7d transitions; sync-only: %6d transitions, %d races", name, racy, full.Transitions, so.Transitions, races)
	if racy != (races > 0) {
		t.Errorf("%s: the full search racy=%v, sync-only found %d races", name, racy, races)
	}
	if !racy {
		tstest.CheckReduction(t, sys, func(ctx context.Context, sys ts.TransitionSystem[S], o ts.Options) (ts.Result, error) {
			return cbound.ICB(ctx, sys, cbound.Options{Bound: cbound.Unbounded, SyncOnly: true, Options: o})
		}, tstest.ReductionOptions{Bound: ts.NoBound})
		if so.Transitions > full.Transitions || (so.Transitions == full.Transitions && hasData(t, sys)) {
			t.Errorf("%s: sync-only took %d transitions, the full search %d", name, so.Transitions, full.Transitions)
		}
	}
	return racy
}

// hasData reports whether the first execution of sys makes a data access:
// without one, sync-only scheduling has no scheduling point to drop.
func hasData[S any](t *testing.T, sys ts.TransitionSystem[S]) bool {
	data := false
	_, err := ts.Explore(context.Background(), sys, ts.Options{Limits: ts.Limits{Executions: 1}, KeepGoing: true,
		OnTerminal: func(_ any, sched ts.Schedule) {
			run, _ := ts.Replay(sys, sched)
			for _, e := range run.Trace.Events {
				data = data || !e.Step.IsSync()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestSyncOnlyOnModels(t *testing.T) {
	racy := map[string]bool{
		"lost-update":  syncOnlyOnModel(t, "lost-update", models.NewLostUpdate(0)),
		"bluetooth-1":  syncOnlyOnModel(t, "bluetooth-1", models.NewBluetooth(1)),
		"bluetooth-2":  syncOnlyOnModel(t, "bluetooth-2", models.NewBluetooth(2)),
		"inspect":      syncOnlyOnModel(t, "inspect-2.3.1", models.NewInspect231(0)),
		"cbpor-fig1":   syncOnlyOnModel(t, "cbpor-fig1", models.NewCBPORFig1(0)),
		"locks3":       syncOnlyOnModel(t, "locks3", models.NewLocks3(0)),
		"philosophers": syncOnlyOnModel(t, "philosophers-3", models.NewPhilosophers(3)),
		"wsq":          syncOnlyOnModel(t, "wsq-1", models.NewWSQ(1)),
		"filesystem-2": syncOnlyOnModel(t, "filesystem-2", models.NewFilesystem(2)),
		"mat-fig1":     syncOnlyOnModel(t, "mat-fig1", models.NewMATFig1(0)),
	}
	// The models whose races are their point must show them.
	for _, m := range []string{"lost-update", "bluetooth-1", "inspect", "cbpor-fig1", "mat-fig1"} {
		if !racy[m] {
			t.Errorf("%s has no race", m)
		}
	}
	for _, m := range []string{"locks3", "philosophers", "filesystem-2", "wsq"} {
		if racy[m] {
			t.Errorf("%s, which orders every data access by locks or volatiles, has a race", m)
		}
	}
}
