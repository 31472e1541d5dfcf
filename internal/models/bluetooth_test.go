package models

import (
	"testing"

	"github.com/weftlab/weft/ts"
)

func TestBluetooth(t *testing.T) {
	// Measured under ts.Explore with KeepGoing, per number of adders:
	// executions, transitions, violating executions, distinct terminal states.
	want := map[int]struct{ execs, trans, viols, terms int64 }{
		1: {60, 233, 4, 2},
		2: {16386, 55951, 1768, 3},
		// 3: {13913688, 45997817, 1638348, 4}, measured once: 45 s
	}
	t.Logf("%6s %10s %12s %10s %9s %8s", "adders", "executions", "transitions", "violations", "terminals", "min pre")
	for n := 1; n <= 2; n++ {
		sys := NewBluetooth(n)
		f := fixturesExplore(t, sys)
		t.Logf("%6d %10d %12d %10d %9d %8d", n, f.res.Executions, f.res.Transitions, f.res.Violations, len(f.terminals), f.minPreempt)
		w := want[n]
		if f.res.Executions != w.execs || f.res.Transitions != w.trans || f.res.Violations != w.viols || int64(len(f.terminals)) != w.terms {
			t.Errorf("adders %d: %d executions, %d transitions, %d violations, %d terminal states; want %d, %d, %d, %d",
				n, f.res.Executions, f.res.Transitions, f.res.Violations, len(f.terminals), w.execs, w.trans, w.viols, w.terms)
		}
		// No violation within 0 preemptions; the fewest is exactly 1.
		if f.minPreempt != 1 {
			t.Errorf("adders %d: min preemptions %d, want 1", n, f.minPreempt)
		}
		for _, v := range f.violations {
			if v.Kind != ts.CheckFailure {
				t.Errorf("adders %d: violation %v, want only check failures (no deadlock)", n, v)
			}
		}
		if g, _ := fixturesMinPreemptionsGraph[BluetoothState](sys); g != 1 {
			t.Errorf("adders %d: min preemptions by graph search %d, want 1", n, g)
		}
		if n == 1 {
			for _, v := range f.violations {
				if v.Trace.Preemptions == 1 {
					t.Logf("a violation with the fewest preemptions:\n%v", v.Trace)
					break
				}
			}
		}
		fixturesNoMutation(t, sys)
	}
}
