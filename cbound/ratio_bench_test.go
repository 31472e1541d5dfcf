package cbound_test

import (
	"context"
	"testing"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/internal/bare"
	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/ts"
)

// BenchmarkRatio is the speed issue's yardstick for icb, cb-dfs, cb-por1,
// cb-por2 (each at bound 2) and icb-por (bounds 0 to 2): each one's time over
// the bare loop's (internal/bare) on a bundled model, for the same number of
// transitions, measured in the same run ("x-bare"), with transitions per
// second and allocations per transition. The cb-por strategies also report
// replayed/taken: the transitions they replay at prefixes
// (Stats["enabled.replay_transitions"], counted in Result.Transitions) over
// those the search takes, and audited/taken: the part of those that audits
// statuses read off the stack (Stats["enabled.audit_transitions"]). Their
// x-bare is per transition, replays included. Run it with
//
//	go test ./cbound -run '^$' -bench Ratio -count 5
func BenchmarkRatio(b *testing.B) {
	ratioModel(b, "lastzero-4", models.NewLastzero(4), true)
	ratioModel(b, "philosophers-4", models.NewPhilosophers(4), true)
	ratioModel(b, "wsq-1", models.NewWSQ(1), true)
	ratioModel(b, "bluetooth-2", models.NewBluetooth(2), true)
	ratioModel(b, "lastzero-7", models.NewLastzero(7), false) // cb-dfs takes too long here
}

func ratioModel[S any](b *testing.B, name string, sys ts.TransitionSystem[S], dfs bool) {
	opt := cbound.Options{Bound: cbound.AtMost(2), Options: ts.Options{KeepGoing: true}}
	b.Run(name+"/icb", func(b *testing.B) {
		bare.Ratio(b, sys, func(ctx context.Context) (ts.Result, error) { return cbound.ICB(ctx, sys, opt) })
	})
	if dfs {
		b.Run(name+"/cb-dfs", func(b *testing.B) {
			bare.Ratio(b, sys, func(ctx context.Context) (ts.Result, error) { return cbound.DFS(ctx, sys, opt) })
		})
	}
	for _, s := range []struct {
		name string
		f    func(context.Context, ts.TransitionSystem[S], cbound.Options) (ts.Result, error)
	}{{"cb-por1", cbound.HBSearch[S]}, {"cb-por2", cbound.POR[S]}, {"icb-por", cbound.IterativePOR[S]}} {
		b.Run(name+"/"+s.name, func(b *testing.B) {
			var taken, replayed, audited int64
			bare.Ratio(b, sys, func(ctx context.Context) (ts.Result, error) {
				res, err := s.f(ctx, sys, opt)
				r := res.Stats["enabled.replay_transitions"]
				replayed += r
				audited += res.Stats["enabled.audit_transitions"]
				taken += res.Transitions - r
				return res, err
			})
			b.ReportMetric(float64(replayed)/float64(max(taken, 1)), "replayed/taken")
			b.ReportMetric(float64(audited)/float64(max(taken, 1)), "audited/taken")
		})
	}
}
