package models

import (
	"context"
	"slices"
	"testing"

	"github.com/weftlab/weft/ts"
)

func TestInspectExample1Info(t *testing.T) {
	i := InspectExample1Info
	if i.Name != "inspect-example1" || i.Summary == "" || i.Source == "" || i.Param == "" ||
		i.Default != 40 || i.Min != 1 || i.Max < 64 {
		t.Errorf("Info = %+v", i)
	}
	for _, n := range []int{i.Min - 1, i.Max + 1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewInspectExample1(%d) did not panic", n)
				}
			}()
			NewInspectExample1(n)
		}()
	}
}

// inspectExample1Run is what ts.Explore and ts.ExploreStateful find for one N.
type inspectExample1Run struct {
	n                       int
	execs, trans, terminals int64 // ts.Explore; terminals are distinct
	states, sExecs, sTrans  int64 // ts.ExploreStateful
	blocks1, blocks2        int   // atomic blocks of thread1, thread2
}

func inspectExample1Explore(t *testing.T, p *InspectExample1) inspectExample1Run {
	t.Helper()
	terms := map[uint64]bool{}
	res, err := ts.Explore(context.Background(), p, ts.Options{
		OnTerminal: func(s any, _ ts.Schedule) { terms[p.Hash(s.(InspectExample1State))] = true },
	})
	if err != nil || res.Violation != nil || !res.Complete {
		t.Fatalf("N = %d: %v, %v", p.n, res, err)
	}
	sres, err := ts.ExploreStateful(context.Background(), p, ts.Options{})
	if err != nil || sres.Violation != nil || !sres.Complete {
		t.Fatalf("N = %d stateful: %v, %v", p.n, sres, err)
	}
	return inspectExample1Run{n: p.n, execs: res.Executions, trans: res.Transitions, terminals: int64(len(terms)),
		states: sres.States, sExecs: sres.Executions, sTrans: sres.Transitions,
		blocks1: (p.n + 4) / 5, blocks2: (p.n + 1) / 2}
}

func TestInspectExample1Facts(t *testing.T) {
	for _, want := range []inspectExample1Run{
		{n: 1, execs: 2, trans: 4, terminals: 1, states: 4},
		{n: 2, execs: 2, trans: 4, terminals: 1, states: 4},
		{n: 3, execs: 3, trans: 8, terminals: 1, states: 6},
		{n: 8, execs: 15, trans: 54, terminals: 1, states: 15},
		{n: 20, execs: 1001, trans: 4366, terminals: 1, states: 55},
	} {
		got := inspectExample1Explore(t, NewInspectExample1(want.n))
		if got.execs != want.execs || got.trans != want.trans || got.terminals != want.terminals || got.states != want.states {
			t.Errorf("N = %d: %d executions, %d transitions, %d terminal states, %d states; want %d, %d, %d, %d",
				want.n, got.execs, got.trans, got.terminals, got.states, want.execs, want.trans, want.terminals, want.states)
		}
	}
	// The grid of states, (⌈N/5⌉+1)(⌈N/2⌉+1), at sizes stateless search
	// cannot reach.
	for n, want := range map[int]int64{40: 189, 64: 462, 1024: 206 * 513} {
		res, err := ts.ExploreStateful(context.Background(), NewInspectExample1(n), ts.Options{})
		if err != nil || res.Violation != nil || res.States != want {
			t.Errorf("N = %d stateful: %v, %v; want %d states", n, res, err, want)
		}
	}
}

// TestInspectExample1Sizes logs the table of sizes for the README.
func TestInspectExample1Sizes(t *testing.T) {
	ns := []int{1, 2, 3, 5, 8, 10, 15, 20, 25, 30}
	if !testing.Short() {
		ns = append(ns, 36)
	}
	t.Logf("%4s %8s | %12s %12s %9s | %7s %10s %11s", "N", "blocks", "executions", "transitions", "terminals", "states", "s.execs", "s.trans")
	for _, n := range ns {
		r := inspectExample1Explore(t, NewInspectExample1(n))
		if want := inspectExample1Binomial(r.blocks1+r.blocks2, r.blocks1); r.execs != want {
			t.Errorf("N = %d: %d executions, want C(%d,%d) = %d", n, r.execs, r.blocks1+r.blocks2, r.blocks1, want)
		}
		if want := int64((r.blocks1 + 1) * (r.blocks2 + 1)); r.states != want || r.terminals != 1 {
			t.Errorf("N = %d: %d states, %d terminal states; want %d, 1", n, r.states, r.terminals, want)
		}
		t.Logf("%4d %4d+%-3d | %12d %12d %9d | %7d %10d %11d", n, r.blocks1, r.blocks2, r.execs, r.trans, r.terminals, r.states, r.sExecs, r.sTrans)
	}
}

func inspectExample1Binomial(n, k int) int64 {
	c := int64(1)
	for i := 1; i <= k; i++ {
		c = c * int64(n-k+i) / int64(i)
	}
	return c
}

func TestInspectExample1Assert(t *testing.T) {
	ctx := context.Background()
	// N ≤ 10: the assertion holds.
	p := NewInspectExample1(10)
	p.Assert = true
	if res, err := ts.Explore(ctx, p, ts.Options{}); err != nil || res.Violation != nil || res.Executions != 21 {
		t.Errorf("N = 10 with Assert: %v, %v; want 21 executions, no violation", res, err)
	}
	// N = 11: it fails, with 0 preemptions; every failure replays.
	p = NewInspectExample1(11)
	p.Assert = true
	minP, viols := -1, 0
	res, err := ts.Explore(ctx, p, ts.Options{KeepGoing: true, OnViolation: func(v *ts.Violation) {
		viols++
		if minP < 0 || v.Trace.Preemptions < minP {
			minP = v.Trace.Preemptions
		}
		run, err := ts.Replay(p, v.Trace.Schedule())
		if err != nil || run.Violation == nil || run.Violation.Kind != ts.CheckFailure {
			t.Errorf("schedule %v does not replay to the failure: %v, %v", v.Trace.Schedule(), run.Violation, err)
		}
	}})
	if err != nil || viols == 0 || minP != 0 {
		t.Errorf("N = 11 with Assert: %v, %v; %d violations, min preemptions %d; want some, 0", res, err, viols, minP)
	}
	// The first execution of a depth-first search finds it: thread1 to its
	// end (d = 15), then thread2's third block (d = 9).
	res, err = ts.Explore(ctx, p, ts.Options{})
	if err != nil || res.Violation == nil || res.Executions != 1 || p.Check(inspectExample1Replay(t, p, res.Violation.Trace.Schedule())) == nil {
		t.Errorf("N = 11 with Assert, first failure: %v, %v", res, err)
	} else if got := res.Violation.Trace.Schedule(); !slices.Equal(got, ts.ScheduleOf(0, 0, 0, 1, 1, 1)) {
		t.Errorf("N = 11 with Assert: first failure by %v, want 0 0 0 1 1 1", got)
	}
	p = NewInspectExample1(64)
	p.Assert = true
	res, err = ts.ExploreStateful(ctx, p, ts.Options{KeepGoing: true})
	if err != nil || res.States != 466 || res.Violations == 0 {
		t.Errorf("N = 64 with Assert, stateful: %v, %v; want 466 states", res, err)
	}
}

func inspectExample1Replay(t *testing.T, p *InspectExample1, sched ts.Schedule) InspectExample1State {
	t.Helper()
	run, err := ts.Replay(p, sched)
	if err != nil {
		t.Fatal(err)
	}
	return run.Final
}

func TestInspectExample1ApplyPure(t *testing.T) {
	for _, assert := range []bool{false, true} {
		p := NewInspectExample1(20)
		p.Assert = assert
		cpcReachable[InspectExample1State](p, func(s InspectExample1State, tid ts.Tid) {
			before, h := s, p.Hash(s)
			p.Apply(s, tid)
			if s != before || p.Hash(s) != h {
				t.Errorf("Apply(%+v, %d) modified its argument", before, tid)
			}
		})
	}
}
