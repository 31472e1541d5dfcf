package models

import (
	"math"
	"testing"

	"github.com/weftlab/weft/ts"
)

func TestPhilosophers(t *testing.T) {
	// Measured under ts.Explore: executions, transitions, distinct terminal
	// states (the deadlock included).
	want := map[int]struct{ execs, trans, terms int64 }{
		2: {4, 18, 2},
		3: {396, 1680, 2},
		4: {104704, 386816, 2},
	}
	t.Logf("%2s %10s %12s %9s %10s %8s", "N", "executions", "transitions", "terminals", "deadlocks", "min pre")
	for n := 2; n <= 4; n++ {
		sys := NewPhilosophers(n)
		f := fixturesExplore(t, sys)
		t.Logf("%2d %10d %12d %9d %10d %8d", n, f.res.Executions, f.res.Transitions, len(f.terminals), f.res.Violations, f.minPreempt)
		w := want[n]
		if f.res.Executions != w.execs || f.res.Transitions != w.trans || int64(len(f.terminals)) != w.terms {
			t.Errorf("N=%d: %d executions, %d transitions, %d terminal states; want %d, %d, %d",
				n, f.res.Executions, f.res.Transitions, len(f.terminals), w.execs, w.trans, w.terms)
		}
		if fact := int64(math.Gamma(float64(n + 1))); f.res.Violations != fact {
			t.Errorf("N=%d: %d deadlocking executions, want %d", n, f.res.Violations, fact)
		}
		if f.minPreempt != 1 {
			t.Errorf("N=%d: min preemptions %d, want 1", n, f.minPreempt)
		}
		for _, v := range f.violations {
			if v.Kind != ts.Deadlock {
				t.Fatalf("N=%d: violation %v, want a deadlock", n, v)
			}
			run, err := ts.Replay[PhilosophersState](sys, v.Trace.Schedule())
			if err != nil {
				t.Fatal(err)
			}
			for i := range n { // everyone holds the left fork and waits for the right one
				if run.Final.pc[i] != philosophersTakeRight || run.Final.owner[i] != int8(i)+1 {
					t.Fatalf("N=%d: deadlock state %+v", n, run.Final)
				}
			}
		}
		if g, sched := fixturesMinPreemptionsGraph[PhilosophersState](sys); g != 1 {
			t.Errorf("N=%d: min preemptions by graph search %d (%v), want 1", n, g, sched)
		}
		fixturesNoMutation(t, sys)
	}
}
