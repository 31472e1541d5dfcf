package symmetry_test

import (
	"context"
	"testing"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/symmetry"
	"github.com/weftlab/weft/ts"
)

func bench[S any](b *testing.B, sys ts.TransitionSystem[S], f strategy[S], opt symmetry.Options) {
	b.ReportAllocs()
	var trans int64
	for b.Loop() {
		res, err := f(context.Background(), sys, opt)
		if err != nil || !res.Complete {
			b.Fatal(res, err)
		}
		trans += res.Transitions
	}
	b.ReportMetric(float64(trans)/b.Elapsed().Seconds(), "transitions/s")
	b.ReportMetric(float64(trans)/float64(b.N), "transitions/op")
}

func BenchmarkSymPFScan6(b *testing.B) {
	bench[models.PFScanState](b, models.NewPFScan(6), symmetry.Explore[models.PFScanState], symmetry.Options{})
}

func BenchmarkStatefulPFScan6(b *testing.B) {
	bench[models.PFScanState](b, models.NewPFScan(6), func(ctx context.Context, sys ts.TransitionSystem[models.PFScanState], o symmetry.Options) (ts.Result, error) {
		return ts.ExploreStateful(ctx, sys, o.Options)
	}, symmetry.Options{})
}

func BenchmarkSymPhilosophers6(b *testing.B) {
	bench[models.PhilosophersState](b, models.NewPhilosophers(6), symmetry.Explore[models.PhilosophersState], symmetry.Options{Options: ts.Options{KeepGoing: true}})
}

func BenchmarkSymporAGet4(b *testing.B) {
	bench[models.AGetState](b, models.NewAGet(4), symmetry.DPOR[models.AGetState], symmetry.Options{})
}

func BenchmarkDPORPFScan2(b *testing.B) {
	bench[models.PFScanState](b, models.NewPFScan(2), symmetry.DPOR[models.PFScanState], symmetry.Options{NoSymmetry: true})
}

func BenchmarkSymporPFScanBug3(b *testing.B) {
	b.ReportAllocs()
	var trans int64
	for b.Loop() {
		res, err := symmetry.DPOR[models.PFScanState](context.Background(), models.NewPFScanBuggy(3), symmetry.Options{})
		if err != nil || res.Violation == nil {
			b.Fatal(res, err)
		}
		trans += res.Transitions
	}
	b.ReportMetric(float64(trans)/b.Elapsed().Seconds(), "transitions/s")
}

// DPOR allocates nothing per transition once its stack has grown: the
// allocations of a run do not grow with the transitions it applies.
func TestDPORAllocs(t *testing.T) {
	ctx := context.Background()
	small, large := models.NewLocks3(0), models.NewPFScan(2)
	run := func(sys ts.TransitionSystem[models.PFScanState]) func() {
		return func() { _, _ = symmetry.DPOR(ctx, sys, symmetry.Options{NoSymmetry: true}) }
	}
	a := testing.AllocsPerRun(5, func() { _, _ = symmetry.DPOR[models.Locks3State](ctx, small, symmetry.Options{NoSymmetry: true}) })
	b := testing.AllocsPerRun(5, run(large))
	res, _ := symmetry.DPOR[models.PFScanState](ctx, large, symmetry.Options{NoSymmetry: true})
	t.Logf("locks3: %.0f allocs; pfscan-2: %.0f allocs for %d transitions", a, b, res.Transitions)
	if b > 4*a+200 {
		t.Errorf("pfscan-2 allocates %.0f times for %d transitions (locks3: %.0f)", b, res.Transitions, a)
	}
}
