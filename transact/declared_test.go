package transact_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/transact"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// WithMovers keeps the wrapped system's outcomes and invariant: transact
// refuses them clearly (it used to see one outcome and no invariant, and
// answer "no violation"), and any other search of the wrapped system
// explores them.
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
	for name, p := range map[string]*tstest.Program{"outcomes": choices, "invariant": invariant} {
		sys := transact.WithMovers[tstest.State](p, nonMover)
		_, err := transact.Explore(context.Background(), sys, transact.Options{Proviso: transact.CPC})
		if !errors.Is(err, ts.ErrUnsupported) {
			t.Errorf("%s: transact: %v, want ts.ErrUnsupported", name, err)
		}
	}
	terminals := 0
	res, err := por.ODPOR(context.Background(), transact.WithMovers[tstest.State](choices, nonMover),
		por.Options{Options: ts.Options{OnTerminal: func(any, ts.Schedule) { terminals++ }}})
	if err != nil || terminals != 2 {
		t.Errorf("outcomes: odpor: %v, %v: %d terminal states, want 2", res, err, terminals)
	}
	res, err = por.ODPOR(context.Background(), transact.WithMovers[tstest.State](invariant, nonMover), por.Options{})
	if err != nil || res.Violation == nil || res.Violation.Kind != ts.InvariantFailure {
		t.Errorf("invariant: odpor: %v, %v; want an invariant failure", res, err)
	}
}

// A View runs whole transactions with each step's first outcome: on a
// system with outcomes it says so (a panic every search reports, with the
// schedule) rather than hide the others.
func TestViewRefusesOutcomes(t *testing.T) {
	nonMover := func(tstest.State, ts.Tid) transact.Mover { return transact.NonMover }
	choices := &tstest.Program{
		Vars: []tstest.Var{{Name: "x"}},
		Code: [][]tstest.Instr{{tstest.StoreMaybe(0, 1)}},
	}
	v, err := transact.NewView[tstest.State](context.Background(), transact.WithMovers[tstest.State](choices, nonMover), transact.ViewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ts.Explore[tstest.State](context.Background(), v, ts.Options{})
	if err != nil || res.Violation == nil || res.Violation.Kind != ts.Panic || !strings.Contains(fmt.Sprint(res.Violation.Err), "outcomes are not supported") {
		t.Errorf("%v, %v; want the View's panic", res, err)
	}
}
