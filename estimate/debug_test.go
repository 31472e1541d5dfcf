package estimate_test

import (
	"context"
	"testing"

	"github.com/weftlab/weft/estimate"
	"github.com/weftlab/weft/internal/models"
)

func TestDebugSmall(t *testing.T) {
	for _, tr := range []estimate.Tree{estimate.DFS, estimate.Traces} {
		for _, f := range []func(context.Context, estimate.Options) (estimate.Estimate, error){of(models.NewPFScan(3)), of(models.NewLastzero(5)), of(models.NewTwoPhase(1))} {
			e, err := f(context.Background(), estimate.Options{Tree: tr, Probes: 20000})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%v", e)
		}
	}
}
