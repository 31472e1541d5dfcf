package transact_test

import (
	"context"
	"errors"
	"testing"

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/transact"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// WithMovers keeps the wrapped system's outcomes and invariant: transact
// explores both outcomes of a lossy store and finds the invariant failure
// (it used to see one outcome and no invariant, and answer "no violation"),
// as any other search of the wrapped system does.
func TestWithMoversKeepsOutcomesAndInvariant(t *testing.T) {
	nonMover := func(tstest.State, ts.Tid) transact.Mover { return transact.NonMover }
	// x := 1 may be lost; the invariant x != 1 fails only when it is not.
	choices := &tstest.Program{
		Vars: []tstest.Var{{Name: "x"}},
		Code: [][]tstest.Instr{{tstest.StoreMaybe(0, 1)}},
	}
	// The same without outcomes, with the invariant x != 1.
	invariant := &tstest.Program{
		Vars:       []tstest.Var{{Name: "x"}},
		Code:       [][]tstest.Instr{{tstest.Store(0, 1)}},
		Invariants: []tstest.Cond{{X: 0, Y: -1, K: 1}},
	}
	for _, search := range []struct {
		name    string
		explore func(ts.TransitionSystem[tstest.State], ts.Options) (ts.Result, error)
	}{
		{"transact", func(sys ts.TransitionSystem[tstest.State], o ts.Options) (ts.Result, error) {
			return transact.Explore(context.Background(), sys, transact.Options{Options: o})
		}},
		{"odpor", func(sys ts.TransitionSystem[tstest.State], o ts.Options) (ts.Result, error) {
			return por.ODPOR(context.Background(), sys, por.Options{Options: o})
		}},
	} {
		terminals := 0
		res, err := search.explore(transact.WithMovers[tstest.State](choices, nonMover),
			ts.Options{OnTerminal: func(any, ts.Schedule) { terminals++ }})
		if err != nil || terminals != 2 {
			t.Errorf("outcomes: %s: %v, %v: %d terminal states, want 2", search.name, res, err, terminals)
		}
		res, err = search.explore(transact.WithMovers[tstest.State](invariant, nonMover), ts.Options{})
		if err != nil || res.Violation == nil || res.Violation.Kind != ts.InvariantFailure {
			t.Errorf("invariant: %s: %v, %v; want an invariant failure", search.name, res, err)
		}
	}
}

// A View's transitions have the outcomes of their first step: on a lossy
// store, the view has two transitions from the initial state, and its
// schedules (outcome included) expand to the original's. Before, the View
// panicked on a system with outcomes.
func TestViewOutcomes(t *testing.T) {
	nonMover := func(tstest.State, ts.Tid) transact.Mover { return transact.NonMover }
	choices := &tstest.Program{
		Vars: []tstest.Var{{Name: "x"}},
		Code: [][]tstest.Instr{{tstest.StoreMaybe(0, 1), tstest.Load(0, 0), tstest.AssertEq(0, 0)}},
	}
	sys := transact.WithMovers[tstest.State](choices, nonMover)
	v, err := transact.NewView(context.Background(), sys, transact.ViewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := v.Outcomes(v.Init(), 0); n != 2 {
		t.Errorf("%d outcomes, want 2", n)
	}
	if d := v.Describe(v.Init(), 0); d != "x := 1 or lost" {
		t.Errorf("Describe = %q", d)
	}
	terminals := 0
	res, err := ts.Explore[tstest.State](context.Background(), v, ts.Options{KeepGoing: true,
		OnTerminal: func(any, ts.Schedule) { terminals++ }})
	if err != nil || res.Violation == nil || res.Violations != 1 || terminals != 1 {
		t.Fatalf("%v, %v, %d terminal states; want one failure (x := 1 kept) and one terminal state (lost)", res, err, terminals)
	}
	sched, err := v.Expand(res.Violation.Trace.Schedule())
	if err != nil || sched.String() != "[0 0]" {
		t.Fatalf("expanded %v to %v, %v", res.Violation.Trace.Schedule(), sched, err)
	}
	run, err := ts.Replay(sys, sched)
	if err != nil || run.Violation == nil || run.Violation.Err.Error() != res.Violation.Err.Error() {
		t.Errorf("the expanded schedule shows %v, %v", run.Violation, err)
	}
	if _, err := v.Expand(ts.Schedule{{Thread: 0, Outcome: 2}}); !errors.Is(err, ts.ErrNotEnabled) {
		t.Errorf("Expand of outcome 2 of 2: %v", err)
	}
}
