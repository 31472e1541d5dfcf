package random_test

import (
	"context"
	"testing"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/random"
	"github.com/weftlab/weft/ts"
)

// BenchmarkSamplers reports transitions a second and allocations per run
// of each sampler on wsq (its Apply allocates nothing).
func BenchmarkSamplers(b *testing.B) {
	sys := models.NewWSQ(1)
	for name, f := range samplers[models.WSQState]() {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var trans int64
			for b.Loop() {
				res, err := f(context.Background(), sys, random.Options{Runs: 100, Seed: 1, Options: ts.Options{KeepGoing: true}})
				if err != nil {
					b.Fatal(err)
				}
				trans += res.Transitions
			}
			b.ReportMetric(float64(trans)/b.Elapsed().Seconds(), "transitions/s")
			b.ReportMetric(float64(trans)/float64(b.N), "transitions/op")
		})
	}
}

// The sampler loop allocates nothing per transition: a search of 100 runs
// allocates no more than one of 10 (maps of schedules aside, which grow per
// run).
func TestNoAllocationPerTransition(t *testing.T) {
	sys := lines{[]int{30, 30, 30}}
	for name, f := range samplers[lineState]() {
		allocs := func(runs int64) float64 {
			return testing.AllocsPerRun(5, func() {
				if _, err := f(context.Background(), sys, random.Options{Runs: runs, Seed: 1}); err != nil {
					t.Fatal(err)
				}
			})
		}
		a, b := allocs(2), allocs(200)
		// 90 transitions a run: an allocation per transition would add
		// 17,820; the schedule set's growth adds a few dozen.
		if b-a > 100 {
			t.Errorf("%s: %v allocations for 2 runs, %v for 200", name, a, b)
		}
	}
}
