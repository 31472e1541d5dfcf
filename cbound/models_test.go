package cbound_test

import (
	"context"
	"testing"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/ts"
)

// The regression fixture of the cbpor paper (Fig. 1): at bound 0 the
// terminal state y = 1 (T1 runs y := 2, finishes, then T0 runs x := 1; y := 1)
// must be reached. The naive "sleep sets + prune above the bound" misses it.
func TestFig1ReachesYIsOneAtBoundZero(t *testing.T) {
	for name, search := range map[string]func(context.Context, ts.TransitionSystem[models.CBPORFig1State], cbound.Options) (ts.Result, error){
		"icb":    cbound.ICB[models.CBPORFig1State],
		"cb-dfs": cbound.DFS[models.CBPORFig1State],
	} {
		ys := map[int]bool{}
		opt := cbound.Options{Bound: cbound.NoPreemption, Options: ts.Options{OnTerminal: func(s any, _ ts.Schedule) {
			ys[s.(models.CBPORFig1State).Y()] = true
		}}}
		if _, err := search(context.Background(), models.NewCBPORFig1(0), opt); err != nil {
			t.Fatal(err)
		}
		if !ys[1] || !ys[2] {
			t.Errorf("%s at bound 0 reached y in %v, want {1, 2}", name, ys)
		}
	}
}

// Bluetooth (ICB paper, Table 2): no bug at bound 0, the assertion at bound 1
// with a 1-preemption schedule; with the cache and without.
func TestBluetooth(t *testing.T) {
	for _, adders := range []int{1, 2} {
		for _, noCache := range []bool{false, true} {
			sys := models.NewBluetooth(adders)
			res, err := cbound.ICB(context.Background(), sys, cbound.Options{Bound: cbound.NoPreemption, NoCache: noCache})
			if err != nil || res.Violation != nil || !res.Complete {
				t.Fatalf("adders %d, bound 0: %v, %v; want complete, no violation", adders, res, err)
			}
			res, err = cbound.ICB(context.Background(), sys, cbound.Options{Bound: 1, NoCache: noCache})
			if err != nil {
				t.Fatal(err)
			}
			v := res.Violation
			if v == nil || v.Kind != ts.CheckFailure || v.Trace.Preemptions != 1 {
				t.Fatalf("adders %d, bound 1: %v; want the assertion with 1 preemption", adders, res)
			}
			if n, err := ts.Preemptions(sys, v.Trace.Schedule()); err != nil || n != 1 {
				t.Errorf("the schedule replays with %d preemptions (%v)", n, err)
			}
		}
	}
}
