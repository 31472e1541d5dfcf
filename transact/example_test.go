package transact_test

import (
	"context"
	"fmt"

	"github.com/weftlab/weft/transact"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// Two threads share x under lock m; the second asserts it read 0. The movers
// are inferred from the lock discipline (x is protected by m), so each
// critical section is one transaction and commit point completion finds the
// failure.
func ExampleExplore() {
	p := &tstest.Program{
		Vars:  []tstest.Var{{Name: "x"}},
		Locks: []string{"m"},
		Code: [][]tstest.Instr{
			{tstest.Acquire(0), tstest.Store(0, 1), tstest.Release(0)},
			{tstest.Acquire(0), tstest.Load(0, 0), tstest.Release(0), tstest.AssertEq(0, 0)},
		},
	}
	res, err := transact.Explore(context.Background(), p, transact.Options{Proviso: transact.CPC})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Violation.Err)
	fmt.Println("schedule:", res.Violation.Trace.Schedule())
	// Output:
	// T1@3: assert r0 == 0 failed (r0 = 1)
	// schedule: [0 0 0 1 1 1]
}

// A hand-declared mover that lies: a racy store declared a both mover.
// VerifyMovers names the step, the property and the state.
func ExampleVerifyMovers() {
	p := &tstest.Program{
		Vars: []tstest.Var{{Name: "x"}},
		Code: [][]tstest.Instr{
			{tstest.Store(0, 1)},
			{tstest.Load(0, 0)},
		},
	}
	sys := transact.WithMovers[tstest.State](p, func(tstest.State, ts.Tid) transact.Mover {
		return transact.BothMover
	})
	fmt.Println(transact.VerifyMovers(context.Background(), sys, transact.VerifyOptions{}))
	// Output:
	// transact: thread 0's write x, declared a both mover, breaks mover property 1 against thread 1's read x at schedule []: thread 0's write x (x := 1) then thread 1's read x (r0 := x) reaches another state than the other order
}

// The transaction view coarsens a system for any explorer: here
// ts.ExploreStateful interleaves whole critical sections.
func ExampleNewView() {
	p := &tstest.Program{
		Vars:  []tstest.Var{{Name: "x"}},
		Locks: []string{"m"},
		Code: [][]tstest.Instr{
			{tstest.Acquire(0), tstest.FetchAdd(0, 0, 1), tstest.Release(0)},
			{tstest.Acquire(0), tstest.FetchAdd(0, 0, 1), tstest.Release(0)},
		},
	}
	ctx := context.Background()
	full, _ := ts.ExploreStateful(ctx, p, ts.Options{})
	v, err := transact.NewView(ctx, p, transact.ViewOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	coarse, _ := ts.ExploreStateful[tstest.State](ctx, v, ts.Options{})
	fmt.Println("steps:", full.States, "states;", "transactions:", coarse.States, "states")
	fmt.Println(v.Describe(v.Init(), 0))
	// Output:
	// steps: 13 states; transactions: 5 states
	// lock(m); r0 := fetch_add(x, 1); unlock(m)
}
