package cbound_test

import (
	"context"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// casPrograms draws programs of the whole model with value-dependent
// compare-and-swaps (a failed one is a read, ts.ValueDependent).
func casPrograms(t *rapid.T) tstest.GenOptions {
	o := tstest.GenOptions{MinThreads: 2, MaxThreads: 3, CASReads: true}
	if rapid.Bool().Draw(t, "mod2") {
		o.Mod = 2 // more compare-and-swaps succeed
	}
	return o
}

// Issue 19: with value-dependent steps, at bounds 0..3, every strategy of
// the package reaches exactly the terminal states and violations of the
// executions within the bound (cb-dfs and icb: every execution within it).
func TestCASReduction(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(casPrograms(t)).Draw(t, "program")
		c := rapid.IntRange(0, 3).Draw(t, "bound")
		strategies := append(cbporStrategies[tstest.State](), cbporStrategies[tstest.State]()[:2]...)
		strategies[3].name, strategies[3].f = "icb", cbound.ICB[tstest.State]
		strategies[4].name, strategies[4].f = "cb-dfs", cbound.DFS[tstest.State]
		for _, s := range strategies {
			explore := func(ctx context.Context, sys ts.TransitionSystem[tstest.State], opt ts.Options) (ts.Result, error) {
				return s.f(ctx, sys, cbound.Options{Bound: cbound.AtMost(c), Options: opt})
			}
			if rep := tstest.CheckReduction(t, p, explore, tstest.ReductionOptions{Bound: c}); len(rep.Errors) > 0 {
				t.Fatalf("%s: %d discrepancies", s.name, len(rep.Errors))
			}
		}
	})
}

// Issue 19: the exact counts of TestCBPORWholeModelExactCounts with
// value-dependent steps: cb-por2 explores one execution per leaf HB state
// of the actual accesses within the bound and never stops with something
// left to explore; cb-por1 stores each HB state within the bound once.
func TestCASExactCounts(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { exactCounts(t, casPrograms(t)) })
}
