package threads_test

import (
	"context"
	"testing"

	"github.com/weftlab/weft"
	"github.com/weftlab/weft/sim"
	"github.com/weftlab/weft/threads"
	"github.com/weftlab/weft/threads/gobugs"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

func odpor(ctx context.Context, sys ts.TransitionSystem[sim.State], opt ts.Options) (ts.Result, error) {
	return weft.Run(ctx, sys, weft.ODPOR(), opt)
}

// traceKeyed keys a state by the Mazurkiewicz trace of the schedule that
// reached it: a state of a program is the schedule (its memory is inside
// the coroutines), and two schedules of one trace reach the same state.
func traceKeyed(sys *threads.System) func(any) string {
	return func(s any) string {
		k, err := tstest.TraceKey[sim.State](sys, s.(sim.State).Schedule())
		if err != nil {
			panic(err)
		}
		return k
	}
}

// TestOptimal checks that ODPOR explores each example's executions once per
// Mazurkiewicz trace, and reaches every terminal state and violation
// ts.Explore reaches.
func TestOptimal(t *testing.T) {
	progs := map[string]*threads.Program{
		"treiber-unchecked": treiber(false), "double-checked": doubleChecked(false), "double-checked-atomic": doubleChecked(true),
		"bank": bank(), "bounded-buffer": boundedBuffer(), "counter": counter(true),
	}
	for _, k := range gobugs.Kernels() {
		if k.Kind != ts.CheckFailure { // optimality is defined for systems whose checks pass
			progs["gobugs/"+k.Name] = k.Buggy()
		}
		progs["gobugs/"+k.Name+"-fixed"] = k.Fixed()
	}
	for name, p := range progs {
		t.Run(name, func(t *testing.T) {
			sys := p.MustSystem()
			defer sys.Close()
			rep := tstest.CheckOptimal[sim.State](t, sys, odpor, tstest.ReductionOptions{Bound: ts.NoBound, Key: traceKeyed(sys)})
			if len(rep.Traces) == 0 {
				t.Errorf("no trace")
			}
			t.Logf("%d traces, %d executions", len(rep.Traces), rep.Result.Executions)
		})
	}
}

// A select found Idle where a branch planned it (a buffered receive that
// another thread's receive emptied first) is analysed there as a waiting
// thread's step, as a Blocked one is: its reversal walks back to before
// that receive. Before, ODPOR dropped the branch and explored 4 of the
// program's 6 traces, missing the deadlocks where thread 2 takes thread 0's
// value (found by TestRandomOptimal at one seed: [5][6 5][0 7]).
func TestIdleSelectOnPlannedBranch(t *testing.T) {
	var x *threads.Var[int]
	var b, u *threads.Chan[int]
	p := &threads.Program{MaxThreads: 3, Threads: []func(*threads.T){
		func(t *threads.T) {
			x, b, u = threads.NewVar(t, "x", 0), threads.NewChan[int](t, "b", 1), threads.NewChan[int](t, "u", 0)
			b.Send(t, 0)
		},
		func(t *threads.T) { b.Send(t, b.Recv(t)) },
		func(t *threads.T) {
			acc := x.Load(t)
			threads.Select(t, u.SendCase(acc), b.RecvCase(&acc, nil))
		},
	}}
	sys := p.MustSystem()
	defer sys.Close()
	rep := tstest.CheckOptimal[sim.State](t, sys, odpor, tstest.ReductionOptions{Bound: ts.NoBound, Key: traceKeyed(sys)})
	if len(rep.Traces) != 6 || rep.Result.Executions != 6 {
		t.Errorf("%d traces, %d executions; want 6 and 6", len(rep.Traces), rep.Result.Executions)
	}
}
