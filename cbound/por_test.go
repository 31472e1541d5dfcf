package cbound_test

import (
	"context"
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

type strategy[S any] func(context.Context, ts.TransitionSystem[S], cbound.Options) (ts.Result, error)

// The cbpor paper's Fig. 1 at bound 0: every strategy reaches y = 1 (T1's
// y := 2 runs to its end, then T0's x := 1; y := 1), which sleep sets with
// pruning above the bound miss.
func TestFig1AllStrategies(t *testing.T) {
	for name, search := range map[string]strategy[models.CBPORFig1State]{
		"icb":     cbound.ICB[models.CBPORFig1State],
		"cb-dfs":  cbound.DFS[models.CBPORFig1State],
		"cb-por1": cbound.HBSearch[models.CBPORFig1State],
		"cb-por2": cbound.POR[models.CBPORFig1State],
	} {
		ys := map[int]bool{}
		opt := cbound.Options{Bound: cbound.NoPreemption, Options: ts.Options{OnTerminal: func(s any, _ ts.Schedule) {
			ys[s.(models.CBPORFig1State).Y()] = true
		}}}
		res, err := search(context.Background(), models.NewCBPORFig1(0), opt)
		if err != nil || !res.Complete {
			t.Fatal(name, res, err)
		}
		if !ys[1] || !ys[2] {
			t.Errorf("%s at bound 0 reached y in %v, want {1, 2}", name, ys)
		}
	}
}

// On random programs (deadlocks, blocking and assertions included), for c in
// 0..3:
//   - cb-por1 and cb-por2 reach exactly the terminal states and violations of
//     the executions with at most c preemptions (tstest.CheckReduction);
//   - cb-por2 explores exactly one execution per terminal HB state whose
//     context bound is at most c, never two ending in one HB state, and the
//     search never stops in a state with nothing left to explore (Theorem 4);
//   - cb-por1 stores exactly the HB states with context bound at most c, and
//     also explores one execution per terminal HB state;
//   - Coverage at each b <= c counts the terminal HB states within b;
//   - every violation is reported with a schedule of at most c preemptions.
//
// The brute force enumerates every schedule and keeps, per HB state, the
// fewest preemptions of the schedules reaching it.
func TestPORExactCounts(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{MaxThreads: 3}.Core()).Draw(t, "program")
		c := rapid.IntRange(0, 3).Draw(t, "bound")
		cost := rapid.SampledFrom([]int64{-1, 1 << 10, 1 << 20}).Draw(t, "memoCost")
		opt := cbound.Options{Bound: cbound.AtMost(c), MemoCost: cost}
		if rapid.Bool().Draw(t, "eagerCache") {
			opt = cbound.Eager(opt)
		}
		ropt := tstest.ReductionOptions{Bound: c}
		tstest.CheckReduction(t, p, bounded(cbound.HBSearch[tstest.State], opt), ropt)
		tstest.CheckReduction(t, p, bounded(cbound.POR[tstest.State], opt), ropt)

		b := cbound.BruteForce[tstest.State](p)
		for name, search := range map[string]strategy[tstest.State]{"cb-por1": cbound.HBSearch[tstest.State], "cb-por2": cbound.POR[tstest.State]} {
			seen := map[string]bool{}
			o := opt
			o.KeepGoing = true
			o.OnTerminal = func(_ any, sched ts.Schedule) {
				k := hbKey[tstest.State](t, p, sched)
				if seen[k] {
					t.Fatalf("%s: two executions end in HB state %s", name, k)
				}
				seen[k] = true
				if pre, ok := b.Leaves[k]; !ok || pre > c {
					t.Fatalf("%s: terminal HB state %s needs %d preemptions (reached: %v)", name, k, pre, ok)
				}
			}
			o.OnViolation = func(v *ts.Violation) {
				if v.Trace.Preemptions > c {
					t.Fatalf("%s: violation %v reported with %d preemptions, bound %d", name, v, v.Trace.Preemptions, c)
				}
			}
			res, err := search(context.Background(), p, o)
			if err != nil || !res.Complete {
				t.Fatalf("%s: %v, %v", name, res, err)
			}
			if want := int64(cbound.Within(b.Leaves, c)); res.Executions != want {
				t.Fatalf("%s: %d executions, want %d (terminal HB states within the bound)", name, res.Executions, want)
			}
			for _, cov := range res.Coverage {
				if want := int64(cbound.Within(b.Leaves, cov.Bound)); cov.Executions != want {
					t.Fatalf("%s: coverage at bound %d counts %d executions, want %d", name, cov.Bound, cov.Executions, want)
				}
			}
			if len(res.Coverage) != c+1 {
				t.Fatalf("%s: coverage %v, want bounds 0..%d", name, res.Coverage, c)
			}
			switch name {
			case "cb-por1":
				if want := int64(cbound.Within(b.States, c)); res.States != want {
					t.Fatalf("cb-por1 stores %d HB states, want %d", res.States, want)
				}
				if got := res.Coverage[c].States; got != res.States {
					t.Fatalf("cb-por1 coverage counts %d states, stores %d", got, res.States)
				}
			case "cb-por2":
				if res.Stats["search.stuck"] != 0 {
					t.Fatalf("cb-por2: the search stopped %d times with nothing to explore (Theorem 4)", res.Stats["search.stuck"])
				}
			}
		}
	})
}

// Unbounded, both algorithms explore every terminal HB state once and set
// Result.Bound to the largest context bound among them.
func TestPORUnbounded(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{MaxThreads: 3, NoAsserts: true}.Core()).Draw(t, "program")
		b := cbound.BruteForce[tstest.State](p)
		most := 0
		for _, v := range b.Leaves {
			most = max(most, v)
		}
		for _, search := range []strategy[tstest.State]{cbound.HBSearch[tstest.State], cbound.POR[tstest.State]} {
			res, err := search(context.Background(), p, cbound.Options{Bound: cbound.Unbounded, Options: ts.Options{KeepGoing: true}})
			if err != nil || !res.Complete {
				t.Fatal(res, err)
			}
			if res.Executions != int64(len(b.Leaves)) || res.Bound != most {
				t.Fatalf("%v: want %d executions and bound %d", res, len(b.Leaves), most)
			}
		}
		tstest.CheckReduction(t, p, bounded(cbound.POR[tstest.State], cbound.Options{Bound: cbound.Unbounded}), tstest.ReductionOptions{Bound: ts.NoBound})
	})
}

func ExamplePOR() {
	// The cbpor paper's Fig. 1: T0 runs x := 1; y := 1 and T1 runs y := 2.
	// At bound 0, cb-por2 explores one execution per terminal HB class
	// within the bound, and reaches both final values of y.
	p := &tstest.Program{
		Vars: []tstest.Var{{Name: "x"}, {Name: "y"}},
		Code: [][]tstest.Instr{{tstest.Store(0, 1), tstest.Store(1, 1)}, {tstest.Store(1, 2)}},
	}
	res, err := cbound.POR(context.Background(), p, cbound.Options{Bound: cbound.NoPreemption, Options: ts.Options{
		OnTerminal: func(s any, sched ts.Schedule) { fmt.Println("terminal by", sched) },
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res)
	// Output:
	// terminal by [0 0 1]
	// terminal by [1 0 0]
	// no violation within 0 preemptions: 2 executions, 6 transitions, 7 states
}
