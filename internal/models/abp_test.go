package models

import (
	"context"
	"flag"
	"testing"

	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

var long = flag.Bool("models.long", false, "assert the bundled models' figures that take seconds (abp-2 under ts.Explore and ODPOR)")

func TestABP(t *testing.T) {
	// One message: every interleaving, against every reduction.
	sys := NewABP(1)
	f := fixturesExplore(t, sys)
	if f.res.Executions != 2951 || f.res.Transitions != 6350 || len(f.terminals) != 7 || f.res.Violations != 0 {
		t.Errorf("N=1: %d executions, %d transitions, %d terminal states, %d violations; want 2951, 6350, 7, 0",
			f.res.Executions, f.res.Transitions, len(f.terminals), f.res.Violations)
	}
	rep := tstest.CheckOptimal(t, sys, wholeStrategies[ABPState]()[2].explore, tstest.ReductionOptions{Bound: ts.NoBound})
	if rep.Result.Executions != 647 {
		t.Errorf("N=1: odpor explores %d executions, want 647", rep.Result.Executions)
	}
	for _, s := range wholeStrategies[ABPState]() {
		if rep := tstest.CheckReduction(t, sys, s.explore, tstest.ReductionOptions{Bound: ts.NoBound}); len(rep.Errors) > 0 {
			t.Errorf("N=1: %s: %d discrepancies", s.name, len(rep.Errors))
		}
	}
	// More messages: the interleavings explode (97,285,803 executions for
	// N = 2), the states do not. Against the stateful reference.
	for n, states := range map[int]int64{1: 60, 2: 225, 3: 390} {
		sys := NewABP(n)
		res, err := ts.ExploreStateful(context.Background(), sys, ts.Options{})
		if err != nil || !res.Complete || res.Violation != nil || res.States != states {
			t.Errorf("N=%d: stateful: %v, %v; want %d states, no violation", n, res, err, states)
		}
		if n == 1 {
			continue
		}
		for _, s := range wholeStrategies[ABPState]() {
			if s.name != "sdpor" && s.name != "icb" {
				continue // stateless: too many executions
			}
			if rep := tstest.CheckReduction(t, sys, s.explore, tstest.ReductionOptions{Bound: ts.NoBound, Stateful: true}); len(rep.Errors) > 0 {
				t.Errorf("N=%d: %s: %d discrepancies", n, s.name, len(rep.Errors))
			}
		}
	}
}

// The receiver that ignores the bit delivers a message twice; every
// strategy finds it, ICB with 0 preemptions, and the trace replays.
func TestABPBug(t *testing.T) {
	for n := 1; n <= 3; n++ {
		invariantFound(t, n, NewABPBug(n))
	}
}

// Two messages: the figures the doc and the README give, about 25 s.
func TestABPTwoMessages(t *testing.T) {
	if !*long {
		t.Skip("run with -models.long")
	}
	sys := NewABP(2)
	res, err := ts.Explore(context.Background(), sys, ts.Options{})
	if err != nil || res.Violation != nil || res.Executions != 97285803 {
		t.Errorf("dfs: %v, %v; want 97285803 executions, no violation", res, err)
	}
	res, err = wholeStrategies[ABPState]()[2].explore(context.Background(), sys, ts.Options{})
	if err != nil || res.Violation != nil || res.Executions != 3856411 {
		t.Errorf("odpor: %v, %v; want 3856411 executions, no violation", res, err)
	}
}
