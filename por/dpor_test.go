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

func TestReductionRandom(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{}).Draw(t, "program")
		var execs []int64
		for _, s := range strategies[tstest.State]() {
			ropt := tstest.ReductionOptions{Bound: ts.NoBound, Stateful: s.name == "sdpor"}
			rep := tstest.CheckReduction(t, p, adapt(s.f), ropt)
			if len(rep.Errors) > 0 {
				t.Fatalf("%s: %d discrepancies", s.name, len(rep.Errors))
			}
			execs = append(execs, rep.Reduction.Result.Executions)
			if s.name == "sleep" {
				if rep.Reduction.Result.Executions > rep.Reference.Result.Executions {
					t.Fatalf("sleep explores %d executions, ts.Explore %d", rep.Reduction.Result.Executions, rep.Reference.Result.Executions)
				}
			}
		}
		if execs[1] > execs[0] {
			t.Fatalf("dpor explores %d executions, sleep %d", execs[1], execs[0])
		}
	})
}
