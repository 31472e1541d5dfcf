package tstest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// fakeTB records what a helper reports.
type fakeTB struct{ errs []string }

func (f *fakeTB) Helper() {}
func (f *fakeTB) Errorf(format string, args ...any) {
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}

// dfs is a test explorer: a depth-first search with optional sleep sets and
// a preemption bound, composed naively when both are on (the unsound cb-dfs
// of the cbpor paper), taking every outcome of every transition. naiveCost counts every switch as a preemption, also
// away from a blocked or finished thread; skipLast never runs the last
// thread while another is enabled.
type dfs[S any] struct {
	sleep     bool
	bound     int // ts.NoBound for none
	naiveCost bool
	skipLast  bool
}

func (d dfs[S]) explore(ctx context.Context, sys ts.TransitionSystem[S], opt ts.Options) (ts.Result, error) {
	res := ts.Result{Bound: d.bound}
	n := sys.Threads()
	checker, _ := sys.(ts.Checker[S])
	invariant, _ := sys.(ts.Invariant[S])
	chooser, _ := sys.(ts.Chooser[S])
	var inv *ts.InvariantWrites
	if invariant != nil {
		inv = ts.NewInvariantWrites(invariant.InvariantReads())
	}
	var sched ts.Schedule
	violation := func() {
		res.Executions++
		res.Violations++
		run, err := ts.Replay(sys, sched)
		if err != nil || run.Violation == nil {
			panic(fmt.Sprintf("replay %v: %v", sched, err))
		}
		if res.Violation == nil {
			res.Violation = run.Violation
		}
		opt.OnViolation(run.Violation)
	}
	var visit func(s S, last ts.Tid, pre int, sleep []ts.Tid)
	visit = func(s S, last ts.Tid, pre int, sleep []ts.Tid) {
		steps := make([]ts.Step, n)
		status := make([]ts.Status, n)
		var enabled []ts.Tid
		blocked := false
		for t := range ts.Tid(n) {
			steps[t], status[t] = sys.Next(s, t)
			steps[t] = inv.Mark(steps[t])
			switch status[t] {
			case ts.Enabled:
				enabled = append(enabled, t)
			case ts.Blocked:
				blocked = true
			}
		}
		// As in ts.Explore, a terminal state is reported before it is checked.
		if len(enabled) == 0 {
			opt.OnTerminal(s, sched)
		}
		if (checker != nil && checker.Check(s) != nil) || (invariant != nil && invariant.Invariant(s) != nil) {
			violation()
			return
		}
		if len(enabled) == 0 {
			if blocked {
				violation()
			} else {
				res.Executions++
			}
			return
		}
		if d.skipLast && len(enabled) > 1 && enabled[len(enabled)-1] == ts.Tid(n-1) {
			enabled = enabled[:len(enabled)-1]
		}
		done := slicesClone(sleep)
		for _, t := range enabled {
			if d.sleep && contains(sleep, t) {
				continue
			}
			cost := 0
			if last >= 0 && last != t && (d.naiveCost || status[last] == ts.Enabled) {
				cost = 1
			}
			if d.bound >= 0 && pre+cost > d.bound {
				continue
			}
			var childSleep []ts.Tid
			for _, u := range done {
				if !ts.Dependent(steps[u], steps[t]) {
					childSleep = append(childSleep, u)
				}
			}
			outs := 1
			if chooser != nil {
				outs = chooser.Outcomes(s, t)
			}
			for o := range outs {
				sched = append(sched, ts.Move{Thread: t, Outcome: o})
				res.Transitions++
				child := sys.Apply(s, t)
				if o > 0 {
					child = chooser.ApplyOutcome(s, t, o)
				}
				visit(child, t, pre+cost, childSleep)
				sched = sched[:len(sched)-1]
			}
			if d.sleep {
				done = append(done, t)
			}
		}
	}
	visit(sys.Init(), -1, 0, nil)
	res.Complete = true
	return res, nil
}

func slicesClone(s []ts.Tid) []ts.Tid { return append([]ts.Tid(nil), s...) }
func contains(s []ts.Tid, t ts.Tid) bool {
	for _, u := range s {
		if u == t {
			return true
		}
	}
	return false
}

// fig1 is Fig. 1 of the cbpor paper: T0 = x:=1; y:=1, T1 = y:=2.
func fig1() *tstest.Program {
	return &tstest.Program{
		Vars: []tstest.Var{{Name: "x"}, {Name: "y"}},
		Code: [][]tstest.Instr{
			{tstest.Store(0, 1), tstest.Store(1, 1)},
			{tstest.Store(1, 2)},
		},
	}
}

func TestReferenceFig1(t *testing.T) {
	out, err := tstest.Reference(context.Background(), fig1(), tstest.ReductionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, oc := range out.Terminals {
		got[fmt.Sprint(oc.State.(tstest.State))] = oc.Preemptions
	}
	want := map[string]int{
		"x=1 y=1 | T0 done r=[0 0 0 0] | T1 done r=[0 0 0 0]": 0, // T1 first, or... T1; T0 T0
		"x=1 y=2 | T0 done r=[0 0 0 0] | T1 done r=[0 0 0 0]": 0, // T0 T0 T1
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("terminals %v, want %v", got, want)
	}
	if out.Result.Executions != 3 || len(out.Violations) != 0 {
		t.Errorf("%d executions, %d violations; want 3, 0", out.Result.Executions, len(out.Violations))
	}
}

// The naive composition of sleep sets and a bound misses y = 1 at bound 0.
func TestCheckReductionCatchesNaiveBoundedSleepSets(t *testing.T) {
	var tb fakeTB
	tstest.CheckReduction(&tb, fig1(), dfs[tstest.State]{sleep: true, bound: 0}.explore, tstest.ReductionOptions{Bound: 0})
	if len(tb.errs) != 1 || !strings.Contains(tb.errs[0], "misses terminal state x=1 y=1") {
		t.Errorf("CheckReduction reported %q", tb.errs)
	}
	// The same search without sleep sets is sound.
	tb = fakeTB{}
	tstest.CheckReduction(&tb, fig1(), dfs[tstest.State]{bound: 0}.explore, tstest.ReductionOptions{Bound: 0})
	if len(tb.errs) != 0 {
		t.Errorf("CheckReduction reported %q", tb.errs)
	}
}

func TestCheckReductionCatchesBrokenReductions(t *testing.T) {
	// T2 blocks on m held by T0 until T0 releases it; a search counting the
	// switch away from the blocked T2 as a preemption misses states.
	p := &tstest.Program{
		Vars:  []tstest.Var{{Name: "x"}},
		Locks: []string{"m"},
		Code: [][]tstest.Instr{
			{tstest.Acquire(0), tstest.Store(0, 1), tstest.Release(0)},
			{tstest.Load(0, 0), tstest.AssertNe(0, 1)},
			{tstest.Acquire(0), tstest.Store(0, 2), tstest.Release(0)},
		},
	}
	for _, tc := range []struct {
		name  string
		d     dfs[tstest.State]
		bound int
		want  string
	}{
		{"skip last thread", dfs[tstest.State]{bound: ts.NoBound, skipLast: true}, ts.NoBound, "misses terminal state"},
		{"naive preemption cost", dfs[tstest.State]{bound: 1, naiveCost: true}, 1, "misses"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tb fakeTB
			tstest.CheckReduction(&tb, p, tc.d.explore, tstest.ReductionOptions{Bound: tc.bound})
			if len(tb.errs) == 0 || !strings.Contains(strings.Join(tb.errs, "\n"), tc.want) {
				t.Errorf("CheckReduction reported %q, want %q", tb.errs, tc.want)
			}
		})
	}
}

// T0 = x := 1; x := 2, T1 = r0 := x: r0 = 1 needs a preemption, so an
// unbounded search breaks bound 0.
func TestCheckReductionCatchesExceededBound(t *testing.T) {
	p := &tstest.Program{
		Vars: []tstest.Var{{Name: "x"}},
		Code: [][]tstest.Instr{{tstest.Store(0, 1), tstest.Store(0, 2)}, {tstest.Load(0, 0)}},
	}
	var tb fakeTB
	tstest.CheckReduction(&tb, p, ts.Explore[tstest.State], tstest.ReductionOptions{Bound: 0})
	if len(tb.errs) != 1 || !strings.Contains(tb.errs[0], "reaches terminal state x=2 | T0 done r=[0 0 0 0] | T1 done r=[1 0 0 0], which needs 1 preemption") {
		t.Errorf("CheckReduction reported %q", tb.errs)
	}
}

// A reduction that invents a violation is caught.
func TestCheckReductionCatchesBogusViolation(t *testing.T) {
	bogus := func(ctx context.Context, sys ts.TransitionSystem[tstest.State], opt ts.Options) (ts.Result, error) {
		res, err := ts.Explore(ctx, sys, opt)
		opt.OnViolation(&ts.Violation{Kind: ts.CheckFailure, Err: fmt.Errorf("made up")})
		return res, err
	}
	var tb fakeTB
	tstest.CheckReduction(&tb, fig1(), bogus, tstest.ReductionOptions{Bound: ts.NoBound})
	if len(tb.errs) == 0 || !strings.Contains(tb.errs[0], "made up") {
		t.Errorf("CheckReduction reported %q", tb.errs)
	}
}

// Sleep sets alone, a bounded search without reduction, and ts.Explore
// itself all pass CheckReduction on random programs; the stateful reference
// agrees with the stateless one.
func TestCheckReductionRandom(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{}).Draw(t, "program")
		checkReductionOn(t, p, rapid.IntRange(-1, 2).Draw(t, "bound"))
	})
}

// Programs that rapid once found breaking the kit (drawn by the generator
// before it drew the extended model, which changed its draws).
func TestCheckReductionRegressions(t *testing.T) {
	for _, c := range []struct {
		p     *tstest.Program
		bound int
	}{
		{&tstest.Program{
			Vars: []tstest.Var{{Name: "x"}},
			Code: [][]tstest.Instr{{tstest.Load(0, 0)}, {tstest.Store(0, 1), tstest.Store(0, 0)}},
		}, 0},
		{&tstest.Program{
			Vars: []tstest.Var{{Name: "x"}, {Name: "s0", Sync: true}},
			Code: [][]tstest.Instr{
				{tstest.CAS(0, 0, 0, 0), tstest.CAS(0, 1, 0, 0), tstest.Store(0, 2), tstest.JumpEq(0, 0, 4)},
				{tstest.Store(1, 0), tstest.Load(1, 1), tstest.Store(1, 2), tstest.FetchAdd(0, 1, 1), tstest.Set(0, 0), tstest.AssertEq(1, 1)},
				{tstest.Load(0, 1), tstest.Store(0, 0)},
			},
		}, -1},
		{&tstest.Program{
			Vars: []tstest.Var{{Name: "x"}},
			Code: [][]tstest.Instr{
				{tstest.Load(0, 0), tstest.Load(0, 0), tstest.AssertEq(0, 1), tstest.Load(0, 0), tstest.Load(0, 0), tstest.AssertEq(0, 0)},
				{tstest.FetchAdd(0, 0, 1), tstest.Load(0, 0)},
			},
		}, 0},
	} {
		checkReductionOn(t, c.p, c.bound)
	}
}

func checkReductionOn(t tstest.TB, p *tstest.Program, bound int) {
	opt := tstest.ReductionOptions{Bound: bound}
	tstest.CheckReduction(t, p, dfs[tstest.State]{bound: bound}.explore, opt)
	opt.Bound = ts.NoBound
	rep := tstest.CheckReduction(t, p, dfs[tstest.State]{sleep: true, bound: ts.NoBound}.explore, opt)
	if rep.Reduction.Result.Executions > rep.Reference.Result.Executions {
		t.Errorf("sleep sets explored %d executions, more than ts.Explore's %d",
			rep.Reduction.Result.Executions, rep.Reference.Result.Executions)
	}
	opt = tstest.ReductionOptions{Bound: bound, Stateful: true}
	tstest.CheckReduction(t, p, dfs[tstest.State]{bound: bound}.explore, opt)
}

// With SomeViolation, a reduction that reports one of several violations
// passes, and one that reports none is still caught.
func TestCheckReductionSomeViolation(t *testing.T) {
	// Each thread's assert fails when it runs first: two violations.
	p := &tstest.Program{
		Vars: []tstest.Var{{Name: "x"}},
		Code: [][]tstest.Instr{
			{tstest.Load(0, 0), tstest.AssertEq(0, 1)},
			{tstest.Load(0, 0), tstest.AssertEq(0, 1)},
		},
	}
	// first reports only the first violation it meets, as mat may.
	first := func(ctx context.Context, sys ts.TransitionSystem[tstest.State], opt ts.Options) (ts.Result, error) {
		report, seen := opt.OnViolation, false
		opt.OnViolation = func(v *ts.Violation) {
			if !seen {
				seen = true
				report(v)
			}
		}
		return ts.Explore(ctx, sys, opt)
	}
	none := func(ctx context.Context, sys ts.TransitionSystem[tstest.State], opt ts.Options) (ts.Result, error) {
		opt.OnViolation = func(*ts.Violation) {}
		return ts.Explore(ctx, sys, opt)
	}
	for _, c := range []struct {
		name    string
		explore func(context.Context, ts.TransitionSystem[tstest.State], ts.Options) (ts.Result, error)
		some    bool
		want    string
	}{
		{"one of two, strict", first, false, "misses violation"},
		{"one of two, some", first, true, ""},
		{"none, some", none, true, "reports no violation; the reference finds 2"},
	} {
		var tb fakeTB
		tstest.CheckReduction(&tb, p, c.explore, tstest.ReductionOptions{Bound: ts.NoBound, SomeViolation: c.some})
		switch {
		case c.want == "" && len(tb.errs) > 0:
			t.Errorf("%s: CheckReduction reported %q", c.name, tb.errs)
		case c.want != "" && (len(tb.errs) == 0 || !strings.Contains(strings.Join(tb.errs, "\n"), c.want)):
			t.Errorf("%s: CheckReduction reported %q, want %q", c.name, tb.errs, c.want)
		}
	}
}
