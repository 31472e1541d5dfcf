package cbound_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// panicsAt is a Program whose thread 0 panics in Apply where variable 0
// holds x. With own set, only where thread 0's own step accesses the
// variable (the panic depends on what the step accesses, as the contract
// asks); otherwise wherever the state its step reaches holds x, whatever
// the step accesses (the system breaks the independence contract).
type panicsAt struct {
	*tstest.Program
	x   int
	own bool
}

func (p panicsAt) Apply(s tstest.State, t ts.Tid) tstest.State {
	return p.ApplyOutcome(s, t, 0)
}

func (p panicsAt) ApplyOutcome(s tstest.State, t ts.Tid, c int) tstest.State {
	if t != 0 {
		return p.Program.ApplyOutcome(s, t, c)
	}
	if !p.own {
		n := p.Program.ApplyOutcome(s, t, c)
		if first(n) == p.x {
			panic("boom")
		}
		return n
	}
	st, _ := p.Next(s, t)
	for i := range st.NumAccesses() {
		if st.At(i).Obj == 0 && first(s) == p.x {
			panic("boom")
		}
	}
	return p.Program.ApplyOutcome(s, t, c)
}

// first is the value of a state's first variable, as its String shows it.
func first(s tstest.State) int {
	var name string
	var v int
	fmt.Sscanf(s.String(), "%1s=%d", &name, &v)
	return v
}

var everyBounded = []struct {
	name string
	f    strategy[tstest.State]
}{
	{"icb", cbound.ICB[tstest.State]},
	{"cb-dfs", cbound.DFS[tstest.State]},
	{"cb-por1", cbound.HBSearch[tstest.State]},
	{"cb-por2", cbound.POR[tstest.State]},
	{"icb-por", cbound.IterativePOR[tstest.State]},
}

// A panic that depends on a variable the panicking step does not access
// makes a replay of an equivalent prefix panic where the search's own
// path did not. icb-por met it storing a state none of whose moves it
// could take (markStuck), and after the panic came back to the same state
// and replayed it again, forever. Every strategy must end, on its own and
// under a transition limit, and report the panic.
func TestPanicBreakingContractEnds(t *testing.T) {
	// T0: acquire m0; x := 2. T1: await x == 0. T2: x := 3. x starts at
	// 1, and T0 panics wherever its step leaves x == 1.
	prog := &tstest.Program{
		Vars:  []tstest.Var{{Name: "x", Init: 1}, {Name: "y"}},
		Locks: []string{"m0"},
		Mod:   4,
		Code: [][]tstest.Instr{
			{tstest.Acquire(0), tstest.Store(0, 2)},
			{tstest.Await(0, 0)},
			{tstest.Store(0, 3)},
		},
	}
	sys := panicsAt{prog, 1, false}
	for _, s := range everyBounded {
		for _, limit := range []int64{0, 50} {
			opt := cbound.Options{Bound: 1}
			opt.KeepGoing = true
			opt.Limits.Transitions = limit
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			res, err := s.f(ctx, sys, opt)
			cancel()
			if errors.Is(err, context.DeadlineExceeded) || (err != nil && !errors.Is(err, ts.ErrBadSystem)) {
				t.Errorf("%s, transition limit %d: %v, %v", s.name, limit, res, err)
				continue
			}
			if err == nil && (res.Violation == nil || res.Violation.Kind != ts.Panic) {
				t.Errorf("%s, transition limit %d: %v, want the panic reported", s.name, limit, res)
			}
		}
	}
}

// A panic that respects the contract is reported once, each execution
// explored once: the state the panic left is a leaf of cb-por2's search,
// stored (Mark) as any other, so that no equivalent path reaches it again.
func TestPanicReportedOnce(t *testing.T) {
	// T0 panics when its step accesses x and x == 3.
	prog := &tstest.Program{
		Vars:  []tstest.Var{{Name: "x", Init: 3}, {Name: "s0", Init: 1, Sync: true}},
		Locks: []string{"m0", "m1"},
		Mod:   4,
		Code: [][]tstest.Instr{
			{tstest.JumpEq(0, 1, 2), tstest.Store(1, 0), tstest.AssertNe(0, 1), tstest.AssertNe(0, 1), tstest.StoreMaybe(0, 1)},
			{tstest.Acquire2(1, 0), tstest.Set(1, 3), tstest.Load(1, 1), tstest.AssertNe(1, 0), tstest.FetchAdd(1, 1, 3)},
		},
	}
	reportedOnce(t, prog, panicsAt{prog, 3, true}, 3, false)
}

// checkPanics is a Program whose Check panics where variable 0 holds x.
type checkPanics struct {
	*tstest.Program
	x int
}

func (p checkPanics) Check(s tstest.State) error {
	if first(s) == p.x {
		panic("boom")
	}
	return p.Program.Check(s)
}

// A panic in Check is a leaf too: reported once, cb-por2 exploring what
// cb-por1 does.
func TestCheckPanicReportedOnce(t *testing.T) {
	// T0: x := 1; y := 1. T1: y := 2; z := 1. T2: z := 2.
	prog := &tstest.Program{
		Vars: []tstest.Var{{Name: "x"}, {Name: "y"}, {Name: "z"}},
		Mod:  4,
		Code: [][]tstest.Instr{
			{tstest.Store(0, 1), tstest.Store(1, 1)},
			{tstest.Store(1, 2), tstest.Store(2, 1)},
			{tstest.Store(2, 2)},
		},
	}
	reportedOnce(t, prog, checkPanics{prog, 1}, 2, true)
}

// reportedOnce checks that every cb-por strategy, with KeepGoing and the
// given bound, reports each violation of sys (prog with panics) once, its
// first a panic where firstPanic, and explores as many executions as
// cb-por1 (one per terminal HB class).
func reportedOnce(t *testing.T, prog *tstest.Program, sys ts.TransitionSystem[tstest.State], bound int, firstPanic bool) {
	t.Helper()
	var executions int64 = -1
	for _, s := range everyBounded[2:] {
		seen := map[string]int{}
		opt := cbound.Options{Bound: bound}
		opt.KeepGoing = true
		opt.OnViolation = func(v *ts.Violation) {
			k, err := tstest.TraceKey[tstest.State](prog, v.Trace.Schedule())
			if err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			seen[k]++
		}
		res, err := s.f(context.Background(), sys, opt)
		if err != nil || res.Violation == nil || (firstPanic && res.Violation.Kind != ts.Panic) {
			t.Fatalf("%s: %v, %v", s.name, res, err)
		}
		for k, n := range seen {
			if n > 1 {
				t.Errorf("%s: the violation with trace %s reported %d times", s.name, k, n)
			}
		}
		if executions < 0 {
			executions = res.Executions
		} else if res.Executions != executions {
			t.Errorf("%s: %d executions, cb-por1 %d", s.name, res.Executions, executions)
		}
	}
}
