package por_test

import (
	"context"

	"github.com/weftlab/weft/por"
	"testing"

	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
	"pgregory.net/rapid"
)

// onceModel is two threads that each run a Once's Do modelled as a blocking
// write: Do writes the once object and waits while the other thread runs
// the function (running), then the function writes x, then Do's end writes
// the once object again. It is the model this package used for Once before
// it became a lock, reduced to a hand-written system.
type onceModel struct{}

type onceState struct {
	spawned       bool
	running, done bool
	x             int
	pc            [2]int8
}

func (onceModel) Init() onceState { return onceState{pc: [2]int8{0, -1}} }
func (onceModel) Threads() int    { return 2 }
func (onceModel) Next(s onceState, t ts.Tid) (ts.Step, ts.Status) {
	if t == 0 && !s.spawned {
		return ts.Step{Obj: 2, Op: ts.Write, Sync: true}, ts.Enabled
	}
	if t == 1 && !s.spawned {
		return ts.Step{Obj: 2, Op: ts.Read, Sync: true}, ts.Idle
	}
	switch s.pc[t] {
	case -1:
		return ts.Step{Obj: 2, Op: ts.Read, Sync: true}, ts.Enabled
	case 0:
		st := ts.Enabled
		if s.running {
			st = ts.Blocked
		}
		return ts.Step{Obj: 0, Op: ts.Write, Sync: true}, st
	case 1:
		return ts.Step{Obj: 1, Op: ts.Write}, ts.Enabled
	case 2:
		return ts.Step{Obj: 0, Op: ts.Write, Sync: true}, ts.Enabled
	case 3:
		return ts.Step{Obj: 1, Op: ts.Read}, ts.Enabled
	}
	return ts.Step{}, ts.Finished
}
func (onceModel) Apply(s onceState, t ts.Tid) onceState {
	if t == 0 && !s.spawned {
		s.spawned = true
		return s
	}
	switch s.pc[t] {
	case -1:
	case 0:
		if s.done {
			s.pc[t] = 3
			return s
		}
		s.running = true
	case 1:
		s.x = int(t) + 1
	case 2:
		s.running, s.done = false, true
	}
	s.pc[t]++
	return s
}

// TestODPORBlockingWrite is the regression test of a defect of por.ODPOR:
// with a step that writes its object and blocks (a Once's Do as a write
// that waits while another thread runs the function), ODPOR explored one
// execution of the two Mazurkiewicz traces (either thread runs the
// function) and so missed a terminal state (x = 2). The reversal of the race
// between T1's Do and T0's end of Do is infeasible (T1 is blocked there), and
// the earlier write, T0's start of Do, was not tried: now the infeasible
// branch makes ODPOR learn that the write blocks and reverse it there.
func TestODPORBlockingWrite(t *testing.T) {

	odpor := func(ctx context.Context, sys ts.TransitionSystem[onceState], opt ts.Options) (ts.Result, error) {
		return por.ODPOR(ctx, sys, por.Options{Options: opt})
	}
	tstest.CheckOptimal(t, onceModel{}, odpor, tstest.ReductionOptions{Bound: ts.NoBound})
	tstest.CheckReduction(t, onceModel{}, odpor, tstest.ReductionOptions{Bound: ts.NoBound})
}

// The model keeps the contract, and the other reductions reach all it
// reaches: the defect is ODPOR's alone.
func TestBlockingWriteModel(t *testing.T) {
	tstest.Conformance(t, onceModel{}, tstest.ConformanceOptions{})
	for _, explore := range []tstest.Explorer[onceState]{
		func(ctx context.Context, sys ts.TransitionSystem[onceState], opt ts.Options) (ts.Result, error) {
			return por.DPOR(ctx, sys, por.Options{Options: opt})
		},
		func(ctx context.Context, sys ts.TransitionSystem[onceState], opt ts.Options) (ts.Result, error) {
			return por.Sleep(ctx, sys, por.Options{Options: opt})
		},
	} {
		tstest.CheckReduction(t, onceModel{}, explore, tstest.ReductionOptions{Bound: ts.NoBound})
	}
}

// guardProg is a random program of threads that write and read x and run a
// Once's Do modelled as a blocking write of the guard object (o0): Do's
// start blocks while another thread runs the function, which writes x.
type guardProg struct {
	sync bool     // whether Do's writes of the guard are synchronization accesses
	ops  [][]int8 // per thread: 0 write x, 1 read x, 2 Do, 3 a local step
}

type guardState struct {
	running, done bool
	x             int8
	seen          [3]int8
	pc            [3]int8
	in            [3]int8 // 0: not in Do, 1: started, 2: wrote x
}

func (guardProg) Init() guardState { return guardState{} }
func (g guardProg) Threads() int   { return len(g.ops) }
func (g guardProg) Next(s guardState, t ts.Tid) (ts.Step, ts.Status) {
	switch s.in[t] {
	case 1:
		return ts.Step{Obj: 1, Op: ts.Write}, ts.Enabled
	case 2:
		return ts.Step{Obj: 0, Op: ts.Write, Sync: g.sync}, ts.Enabled
	}
	if int(s.pc[t]) >= len(g.ops[t]) {
		return ts.Step{}, ts.Finished
	}
	switch g.ops[t][s.pc[t]] {
	case 0:
		return ts.Step{Obj: 1, Op: ts.Write}, ts.Enabled
	case 1:
		return ts.Step{Obj: 1, Op: ts.Read}, ts.Enabled
	case 3:
		return ts.Step{Obj: ts.Obj(2 + t), Op: ts.Write}, ts.Enabled // local
	}
	st := ts.Enabled
	if s.running {
		st = ts.Blocked
	}
	return ts.Step{Obj: 0, Op: ts.Write, Sync: g.sync}, st
}
func (g guardProg) Apply(s guardState, t ts.Tid) guardState {
	switch s.in[t] {
	case 1:
		s.x = int8(t) + 10
		s.in[t] = 2
		return s
	case 2:
		s.running, s.done, s.in[t] = false, true, 0
		s.pc[t]++
		return s
	}
	switch g.ops[t][s.pc[t]] {
	case 0:
		s.x = int8(t) + 1
	case 1:
		s.seen[t] = s.seen[t]*4 + s.x
	case 2:
		if !s.done {
			s.running, s.in[t] = true, 1
			return s
		}
	}
	s.pc[t]++
	return s
}

// TestODPORBlockingWriteProperty compares ODPOR with ts.Explore on random
// programs with blocking writes, marked Sync or not (every terminal state),
// and checks one execution per trace. It failed before the fix.
func TestODPORBlockingWriteProperty(t *testing.T) {
	odpor := func(ctx context.Context, sys ts.TransitionSystem[guardState], opt ts.Options) (ts.Result, error) {
		return por.ODPOR(ctx, sys, por.Options{Options: opt})
	}
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(2, 3).Draw(rt, "threads")
		g := guardProg{sync: rapid.Bool().Draw(rt, "sync"), ops: make([][]int8, n)}
		for i := range n {
			g.ops[i] = rapid.SliceOfN(rapid.Int8Range(0, 3), 1, 3).Draw(rt, "ops")
		}
		tstest.CheckReduction(rt, g, odpor, tstest.ReductionOptions{Bound: ts.NoBound})
		tstest.CheckOptimal(rt, g, odpor, tstest.ReductionOptions{Bound: ts.NoBound})
	})
}
