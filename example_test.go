package weft_test

import (
	"context"
	"fmt"

	"github.com/weftlab/weft"
	"github.com/weftlab/weft/ts"
)

// counter: two threads each run r := n; n := r + 1.
type counter struct{}

type counterState struct {
	pc  [2]uint8
	reg [2]int
	n   int
}

func (counter) Init() counterState { return counterState{} }
func (counter) Threads() int       { return 2 }
func (counter) Next(s counterState, t ts.Tid) (ts.Step, ts.Status) {
	switch s.pc[t] {
	case 0:
		return ts.Step{Obj: 0, Op: ts.Read}, ts.Enabled
	case 1:
		return ts.Step{Obj: 0, Op: ts.Write}, ts.Enabled
	}
	return ts.Step{}, ts.Finished
}
func (counter) Apply(s counterState, t ts.Tid) counterState {
	if s.pc[t] == 0 {
		s.reg[t] = s.n
	} else {
		s.n = s.reg[t] + 1
	}
	s.pc[t]++
	return s
}
func (counter) Check(s counterState) error {
	if s.pc == [2]uint8{2, 2} && s.n != 2 {
		return fmt.Errorf("lost update: n = %d", s.n)
	}
	return nil
}

// Every strategy runs through Run the same way.
func ExampleRun() {
	ctx := context.Background()
	for _, s := range []weft.Strategy{weft.DFS(), weft.ODPOR(), weft.ICB(), weft.ICBPOR()} {
		res, err := weft.Run(ctx, counter{}, s, ts.Options{})
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%-18s %v, %d preemption(s), replay %v\n", s, res.Violation.Err, res.Violation.Trace.Preemptions,
			res.Violation.Trace.Schedule())
	}
	// Output:
	// dfs                lost update: n = 1, 2 preemption(s), replay [0 1 0 1]
	// odpor              lost update: n = 1, 1 preemption(s), replay [0 1 1 0]
	// icb (bound 2)      lost update: n = 1, 1 preemption(s), replay [0 1 1 0]
	// icb-por (bound 2)  lost update: n = 1, 1 preemption(s), replay [0 1 1 0]
}

// A strategy says what it needs, and Run checks it before it searches:
// counter has no Hash.
func ExampleValidate() {
	s := weft.DFSStateful()
	fmt.Println(s.Needs())
	_, err := weft.Run(context.Background(), counter{}, s, ts.Options{})
	fmt.Println(err)
	// Output:
	// Hash
	// weft: bad options: dfs-stateful: stateful search needs the system to implement Hasher
}

// A bound composes with the strategies that keep it soundly, and is refused,
// with the reason, where it would miss bugs.
func ExampleStrategy_WithBound() {
	s, err := weft.ICBPOR().WithBound(1)
	fmt.Println(s, err)
	_, err = weft.Sleep().WithBound(1)
	fmt.Println(err)
	// Output:
	// icb-por (bound 1) <nil>
	// weft: bad options: sleep takes no preemption bound: partial-order reduction under a preemption bound is unsound (pruning above the bound drops the executions the reduction relies on: the cbpor paper's Fig. 1); use CBPOR2 or ICBPOR, partial-order reduction over happens-before states within a bound
}

// Any explorer runs on the transaction view; symmetry goes with stateful
// search only.
func ExampleTransactions() {
	s, err := weft.Transactions(weft.ODPOR())
	fmt.Println(s.Name(), s.Needs(), err)
	_, err = weft.Symmetric(weft.ICB())
	fmt.Println(err)
	sym, _ := weft.Symmetric(weft.DFSStateful())
	fmt.Println(sym.Name(), "needs", sym.Needs())
	// Output:
	// tx:odpor Hash, an acyclic state space, the basic model <nil>
	// weft: bad options: symmetry under icb: its cache of (state, thread) items would merge items of different threads and get preemption counts wrong
	// sym needs Hash, a canonical form (symmetry.Canonicalizer)
}

// Strategies lists every strategy with what it takes.
func ExampleStrategies() {
	for _, s := range weft.Strategies()[:7] {
		fmt.Printf("%-14s model %-4s needs %v\n", s.Name(), s.Model(), s.Needs())
	}
	// Output:
	// dfs            model all  needs an acyclic state space
	// dfs-stateful   model all  needs Hash
	// sleep          model all  needs an acyclic state space
	// dpor           model all  needs an acyclic state space
	// odpor          model all  needs an acyclic state space
	// sdpor          model all  needs Hash, an acyclic state space
	// icb            model all  needs Hash on a cyclic system
}
