package models

import (
	"context"
	"errors"
	"testing"

	"github.com/weftlab/weft/ts"
)

func TestPeterson(t *testing.T) {
	// Distinct states under ts.ExploreStateful, per rounds.
	want := map[int]int64{1: 58, 2: 210, 3: 458, 4: 802}
	t.Logf("%6s %10s %12s %7s %9s", "rounds", "executions", "transitions", "states", "terminals")
	for n := 1; n <= petersonMaxRounds; n++ {
		sys := NewPeterson(n)
		terms := 0
		res, err := ts.ExploreStateful(context.Background(), sys, ts.Options{
			OnTerminal: func(any, ts.Schedule) { terms++ },
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%6d %10d %12d %7d %9d", n, res.Executions, res.Transitions, res.States, terms)
		if res.Violation != nil || !res.Complete {
			t.Errorf("rounds %d: %v, want no violation and a complete search", n, res)
		}
		// Two terminal states: all done, with turn = 0 or turn = 1.
		if res.States != want[n] || terms != 2 {
			t.Errorf("rounds %d: %d states, %d terminal states; want %d, 2", n, res.States, terms, want[n])
		}
		if got := fixturesNoMutation(t, sys); int64(got) != res.States {
			t.Errorf("rounds %d: %d reachable states, ExploreStateful stored %d", n, got, res.States)
		}
		if g, sched := fixturesMinPreemptionsGraph[PetersonState](sys); g != -1 {
			t.Errorf("rounds %d: a violation with %d preemptions: %v", n, g, sched)
		}
	}
}

func TestPetersonStatelessDepth(t *testing.T) {
	for _, sys := range []*Peterson{NewPeterson(1), NewPetersonBuggy(1)} {
		_, err := ts.Explore(context.Background(), sys, ts.Options{Limits: ts.Limits{Depth: 200}})
		if !errors.Is(err, ts.ErrDepth) {
			t.Errorf("buggy=%v: stateless ts.Explore = %v, want an error wrapping ts.ErrDepth", sys.buggy, err)
		}
	}
}

// petersonBuggyStates: distinct states and violating states under
// ts.ExploreStateful with KeepGoing, per rounds.
var petersonBuggyStates = map[int]struct{ states, violations int64 }{
	1: {109, 4}, 2: {413, 16}, 3: {913, 36}, 4: {1609, 64},
}

func TestPetersonBuggy(t *testing.T) {
	t.Logf("%6s %7s %10s %8s", "rounds", "states", "violations", "min pre")
	for n := 1; n <= petersonMaxRounds; n++ {
		sys := NewPetersonBuggy(n)
		res, err := ts.ExploreStateful(context.Background(), sys, ts.Options{})
		if err != nil {
			t.Fatal(err)
		}
		v := res.Violation
		if v == nil || v.Kind != ts.CheckFailure {
			t.Fatalf("rounds %d: %v, want a check failure", n, res)
		}
		fixturesReplays(t, sys, v)

		var all []*ts.Violation
		full, err := ts.ExploreStateful(context.Background(), sys, ts.Options{KeepGoing: true,
			OnViolation: func(v *ts.Violation) { all = append(all, v) }})
		if err != nil || !full.Complete {
			t.Fatalf("rounds %d: %v, %v", n, full, err)
		}
		for _, v := range all {
			fixturesReplays(t, sys, v)
		}

		// The exact minimum, and a schedule that shows it.
		min, sched := fixturesMinPreemptionsGraph[PetersonState](sys)
		t.Logf("%6d %7d %10d %8d", n, full.States, full.Violations, min)
		if w := petersonBuggyStates[n]; full.States != w.states || full.Violations != w.violations {
			t.Errorf("rounds %d: %d states, %d violating states; want %d, %d", n, full.States, full.Violations, w.states, w.violations)
		}
		if min != 2 {
			t.Errorf("rounds %d: min preemptions %d, want 2", n, min)
		}
		run, err := ts.Replay(sys, sched)
		if err != nil {
			t.Fatal(err)
		}
		if run.Violation == nil || run.Violation.Kind != ts.CheckFailure || run.Trace.Preemptions != min {
			t.Errorf("rounds %d: schedule %v replays to %v with %d preemptions", n, sched, run.Violation, run.Trace.Preemptions)
		}
		if n == 1 {
			t.Logf("a violation with the fewest preemptions:\n%v", run.Trace)
		}
		fixturesNoMutation(t, sys)
	}
}
