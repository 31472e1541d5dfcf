package cbound_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// hbKey returns the exact key of the HB state sched reaches (its
// Mazurkiewicz trace), failing t if sched does not replay.
func hbKey[S any](t interface {
	Helper()
	Fatalf(string, ...any)
}, sys ts.TransitionSystem[S], sched ts.Schedule) string {
	t.Helper()
	k, err := tstest.TraceKey(sys, sched)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return k
}

var smallPrograms = tstest.GenOptions{MaxThreads: 3, MaxSteps: 3}.Core()

// On random small programs, CB(s, t) from the dynamic program equals the
// fewest preemptions over all schedules that reach s and then move t, found
// by enumerating every schedule; CB(s) likewise; and Minimize returns a
// schedule that reaches the same HB state with exactly CB(s) preemptions.
// With the cross-search cache off, tiny (so that it drops entries) and at its
// default size: the cache changes nothing.
func TestCBMatchesBruteForce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(smallPrograms).Draw(t, "program")
		cost := rapid.SampledFrom([]int64{-1, 1 << 9, 1 << 20}).Draw(t, "memoCost")
		b := cbound.BruteForce[tstest.State](p)
		for key, sched := range b.Sched {
			if b.Failed[key] {
				continue // nothing moves on from a violation
			}
			steps, cb, err := cbound.CBAt[tstest.State](p, sched, cost)
			if err != nil {
				t.Fatal(err)
			}
			if want := b.States[key]; cb != want {
				t.Fatalf("state %s (schedule %v): CB(s) = %d, brute force %d", key, sched, cb, want)
			}
			for u, want := range b.Steps[key] {
				if steps[u] != want {
					t.Fatalf("state %s (schedule %v): CB(s, T%d) = %d, brute force %d", key, sched, u, steps[u], want)
				}
			}
			if len(steps) != len(b.Steps[key]) {
				t.Fatalf("state %s: enabled threads %v, brute force %v", key, steps, b.Steps[key])
			}
			w, n, err := cbound.Minimize[tstest.State](p, sched)
			if err != nil {
				t.Fatal(err)
			}
			if n != b.States[key] {
				t.Fatalf("Minimize(%v) = %v with %d preemptions, want %d", sched, w, n, b.States[key])
			}
			if got, err := ts.Preemptions[tstest.State](p, w); err != nil || got != n {
				t.Fatalf("Minimize(%v) = %v: replays with %d preemptions (%v), says %d", sched, w, got, err, n)
			}
			if k := hbKey[tstest.State](t, p, w); k != key {
				t.Fatalf("Minimize(%v) = %v reaches %s, not %s", sched, w, k, key)
			}
		}
	})
}

// The enabled set that decides whether a switch is a preemption is E(s), the
// state in which the next thread is scheduled (the paper's recursion), not
// E(s - t'): a switch away from a thread whose last step finished it is free.
func TestCBConsultsEnabledSetAfterTheLastStep(t *testing.T) {
	// T0 writes x once and finishes; T1 writes y.
	once := &tstest.Program{Vars: []tstest.Var{{Name: "x"}, {Name: "y"}},
		Code: [][]tstest.Instr{{tstest.Store(0, 1)}, {tstest.Store(1, 1)}}}
	// T0 writes x twice: after its first write it is still enabled.
	twice := &tstest.Program{Vars: []tstest.Var{{Name: "x"}, {Name: "y"}},
		Code: [][]tstest.Instr{{tstest.Store(0, 1), tstest.Store(0, 2)}, {tstest.Store(1, 1)}}}
	for _, tc := range []struct {
		name string
		p    *tstest.Program
		want int
	}{{"T0 finished", once, 0}, {"T0 enabled", twice, 1}} {
		steps, _, err := cbound.CBAt[tstest.State](tc.p, ts.ScheduleOf(0), -1)
		if err != nil {
			t.Fatal(err)
		}
		if steps[1] != tc.want {
			t.Errorf("%s: CB({T0's first write}, T1) = %d, want %d", tc.name, steps[1], tc.want)
		}
	}
}

// Minimize finds the equivalent schedule with the fewest preemptions.
func TestMinimize(t *testing.T) {
	p := &tstest.Program{Vars: []tstest.Var{{Name: "x"}, {Name: "y"}},
		Code: [][]tstest.Instr{{tstest.Store(0, 1), tstest.Store(0, 2)}, {tstest.Store(1, 1), tstest.Store(1, 2)}}}
	// T0 and T1 touch different variables: alternating them needs 3
	// preemptions, the equivalent T0 T0 T1 T1 none.
	w, n, err := cbound.Minimize[tstest.State](p, ts.ScheduleOf(0, 1, 0, 1))
	if err != nil || n != 0 || len(w) != 4 {
		t.Fatalf("Minimize = %v, %d, %v; want a 0-preemption schedule", w, n, err)
	}
	if c, err := cbound.CB[tstest.State](p, ts.ScheduleOf(0, 1, 0, 1)); err != nil || c != 0 {
		t.Fatalf("CB = %d, %v; want 0", c, err)
	}
	if _, _, err := cbound.Minimize[tstest.State](p, ts.ScheduleOf(0, 0, 0)); err == nil {
		t.Fatal("Minimize accepted a schedule that moves a finished thread")
	}
}

// The memo cache's goroutines are gone when a search returns, whatever way
// it returns.
func TestMemoCacheClosed(t *testing.T) {
	p := &tstest.Program{Vars: []tstest.Var{{Name: "x"}, {Name: "y"}},
		Code: [][]tstest.Instr{{tstest.Store(0, 1), tstest.Load(0, 1)}, {tstest.Store(1, 1), tstest.Load(0, 0)}, {tstest.Store(0, 2)}}}
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for range 20 {
		for _, f := range []func(context.Context, ts.TransitionSystem[tstest.State], cbound.Options) (ts.Result, error){cbound.HBSearch[tstest.State], cbound.POR[tstest.State]} {
			opt := cbound.Eager(cbound.Options{Bound: 2})
			if _, err := f(context.Background(), p, opt); err != nil {
				t.Fatal(err)
			}
			if _, err := f(ctx, p, opt); err == nil {
				t.Fatal("no error from a cancelled search")
			}
			opt.Limits.Transitions = 3
			f(context.Background(), p, opt)
		}
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if after := runtime.NumGoroutine(); after > before {
		t.Fatalf("%d goroutines before the searches, %d after", before, after)
	}
}

// With the cache started at once (each write waited for, and the first
// level emptied at every operation), later operations hit it, and the results
// are those without it.
func TestMemoCacheHits(t *testing.T) {
	p := &tstest.Program{Vars: []tstest.Var{{Name: "x"}, {Name: "y"}},
		Code: [][]tstest.Instr{
			{tstest.Store(0, 1), tstest.Load(0, 1), tstest.Store(1, 1)},
			{tstest.Store(1, 2), tstest.Load(0, 0), tstest.Store(0, 3)},
			{tstest.Load(1, 0), tstest.Store(1, 3)}}}
	for _, f := range []strategy[tstest.State]{cbound.HBSearch[tstest.State], cbound.POR[tstest.State]} {
		off, err := f(context.Background(), p, cbound.Eager(cbound.Options{Bound: 2, MemoCost: -1}))
		if err != nil {
			t.Fatal(err)
		}
		on, err := f(context.Background(), p, cbound.Eager(cbound.Options{Bound: 2}))
		if err != nil {
			t.Fatal(err)
		}
		if on.Stats["cb.memo_hits"] == 0 {
			t.Errorf("no cache hits: %v", on.Stats)
		}
		if off.Executions != on.Executions || off.States != on.States {
			t.Errorf("without cache %v, with %v", off, on)
		}
		if on.Stats["cb.subproblems"] >= off.Stats["cb.subproblems"] {
			t.Errorf("the cache saved no work: %d subproblems with it, %d without", on.Stats["cb.subproblems"], off.Stats["cb.subproblems"])
		}
	}
}
