package models

import (
	"context"
	"testing"

	"github.com/weftlab/weft/ts"
)

// benchExplore measures a reference search on a model: transitions per second
// and allocations per transition, which for a value-state model is only what
// its Apply allocates.
func benchExplore[S any](b *testing.B, sys ts.TransitionSystem[S], stateful bool) {
	b.Helper()
	search := ts.Explore[S]
	if stateful {
		search = ts.ExploreStateful[S]
	}
	b.ReportAllocs()
	var trans int64
	for b.Loop() {
		res, err := search(context.Background(), sys, ts.Options{KeepGoing: true})
		if err != nil {
			b.Fatal(err)
		}
		trans += res.Transitions
	}
	b.ReportMetric(float64(trans)/b.Elapsed().Seconds(), "transitions/s")
	b.ReportMetric(float64(trans)/float64(b.N), "transitions/op")
}

func BenchmarkExplore(b *testing.B) {
	b.Run("philosophers-3", func(b *testing.B) { benchExplore(b, NewPhilosophers(3), false) })
	b.Run("bluetooth-2", func(b *testing.B) { benchExplore(b, NewBluetooth(2), false) })
	b.Run("inspect-example1-25", func(b *testing.B) { benchExplore(b, NewInspectExample1(25), false) })
	b.Run("mat-fig1", func(b *testing.B) { benchExplore(b, NewMATFig1(0), false) })
	b.Run("peterson-2-stateful", func(b *testing.B) { benchExplore(b, NewPeterson(2), true) })
}

// The reference search allocates nothing per transition on models whose
// Apply allocates nothing, only per search. (A violation costs a replay, so
// the models here have none.)
func TestExploreAllocationsPerTransition(t *testing.T) {
	for _, c := range []struct {
		name string
		run  func() ts.Result
	}{
		{"inspect-example1-20", func() ts.Result {
			r, _ := ts.Explore(context.Background(), NewInspectExample1(20), ts.Options{})
			return r
		}},
		{"mat-fig1", func() ts.Result {
			r, _ := ts.Explore(context.Background(), NewMATFig1(0), ts.Options{})
			return r
		}},
	} {
		var res ts.Result
		allocs := testing.AllocsPerRun(3, func() { res = c.run() })
		if res.Violations != 0 || allocs > 60 {
			t.Errorf("%s: %.0f allocations for %d transitions; want a small constant", c.name, allocs, res.Transitions)
		}
	}
}
