package ts_test

import (
	"context"
	"fmt"
	"slices"

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
)

// fanIn is two producers, each sending one message on its own channel (a
// on object 0, b on object 1), and a consumer that receives both with a
// select over the two channels.
//
// A select is one transition whose step names every channel it may take
// from, a Write of each (in Also), and which waits while all are empty.
// The step must not depend on which channel is ready: a thread's step may
// change only through its own moves. Declaring them all also makes every
// send dependent with the select, so the search tries each arrival order.
// When both are ready, Go's select takes either: that is a choice, one
// outcome per channel, each preferring its channel and falling back to the
// other when it is empty.
type fanIn struct{}

type fanInState struct {
	sent [2]bool
	ch   [2]bool  // a message waiting on a, on b
	got  [2]uint8 // the order received: 'a' or 'b'
	n    uint8
}

var fanInAlso = []ts.Access{{Obj: 1, Op: ts.Write}} // shared by every state

func (fanIn) Init() fanInState { return fanInState{} }
func (fanIn) Threads() int     { return 3 }

func (fanIn) Next(s fanInState, t ts.Tid) (ts.Step, ts.Status) {
	if t < 2 {
		if s.sent[t] {
			return ts.Step{}, ts.Finished
		}
		return ts.Step{Obj: ts.Obj(t), Op: ts.Write}, ts.Enabled
	}
	if s.n == 2 {
		return ts.Step{}, ts.Finished
	}
	step := ts.Step{Obj: 0, Op: ts.Write, Also: fanInAlso}
	if !s.ch[0] && !s.ch[1] {
		return step, ts.Blocked
	}
	return step, ts.Enabled
}

func (fanIn) Outcomes(s fanInState, t ts.Tid) int {
	if t == 2 {
		return 2
	}
	return 1
}

func (f fanIn) Apply(s fanInState, t ts.Tid) fanInState { return f.ApplyOutcome(s, t, 0) }

func (fanIn) ApplyOutcome(s fanInState, t ts.Tid, c int) fanInState {
	if t < 2 {
		s.sent[t], s.ch[t] = true, true
		return s
	}
	if !s.ch[c] {
		c = 1 - c // the preferred channel is empty: take the other
	}
	s.ch[c] = false
	s.got[s.n] = "ab"[c]
	s.n++
	return s
}

// A select over two channels: both orders of receipt are reached, by the
// reference search and by optimal DPOR. (Optimal DPOR counts two outcomes as
// two traces even where the fallback makes them reach the same state.)
func Example_select() {
	orders := func(explore func(ts.Options) (ts.Result, error)) []string {
		var out []string
		res, _ := explore(ts.Options{OnTerminal: func(s any, _ ts.Schedule) {
			got := s.(fanInState).got
			out = append(out, string(got[:]))
		}})
		slices.Sort(out)
		return append(slices.Compact(out), fmt.Sprint(res.Executions, " executions"))
	}
	ctx := context.Background()
	fmt.Println("dfs:", orders(func(o ts.Options) (ts.Result, error) { return ts.Explore(ctx, fanIn{}, o) }))
	fmt.Println("odpor:", orders(func(o ts.Options) (ts.Result, error) { return por.ODPOR(ctx, fanIn{}, por.Options{Options: o}) }))
	// Output:
	// dfs: [ab ba 16 executions]
	// odpor: [ab ba 12 executions]
}
