package estimate_test

import (
	"context"
	"flag"
	"math"
	"testing"

	"github.com/weftlab/weft/estimate"
	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/ts"
)

var long = flag.Bool("estimate.long", false, "measure the estimates on the larger bundled models (about a minute)")

type sized struct {
	name  string
	tree  estimate.Tree
	exact float64 // the search's executions (README's Measured tables, asserted in internal/models)
	size  func(context.Context, estimate.Options) (estimate.Estimate, error)
}

func of[S any](sys ts.TransitionSystem[S]) func(context.Context, estimate.Options) (estimate.Estimate, error) {
	return func(ctx context.Context, o estimate.Options) (estimate.Estimate, error) { return estimate.Size(ctx, sys, o) }
}

func cases() []sized {
	return []sized{
		{"wsq", estimate.DFS, 169465, of(models.NewWSQ(1))},
		{"philosophers-4", estimate.DFS, 104704, of(models.NewPhilosophers(4))},
		{"twophase-2", estimate.DFS, 629982, of(models.NewTwoPhase(2))},
		{"pfscan-6", estimate.Traces, 695520, of(models.NewPFScan(6))},
		{"pfscan-5", estimate.Traces, 63000, of(models.NewPFScan(5))},
		{"twophase-3", estimate.Traces, 31652, of(models.NewTwoPhase(3))},
	}
}

func TestAccuracyReport(t *testing.T) {
	for _, c := range cases() {
		var errs []float64
		for seed := range uint64(10) {
			e, err := c.size(context.Background(), estimate.Options{Tree: c.tree, Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			errs = append(errs, e.Executions/c.exact-1)
		}
		mean, worst := 0.0, 0.0
		for _, x := range errs {
			mean += x / float64(len(errs))
			worst = math.Max(worst, math.Abs(x))
		}
		t.Logf("%s (%v): mean error %+.1f%%, worst %.1f%% over 10 seeds", c.name, c.tree, 100*mean, 100*worst)
	}
}
