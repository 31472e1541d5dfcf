package por_test

// Second outside audit: a parallel search (2 workers, split at the depth
// drawn, 1 to 5, from the start: SplitAfter -1) gives the serial search's
// result, on the audit's programs with waiting multi-object steps: the
// same executions, transitions, first violation (kind, thread, message,
// schedule), Stats (but "parallel-*", "feasibility-replays" and
// "waiting-sleepers"), and
// callbacks in the same order.

import (
	"context"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/sim"
	"github.com/weftlab/weft/ts"
)

func splitCase[S any](t *rapid.T, p ts.TransitionSystem[S], name string) {
	var opt por.Options
	opt.KeepGoing = rapid.Bool().Draw(t, "keepGoing")
	opt.IgnoreDeadlocks = rapid.IntRange(0, 3).Draw(t, "ignoreDeadlocks") == 0
	opt.Limits.Transitions = 200000
	f := map[string]func(context.Context, ts.TransitionSystem[S], por.Options) (ts.Result, error){
		"sleep": por.Sleep[S], "dpor": por.DPOR[S], "odpor": por.ODPOR[S]}[name]
	want := parRun(p, f, opt)
	if !want.res.Complete && want.res.Violation == nil && want.err == "" {
		auditStats["skipped"]++
		return
	}
	auditStats["checked"]++
	par := opt
	par.Workers = 2
	par.SplitAfter = -1
	par.SplitDepth = rapid.IntRange(1, 5).Draw(t, "split")
	if name == "odpor" {
		// Every insertion on the chains, and every commit's on its index
		// (seqIndex), against the serial search's scans.
		f = por.ODPORAllChains[S]
	}
	got := parRun(p, f, par)
	if d := want.diff(got); d != "" {
		t.Fatalf("%s, 2 workers, split %d, after -1, options %+v on\n%v\n%s", name, par.SplitDepth, opt.Options, p, d)
	}
}

// mwProgs of 3 to 6 threads.
func TestAuditMultiParallel(t *testing.T) {
	auditChecks(t, 150, true)
	rapid.Check(t, func(t *rapid.T) {
		p := mwPrograms(mwShape{MinT: 3, MaxT: 6, MaxSteps: rapid.IntRange(2, 4).Draw(t, "maxSteps"), NoAsserts: rapid.Bool().Draw(t, "noAsserts")}).Draw(t, "program")
		name := rapid.SampledFrom([]string{"sleep", "dpor", "odpor", "odpor", "odpor"}).Draw(t, "strategy")
		splitCase(t, p, name)
	})
	logStats(t)
}

// Go programs with selects, their goroutines spawned by main (so that the
// workers' forks share nothing). Under the race detector, one program
// (8 took 6 minutes there).
func TestAuditMultiParallelSelects(t *testing.T) {
	n := 8
	if auditRace {
		n = 1
	}
	auditChecks(t, n, true)
	rapid.Check(t, func(t *rapid.T) {
		c := chPrograms(3, 5, 2).Draw(t, "program")
		c.Spawn = true
		sys := c.program().MustSystem()
		defer sys.Close()
		name := rapid.SampledFrom([]string{"dpor", "odpor", "odpor"}).Draw(t, "strategy")
		splitCase[sim.State](t, sys, name)
	})
	logStats(t)
}

// The regression programs of audit_multi_regress_test.go (where ODPOR
// loses traces): 2 workers split at every depth 1 to 5 lose the same ones,
// with and without KeepGoing, for ODPOR, DPOR and Sleep.
func TestAuditMultiParallelRegressions(t *testing.T) {
	progs := []*mwProg{
		{NVars: 1, NSems: 3, Cap: 1, Inits: []int8{1, 1, 1}, Code: [][]mwOp{
			{{Kind: mwP, Set: 7}}, {{Kind: mwTryP, A: 0}}, {{Kind: mwP, Set: 2}}, {{Kind: mwGet, A: 2}}}},
		{NVars: 1, NSems: 2, Cap: 1, Inits: []int8{1, 0}, Code: [][]mwOp{
			{{Kind: mwPStore, Set: 3, A: 0, K: 0}},
			{{Kind: mwV, Set: 1}, {Kind: mwP, Set: 1}},
			{{Kind: mwP, Set: 2}},
			{{Kind: mwV, Set: 2}, {Kind: mwLoad, A: 0}},
			{{Kind: mwPStore, Set: 1, A: 0, K: 1}}}},
		{NVars: 1, NSems: 1, Cap: 1, Inits: []int8{1}, Code: [][]mwOp{
			{{Kind: mwP, Set: 1}}, {{Kind: mwPGuard, Set: 1, A: 0, K: 0}}, {{Kind: mwStore, A: 0, K: 1}}, {{Kind: mwStore, A: 0, K: 1}}}},
		{NVars: 1, NSems: 1, NLocks: 1, Cap: 1, Inits: []int8{0}, Code: [][]mwOp{
			{{Kind: mwLoad, A: 0}, {Kind: mwStore, A: 0, K: 0}, {Kind: mwStore, A: 0, K: 0}},
			{{Kind: mwStore, A: 0, K: 1}},
			{{Kind: mwLock, Set: 1}},
			{{Kind: mwLockGuard, Set: 1, A: 0, K: 1}}}},
		{NVars: 2, NSems: 1, Cap: 1, Inits: []int8{0}, Code: [][]mwOp{
			{{Kind: mwStore, A: 0, K: 1}}, {{Kind: mwStore, A: 1, K: 1}}, {{Kind: mwStore, A: 1, K: 2}}, {{Kind: mwAwait, Set: 3, K: 0}}}},
		{NVars: 1, NSems: 2, Cap: 1, Inits: []int8{1, 1}, Code: [][]mwOp{
			{{Kind: mwTryP, A: 0}}, {{Kind: mwP, Set: 2}}, {{Kind: mwV, Set: 3}}, {{Kind: mwLoad, A: 0}, {Kind: mwP, Set: 3}}}},
	}
	for i, p := range progs {
		for _, name := range []string{"odpor", "dpor", "sleep"} {
			f := map[string]func(context.Context, ts.TransitionSystem[mwState], por.Options) (ts.Result, error){
				"sleep": por.Sleep[mwState], "dpor": por.DPOR[mwState], "odpor": por.ODPOR[mwState]}[name]
			for _, keep := range []bool{false, true} {
				var opt por.Options
				opt.KeepGoing = keep
				want := parRun[mwState](p, f, opt)
				for depth := 1; depth <= 5; depth++ {
					par := opt
					par.Workers, par.SplitAfter, par.SplitDepth = 2, -1, depth
					if d := want.diff(parRun[mwState](p, f, par)); d != "" {
						t.Errorf("program %d, %s, keepGoing %v, split %d:\n%v%s", i, name, keep, depth, p, d)
					}
				}
			}
		}
	}
}
