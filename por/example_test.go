package por_test

import (
	"context"
	"fmt"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
)

// The example of section 2.3.1 of Yang's thesis: t1: x=1; x=2 and
// t2: y=1; x=3. Six interleavings, three Mazurkiewicz traces.
func ExampleDPOR() {
	sys := models.NewInspect231(0)
	full, _ := ts.Explore(context.Background(), sys, ts.Options{})
	res, err := por.DPOR(context.Background(), sys, por.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("ts.Explore:", full)
	fmt.Println("DPOR:      ", res)
	// Output:
	// ts.Explore: no violation: 6 executions, 18 transitions
	// DPOR:       no violation: 3 executions, 11 transitions
}

// Three threads take and release one lock: every order of the critical
// sections is its own trace, and optimal DPOR explores each once.
func ExampleODPOR() {
	res, err := por.ODPOR(context.Background(), models.NewLocks3(0), por.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res, res.Stats["sleep-blocked"])
	// Output:
	// no violation: 6 executions, 30 transitions 0
}

// Stateful DPOR on Figure 4.1 of the thesis, at its N = 64: stateless search
// faces C(45, 13) interleavings.
func ExampleSDPOR() {
	res, err := por.SDPOR(context.Background(), models.NewInspectExample1(64), por.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res)
	// Output:
	// no violation: 417 executions, 877 transitions, 462 states
}

// Sleep sets on the lost update: of the six interleavings, the two orders
// of the two reads are one trace, and so are the two orders of the two writes.
func ExampleSleep() {
	res, err := por.Sleep(context.Background(), models.NewLostUpdate(0), por.Options{Options: ts.Options{KeepGoing: true}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res)
	fmt.Println(res.Violation.Err)
	// Output:
	// check failure (lost update: counter = 1 at the end, want 2) with 1 preemption after 4 steps: 4 executions, 13 transitions
	// lost update: counter = 1 at the end, want 2
}

// With several workers the search is split into units below a depth of
// the schedule; the result is the one-goroutine search's, whatever the
// worker count.
func ExampleOptions_workers() {
	sys := models.NewIndexer(14)
	for _, workers := range []int{1, 4} {
		res, err := por.ODPOR(context.Background(), sys, por.Options{Options: ts.Options{Workers: workers}, SplitDepth: 8, SplitAfter: -1})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("workers %d: %v\n", workers, res)
	}
	// Output:
	// workers 1: no violation: 512 executions, 8356 transitions
	// workers 4: no violation: 512 executions, 8356 transitions
}

// pipe stands for a link to other machines: each unit goes out as bytes,
// a worker with its own copy of the system explores it, and the result
// comes back as bytes.
type pipe struct {
	worker ts.TransitionSystem[models.LastzeroState]
}

func (p pipe) RunUnits(ctx context.Context, units []por.Unit) ([]por.UnitResult, error) {
	var results []por.UnitResult
	for _, u := range units {
		r, err := por.ExploreUnit(ctx, p.worker, u)
		if err != nil {
			return nil, err
		}
		results = append(results, r)
	}
	return results, nil
}

// The units of a search explored elsewhere: the same result as the search
// alone.
func ExampleExploreUnit() {
	sys := models.NewLastzero(8)
	alone, _ := por.ODPOR(context.Background(), sys, por.Options{})
	opt := por.Options{SplitDepth: 6, SplitAfter: -1, Runner: pipe{worker: models.NewLastzero(8)}}
	split, err := por.ODPOR(context.Background(), sys, opt)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("alone:", alone)
	fmt.Println("split:", split)
	// Each batch is a round trip to the runner.
	fmt.Println("units:", split.Stats["parallel-units"], "in", split.Stats["parallel-batches"], "batches")
	// Output:
	// alone: no violation: 704 executions, 7039 transitions
	// split: no violation: 704 executions, 7039 transitions
	// units: 26 in 10 batches
}
