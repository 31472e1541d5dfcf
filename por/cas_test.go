package por_test

import (
	"context"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// casShape draws programs with value-dependent compare-and-swaps (a failed
// one is a Read) over the whole model.
func casShape(t *rapid.T) tstest.GenOptions {
	o := tstest.GenOptions{MinThreads: 2, CASReads: true}
	if rapid.Bool().Draw(t, "four") {
		o.MinThreads, o.MaxThreads, o.MaxSteps, o.Vars = 3, 4, 3, 1
	}
	if rapid.Bool().Draw(t, "mod2") {
		o.Mod = 2 // more compare-and-swaps succeed
	}
	return o
}

// Three threads each run cas(x, 0, 1) from x = 0, a failed cas being a
// read: three traces (one per winner). ODPOR explored two before the race
// reversal used the reversed thread's step at its new place (a write
// there) rather than its step in the execution analysed (a read).
func TestODPORThreeCAS(t *testing.T) {
	cas := tstest.CAS(0, 0, 0, 1)
	p := &tstest.Program{Vars: []tstest.Var{{Name: "x"}}, CASReads: true,
		Code: [][]tstest.Instr{{cas}, {cas}, {cas}}}
	tstest.Conformance(t, p, tstest.ConformanceOptions{})
	if n := optimalOn[tstest.State](t, p); n != 3 {
		t.Errorf("%d traces, want 3", n)
	}
}

// On random programs with value-dependent steps, every strategy of the
// package reaches exactly the terminal states and violations of
// ts.Explore (SDPOR: ts.ExploreStateful).
func TestCASReduction(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(casShape(t)).Draw(t, "program")
		for _, s := range strategies[tstest.State]() {
			explore := func(ctx context.Context, sys ts.TransitionSystem[tstest.State], o ts.Options) (ts.Result, error) {
				return s.f(ctx, sys, por.Options{Options: o})
			}
			ropt := tstest.ReductionOptions{Bound: ts.NoBound, Stateful: s.name == "sdpor"}
			if rep := tstest.CheckReduction(t, p, explore, ropt); len(rep.Errors) > 0 {
				t.Fatalf("%s: %d discrepancies", s.name, len(rep.Errors))
			}
		}
	})
}

// ODPOR explores exactly one execution per Mazurkiewicz trace of the
// actual accesses (a failed cas a read) on random programs whose checks
// cannot fail, deadlocking ones included (without transitions of several
// outcomes, so with no sleep-blocked execution either).
func TestODPOROptimalCAS(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		o := casShape(t)
		o.NoAsserts, o.NoChoices = true, true
		p := tstest.Programs(o).Draw(t, "program")
		optimalChoices[tstest.State](t, p, hasChoices(p))
	})
}

// The generated programs keep the relaxed contract.
func TestCASProgramsConform(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(casShape(t)).Draw(t, "program")
		tstest.Conformance(t, p, tstest.ConformanceOptions{MaxStates: 300})
	})
}

// Programs with no value-dependent step where a thread waits for ever at
// the end of some executions; ODPOR explored 15 executions of the 16 traces
// of the first (and of the first with an Idle wait), 162 of the 163 of the
// second (each missing trace ends with the thread waiting).
//
// First: after T1's x := 0 and T0's x := 1, the reversal that puts T1's
// second x := 0 before T0's await (which then waits for ever) is dropped at
// that state because T2, asleep there, is a weak initial of it (rightly:
// with T0 stuck, the trace where T3 reads s0 before T2 writes it is not one
// of T2's). That trace comes from the race of T2's write with T3's read
// found at the root in an execution that starts T2, T3, T1, T0 and ends
// with T0 waiting: notdep there is T1, T0, T1 (the execution holds no more
// of T0), so the reversal is T1, T0, T1, T3, which no sleeping thread
// covers. But that race lies in the part of the execution shared with an
// earlier one in which T0 ran to the end (and whose notdep, T1, T1, T0,
// T0, made another reversal), and ODPOR analysed each race once. An
// execution that ends with a thread waiting now has all its races analysed
// when a waiting thread moved after the prefix it shares with the previous
// one (here T0, which ran to its end there).
//
// Second: T0's x := ... has two outcomes, and taking it with one outcome
// added the other as a leaf of the wakeup tree; a later reversal that
// starts with that outcome (T0/1, T2's x := 3, T0, T0) reached the leaf and
// was dropped as covered, but the leaf planned nothing: explored later,
// with T1 asleep, its free run left T2's write after T0's and the
// reversal of that race ([T2]) had T1 as a weak initial. Such a leaf now
// takes the sequence as its subtree.
func TestODPORDeadlockTraces(t *testing.T) {
	for _, p := range []*tstest.Program{{
		Vars: []tstest.Var{{Name: "x"}, {Name: "s0", Sync: true}},
		Code: [][]tstest.Instr{
			{tstest.Store(0, 1), tstest.Await(0, 1), tstest.Load(0, 1)},
			{tstest.Store(0, 0), tstest.Store(0, 0)},
			{tstest.Store(1, 1)},
			{tstest.Load(0, 1)},
		},
	}, {
		// The first with T0 waiting Idle (an end, not a deadlock): the same.
		Vars: []tstest.Var{{Name: "x"}, {Name: "s0", Sync: true}},
		Code: [][]tstest.Instr{
			{tstest.Store(0, 1), tstest.Wait(0, 1), tstest.Load(0, 1)},
			{tstest.Store(0, 0), tstest.Store(0, 0)},
			{tstest.Store(1, 1)},
			{tstest.Load(0, 1)},
		},
	}, {
		Vars: []tstest.Var{{Name: "x", Init: 3}, {Name: "s0", Sync: true}},
		Code: [][]tstest.Instr{
			{tstest.StoreMaybe(0, 3), tstest.StoreReg(0, 1, 3), tstest.CAS(1, 1, 2, 2)},
			{tstest.Copy(0, 1), tstest.StoreReg(1, 0, 0), tstest.Await(0, 0)},
			{tstest.Store(1, 1), tstest.Store(0, 3)},
		},
	}} {
		optimalChoices[tstest.State](t, p, true)
	}
}
