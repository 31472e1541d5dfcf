package por_test

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

var (
	auditFlag      = flag.Bool("audit", false, "audit: run the outside audit's property tests at full size (default: a few dozen programs each)")
	auditMaxNodes  = flag.Int("audit.nodes", 150000, "audit: largest reference (trace prefixes) checked")
	auditMaxTraces = flag.Int("audit.traces", 20000, "audit: most traces of a system checked")
	auditVerbose   = flag.Bool("audit.v", false, "audit: log sizes")
)

// auditChecks sets how many programs an outside-audit property test draws:
// n by default (rapid divides it by 5 under -short), the package's 300 or
// -rapid.checks with -audit. The serial ones are skipped under the race
// detector, which slows them tenfold and watches no goroutine there;
// parallel says the test runs workers. Run one at full size as: go test
// ./por -run TestAuditODPORWide -audit -audit.v -rapid.seed N.
func auditChecks(t *testing.T, n int, parallel bool) {
	t.Helper()
	if auditRace && !parallel {
		t.Skip("serial search: not run under the race detector")
	}
	if *auditFlag || rapidChecksSet {
		return
	}
	old := flag.Lookup("rapid.checks").Value.String()
	if err := flag.Set("rapid.checks", fmt.Sprint(n)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = flag.Set("rapid.checks", old) })
}

// The reference agrees with tstest.CheckOptimal's brute force over
// interleavings (ts.Explore) and with tstest.Reference on small programs of
// the whole model: the same traces, terminal states and violations.
func TestAuditReferenceIsExplore(t *testing.T) {
	auditChecks(t, 20, false)
	rapid.Check(t, func(t *rapid.T) {
		o := tstest.GenOptions{MaxThreads: 4, MaxSteps: 3, CASReads: rapid.Bool().Draw(t, "cas")}
		p := tstest.Programs(o).Draw(t, "program")
		ref := auditReference[tstest.State](p, false, 1<<30)
		explore := func(ctx context.Context, sys ts.TransitionSystem[tstest.State], o ts.Options) (ts.Result, error) {
			return ts.Explore(ctx, sys, o)
		}
		rep, err := tstest.CompareReduction(context.Background(), p, explore, tstest.ReductionOptions{Bound: ts.NoBound})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Reference.Terminals) != len(ref.terminals) {
			t.Fatalf("terminals: explore %d, audit %d", len(rep.Reference.Terminals), len(ref.terminals))
		}
		for k := range rep.Reference.Terminals {
			if _, ok := ref.terminals[k]; !ok {
				t.Fatalf("audit reference misses terminal %s", k)
			}
		}
		if len(rep.Reference.Violations) != len(ref.violations) {
			t.Fatalf("violations: explore %v, audit %v", keys(rep.Reference.Violations), ref.violations)
		}
		for k := range rep.Reference.Violations {
			if _, ok := ref.violations[k]; !ok {
				t.Fatalf("audit reference misses violation %s", k)
			}
		}
		// Traces of complete executions: as CheckOptimal counts them.
		traces := map[string]bool{}
		_, err = ts.Explore(context.Background(), p, ts.Options{KeepGoing: true, OnTerminal: func(s any, sched ts.Schedule) {
			if p.Check(s.(tstest.State)) != nil {
				return
			}
			k, err := tstest.TraceKey[tstest.State](p, sched)
			if err != nil {
				t.Fatal(err)
			}
			traces[k] = true
		}})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for k := range ref.traces {
			n++
			if !traces[k] {
				t.Fatalf("audit trace %s not reached by ts.Explore", k)
			}
		}
		if n != len(traces) {
			t.Fatalf("traces: explore %d, audit %d", len(traces), n)
		}
	})
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// wideShape draws 5 to 7 threads, with fewer steps the more threads, and
// each feature switched on or off.
func wideShape(t *rapid.T) tstest.GenOptions {
	n := rapid.IntRange(5, 7).Draw(t, "nthreads")
	steps := map[int]int{5: 3, 6: 3, 7: 2}[n]
	if n == 5 && rapid.IntRange(0, 3).Draw(t, "long") == 0 {
		steps = 4
	}
	o := tstest.GenOptions{MinThreads: n, MaxThreads: n, MaxSteps: steps,
		Vars: rapid.IntRange(1, 3).Draw(t, "nvars"), Mod: rapid.IntRange(2, 4).Draw(t, "mod")}
	o.NoRMW = rapid.Bool().Draw(t, "noRMW")
	o.NoLocks = rapid.Bool().Draw(t, "noLocks")
	o.NoBranches = rapid.Bool().Draw(t, "noBranches")
	o.NoSync = rapid.Bool().Draw(t, "noSync")
	o.NoAwait = rapid.Bool().Draw(t, "noAwait")
	o.NoMixed = rapid.Bool().Draw(t, "noMixed")
	o.NoMulti = rapid.Bool().Draw(t, "noMulti")
	o.NoChoices = rapid.IntRange(0, 2).Draw(t, "choices") != 0
	o.NoIdle = rapid.Bool().Draw(t, "noIdle")
	o.NoDeadlocks = rapid.Bool().Draw(t, "noDeadlocks")
	o.CASReads = rapid.Bool().Draw(t, "casReads")
	o.NoAsserts, o.NoInvariants = true, true
	return o
}

// plainShape draws 5 to 7 threads of plain loads and stores only, the shape
// of the trace the previous audit found missing.
func plainShape(t *rapid.T) tstest.GenOptions {
	n := rapid.IntRange(5, 7).Draw(t, "nthreads")
	steps := map[int]int{5: 3, 6: 3, 7: 2}[n]
	return tstest.GenOptions{MinThreads: n, MaxThreads: n, MaxSteps: steps, Vars: rapid.IntRange(2, 3).Draw(t, "nvars"),
		Mod: 3, NoRMW: true, NoLocks: true, NoSync: true, NoBranches: rapid.Bool().Draw(t, "noBranches"),
		NoAsserts: true}.Core()
}

var auditStats = map[string]int{}

// odporWide checks ODPOR on one program: the same terminal states and
// deadlocks as the reference, one execution per trace, none sleep-blocked
// unless the program has transitions of several outcomes, no infeasible
// branch.
func odporWide(t *rapid.T, p *tstest.Program) {
	ref := auditReference[tstest.State](p, false, *auditMaxNodes)
	if ref.truncated || len(ref.traces) > *auditMaxTraces {
		auditStats["skipped"]++
		return
	}
	auditStats["checked"]++
	auditStats["traces"] += len(ref.traces)
	optimal := true
	for k := range ref.violations {
		if !strings.HasPrefix(k, "deadlock") {
			optimal = false // a release of a lock not held, an invariant that fails
		}
	}
	if !optimal {
		auditStats["not-optimal-checked"]++
	}
	red, err := auditRun[tstest.State](p, por.ODPOR[tstest.State], por.Options{})
	if err != nil {
		t.Fatal(err)
	}
	errs := compareOuts(ref, red, optimal)
	if optimal && !programHasChoices(p) && unexplainedSleepBlocked(red.res) != 0 {
		errs = append(errs, "sleep-blocked executions: "+itoa(red.res.Stats["sleep-blocked"]))
	}
	if red.res.Stats["infeasible-branches"] != 0 {
		errs = append(errs, "infeasible branches: "+itoa(red.res.Stats["infeasible-branches"]))
	}
	if len(errs) > 0 {
		t.Fatalf("odpor on\n%v\n%s", p, strings.Join(errs, "\n"))
	}
}

func itoa[N ~int | ~int64](n N) string { return fmt.Sprint(n) }

func logStats(t *testing.T) {
	if *auditVerbose {
		t.Logf("audit: %v", auditStats)
	}
	clear(auditStats)
}

// ODPOR on random programs of 5 to 7 threads of the whole model (no
// assertions): sound and optimal.
func TestAuditODPORWide(t *testing.T) {
	auditChecks(t, 10, false)
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(wideShape(t)).Draw(t, "program")
		odporWide(t, p)
	})
	logStats(t)
}

// ODPOR on 5 to 7 threads of plain loads and stores.
func TestAuditODPORPlain(t *testing.T) {
	auditChecks(t, 10, false)
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(plainShape(t)).Draw(t, "program")
		odporWide(t, p)
	})
	logStats(t)
}

// longShape draws 2 to 4 threads of up to 5 to 8 steps, every feature
// drawn, assertions and invariants included.
func longShape(t *rapid.T) tstest.GenOptions {
	o := wideShape(t)
	n := rapid.IntRange(2, 4).Draw(t, "longThreads")
	o.MinThreads, o.MaxThreads = n, n
	o.MaxSteps = map[int]int{2: 8, 3: 6, 4: 5}[n]
	o.NoAsserts = rapid.Bool().Draw(t, "noAsserts")
	o.NoInvariants = o.NoAsserts || rapid.Bool().Draw(t, "noInvariants")
	return o
}

// ODPOR on long threads (2 to 4 threads of 5 to 8 steps), without
// assertions: sound and optimal.
func TestAuditODPORLong(t *testing.T) {
	auditChecks(t, 20, false)
	rapid.Check(t, func(t *rapid.T) {
		o := longShape(t)
		o.NoAsserts, o.NoInvariants = true, true
		odporWide(t, tstest.Programs(o).Draw(t, "program"))
	})
	logStats(t)
}

// ODPOR on 5 to 7 threads with a global invariant that holds: optimal for
// the dependency its read set adds (tstest.TraceKey marks it the same way).
func TestAuditODPORInvariantWide(t *testing.T) {
	auditChecks(t, 20, false)
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(wideShape(t)).Draw(t, "program")
		mod := p.Mod
		if mod == 0 {
			mod = 4
		}
		c := tstest.Cond{X: rapid.IntRange(0, len(p.Vars)-1).Draw(t, "inv.x"), Y: -1, K: rapid.IntRange(0, mod-1).Draw(t, "inv.k")}
		if len(p.Vars) > 1 && rapid.Bool().Draw(t, "inv.sum") {
			c.Y = (c.X + 1) % len(p.Vars)
		}
		// Prefer a K at which the invariant holds, so that optimality is
		// checked; with none, soundness (the invariant's failures) is.
		for range mod {
			p.Invariants = []tstest.Cond{c}
			ref := auditReference[tstest.State](p, false, 5000)
			fails := false
			for k := range ref.violations {
				fails = fails || !strings.HasPrefix(k, "deadlock")
			}
			if !ref.truncated && !fails {
				break
			}
			c.K = (c.K + 1) % mod
		}
		p.Invariants = []tstest.Cond{c}
		odporWide(t, p)
	})
	logStats(t)
}
