package symmetry_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/weftlab/weft/symmetry"
	"github.com/weftlab/weft/ts"
)

// flips is n identical threads that each flip a coin once (a transition of
// two outcomes) and write the result to a slot of their own; the slots are
// sorted to canonicalize, and a thread's signature is its slot. The
// invariant and the check both fail when every coin shows 1: only outcome 1
// of every thread reaches it.
//
// The other fields break the symmetry, each in one way, for Verify: thread
// 0's coin has three sides (outs0), the invariant fails when thread 0's coin
// shows 1 (only0), it declares that it reads thread 0's slot only (reads0),
// thread 1's coin writes 1-c for outcome c (swap1).
type flips struct {
	n       int
	asCheck bool

	outs0                int
	only0, reads0, swap1 bool
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

func (f flips) Outcomes(s flipsState, t ts.Tid) int {
	if t == 0 && f.outs0 > 0 {
		return f.outs0
	}
	return 2
}

func (f flips) Apply(s flipsState, t ts.Tid) flipsState { return f.ApplyOutcome(s, t, 0) }

func (f flips) ApplyOutcome(s flipsState, t ts.Tid, c int) flipsState {
	if t == 1 && f.swap1 {
		c = 1 - c
	}
	s.done[t], s.coin[t] = true, uint8(c)
	return s
}

func (f flips) allOnes(s flipsState) error {
	if f.only0 {
		if s.done[0] && s.coin[0] == 1 {
			return fmt.Errorf("thread 0's coin shows 1")
		}
		return nil
	}
	if f.reads0 {
		return nil
	}
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
	if f.reads0 {
		return []ts.Obj{0}
	}
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

// Signature is a thread's slot: (done, coin).
func (f flips) Signature(s flipsState, t ts.Tid) uint64 {
	sig := uint64(s.coin[t]) * 2
	if s.done[t] {
		sig++
	}
	return sig
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

// sympor takes outcomes and the invariant: it finds the coins that all show
// 1, as an invariant failure or a failed check, with a schedule of outcomes
// that replays to it, and reaches every terminal orbit and violation of
// ts.Explore with fewer executions than DPOR without symmetry. It used to
// refuse the system with ts.ErrUnsupported.
func TestSymporOutcomesAndInvariant(t *testing.T) {
	for _, asCheck := range []bool{false, true} {
		sys := flips{n: 3, asCheck: asCheck}
		want := ts.InvariantFailure
		if asCheck {
			want = ts.CheckFailure
		}
		res, err := symmetry.DPOR(context.Background(), sys, symmetry.Options{})
		if err != nil || res.Violation == nil || res.Violation.Kind != want {
			t.Fatalf("check=%v: %v, %v; want %v", asCheck, res, err, want)
		}
		sched := res.Violation.Trace.Schedule()
		run, err := ts.Replay[flipsState](sys, sched)
		if err != nil || run.Violation == nil || run.Violation.Kind != want {
			t.Errorf("check=%v: the schedule %v replays to %v, %v", asCheck, sched, run.Violation, err)
		}
		for _, mv := range sched {
			if mv.Outcome != 1 {
				t.Errorf("check=%v: the schedule %v takes an outcome other than 1", asCheck, sched)
			}
		}
		for n := 2; n <= 4; n++ {
			sys := flips{n: n, asCheck: asCheck}
			ref := collect(t, sys, ts.Options{}, func(o ts.Options) (ts.Result, error) { return ts.Explore[flipsState](context.Background(), sys, o) })
			sp := collect(t, sys, ts.Options{}, withOpts[flipsState](sys, symmetry.DPOR[flipsState], symmetry.Options{}))
			sameOrbits(t, fmt.Sprintf("sympor, %d coins", n), ref, sp)
			plain := collect(t, sys, ts.Options{}, withOpts[flipsState](sys, symmetry.DPOR[flipsState], symmetry.Options{NoSymmetry: true}))
			sameOrbits(t, fmt.Sprintf("dpor, %d coins", n), ref, plain)
			if sp.res.Executions >= plain.res.Executions {
				t.Errorf("%d coins: sympor explores %d executions, dpor %d", n, sp.res.Executions, plain.res.Executions)
			}
		}
	}
}

// canonFlips is flips with its canonical form and no signatures.
type canonFlips struct{ f flips }

func (c canonFlips) Init() flipsState                                 { return c.f.Init() }
func (c canonFlips) Threads() int                                     { return c.f.Threads() }
func (c canonFlips) Next(s flipsState, t ts.Tid) (ts.Step, ts.Status) { return c.f.Next(s, t) }
func (c canonFlips) Apply(s flipsState, t ts.Tid) flipsState          { return c.f.Apply(s, t) }
func (c canonFlips) Outcomes(s flipsState, t ts.Tid) int              { return c.f.Outcomes(s, t) }
func (c canonFlips) ApplyOutcome(s flipsState, t ts.Tid, o int) flipsState {
	return c.f.ApplyOutcome(s, t, o)
}
func (c canonFlips) Check(s flipsState) error     { return c.f.Check(s) }
func (c canonFlips) Invariant(s flipsState) error { return c.f.Invariant(s) }
func (c canonFlips) InvariantReads() []ts.Obj     { return c.f.InvariantReads() }
func (c canonFlips) Hash(s flipsState) uint64     { return c.f.Hash(s) }
func (c canonFlips) Canonical(s flipsState) (flipsState, []ts.Tid) {
	return c.f.Canonical(s)
}

// signFlips is flips with its signatures and no canonical form.
type signFlips struct{ f flips }

func (c signFlips) Init() flipsState                                 { return c.f.Init() }
func (c signFlips) Threads() int                                     { return c.f.Threads() }
func (c signFlips) Next(s flipsState, t ts.Tid) (ts.Step, ts.Status) { return c.f.Next(s, t) }
func (c signFlips) Apply(s flipsState, t ts.Tid) flipsState          { return c.f.Apply(s, t) }
func (c signFlips) Outcomes(s flipsState, t ts.Tid) int              { return c.f.Outcomes(s, t) }
func (c signFlips) ApplyOutcome(s flipsState, t ts.Tid, o int) flipsState {
	return c.f.ApplyOutcome(s, t, o)
}
func (c signFlips) Check(s flipsState) error                { return c.f.Check(s) }
func (c signFlips) Invariant(s flipsState) error            { return c.f.Invariant(s) }
func (c signFlips) InvariantReads() []ts.Obj                { return c.f.InvariantReads() }
func (c signFlips) Hash(s flipsState) uint64                { return c.f.Hash(s) }
func (c signFlips) Signature(s flipsState, t ts.Tid) uint64 { return c.f.Signature(s, t) }

// Verify checks what the whole model adds to a declared symmetry: equal
// numbers of outcomes, successors by equal outcomes in one orbit, a
// symmetric invariant, and (for signatures, whose lockstep comparison
// renames objects) a renaming that keeps the invariant's read set. It
// accepts flips (its signatures, which have no Permuter, only with
// Observational: by default they are *Unverified), and rejects each broken
// variant where the break first shows, with a schedule (of outcomes) that
// replays. A canonical form names no objects, and sym, which is all it is
// for, does not depend on the read set: a wrong read set is accepted there.
func TestVerifyWholeModel(t *testing.T) {
	for _, f := range []flips{{n: 3}, {n: 3, asCheck: true}} {
		if err := symmetry.Verify[flipsState](canonFlips{f}, symmetry.VerifyOptions{}); err != nil {
			t.Errorf("canonFlips %+v: %v", f, err)
		}
		for _, sys := range []ts.TransitionSystem[flipsState]{f, signFlips{f}} {
			var u *symmetry.Unverified
			if err := symmetry.Verify(sys, symmetry.VerifyOptions{}); !errors.As(err, &u) || u.A != 0 || u.B != 1 || len(u.Schedule) != 0 {
				t.Errorf("%T %+v: %v; want the claim on threads 0 and 1 at the initial state unverified", sys, f, err)
			}
			if err := symmetry.Verify(sys, symmetry.VerifyOptions{Observational: true}); err != nil {
				t.Errorf("%T %+v, observational: %v", sys, f, err)
			}
		}
	}
	m := func(sched ts.Schedule, thread, image ts.Tid, detail string) *symmetry.Mismatch {
		return &symmetry.Mismatch{Schedule: sched, Thread: thread, Image: image, Detail: detail}
	}
	for _, tc := range []struct {
		name string
		sys  ts.TransitionSystem[flipsState]
		want *symmetry.Mismatch // nil: accepted
	}{
		{"canonical, three-sided coin", canonFlips{flips{n: 3, outs0: 3}}, m(ts.Schedule{{Thread: 0}}, 1, 0, "has 2 outcomes but its image 0's in the canonical form has 3")},
		{"canonical, asymmetric invariant", canonFlips{flips{n: 3, only0: true}}, m(ts.Schedule{{Thread: 0, Outcome: 1}}, -1, -1, "the invariant fails on the state but not on its canonical form")},
		{"canonical, read set of thread 0's slot", canonFlips{flips{n: 3, reads0: true}}, nil},
		{"canonical, swapped outcomes", canonFlips{flips{n: 3, swap1: true}}, m(ts.Schedule{{Thread: 0}}, 1, 0, "(outcome 0) are in different orbits")},
		{"signatures, three-sided coin", signFlips{flips{n: 3, outs0: 3}}, m(nil, 0, 1, "has 3 outcomes and its image 1's has 2")},
		{"signatures, asymmetric invariant", signFlips{flips{n: 3, only0: true}}, m(ts.Schedule{{Thread: 0, Outcome: 1}}, -1, -1, "the invariant fails on the state but not on the state reached with them exchanged")},
		{"signatures, read set of thread 0's slot", signFlips{flips{n: 3, reads0: true}}, m(nil, 0, 1, "maps object 0, which the invariant reads, and object 1, which it does not, onto each other")},
		{"signatures, swapped outcomes", signFlips{flips{n: 3, swap1: true}}, m(ts.Schedule{{Thread: 0}, {Thread: 1, Outcome: 1}, {Thread: 2, Outcome: 1}}, -1, -1, "the invariant fails on the state reached with them exchanged but not on the state")},
	} {
		err := symmetry.Verify(tc.sys, symmetry.VerifyOptions{})
		if tc.want == nil {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		var got *symmetry.Mismatch
		if !errors.As(err, &got) || !errors.Is(err, symmetry.ErrAsymmetric) {
			t.Errorf("%s: Verify accepted it: %v", tc.name, err)
			continue
		}
		t.Logf("%s: %v", tc.name, got)
		if !strings.Contains(got.Detail, tc.want.Detail) || got.Thread != tc.want.Thread || got.Image != tc.want.Image ||
			(tc.want.Schedule != nil && !got.Schedule.Equal(tc.want.Schedule)) {
			t.Errorf("%s: got %v; want thread %d, image %d, schedule %v, %q", tc.name, got, tc.want.Thread, tc.want.Image, tc.want.Schedule, tc.want.Detail)
		}
		if _, rerr := ts.Replay[flipsState](tc.sys, got.Schedule); rerr != nil {
			t.Errorf("%s: the mismatch's schedule %v does not replay: %v", tc.name, got.Schedule, rerr)
		}
	}
}
