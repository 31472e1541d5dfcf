package por_test

import (
	"context"
	"testing"

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/sim"
	"github.com/weftlab/weft/ts"
)

// TestAuditParallelViolationRace: a parallel search (Workers 2) hands
// OnViolation a deadlock found by a worker whose error names objects
// through the worker's fork of the system (its ObjNamer), while that
// worker goes on exploring with the fork, which renames its objects in
// every execution (package threads). Formatting the error in OnViolation
// (v.Err.Error(), or printing v) then reads the fork's name map while the
// worker writes it: the race detector reports it, and without it the
// process can die with "fatal error: concurrent map read and map write"
// (TestAuditParallelThreads -audit -rapid.seed 8302 did). With -race this
// test failed in 10 runs of 10, each with 97 to 383 race reports (the
// detector names threads.(*runner).ObjName, called from
// ts.(*DeadlockError).Error in OnViolation on the search's goroutine,
// reading the map that threads.(*T).newObj writes on the worker's
// goroutine), 4 of them ending in the fatal error; without -race the test
// binary died with that fatal error in 6 runs of 10. The program is TestAuditODPORSelectTraces's, its threads
// spawned by main (chanProgSpawn) so that forks share nothing.
//
// Without -race it is skipped: the fatal error would end the whole test
// binary.
func TestAuditParallelViolationRace(t *testing.T) {
	if !auditRace {
		t.Skip("run with -race: without it the race may kill the test binary")
	}
	for _, f := range []struct {
		name string
		f    func(context.Context, ts.TransitionSystem[sim.State], por.Options) (ts.Result, error)
	}{{"dpor", por.DPOR[sim.State]}, {"odpor", por.ODPOR[sim.State]}, {"sleep", por.Sleep[sim.State]}} {
		for depth := 3; depth <= 7; depth++ {
			sys := chanProgSpawn(1, []int{6, 3, 2}, []int{6, 3}, []int{5, 8}).MustSystem()
			n := 0
			opt := por.Options{SplitAfter: -1, SplitDepth: depth, Options: ts.Options{Workers: 2, KeepGoing: true,
				OnViolation: func(v *ts.Violation) {
					if v.Err != nil {
						n += len(v.Err.Error())
					}
				}}}
			res, err := f.f(context.Background(), sys, opt)
			sys.Close()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s split %d: %v, %v units", f.name, depth, res, res.Stats["parallel-units"])
		}
	}
}
