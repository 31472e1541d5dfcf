package symmetry_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/weftlab/weft/symmetry"
	"github.com/weftlab/weft/ts"
)

// flips is n identical threads that each flip a coin once (a transition of
// two outcomes) and write the result to a slot of their own; the slots are
// sorted to canonicalize. The invariant and the check both fail when every
// coin shows 1: only outcome 1 of every thread reaches it.
type flips struct {
	n       int
	asCheck bool
}

type flipsState struct {
	done [4]bool
	coin [4]uint8
}

func (f flips) Init() flipsState { return flipsState{} }
func (f flips) Threads() int     { return f.n }

func (f flips) Next(s flipsState, t ts.Tid) (ts.Step, ts.Status) {
	if s.done[t] {
		return ts.Step{}, ts.Finished
	}
	return ts.Step{Obj: ts.Obj(t), Op: ts.Write}, ts.Enabled
}

func (f flips) Outcomes(s flipsState, t ts.Tid) int { return 2 }

func (f flips) Apply(s flipsState, t ts.Tid) flipsState { return f.ApplyOutcome(s, t, 0) }

func (f flips) ApplyOutcome(s flipsState, t ts.Tid, c int) flipsState {
	s.done[t], s.coin[t] = true, uint8(c)
	return s
}

func (f flips) allOnes(s flipsState) error {
	for t := range f.n {
		if s.coin[t] != 1 {
			return nil
		}
	}
	return fmt.Errorf("every coin shows 1")
}

func (f flips) Check(s flipsState) error {
	if f.asCheck {
		return f.allOnes(s)
	}
	return nil
}

func (f flips) Invariant(s flipsState) error {
	if f.asCheck {
		return nil
	}
	return f.allOnes(s)
}

func (f flips) InvariantReads() []ts.Obj {
	objs := make([]ts.Obj, f.n)
	for i := range objs {
		objs[i] = ts.Obj(i)
	}
	return objs
}

func (f flips) Hash(s flipsState) uint64 {
	h := uint64(0)
	for t := range f.n {
		h = h*7 + uint64(s.coin[t])*2
		if s.done[t] {
			h++
		}
	}
	return h
}

// Canonical sorts the threads by (done, coin).
func (f flips) Canonical(s flipsState) (flipsState, []ts.Tid) {
	order := make([]ts.Tid, f.n)
	for t := range order {
		order[t] = ts.Tid(t)
	}
	key := func(t ts.Tid) int {
		k := int(s.coin[t])
		if s.done[t] {
			k += 2
		}
		return k
	}
	slices.SortStableFunc(order, func(a, b ts.Tid) int { return key(a) - key(b) })
	var rep flipsState
	perm := make([]ts.Tid, f.n)
	for i, t := range order {
		rep.done[i], rep.coin[i] = s.done[t], s.coin[t]
		perm[t] = ts.Tid(i)
	}
	return rep, perm
}

// Outcomes and invariants reach the search through Orbits: the stateful
// symmetric search used to take outcome 0 only, and said "no violation".
func TestExploreOutcomesAndInvariant(t *testing.T) {
	for _, asCheck := range []bool{false, true} {
		sys := flips{n: 3, asCheck: asCheck}
		want := ts.InvariantFailure
		if asCheck {
			want = ts.CheckFailure
		}
		res, err := symmetry.Explore(context.Background(), sys, symmetry.Options{})
		if err != nil || res.Violation == nil || res.Violation.Kind != want {
			t.Fatalf("check=%v: %v, %v; want %v", asCheck, res, err, want)
		}
		run, err := ts.Replay[flipsState](sys, res.Violation.Trace.Schedule())
		if err != nil || run.Violation == nil || run.Violation.Kind != want {
			t.Errorf("check=%v: the schedule %v replays to %v, %v", asCheck, res.Violation.Trace.Schedule(), run.Violation, err)
		}
	}
	// Terminal orbits: the number of ones, 0..3.
	terminals := 0
	res, err := symmetry.Explore(context.Background(), flips{n: 3, asCheck: true}, symmetry.Options{Options: ts.Options{
		KeepGoing: true, OnTerminal: func(any, ts.Schedule) { terminals++ }}})
	if err != nil || terminals != 3 || res.Violations != 1 {
		t.Errorf("%v, %v: %d terminal orbits and %d violations, want 3 and 1", res, err, terminals, res.Violations)
	}
}
