package por_test

import (
	"context"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

func TestFixtures(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		run  func() (ts.Result, error)
		want int64
	}{
		{"inspect-2.3.1/dpor", func() (ts.Result, error) { return por.DPOR(ctx, models.NewInspect231(0), por.Options{}) }, 3},
		{"inspect-2.3.1/odpor", func() (ts.Result, error) { return por.ODPOR(ctx, models.NewInspect231(0), por.Options{}) }, 3},
		{"locks3/dpor", func() (ts.Result, error) { return por.DPOR(ctx, models.NewLocks3(0), por.Options{}) }, 6},
		{"locks3/odpor", func() (ts.Result, error) { return por.ODPOR(ctx, models.NewLocks3(0), por.Options{}) }, 6},
	} {
		res, err := tc.run()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if res.Executions != tc.want || !res.Complete || res.Stats["sleep-blocked"] != 0 {
			t.Errorf("%s: %v, %v; want %d executions", tc.name, res, res.Stats, tc.want)
		}
	}
}

// On random programs, every strategy reaches exactly the terminal states and
// violations of ts.Explore (SDPOR: of ts.ExploreStateful), sleep sets never
// explore more executions than ts.Explore, and DPOR never more than sleep
// sets unless a check fails.
func TestReductionRandom(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(genShape(t)).Draw(t, "program")
		var execs []int64
		failures := false
		for _, s := range strategies[tstest.State]() {
			if s.name == "odpor" {
				continue // TestODPORReductionRandom
			}
			ropt := tstest.ReductionOptions{Bound: ts.NoBound, Stateful: s.name == "sdpor"}
			rep := tstest.CheckReduction(t, p, adapt(s.f), ropt)
			if len(rep.Errors) > 0 {
				t.Fatalf("%s: %d discrepancies", s.name, len(rep.Errors))
			}
			execs = append(execs, rep.Reduction.Result.Executions)
			for _, oc := range rep.Reference.Violations {
				failures = failures || oc.Violation.Kind == ts.CheckFailure
			}
			if s.name == "sleep" {
				if rep.Reduction.Result.Executions > rep.Reference.Result.Executions {
					t.Fatalf("sleep explores %d executions, ts.Explore %d", rep.Reduction.Result.Executions, rep.Reference.Result.Executions)
				}
			}
		}
		// With failing checks DPOR may explore more (see
		// TestDPORMoreThanSleepWithFailures); without, never.
		if !failures && execs[1] > execs[0] {
			t.Fatalf("dpor explores %d executions, sleep %d", execs[1], execs[0])
		}
	})
}

// genShape draws the shape of a random program: up to 3 threads of up to 4
// steps, or up to 4 threads of up to 2 (where 4-thread races show).
func genShape(t *rapid.T) tstest.GenOptions {
	if rapid.Bool().Draw(t, "four") {
		return tstest.GenOptions{MaxThreads: 4, MaxSteps: 2}.Core()
	}
	return tstest.GenOptions{}.Core()
}

// With KeepGoing, a failed check ends an execution, and DPOR must try the
// other threads before the failing transition (a failure of theirs could be
// masked). Sleep sets do the same by exploring every thread, but the failing
// transitions they try early then sleep in later branches and cut them:
// here T0's only transition fails, and sleep sets explore 4 executions where
// DPOR explores 7, both finding the one violation.
func TestDPORMoreThanSleepWithFailures(t *testing.T) {
	p := &tstest.Program{
		Vars: []tstest.Var{{Name: "x"}, {Name: "y"}},
		Code: [][]tstest.Instr{
			{tstest.Set(1, 3), tstest.Store(1, 0), tstest.AssertNe(1, 3)},
			{tstest.Load(0, 1), tstest.Load(0, 0), tstest.Load(0, 0)},
			{tstest.Store(0, 0), tstest.Store(0, 0)},
		},
	}
	var got []int64
	for _, s := range strategies[tstest.State]()[:2] {
		rep := tstest.CheckReduction(t, p, adapt(s.f), tstest.ReductionOptions{Bound: ts.NoBound})
		got = append(got, rep.Reduction.Result.Executions)
	}
	if got[0] != 4 || got[1] != 7 {
		t.Errorf("sleep, dpor: %v executions, want [4 7]", got)
	}
}

// DPOR explores one execution per Mazurkiewicz trace on the thesis's
// example and on locks3, and no more than sleep sets on the bundled models.
func TestDPORCounts(t *testing.T) {
	ctx := context.Background()
	res, err := por.DPOR(ctx, models.NewLastzero(4), por.Options{})
	if err != nil || !res.Complete {
		t.Fatal(res, err)
	}
	sl, err := por.Sleep(ctx, models.NewLastzero(4), por.Options{})
	if err != nil || res.Executions > sl.Executions {
		t.Errorf("lastzero-4: dpor %d executions, sleep %d (%v)", res.Executions, sl.Executions, err)
	}
}
