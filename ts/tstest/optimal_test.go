package tstest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// Two threads write different variables, then one reads the other's: 3
// interleavings, 2 traces (the read before or after the write).
var twoTraces = &tstest.Program{
	Vars: []tstest.Var{{Name: "x"}, {Name: "y"}},
	Mod:  4,
	Code: [][]tstest.Instr{
		{tstest.Store(0, 1), tstest.Load(0, 1)},
		{tstest.Store(1, 2)},
	},
}

func odpor(ctx context.Context, sys ts.TransitionSystem[tstest.State], o ts.Options) (ts.Result, error) {
	return por.ODPOR(ctx, sys, por.Options{Options: o})
}

func TestCheckOptimal(t *testing.T) {
	ctx := context.Background()
	rep, err := tstest.CompareOptimal(ctx, twoTraces, odpor, tstest.ReductionOptions{Bound: ts.NoBound})
	if err != nil || len(rep.Errors) != 0 || len(rep.Traces) != 2 || rep.Result.Executions != 2 {
		t.Fatalf("odpor: %v %v, %d traces, %v", err, rep.Errors, len(rep.Traces), rep.Result)
	}

	// The plain search explores a trace more than once.
	rep, err = tstest.CompareOptimal(ctx, twoTraces, ts.Explore[tstest.State], tstest.ReductionOptions{Bound: ts.NoBound})
	if err != nil {
		t.Fatal(err)
	}
	if !hasError(rep.Errors, "explores 3 executions; there are 2 Mazurkiewicz traces") || !hasError(rep.Errors, " 2 times") {
		t.Errorf("ts.Explore: %v", rep.Errors)
	}

	// A search that explores nothing misses both traces.
	none := func(context.Context, ts.TransitionSystem[tstest.State], ts.Options) (ts.Result, error) {
		return ts.Result{Complete: true}, nil
	}
	rep, _ = tstest.CompareOptimal(ctx, twoTraces, none, tstest.ReductionOptions{Bound: ts.NoBound})
	if !hasError(rep.Errors, "misses trace") || len(rep.Errors) != 3 {
		t.Errorf("nothing explored: %v", rep.Errors)
	}
}

// An optimal reduction explores each Mazurkiewicz trace once; the plain
// search explores every interleaving.
func ExampleCompareOptimal() {
	ctx := context.Background()
	for _, search := range []struct {
		name string
		f    tstest.Explorer[tstest.State]
	}{{"odpor", odpor}, {"dfs", ts.Explore[tstest.State]}} {
		rep, err := tstest.CompareOptimal(ctx, twoTraces, search.f, tstest.ReductionOptions{Bound: ts.NoBound})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %d executions, %d traces, %d discrepancies\n", search.name, rep.Result.Executions, len(rep.Traces), len(rep.Errors))
	}
	// Output:
	// odpor: 2 executions, 2 traces, 0 discrepancies
	// dfs: 3 executions, 2 traces, 2 discrepancies
}

func hasError(errs []error, s string) bool {
	for _, e := range errs {
		if strings.Contains(e.Error(), s) {
			return true
		}
	}
	return false
}

// Bounded: cb-por2 explores one execution per trace that some schedule with
// at most c preemptions reaches.
func TestCheckOptimalBounded(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{NoAsserts: true, NoDeadlocks: true}.Core()).Draw(t, "program")
		c := rapid.IntRange(0, 2).Draw(t, "bound")
		cbpor := func(ctx context.Context, sys ts.TransitionSystem[tstest.State], o ts.Options) (ts.Result, error) {
			return cbound.POR(ctx, sys, cbound.Options{Options: o, Bound: cbound.AtMost(c)})
		}
		tstest.CheckOptimal(t, p, cbpor, tstest.ReductionOptions{Bound: c})
	})
}

// Bad input: a failing check, and options that cannot give traces.
func TestCheckOptimalRefuses(t *testing.T) {
	ctx := context.Background()
	failing := &tstest.Program{
		Vars: []tstest.Var{{Name: "x"}},
		Mod:  4,
		Code: [][]tstest.Instr{{tstest.Load(0, 0), tstest.AssertEq(0, 1)}},
	}
	if _, err := tstest.CompareOptimal(ctx, failing, odpor, tstest.ReductionOptions{Bound: ts.NoBound}); !errors.Is(err, ts.ErrBadSystem) {
		t.Errorf("failing check: %v, want ErrBadSystem", err)
	}
	for _, o := range []tstest.ReductionOptions{{Bound: ts.NoBound, Stateful: true}, {Bound: ts.NoBound, Opaque: true}} {
		if _, err := tstest.CompareOptimal(ctx, twoTraces, odpor, o); !errors.Is(err, ts.ErrBadOptions) {
			t.Errorf("%+v: %v, want ErrBadOptions", o, err)
		}
	}
	if _, err := tstest.TraceKey[tstest.State](twoTraces, ts.ScheduleOf(0, 5)); !errors.Is(err, ts.ErrThreadRange) {
		t.Errorf("thread out of range: %v", err)
	}
}
