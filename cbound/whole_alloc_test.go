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
// per transition: their allocations stay below k per state (1.7 for cb-por1,
// 0.9 for cb-por2) plus 1 per replay and a fixed 400, and one allocation per
// transition would break that bound (checked too).
func TestHBAllocsPerStateWholeModel(t *testing.T) {
	ctx := context.Background()
	check := func(name string, k float64, run func() ts.Result) {
		t.Helper()
		var res ts.Result
		a := testing.AllocsPerRun(2, func() { res = run() })
		replays := res.Stats["enabled.replays"]
		t.Logf("%s: %.0f allocations, %d states, %d transitions, %d replays", name, a, res.States, res.Transitions, replays)
		bound := k*float64(res.States) + float64(replays) + 400
		if a > bound || a+float64(res.Transitions) <= bound {
			t.Errorf("%s: %.0f allocations for %d states, %d transitions and %d replays (bound %.0f)", name, a, res.States, res.Transitions, replays, bound)
		}
	}
	k := []float64{1.7, 0.9}
	for i, st := range strategies[models.TwoPhaseState]()[2:] {
		sys := models.NewTwoPhase(2)
		check("twophase-2/"+st.name, k[i], func() ts.Result {
			res, _ := st.f(ctx, sys, Options{Bound: 2, Options: ts.Options{KeepGoing: true}})
			return res
		})
	}
}
