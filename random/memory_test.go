package random_test

import (
	"context"
	"testing"

	"github.com/weftlab/weft/internal/heapcap"
	"github.com/weftlab/weft/random"
	"github.com/weftlab/weft/ts"
)

// The samplers keep to Limits.Memory: the distinct schedules, traces and
// terminal states they count grow by a run each (ten threads of a write
// of one object: nearly every run its own schedule and trace under each
// sampler), and counted nothing before, with no end but the run budget.
func TestSamplersKeepMemoryBudget(t *testing.T) {
	sys := heapcap.Spread{N: 10, K: 1, Shared: true}
	for _, s := range []struct {
		name string
		f    func(context.Context, ts.TransitionSystem[heapcap.SpreadState], random.Options) (ts.Result, error)
	}{{"random", random.Walk[heapcap.SpreadState]}, {"pct", random.PCT[heapcap.SpreadState]}, {"urw", random.URW[heapcap.SpreadState]}} {
		heapcap.Keeps(t, s.name, func(ctx context.Context, l ts.Limits) (ts.Result, error) {
			return s.f(ctx, sys, random.Options{Runs: 10_000_000, Options: ts.Options{Limits: l}})
		})
	}
}
