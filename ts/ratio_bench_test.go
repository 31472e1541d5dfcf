package ts_test

import (
	"context"
	"testing"

	"github.com/weftlab/weft/internal/bare"
	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/ts"
)

// BenchmarkRatio is the speed issue's yardstick for the plain searches: each
// one's time over the bare loop's (internal/bare) on a bundled model, for the
// same number of transitions, measured in the same run ("x-bare"), with its
// transitions per second and allocations per transition. Run it with
//
//	go test ./ts -run '^$' -bench Ratio -count 5
func BenchmarkRatio(b *testing.B) {
	ratioModel(b, "lastzero-4", models.NewLastzero(4), true)
	ratioModel(b, "philosophers-4", models.NewPhilosophers(4), true)
	ratioModel(b, "wsq-1", models.NewWSQ(1), true)
	ratioModel(b, "bluetooth-2", models.NewBluetooth(2), true)
	ratioModel(b, "lastzero-7", models.NewLastzero(7), false) // too large for the stateless search
}

func ratioModel[S any](b *testing.B, name string, sys ts.TransitionSystem[S], stateless bool) {
	opt := ts.Options{KeepGoing: true}
	if stateless {
		b.Run(name+"/dfs", func(b *testing.B) {
			bare.Ratio(b, sys, func(ctx context.Context) (ts.Result, error) { return ts.Explore(ctx, sys, opt) })
		})
	}
	b.Run(name+"/dfs-stateful", func(b *testing.B) {
		bare.Ratio(b, sys, func(ctx context.Context) (ts.Result, error) { return ts.ExploreStateful(ctx, sys, opt) })
	})
}
