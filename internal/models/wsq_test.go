package models

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/weftlab/weft/ts"
)

// The helpers below are shared by the tests of wsq, filesystem, indexer and
// lastzero.

// wsqSys is what the test helpers need of a model.
type wsqSys[S any] interface {
	ts.TransitionSystem[S]
	ts.Hasher[S]
}

// wsqFacts are the figures of a complete ts.Explore.
type wsqFacts struct {
	res       ts.Result
	terminals int     // distinct terminal states, by hash
	atMost    []int64 // atMost[c]: executions with at most c preemptions
}

// wsqExplore runs ts.Explore to the end and counts distinct terminal states
// and, for bounds > 0, the executions with at most c preemptions for c =
// 0..bounds-1 (each execution's schedule replayed with ts.Preemptions).
func wsqExplore[S any](t *testing.T, sys wsqSys[S], bounds int) wsqFacts {
	t.Helper()
	var f wsqFacts
	seen := map[uint64]bool{}
	hist := make([]int64, bounds)
	var perr error
	res, err := ts.Explore(context.Background(), sys, ts.Options{
		OnTerminal: func(st any, sched ts.Schedule) {
			seen[sys.Hash(st.(S))] = true
			if bounds == 0 {
				return
			}
			p, err := ts.Preemptions(sys, sched)
			if err != nil {
				perr = err
			}
			if p < bounds {
				hist[p]++
			}
		},
	})
	if err != nil {
		t.Fatalf("Explore: %v", err)
	}
	if perr != nil {
		t.Fatalf("Preemptions: %v", perr)
	}
	f.res, f.terminals = res, len(seen)
	var sum int64
	for _, n := range hist {
		sum += n
		f.atMost = append(f.atMost, sum)
	}
	return f
}

// wsqMinPreemptions explores every execution with ts.Explore and KeepGoing
// and returns the fewest preemptions of a violating schedule, the kinds of
// violation seen and their count. A violation's schedule must replay to a
// violation of the same kind with the same preemptions: checked for the first
// thousand and for each that lowers the minimum.
func wsqMinPreemptions[S any](t *testing.T, sys wsqSys[S]) (minP int, kinds []ts.ViolationKind, n int64) {
	t.Helper()
	minP = -1
	replays := 0
	res, err := ts.Explore(context.Background(), sys, ts.Options{
		KeepGoing: true,
		OnViolation: func(v *ts.Violation) {
			replays++
			if replays > 1000 && minP >= 0 && v.Trace.Preemptions >= minP {
				return // replaying the first thousand and every new minimum is enough
			}
			sched := v.Trace.Schedule()
			run, err := ts.Replay(sys, sched)
			switch {
			case err != nil:
				t.Errorf("replaying %v: %v", sched, err)
			case run.Violation == nil || run.Violation.Kind != v.Kind:
				t.Errorf("replaying %v: got %v, want a %v", sched, run.Violation, v.Kind)
			case run.Trace.Preemptions != v.Trace.Preemptions:
				t.Errorf("replaying %v: %d preemptions, want %d", sched, run.Trace.Preemptions, v.Trace.Preemptions)
			}
			if minP < 0 || v.Trace.Preemptions < minP {
				minP = v.Trace.Preemptions
			}
			if !slices.Contains(kinds, v.Kind) {
				kinds = append(kinds, v.Kind)
			}
		},
	})
	if err != nil {
		t.Fatalf("Explore: %v", err)
	}
	if !res.Complete {
		t.Fatalf("Explore did not complete: %v", res)
	}
	return minP, kinds, res.Violations
}

// wsqCheckPure walks the reachable states (by hash) and checks that Apply
// never modifies its argument and that Next reports a valid step, also for
// blocked threads. It returns the number of distinct states.
func wsqCheckPure[S any](t *testing.T, sys wsqSys[S]) int {
	t.Helper()
	seen := map[uint64]bool{}
	stack := []S{sys.Init()}
	seen[sys.Hash(stack[0])] = true
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		h := sys.Hash(s)
		for tid := range ts.Tid(sys.Threads()) {
			step, st := sys.Next(s, tid)
			if st == ts.Finished {
				continue
			}
			if !step.Op.Valid() || step.Obj < 0 {
				t.Fatalf("thread %d: bad step %v", tid, step)
			}
			if st != ts.Enabled {
				continue
			}
			next := sys.Apply(s, tid)
			if sys.Hash(s) != h {
				t.Fatalf("Apply of thread %d modified its argument", tid)
			}
			if hn := sys.Hash(next); !seen[hn] {
				seen[hn] = true
				stack = append(stack, next)
			}
		}
	}
	return len(seen)
}

// wsqPanics reports whether f panics.
func wsqPanics(f func()) (p bool) {
	defer func() { p = recover() != nil }()
	f()
	return false
}

func TestWSQ(t *testing.T) {
	f := wsqExplore(t, NewWSQ(1), 5)
	if !f.res.Complete || f.res.Violation != nil {
		t.Fatalf("wsq: %v, want a complete search with no violation", f.res)
	}
	if f.res.Executions != 169465 || f.terminals != 4 {
		t.Errorf("wsq: %d executions, %d terminal states; want 169465, 4", f.res.Executions, f.terminals)
	}
	// The shape of MSR-TR-2007-12 Table 1 (cb-dfs column): executions with at
	// most c preemptions, c = 0..4.
	if want := []int64{1, 17, 110, 773, 2373}; !slices.Equal(f.atMost, want) {
		t.Errorf("wsq: executions with at most c preemptions %v, want %v", f.atMost, want)
	}
	t.Logf("wsq N=1: %d executions, %d transitions, %d terminal states", f.res.Executions, f.res.Transitions, f.terminals)
	for c, n := range f.atMost {
		t.Logf("wsq N=1: bound %d: %d executions", c, n)
	}
}

func TestWSQTwoThieves(t *testing.T) {
	// Too many executions for ts.Explore; the stateful search covers every
	// reachable state, terminal states included, and so every check.
	res, err := ts.ExploreStateful(context.Background(), NewWSQ(2), ts.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete || res.Violation != nil {
		t.Fatalf("wsq N=2: %v, want a complete search with no violation", res)
	}
	t.Logf("wsq N=2 (stateful): %v", res)
}

func TestWSQBugs(t *testing.T) {
	for _, tc := range []struct {
		name string
		sys  *WSQ
		minP int
	}{
		{"wsq-bug1", NewWSQBug1(1), 1},
		{"wsq-bug2", NewWSQBug2(1), 2},
		{"wsq-bug3", NewWSQBug3(1), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			minP, kinds, n := wsqMinPreemptions(t, tc.sys)
			if minP != tc.minP || !slices.Equal(kinds, []ts.ViolationKind{ts.CheckFailure}) {
				t.Errorf("%s: min preemptions %d, kinds %v; want %d, [check failure]", tc.name, minP, kinds, tc.minP)
			}
			t.Logf("%s: %d violations, min preemptions %d", tc.name, n, minP)
		})
	}
}

func TestWSQBugMessages(t *testing.T) {
	for _, tc := range []struct {
		sys  *WSQ
		want string
	}{
		{NewWSQBug1(1), "already taken"},
		{NewWSQBug2(1), "already taken"},
		{NewWSQBug3(1), "taken 0 times"},
	} {
		res, err := ts.Explore(context.Background(), tc.sys, ts.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Violation == nil || !strings.Contains(res.Violation.Err.Error(), tc.want) {
			t.Errorf("%v: violation %v, want one saying %q", tc.sys.variant, res.Violation, tc.want)
		}
	}
}

func TestWSQPure(t *testing.T) {
	for _, mk := range []func(int) *WSQ{NewWSQ, NewWSQBug1, NewWSQBug2, NewWSQBug3} {
		for n := 1; n <= 2; n++ {
			wsqCheckPure(t, mk(n))
		}
	}
}

func TestWSQInfo(t *testing.T) {
	for _, tc := range []struct {
		info Info
		mk   func(int) *WSQ
	}{{WSQInfo, NewWSQ}, {WSQBug1Info, NewWSQBug1}, {WSQBug2Info, NewWSQBug2}, {WSQBug3Info, NewWSQBug3}} {
		if tc.info.Name == "" || tc.info.Summary == "" || tc.info.Source == "" || tc.info.Param == "" {
			t.Errorf("%+v: incomplete", tc.info)
		}
		if tc.mk(tc.info.Default).Threads() != 1+tc.info.Default {
			t.Errorf("%s: wrong thread count", tc.info.Name)
		}
		if !wsqPanics(func() { tc.mk(tc.info.Min - 1) }) || !wsqPanics(func() { tc.mk(tc.info.Max + 1) }) {
			t.Errorf("%s: no panic outside %d..%d", tc.info.Name, tc.info.Min, tc.info.Max)
		}
	}
	m := NewWSQ(1)
	var _ ts.Checker[WSQState] = m
	var _ ts.Describer[WSQState] = m
	var _ ts.ObjNamer = m
	if got := m.ObjName(wsqObjTaken); got != "taken[1]" {
		t.Errorf("ObjName(%d) = %q", wsqObjTaken, got)
	}
	run, err := ts.Replay(m, ts.ScheduleOf(0, 0, 0))
	if err != nil || run.Trace.Events[2].Desc != "start = 1" {
		t.Errorf("Replay: %v %v", run.Trace, err)
	}
}
