package cbound

import (
	"context"
	"testing"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/ts"
)

// On the whole model (twophase-2: steps of several objects, outcomes, an
// invariant, idle threads), cb-por1 and cb-por2 allocate per stored state (table,
// memo and coverage entries) and per replayed prefix (its enabled set), not
// per transition: their allocations stay below 2 per state plus 1 per
// replay, while the transitions alone run at some 2 per state, so one
// allocation per transition would break the bound.
func TestHBAllocsPerStateWholeModel(t *testing.T) {
	ctx := context.Background()
	check := func(name string, run func() ts.Result) {
		t.Helper()
		var res ts.Result
		a := testing.AllocsPerRun(2, func() { res = run() })
		replays := res.Stats["enabled.replays"]
		t.Logf("%s: %.0f allocations, %d states, %d transitions, %d replays", name, a, res.States, res.Transitions, replays)
		if res.Transitions < 3*res.States/2 || a > float64(2*res.States+replays)+200 {
			t.Errorf("%s: %.0f allocations for %d states, %d transitions and %d replays", name, a, res.States, res.Transitions, replays)
		}
	}
	for _, st := range strategies[models.TwoPhaseState]()[2:] {
		sys := models.NewTwoPhase(2)
		check("twophase-2/"+st.name, func() ts.Result {
			res, _ := st.f(ctx, sys, Options{Bound: 2, Options: ts.Options{KeepGoing: true}})
			return res
		})
	}
}
