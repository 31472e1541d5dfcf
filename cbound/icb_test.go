package cbound_test

import (
	"context"
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/internal/offheap"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// bounded adapts a cbound strategy with a fixed bound and switches to the
// tstest.Explorer shape.
func bounded(f func(context.Context, ts.TransitionSystem[tstest.State], cbound.Options) (ts.Result, error), opt cbound.Options) tstest.Explorer[tstest.State] {
	return func(ctx context.Context, sys ts.TransitionSystem[tstest.State], o ts.Options) (ts.Result, error) {
		opt.Options = o
		return f(ctx, sys, opt)
	}
}

// ignoring is bounded keeping opt's IgnoreDeadlocks, which the reference
// search is given too.
func ignoring(f func(context.Context, ts.TransitionSystem[tstest.State], cbound.Options) (ts.Result, error), opt cbound.Options) tstest.Explorer[tstest.State] {
	return func(ctx context.Context, sys ts.TransitionSystem[tstest.State], o ts.Options) (ts.Result, error) {
		o.IgnoreDeadlocks = opt.IgnoreDeadlocks
		opt.Options = o
		return f(ctx, sys, opt)
	}
}

// noHash hides the system's Hash, so that ICB runs without its cache.
type noHash struct{ *tstest.Program }

func (s noHash) Hash() {} // shadows Program.Hash with a method of another signature

// On random programs of the whole model (steps of several objects,
// outcomes, idle threads, invariants, objects with both synchronization and
// plain accesses), ICB (with and without its cache) and cb-dfs reach exactly
// the terminal states and violations of the executions with at most c
// preemptions, for c in 0..3, also when deadlocks are not looked for.
func TestBoundedReachesExactlyTheBoundedStates(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{MaxThreads: 3}).Draw(t, "program")
		c := rapid.IntRange(0, 3).Draw(t, "bound")
		ignore := rapid.IntRange(0, 3).Draw(t, "ignoreDeadlocks") == 0
		ropt := tstest.ReductionOptions{Bound: c, IgnoreDeadlocks: ignore}
		with := func(o cbound.Options) cbound.Options {
			o.IgnoreDeadlocks = ignore
			return o
		}
		for _, o := range []cbound.Options{{Bound: cbound.AtMost(c)}, {Bound: cbound.AtMost(c), NoCache: true}} {
			if rep := tstest.CheckReduction(t, p, ignoring(cbound.ICB[tstest.State], with(o)), ropt); len(rep.Errors) > 0 {
				t.Fatalf("icb %+v: %d discrepancies", o, len(rep.Errors))
			}
		}
		if rep := tstest.CheckReduction[tstest.State](t, noHash{p}, ignoring(cbound.ICB[tstest.State], with(cbound.Options{Bound: cbound.AtMost(c)})), ropt); len(rep.Errors) > 0 {
			t.Fatalf("icb without Hash: %d discrepancies", len(rep.Errors))
		}
		if rep := tstest.CheckReduction(t, p, ignoring(cbound.DFS[tstest.State], with(cbound.Options{Bound: cbound.AtMost(c)})), ropt); len(rep.Errors) > 0 {
			t.Fatalf("cb-dfs: %d discrepancies", len(rep.Errors))
		}
	})
}

// ICB finds a violation first with the fewest preemptions any violating
// schedule has, and its coverage per bound matches the executions counted by
// brute force.
func TestICBFirstViolationHasFewestPreemptions(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{MaxThreads: 3}).Draw(t, "program")
		fewest := -1
		byBound := map[int]int64{}
		_, err := ts.Explore(context.Background(), p, ts.Options{
			KeepGoing: true,
			OnViolation: func(v *ts.Violation) {
				if fewest < 0 || v.Trace.Preemptions < fewest {
					fewest = v.Trace.Preemptions
				}
			},
			OnTerminal: func(_ any, s ts.Schedule) {
				n, err := ts.Preemptions[tstest.State](p, s)
				if err != nil {
					t.Fatal(err)
				}
				byBound[n]++
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		res, err := cbound.ICB(context.Background(), p, cbound.Options{Bound: cbound.Unbounded, NoCache: true})
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case fewest < 0 && res.Violation != nil:
			t.Fatalf("ICB found %v, ts.Explore none", res.Violation)
		case fewest >= 0 && res.Violation == nil:
			t.Fatalf("ICB found no violation; ts.Explore found one with %d preemptions", fewest)
		case fewest >= 0 && res.Violation.Trace.Preemptions != fewest:
			t.Fatalf("ICB's first violation has %d preemptions, the fewest is %d", res.Violation.Trace.Preemptions, fewest)
		case fewest < 0:
			// Without violations ICB runs to completion: its coverage at
			// each bound counts the terminal executions with at most that
			// many preemptions.
			var want int64
			for _, cov := range res.Coverage {
				want += byBound[cov.Bound]
				if cov.Executions != want {
					t.Fatalf("bound %d: ICB counts %d executions, brute force %d", cov.Bound, cov.Executions, want)
				}
			}
		}
	})
}

func TestBadOptions(t *testing.T) {
	p := &tstest.Program{Vars: []tstest.Var{{Name: "x"}}, Code: [][]tstest.Instr{{tstest.Store(0, 1)}}}
	for _, f := range []func(context.Context, ts.TransitionSystem[tstest.State], cbound.Options) (ts.Result, error){cbound.ICB[tstest.State], cbound.DFS[tstest.State]} {
		for _, opt := range []cbound.Options{{Bound: -3}, {Options: ts.Options{Limits: ts.Limits{Depth: -1}}}} {
			if _, err := f(context.Background(), p, opt); err == nil {
				t.Errorf("%+v: no error", opt)
			}
		}
	}
}

func ExampleICB() {
	// Two threads increment n without a lock and then count themselves done;
	// a third waits for both and checks n. The lost update needs one
	// preemption, and ICB reports it with exactly one.
	incr := []tstest.Instr{
		tstest.Load(0, 0), tstest.StoreReg(0, 0, 1), // r0 := n; n := r0 + 1
		tstest.FetchAdd(1, 1, 1), // done++
	}
	p := &tstest.Program{
		Vars: []tstest.Var{{Name: "n"}, {Name: "done", Sync: true}},
		Code: [][]tstest.Instr{incr, incr, {
			tstest.Await(1, 2),                       // await done == 2
			tstest.Load(0, 0), tstest.AssertEq(0, 2), // r0 := n; assert r0 == 2
		}},
	}
	res, err := cbound.ICB(context.Background(), p, cbound.Options{Bound: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res)
	fmt.Print(res.Violation.Trace.Format(p))
	for _, c := range res.Coverage {
		fmt.Printf("bound %d: %d executions\n", c.Bound, c.Executions)
	}
	// Output:
	// check failure (T2@2: assert r0 == 2 failed (r0 = 1)) with 1 preemption after 8 steps: 3 executions, 23 transitions, 24 states
	//     0  T0  read n  r0 := n
	// *   1  T1  read n  r0 := n
	//     2  T1  write n  n := r0 + 1
	//     3  T1  write done (sync)  r1 := fetch_add(done, 1)
	//     4  T0  write n  n := r0 + 1
	//     5  T0  write done (sync)  r1 := fetch_add(done, 1)
	//     6  T2  read done (sync)  await done == 2
	//     7  T2  read n  r0 := n
	// 8 steps, 1 preemption (marked *)
	// bound 0: 2 executions
}

// The zero Options explore within DefaultBound preemptions; bound 0 is
// NoPreemption, and AtMost maps a computed bound.
func TestDefaultBound(t *testing.T) {
	// T0: x := 1; x := 2, T1: r0 := x; assert r0 != 1: the failure needs a
	// preemption.
	p := &tstest.Program{
		Vars: []tstest.Var{{Name: "x"}},
		Code: [][]tstest.Instr{{tstest.Store(0, 1), tstest.Store(0, 2)}, {tstest.Load(0, 0), tstest.AssertNe(0, 1)}},
	}
	res, err := cbound.ICB(context.Background(), p, cbound.Options{})
	if err != nil || res.Bound != cbound.DefaultBound {
		t.Errorf("zero Options: bound %d, %v; want %d", res.Bound, err, cbound.DefaultBound)
	}
	if res.Violation == nil || res.Violation.Trace.Preemptions != 1 {
		t.Errorf("zero Options: %v, want the failure with 1 preemption", res)
	}
	res, err = cbound.ICB(context.Background(), p, cbound.Options{Bound: cbound.NoPreemption})
	if err != nil || res.Bound != 0 || res.Violation != nil || !res.Complete {
		t.Errorf("NoPreemption: %v, %v; want clean within bound 0", res, err)
	}
	if cbound.AtMost(0) != cbound.NoPreemption || cbound.AtMost(3) != 3 || cbound.AtMost(-1) != cbound.Unbounded {
		t.Error("AtMost")
	}
}

// ICB's queues, schedule nodes and cache outgrow 2 MB on lastzero-9 and move
// to mapped memory (offheap), which the search unmaps at its end: the
// figures are those the search had with them in the Go heap, and nothing
// stays mapped once it returns.
func TestICBInRegions(t *testing.T) {
	if testing.Short() {
		t.Skip("a search of 2.9 million transitions")
	}
	before := offheap.Mapped()
	res, err := cbound.ICB(context.Background(), models.NewLastzero(9), cbound.Options{Bound: 2, Options: ts.Options{KeepGoing: true}})
	if err != nil {
		t.Fatal(err)
	}
	if after := offheap.Mapped(); after > before {
		t.Errorf("%d bytes still mapped after the search, %d before", after, before)
	}
	if res.Executions != 4352 || res.Transitions != 2892470 || res.States != 930341 {
		t.Errorf("%d executions, %d transitions, %d states; want 4352, 2892470, 930341", res.Executions, res.Transitions, res.States)
	}
	want := []ts.Coverage{{Bound: 0, Executions: 2656, TerminalStates: 1536, States: 82024},
		{Bound: 1, Executions: 4352, TerminalStates: 1536, States: 402742},
		{Bound: 2, Executions: 4352, TerminalStates: 1536, States: 930341}}
	if fmt.Sprint(res.Coverage) != fmt.Sprint(want) {
		t.Errorf("coverage %v, want %v", res.Coverage, want)
	}
	if b := res.Stats["icb.offheap_bytes"]; b < 32<<20 {
		t.Errorf("%d bytes in mapped memory; want the cache's 32 MB and more", b)
	}
}
