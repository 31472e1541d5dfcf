package tstest_test

import (
	"context"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// Every generated program keeps the TransitionSystem contract.
func TestProgramsConform(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{MaxThreads: 4, MaxSteps: 6}).Draw(t, "program")
		if errs := tstest.CheckConformance(p, tstest.ConformanceOptions{MaxStates: 500}); len(errs) > 0 {
			t.Fatalf("%v\n%v", p, errs)
		}
	})
}

// NoAsserts programs never fail a check: no assertion, no invariant, no
// release of a lock not held (a branch never skips a lock operation).
func TestNoAssertsNeverFail(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{NoAsserts: true}).Draw(t, "program")
		res, err := ts.Explore(context.Background(), p, ts.Options{KeepGoing: true,
			OnViolation: func(v *ts.Violation) {
				if v.Kind != ts.Deadlock {
					t.Fatalf("%v", v)
				}
			}})
		if err != nil || !res.Complete {
			t.Fatalf("%v, %v", res, err)
		}
	})
}
