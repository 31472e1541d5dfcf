package transact_test

import (
	"context"
	"testing"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/transact"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// modelRow is what the bundled whole-model models give under one
// strategy: states stored (instrumented, then distinct) and the stateful
// reference's states.
type modelRow struct {
	states, plain, reference int64
}

// wholeModel checks cpc, cpc with L19 and cycle (movers inferred) on a
// bundled model of the whole model against ts.ExploreStateful: the same
// terminal states (none of these models blocks), the same violations,
// schedules that replay; and returns the states stored, by strategy.
func wholeModel[S any](t *testing.T, name string, sys ts.TransitionSystem[S]) map[string]modelRow {
	t.Helper()
	ctx := context.Background()
	ref, err := tstest.Reference(ctx, sys, tstest.ReductionOptions{Stateful: true})
	if err != nil {
		t.Fatalf("%s: reference: %v", name, err)
	}
	rows := map[string]modelRow{}
	for _, opt := range variants {
		red, err := tstest.Collect(ctx, sys, transactExplorer[S](opt), tstest.ReductionOptions{})
		if err != nil {
			t.Fatalf("%s: %v: %v", name, opt.Proviso, err)
		}
		label := opt.Proviso.String()
		if opt.Refine {
			label += "+L19"
		}
		compareWhole(t, name+" "+label, sys, ref, red)
		rows[label] = modelRow{red.Result.States, red.Result.Stats[transact.StatPlainStates], ref.Result.States}
		t.Logf("%s %s: %d states (%d distinct), %d transitions; ts.ExploreStateful %d states; %d terminal states, %d violations",
			name, label, red.Result.States, red.Result.Stats[transact.StatPlainStates], red.Result.Transitions,
			ref.Result.States, len(red.Terminals), len(red.Violations))
	}
	v, err := transact.NewView(ctx, sys, transact.ViewOptions{})
	if err != nil {
		t.Fatalf("%s: NewView: %v", name, err)
	}
	view, err := tstest.Collect[S](ctx, v, ts.ExploreStateful[S], tstest.ReductionOptions{})
	if err != nil {
		t.Fatalf("%s: view: %v", name, err)
	}
	compareWhole(t, name+" view", sys, ref, view)
	rows["view"] = modelRow{view.Result.States, view.Result.States, ref.Result.States}
	t.Logf("%s view: %d states, %d transactions", name, view.Result.States, view.Result.Transitions)
	return rows
}

// Two-phase commit and the alternating-bit protocol use the whole model
// (broadcasts and a select as steps of several objects, losses, votes,
// timers and duplications as outcomes, idle receivers, an invariant): cpc
// (with and without L19) and cycle, and ts.ExploreStateful on the
// transaction view, reach exactly the terminal states of ts.ExploreStateful,
// with no violation; the bug variants' invariant failures (a participant
// that commits on a timeout; a receiver that delivers a frame twice) are
// exactly those it finds. The states stored are
// asserted: little is reduced, since most steps touch a link both sides
// write (racy, so non-movers); the timers and the records are private.
func TestBundledWholeModels(t *testing.T) {
	check := func(name string, rows map[string]modelRow, states, reference int64) {
		t.Helper()
		for label, r := range rows {
			if label == "view" {
				if r.states > reference {
					t.Errorf("%s view: %d states, the reference %d", name, r.states, reference)
				}
				continue
			}
			if r.states != states || r.plain != states || r.reference != reference {
				t.Errorf("%s %s: %d states (%d distinct), the reference %d; want %d, %d", name, label, r.states, r.plain, r.reference, states, reference)
			}
		}
	}
	check("twophase-2", wholeModel[models.TwoPhaseState](t, "twophase-2", models.NewTwoPhase(2)), 1382, 1490)
	check("abp-1", wholeModel[models.ABPState](t, "abp-1", models.NewABP(1)), 54, 60)
	check("twophase-bug-2", wholeModel[models.TwoPhaseState](t, "twophase-bug-2", models.NewTwoPhaseBug(2)), 3124, 3729)
	check("abp-bug-1", wholeModel[models.ABPState](t, "abp-bug-1", models.NewABPBug(1)), 70, 85)
}

// cpc and cycle find the bugs of the buggy variants on their first run,
// with schedules (outcomes included) that replay to the same failure.
func TestBundledWholeModelBugs(t *testing.T) {
	bugFound(t, "twophase-bug-2", models.NewTwoPhaseBug(2))
	bugFound(t, "abp-bug-1", models.NewABPBug(1))
}

func bugFound[S any](t *testing.T, name string, sys ts.TransitionSystem[S]) {
	t.Helper()
	for _, opt := range variants {
		res, err := transact.Explore(context.Background(), sys, opt)
		if err != nil {
			t.Fatalf("%s %v: %v", name, opt.Proviso, err)
		}
		v := res.Violation
		if v == nil || v.Kind != ts.InvariantFailure {
			t.Fatalf("%s %v: %v, want an invariant failure", name, opt.Proviso, res)
		}
		run, err := ts.Replay(sys, v.Trace.Schedule())
		if err != nil || run.Violation == nil || run.Violation.Err.Error() != v.Err.Error() {
			t.Errorf("%s %v: the trace replays to %v, %v", name, opt.Proviso, run.Violation, err)
		}
		t.Logf("%s %v refine=%v: %v after %d transitions (schedule of %d moves)", name, opt.Proviso, opt.Refine, v.Err, res.Transitions, len(v.Trace.Schedule()))
	}
}
