package transact_test

import (
	"context"
	"testing"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/transact"
	"github.com/weftlab/weft/ts"
)

func benchExplore[S any](b *testing.B, sys ts.TransitionSystem[S], opt transact.Options) {
	b.ReportAllocs()
	opt.KeepGoing = true
	var transitions int64
	for b.Loop() {
		res, err := transact.Explore(context.Background(), sys, opt)
		if err != nil {
			b.Fatal(err)
		}
		transitions += res.Transitions
	}
	b.ReportMetric(float64(transitions)/b.Elapsed().Seconds(), "transitions/s")
}

// Movers declared (by a wrapper around the inferred discipline) so that the
// figures measure the search, not the inference pass.
func declaredBy[S any](b *testing.B, sys ts.TransitionSystem[S]) ts.TransitionSystem[S] {
	d, err := transact.Infer(context.Background(), sys, transact.InferOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return transact.WithMovers(sys, func(s S, t ts.Tid) transact.Mover {
		step, st := sys.Next(s, t)
		return d.Mover(step, st)
	})
}

func BenchmarkCPCPeterson3(b *testing.B) {
	benchExplore(b, declaredBy[models.PetersonState](b, models.NewPeterson(3)), transact.Options{})
}

func BenchmarkCPCBluetooth3(b *testing.B) {
	benchExplore(b, declaredBy[models.BluetoothState](b, models.NewBluetooth(3)), transact.Options{})
}

func BenchmarkCycleBluetooth3(b *testing.B) {
	benchExplore(b, declaredBy[models.BluetoothState](b, models.NewBluetooth(3)), transact.Options{Proviso: transact.Cycle})
}

func BenchmarkCPCPhilosophers6(b *testing.B) {
	benchExplore(b, declaredBy[models.PhilosophersState](b, models.NewPhilosophers(6)), transact.Options{})
}

// With inference: the exhaustive pass first, then the search.
func BenchmarkCPCInferredBluetooth3(b *testing.B) {
	benchExplore[models.BluetoothState](b, models.NewBluetooth(3), transact.Options{})
}

func BenchmarkStatefulBluetooth3(b *testing.B) {
	b.ReportAllocs()
	var transitions int64
	for b.Loop() {
		res, err := ts.ExploreStateful[models.BluetoothState](context.Background(), models.NewBluetooth(3), ts.Options{KeepGoing: true})
		if err != nil {
			b.Fatal(err)
		}
		transitions += res.Transitions
	}
	b.ReportMetric(float64(transitions)/b.Elapsed().Seconds(), "transitions/s")
}

// A search allocates as its table grows, and to confirm violations by
// replay, not per transition: on Peterson-3, which has no violation, well
// under 0.15 allocation per transition.
func TestAllocsPerTransition(t *testing.T) {
	sys := models.NewPeterson(3)
	d, err := transact.Infer(context.Background(), sys, transact.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	decl := transact.WithMovers[models.PetersonState](sys, func(s models.PetersonState, th ts.Tid) transact.Mover {
		step, st := sys.Next(s, th)
		return d.Mover(step, st)
	})
	var res ts.Result
	allocs := testing.AllocsPerRun(5, func() {
		res, _ = transact.Explore(context.Background(), decl, transact.Options{Options: ts.Options{KeepGoing: true}})
	})
	per := allocs / float64(res.Transitions)
	t.Logf("%.0f allocations for %d transitions and %d states: %.3f per transition", allocs, res.Transitions, res.States, per)
	if per > 0.15 {
		t.Errorf("%.3f allocations per transition", per)
	}
}
