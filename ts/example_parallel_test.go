package ts_test

import (
	"context"
	"fmt"
	"hash/fnv"

	"github.com/weftlab/weft/ts"
)

// increments is counter with more threads, and a Hash for the stateful
// search: each of four threads reads the shared counter and writes back the
// value plus one.
type increments struct{}

type incState struct {
	pc  [4]uint8 // 0: about to read, 1: about to write, 2: done
	reg [4]uint8
	n   uint8
}

func (increments) Init() incState { return incState{} }
func (increments) Threads() int   { return 4 }

func (increments) Next(s incState, t ts.Tid) (ts.Step, ts.Status) {
	switch s.pc[t] {
	case 0:
		return ts.Step{Obj: 0, Op: ts.Read}, ts.Enabled
	case 1:
		return ts.Step{Obj: 0, Op: ts.Write}, ts.Enabled
	}
	return ts.Step{}, ts.Finished
}

func (increments) Apply(s incState, t ts.Tid) incState {
	if s.pc[t] == 0 {
		s.reg[t] = s.n
	} else {
		s.n = s.reg[t] + 1
	}
	s.pc[t]++
	return s
}

func (increments) Check(s incState) error {
	if s.pc == [4]uint8{2, 2, 2, 2} && s.n != 4 {
		return fmt.Errorf("counter is %d, want 4", s.n)
	}
	return nil
}

func (increments) Hash(s incState) uint64 {
	h := fnv.New64a()
	h.Write(s.pc[:])
	h.Write(s.reg[:])
	h.Write([]byte{s.n})
	return h.Sum64()
}

// The stateful search on several goroutines: the workers compute states
// ahead, and the result, every callback and the first violation's schedule
// are those of the search on one goroutine.
func ExampleExploreStateful_workers() {
	for _, workers := range []int{1, 4} {
		terminals := 0
		res, err := ts.ExploreStateful(context.Background(), increments{}, ts.Options{
			Workers:    workers,
			KeepGoing:  true,
			OnTerminal: func(any, ts.Schedule) { terminals++ },
		})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("workers %d: %v; %d violations, %d terminal states; first: %v\n",
			workers, res, res.Violations, terminals, res.Violation.Trace.Schedule())
	}
	// Output:
	// workers 1: check failure (counter is 3, want 4) with 2 preemptions after 8 steps: 511 executions, 1156 transitions, 755 states; 85 violations, 24 terminal states; first: [0 0 1 1 2 3 2 3]
	// workers 4: check failure (counter is 3, want 4) with 2 preemptions after 8 steps: 511 executions, 1156 transitions, 755 states; 85 violations, 24 terminal states; first: [0 0 1 1 2 3 2 3]
}
