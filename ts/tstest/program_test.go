package tstest_test

import (
	"testing"

	"pgregory.net/rapid"

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
