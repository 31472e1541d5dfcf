package symmetry_test

import (
	"context"
	"fmt"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/symmetry"
	"github.com/weftlab/weft/ts"
)

// Four identical workers take three items from a queue without its lock, so
// two can take the same item. sym stores one state per orbit of the worker
// permutations and reports the bug with a schedule of real worker ids.
func ExampleExplore() {
	sys := models.NewPFScanBuggy(4)
	plain, _ := ts.ExploreStateful[models.PFScanState](context.Background(), models.NewPFScan(4), ts.Options{})
	sym, _ := symmetry.Explore[models.PFScanState](context.Background(), models.NewPFScan(4), symmetry.Options{})
	fmt.Printf("pfscan-4: %d states, %d orbits\n", plain.States, sym.States)

	res, err := symmetry.Explore[models.PFScanState](context.Background(), sys, symmetry.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Violation.Err)
	_, err = ts.Confirm[models.PFScanState](sys, res.Violation, res.Violation.Trace.Schedule())
	fmt.Println("replays on the original system:", err == nil)
	// Output:
	// pfscan-4: 6707 states, 408 orbits
	// found = 5 matches, want 4: an item was scanned twice
	// replays on the original system: true
}

// Three threads each lock and unlock one lock. Plain DPOR explores the 3!
// orders of the critical sections; with the threads' program counters as
// signatures, sympor explores one: every reversal DPOR schedules is between
// two threads at the same point.
func ExampleDPOR() {
	for _, opt := range []symmetry.Options{{NoSymmetry: true}, {}} {
		res, err := symmetry.DPOR[models.Locks3State](context.Background(), models.NewLocks3(0), opt)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("symmetry %v: executions %d, branches pruned %d\n", !opt.NoSymmetry, res.Executions, res.Stats["pruned"])
	}
	// Output:
	// symmetry false: executions 6, branches pruned 0
	// symmetry true: executions 1, branches pruned 3
}

// wrongSigned claims that two philosophers about to take a fork are
// interchangeable; they are not, their forks differ.
type wrongSigned struct{ *models.Philosophers }

func (p wrongSigned) Signature(s models.PhilosophersState, t ts.Tid) uint64 {
	step, _ := p.Next(s, t)
	return uint64(step.Op)
}

// Verify checks declared symmetry on a bounded state space and names the
// first place where it fails.
func ExampleVerify() {
	fmt.Println(symmetry.Verify[models.PhilosophersState](models.NewPhilosophers(4), symmetry.VerifyOptions{}))
	fmt.Println(symmetry.Verify[models.PhilosophersState](wrongSigned{models.NewPhilosophers(4)}, symmetry.VerifyOptions{}))
	// Output:
	// <nil>
	// symmetry: declared symmetry does not hold: thread 0 (image 1): threads 0 and 1 have equal signatures after [], but thread 0's next step is acquire o1 and its image's acquire o2: no consistent renaming of objects (schedule [0])
}
