package por_test

import (
	"context"
	"testing"

	"github.com/weftlab/weft/internal/bare"
	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
)

// BenchmarkRatio is the speed issue's yardstick for the partial-order
// reductions: each one's time over the bare loop's (internal/bare) on a
// bundled model, for the same number of transitions, measured in the same
// run ("x-bare"), with transitions per second and allocations per
// transition. Run it with
//
//	go test ./por -run '^$' -bench Ratio -count 5
func BenchmarkRatio(b *testing.B) {
	ratioModel(b, "lastzero-4", models.NewLastzero(4), true)
	ratioModel(b, "philosophers-4", models.NewPhilosophers(4), true)
	ratioModel(b, "wsq-1", models.NewWSQ(1), true)
	ratioModel(b, "bluetooth-2", models.NewBluetooth(2), true)
	ratioModel(b, "lastzero-7", models.NewLastzero(7), false) // sleep sets alone take too long here
}

func ratioModel[S any](b *testing.B, name string, sys ts.TransitionSystem[S], sleep bool) {
	type strategy func(context.Context, ts.TransitionSystem[S], por.Options) (ts.Result, error)
	opt := por.Options{Options: ts.Options{KeepGoing: true}}
	for _, st := range []struct {
		name string
		f    strategy
	}{{"sleep", por.Sleep[S]}, {"dpor", por.DPOR[S]}, {"odpor", por.ODPOR[S]}, {"sdpor", por.SDPOR[S]}} {
		if st.name == "sleep" && !sleep {
			continue
		}
		b.Run(name+"/"+st.name, func(b *testing.B) {
			bare.Ratio(b, sys, func(ctx context.Context) (ts.Result, error) { return st.f(ctx, sys, opt) })
		})
	}
}
