package models

import (
	"context"
	"testing"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// wholeStrategies are the strategies that take the whole model, as tstest
// explorers.
func wholeStrategies[S any]() []struct {
	name    string
	explore tstest.Explorer[S]
} {
	return []struct {
		name    string
		explore tstest.Explorer[S]
	}{
		{"sleep", func(ctx context.Context, sys ts.TransitionSystem[S], o ts.Options) (ts.Result, error) {
			return por.Sleep(ctx, sys, por.Options{Options: o})
		}},
		{"dpor", func(ctx context.Context, sys ts.TransitionSystem[S], o ts.Options) (ts.Result, error) {
			return por.DPOR(ctx, sys, por.Options{Options: o})
		}},
		{"odpor", func(ctx context.Context, sys ts.TransitionSystem[S], o ts.Options) (ts.Result, error) {
			return por.ODPOR(ctx, sys, por.Options{Options: o})
		}},
		{"sdpor", func(ctx context.Context, sys ts.TransitionSystem[S], o ts.Options) (ts.Result, error) {
			return por.SDPOR(ctx, sys, por.Options{Options: o})
		}},
		{"icb", func(ctx context.Context, sys ts.TransitionSystem[S], o ts.Options) (ts.Result, error) {
			return cbound.ICB(ctx, sys, cbound.Options{Options: o, Bound: cbound.Unbounded})
		}},
	}
}

func TestTwoPhase(t *testing.T) {
	// Measured under ts.Explore: executions, transitions, distinct terminal
	// states; and the executions of ODPOR, one per Mazurkiewicz trace.
	want := map[int]struct{ execs, trans, terms, odpor int64 }{
		1: {303, 652, 17, 23},
		2: {629982, 1343479, 188, 624},
	}
	for n := 1; n <= 2; n++ {
		sys := NewTwoPhase(n)
		f := fixturesExplore(t, sys)
		w := want[n]
		if f.res.Executions != w.execs || f.res.Transitions != w.trans || int64(len(f.terminals)) != w.terms || f.res.Violations != 0 {
			t.Errorf("N=%d: %d executions, %d transitions, %d terminal states, %d violations; want %d, %d, %d, 0",
				n, f.res.Executions, f.res.Transitions, len(f.terminals), f.res.Violations, w.execs, w.trans, w.terms)
		}
		rep := tstest.CheckOptimal(t, sys, wholeStrategies[TwoPhaseState]()[2].explore, tstest.ReductionOptions{Bound: ts.NoBound})
		if rep.Result.Executions != w.odpor {
			t.Errorf("N=%d: odpor explores %d executions, want %d", n, rep.Result.Executions, w.odpor)
		}
		for _, s := range wholeStrategies[TwoPhaseState]() {
			rep := tstest.CheckReduction(t, sys, s.explore, tstest.ReductionOptions{Bound: ts.NoBound})
			if len(rep.Errors) > 0 {
				t.Errorf("N=%d: %s: %d discrepancies", n, s.name, len(rep.Errors))
			}
		}
	}
	// Three participants: too many interleavings for the reference here, so
	// the reduction's count, each execution a different trace. (Before ODPOR
	// took every outcome of a transition wherever it takes it, it explored
	// 31,596: 56 traces were missed.)
	sys := NewTwoPhase(3)
	traces := map[string]bool{}
	res, err := por.ODPOR(context.Background(), sys, por.Options{Options: ts.Options{OnTerminal: func(_ any, s ts.Schedule) {
		k, err := tstest.TraceKey[TwoPhaseState](sys, s)
		if err != nil || traces[k] {
			t.Errorf("N=3: trace of %v: %v, explored before: %v", s, err, traces[k])
		}
		traces[k] = true
	}}})
	if err != nil || !res.Complete || res.Violation != nil || res.Executions != 31652 || len(traces) != 31652 {
		t.Errorf("N=3: odpor: %v, %v, %d traces; want complete, no violation, 31652 executions and traces", res, err, len(traces))
	}
}

// The bug is found by every strategy that takes the whole model, with the
// fewest preemptions (0) by ICB, and its trace replays to the invariant
// failure.
func TestTwoPhaseBug(t *testing.T) {
	for n := 2; n <= 3; n++ {
		invariantFound(t, n, NewTwoPhaseBug(n))
	}
	// Every violation the full search finds, by every reduction, against
	// the stateful reference (the stateless one takes 13.6 million
	// executions at N = 2).
	sys := NewTwoPhaseBug(2)
	for _, s := range wholeStrategies[TwoPhaseState]() {
		rep := tstest.CheckReduction(t, sys, s.explore, tstest.ReductionOptions{Bound: ts.NoBound, Stateful: true})
		if len(rep.Errors) > 0 || rep.ExpectedViolations == 0 {
			t.Errorf("%s: %d discrepancies, %d violations expected", s.name, len(rep.Errors), rep.ExpectedViolations)
		}
	}
}

// invariantFound checks that every strategy that takes the whole model
// finds an invariant failure in sys, ICB with 0 preemptions (the fewest in
// the bundled bugs), and that its trace replays to the same failure.
func invariantFound[S any](t *testing.T, n int, sys ts.TransitionSystem[S]) {
	t.Helper()
	for _, s := range wholeStrategies[S]() {
		res, err := s.explore(context.Background(), sys, ts.Options{})
		if err != nil {
			t.Fatalf("N=%d: %s: %v", n, s.name, err)
		}
		v := res.Violation
		if v == nil || v.Kind != ts.InvariantFailure {
			t.Fatalf("N=%d: %s: %v, want an invariant failure", n, s.name, res)
		}
		run, err := ts.Replay(sys, v.Trace.Schedule())
		if err != nil || run.Violation == nil || run.Violation.Err.Error() != v.Err.Error() {
			t.Errorf("N=%d: %s: the trace replays to %v, %v", n, s.name, run.Violation, err)
		}
		if s.name == "icb" && v.Trace.Preemptions != 0 {
			t.Errorf("N=%d: icb: %d preemptions, want 0", n, v.Trace.Preemptions)
		}
	}
}

// The context-bounded POR strategies take the whole model too: icb-por
// finds the bug with 0 preemptions, and its schedule replays.
func TestTwoPhaseBugCBPOR(t *testing.T) {
	sys := NewTwoPhaseBug(2)
	res, err := cbound.IterativePOR(context.Background(), sys, cbound.Options{Bound: cbound.AtMost(2)})
	if err != nil || res.Violation == nil || res.Violation.Kind != ts.InvariantFailure || res.Violation.Trace.Preemptions != 0 {
		t.Fatalf("icb-por: %v, %v; want an invariant failure with 0 preemptions", res, err)
	}
	if _, err := ts.Confirm[TwoPhaseState](sys, res.Violation, res.Violation.Trace.Schedule()); err != nil {
		t.Errorf("icb-por: %v", err)
	}
}

// Next of a step of several objects allocates nothing: the models share
// their Also slices between states, as the contract allows.
func TestExtendedModelsNextAllocatesNothing(t *testing.T) {
	tp := NewTwoPhase(2)
	s := tp.Init()
	s.pc[0], s.pc[1] = tpcCollect, tppDecision
	abp := NewABP(1)
	for name, next := range map[string]func(){
		"twophase select":  func() { tp.Next(s, 0) },
		"twophase receive": func() { tp.Next(s, 1) },
		"abp receive":      func() { abp.Next(abp.Init(), 1) },
	} {
		if a := testing.AllocsPerRun(100, next); a != 0 {
			t.Errorf("%s: %v allocations per Next", name, a)
		}
	}
}
