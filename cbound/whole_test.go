package cbound_test

import (
	"context"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// wholePrograms are random programs of the whole model: steps of several
// objects, outcomes, idle threads, invariants (of one or two objects),
// objects with both synchronization and plain accesses, assertions.
var wholePrograms = tstest.GenOptions{MaxThreads: 3}

// Issue 12: the programs cb-por refused before (a step of several objects, a
// transition of several outcomes) are explored: at bounds 0..2 cb-por1,
// cb-por2 and icb-por reach exactly the terminal states of the executions
// within the bound, and their schedules carry the outcomes.
func TestCBPORTakesSeveralObjectsAndOutcomes(t *testing.T) {
	multi := &tstest.Program{Vars: []tstest.Var{{Name: "x"}, {Name: "y"}},
		Code: [][]tstest.Instr{{tstest.Copy(1, 0)}, {tstest.Store(0, 1)}}}
	pick := &tstest.Program{Vars: []tstest.Var{{Name: "x"}},
		Code: [][]tstest.Instr{{tstest.Store(0, 1)}, {tstest.Pick(0, 0, 2)}}}
	for _, s := range cbporStrategies[tstest.State]() {
		for name, p := range map[string]*tstest.Program{"several objects": multi, "outcomes": pick} {
			for c := 0; c <= 2; c++ {
				outcomes := 0
				explore := func(ctx context.Context, sys ts.TransitionSystem[tstest.State], opt ts.Options) (ts.Result, error) {
					term := opt.OnTerminal
					opt.OnTerminal = func(st any, sched ts.Schedule) {
						for _, mv := range sched {
							if mv.Outcome > 0 {
								outcomes++
							}
						}
						term(st, sched)
					}
					return s.f(ctx, sys, cbound.Options{Bound: cbound.AtMost(c), Options: opt})
				}
				rep := tstest.CheckReduction(t, p, explore, tstest.ReductionOptions{Bound: c})
				if len(rep.Errors) > 0 || rep.ExpectedTerminals == 0 {
					t.Errorf("%s, %s, bound %d: %d discrepancies", s.name, name, c, len(rep.Errors))
				}
				if name == "outcomes" && outcomes == 0 {
					t.Errorf("%s, bound %d: no schedule takes outcome 1", s.name, c)
				}
			}
		}
	}
}

// Issue 12: on random programs of the whole model, at bounds 0..3, with
// deadlocks ignored or not, cb-por1, cb-por2 and icb-por reach exactly the
// terminal states the executions within the bound reach, and find every
// violation they find, of every kind, each reported with a schedule that
// replays within the bound (tstest.CheckReduction).
func TestCBPORWholeModelReduction(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(wholePrograms).Draw(t, "program")
		c := rapid.IntRange(0, 3).Draw(t, "bound")
		ignore := rapid.Bool().Draw(t, "ignoreDeadlocks")
		for _, s := range cbporStrategies[tstest.State]() {
			explore := func(ctx context.Context, sys ts.TransitionSystem[tstest.State], opt ts.Options) (ts.Result, error) {
				opt.IgnoreDeadlocks = ignore
				return s.f(ctx, sys, cbound.Options{Bound: cbound.AtMost(c), Options: opt})
			}
			ropt := tstest.ReductionOptions{Bound: c, IgnoreDeadlocks: ignore}
			if rep := tstest.CheckReduction(t, p, explore, ropt); len(rep.Errors) > 0 {
				t.Fatalf("%s: %d discrepancies", s.name, len(rep.Errors))
			}
		}
	})
}

// Issue 12: the exact counts of TestPORExactCounts on the whole model,
// against an enumeration of every schedule with every outcome
// (cbound.BruteForce, over the marked steps): for c in 0..3, cb-por2 explores
// exactly one execution per leaf HB state (terminal, or failing a check or
// the invariant) with context bound at most c, never two ending in one HB
// state, and never stops where something is left to explore; cb-por1 stores
// exactly the HB states within the bound, each once, and explores one
// execution per leaf too; Coverage counts the leaves within each bound b <=
// c; every violation has a schedule within c.
func TestCBPORWholeModelExactCounts(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { exactCounts(t, wholePrograms) })
}

// exactCounts is TestCBPORWholeModelExactCounts on a program drawn with gen.
func exactCounts(t *rapid.T, gen tstest.GenOptions) {
	{
		p := tstest.Programs(gen).Draw(t, "program")
		c := rapid.IntRange(0, 3).Draw(t, "bound")
		cost := rapid.SampledFrom([]int64{-1, 1 << 10, 1 << 20}).Draw(t, "memoCost")
		opt := cbound.Options{Bound: cbound.AtMost(c), MemoCost: cost}
		if rapid.Bool().Draw(t, "eagerCache") {
			opt = cbound.Eager(opt)
		}
		b := cbound.BruteForce[tstest.State](p)
		for name, search := range map[string]strategy[tstest.State]{"cb-por1": cbound.HBSearch[tstest.State], "cb-por2": cbound.POR[tstest.State]} {
			seen := map[string]bool{}
			o := opt
			o.KeepGoing = true
			o.OnTerminal = func(_ any, sched ts.Schedule) {
				k := hbKey[tstest.State](t, p, sched)
				if seen[k] {
					t.Fatalf("%s: two executions end in HB state %s", name, k)
				}
				seen[k] = true
				if pre, ok := b.Leaves[k]; !ok || pre > c {
					t.Fatalf("%s: terminal HB state %s needs %d preemptions (reached: %v)", name, k, pre, ok)
				}
			}
			o.OnViolation = func(v *ts.Violation) {
				if v.Trace.Preemptions > c {
					t.Fatalf("%s: violation %v reported with %d preemptions, bound %d", name, v, v.Trace.Preemptions, c)
				}
			}
			res, err := search(context.Background(), p, o)
			if err != nil || !res.Complete {
				t.Fatalf("%s: %v, %v", name, res, err)
			}
			if want := int64(cbound.Within(b.Leaves, c)); res.Executions != want {
				t.Fatalf("%s: %d executions, want %d (leaf HB states within the bound)", name, res.Executions, want)
			}
			if len(res.Coverage) != c+1 {
				t.Fatalf("%s: coverage %v, want bounds 0..%d", name, res.Coverage, c)
			}
			for _, cov := range res.Coverage {
				if want := int64(cbound.Within(b.Leaves, cov.Bound)); cov.Executions != want {
					t.Fatalf("%s: coverage at bound %d counts %d executions, want %d", name, cov.Bound, cov.Executions, want)
				}
			}
			switch name {
			case "cb-por1":
				if want := int64(cbound.Within(b.States, c)); res.States != want {
					t.Fatalf("cb-por1 stores %d HB states, want %d", res.States, want)
				}
			case "cb-por2":
				if res.Stats["search.stuck"] != 0 {
					t.Fatalf("cb-por2: the search stopped %d times with nothing to explore (Theorem 4)", res.Stats["search.stuck"])
				}
			}
		}
	}
}

// holding returns p with an invariant over variable x, and y when y >= 0,
// that holds in every reachable state (a value of x, or x + y, that no
// state shows), or p unchanged if every value shows.
func holding(t *rapid.T, p *tstest.Program, x, y int) *tstest.Program {
	mod := p.Mod
	if mod == 0 {
		mod = 4
	}
	probe := *p
	probe.Invariants = []tstest.Cond{{X: x, Y: y}}
	rec := recorder{Program: &probe, mod: mod, seen: map[int]bool{}}
	if _, err := ts.Explore(context.Background(), rec, ts.Options{KeepGoing: true, IgnoreDeadlocks: true}); err != nil {
		t.Fatal(err)
	}
	for k := range mod {
		if !rec.seen[k] {
			q := *p
			q.Invariants = []tstest.Cond{{X: x, Y: y, K: k}}
			return &q
		}
	}
	return p
}

// recorder's invariant never fails: it records the values its condition
// takes, by asking the program's own invariant about each.
type recorder struct {
	*tstest.Program
	mod  int
	seen map[int]bool
}

func (r recorder) Invariant(s tstest.State) error {
	for k := range r.mod {
		r.Invariants[0].K = k
		if r.Program.Invariant(s) != nil {
			r.seen[k] = true
		}
	}
	return nil
}

// Issue 12: cb-por2 explores one execution per terminal HB class with CB at
// most the bound, and its HB states' dependency is exactly the marked one
// (ts.Dependent of the steps ts.InvariantWrites marks), so on programs of
// the whole model whose checks and invariant never fail it is optimal within
// the bound: one execution per Mazurkiewicz trace that some schedule within
// the bound completes (tstest.CheckOptimal), also with an invariant of two
// objects.
func TestCBPOR2WholeModelOptimal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		o := wholePrograms
		o.NoAsserts = true
		p := tstest.Programs(o).Draw(t, "program")
		switch rapid.IntRange(0, 2).Draw(t, "invariant") {
		case 1:
			p = holding(t, p, rapid.IntRange(0, len(p.Vars)-1).Draw(t, "inv.x"), -1)
		case 2:
			if len(p.Vars) > 1 {
				x := rapid.IntRange(0, len(p.Vars)-1).Draw(t, "inv.x")
				p = holding(t, p, x, (x+1)%len(p.Vars))
			}
		}
		c := rapid.IntRange(0, 3).Draw(t, "bound")
		ignore := rapid.Bool().Draw(t, "ignoreDeadlocks")
		explore := func(ctx context.Context, sys ts.TransitionSystem[tstest.State], opt ts.Options) (ts.Result, error) {
			opt.IgnoreDeadlocks = ignore
			return cbound.POR(ctx, sys, cbound.Options{Bound: cbound.AtMost(c), Options: opt})
		}
		ropt := tstest.ReductionOptions{Bound: c, IgnoreDeadlocks: ignore}
		if rep := tstest.CheckOptimal(t, p, explore, ropt); len(rep.Errors) > 0 {
			t.Fatalf("%d discrepancies", len(rep.Errors))
		}
	})
}

// Issue 12: on the whole model IterativePOR reports a violation exactly when
// one exists within the bound, and then with the fewest preemptions any
// violating execution has.
func TestIterativePORWholeModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(wholePrograms).Draw(t, "program")
		c := rapid.IntRange(0, 3).Draw(t, "bound")
		fewest := -1
		_, err := ts.Explore(context.Background(), p, ts.Options{KeepGoing: true, OnViolation: func(v *ts.Violation) {
			if fewest < 0 || v.Trace.Preemptions < fewest {
				fewest = v.Trace.Preemptions
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := cbound.IterativePOR(context.Background(), p, cbound.Options{Bound: cbound.AtMost(c)})
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case fewest < 0 || fewest > c:
			if res.Violation != nil || !res.Complete {
				t.Fatalf("no violation within %d preemptions, IterativePOR reports %v", c, res)
			}
		case res.Violation == nil:
			t.Fatalf("a violation needs %d preemptions, IterativePOR at bound %d found none", fewest, c)
		case res.Violation.Trace.Preemptions != fewest:
			t.Fatalf("IterativePOR's violation has %d preemptions, the fewest is %d", res.Violation.Trace.Preemptions, fewest)
		}
	})
}

// Issue 12: on small programs of the whole model, CB(s, t) from the dynamic
// program equals the fewest preemptions of the schedules (every outcome
// taken) that reach s and then move t, and Minimize returns a schedule, with
// its outcomes, that reaches the same HB state with CB(s) preemptions.
func TestCBWholeModelMatchesBruteForce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{MaxThreads: 3, MaxSteps: 3}).Draw(t, "program")
		cost := rapid.SampledFrom([]int64{-1, 1 << 9, 1 << 20}).Draw(t, "memoCost")
		b := cbound.BruteForce[tstest.State](p)
		for key, sched := range b.Sched {
			if b.Failed[key] {
				continue // nothing moves on from a violation
			}
			steps, cb, err := cbound.CBAt[tstest.State](p, sched, cost)
			if err != nil {
				t.Fatal(err)
			}
			if want := b.States[key]; cb != want {
				t.Fatalf("state %s (schedule %v): CB(s) = %d, brute force %d", key, sched, cb, want)
			}
			for u, want := range b.Steps[key] {
				if steps[u] != want {
					t.Fatalf("state %s (schedule %v): CB(s, T%d) = %d, brute force %d", key, sched, u, steps[u], want)
				}
			}
			min, n, err := cbound.Minimize[tstest.State](p, sched)
			if err != nil || n != cb {
				t.Fatalf("Minimize(%v) = %v, %d, %v; want CB %d", sched, min, n, err, cb)
			}
			if k := hbKey[tstest.State](t, p, min); k != key {
				t.Fatalf("Minimize(%v) = %v reaches %s, not %s", sched, min, k, key)
			}
			if pre, err := ts.Preemptions[tstest.State](p, min); err != nil || pre != n {
				t.Fatalf("Minimize(%v) = %v has %d preemptions (%v), says %d", sched, min, pre, err, n)
			}
		}
	})
}

// Issue 12: the bundled models of the whole model, twophase-2 (broadcasts
// and a select of several objects, losses, votes and timeouts as outcomes,
// idle receivers, atomic commit as an invariant) and abp-1 (lossy,
// duplicating links, an invariant), under cb-por2 at bounds 0..2: exactly
// the terminal states of the executions within the bound (against
// ts.Explore), and one execution per HB class of cb-dfs's executions.
func TestCBPOR2WholeModels(t *testing.T) {
	if testing.Short() {
		t.Skip("explores twophase-2 fully")
	}
	checkModel(t, "twophase-2", models.NewTwoPhase(2))
	checkModel(t, "abp-1", models.NewABP(1))
}

func checkModel[S any](t *testing.T, name string, sys ts.TransitionSystem[S]) {
	t.Helper()
	for c := 0; c <= 2; c++ {
		explore := func(ctx context.Context, sys ts.TransitionSystem[S], opt ts.Options) (ts.Result, error) {
			return cbound.POR(ctx, sys, cbound.Options{Bound: cbound.AtMost(c), Options: opt})
		}
		rep := tstest.CheckReduction(t, sys, explore, tstest.ReductionOptions{Bound: c})
		classes := map[string]bool{}
		dfs, err := cbound.DFS(context.Background(), sys, cbound.Options{Bound: cbound.AtMost(c), Options: ts.Options{KeepGoing: true,
			OnTerminal: func(_ any, s ts.Schedule) { classes[hbKey[S](t, sys, s)] = true }}})
		if err != nil || !dfs.Complete {
			t.Fatal(dfs, err)
		}
		por, err := cbound.POR(context.Background(), sys, cbound.Options{Bound: cbound.AtMost(c), Options: ts.Options{KeepGoing: true}})
		if err != nil || !por.Complete {
			t.Fatal(por, err)
		}
		if por.Executions != int64(len(classes)) || por.Violations != dfs.Violations {
			t.Errorf("%s, bound %d: cb-por2 %v; cb-dfs's %d executions fall in %d HB classes, %d violations",
				name, c, por, dfs.Executions, len(classes), dfs.Violations)
		}
		t.Logf("%s, bound %d: %d terminal states within the bound; cb-por2 %d executions (%d transitions), cb-dfs %d",
			name, c, rep.ExpectedTerminals, por.Executions, por.Transitions, dfs.Executions)
	}
}
