package weft_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/weftlab/weft"
	"github.com/weftlab/weft/internal/heapcap"
	"github.com/weftlab/weft/mat"
	"github.com/weftlab/weft/ts"
)

// Every strategy keeps to Limits.Memory on systems that would have it keep
// far more: seven threads of 110 writes, each of its own object (one
// trace, some 2*10^14 states) or all of one (as many traces as
// interleavings). Each search runs under a budget of 4 MB for at most a
// million transitions or two seconds; it may stop at either, or with
// ts.ErrMemory, but the heap never grows by more than 16 MB. (Before, the
// cb-por strategies, mat and the samplers grew past any budget here.)
func TestEveryStrategyKeepsMemoryUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("some 10 s")
	}
	for _, shared := range []bool{false, true} {
		sys := heapcap.Spread{N: 7, K: 110, Shared: shared}
		for _, s := range append(everyStrategy(), weft.Samplers()...) {
			if s.IsSampler() {
				s, _ = s.WithRuns(1 << 40)
			}
			var res ts.Result
			var err error
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			out := heapcap.Run(ctx, heapcap.Ceiling, func(ctx context.Context) {
				res, err = weft.Run[heapcap.SpreadState](ctx, sys, s, ts.Options{Limits: ts.Limits{Memory: heapcap.Budget, Transitions: 1_000_000}})
			})
			cancel()
			switch {
			case errors.Is(err, ts.ErrBadOptions), errors.Is(err, ts.ErrUnsupported), errors.Is(err, mat.ErrNotStraightLine):
				continue
			case out.Capped:
				t.Errorf("%v (shared %v): the heap grew past %d MB under a budget of %d MB: %v, %v", s, shared, heapcap.Ceiling>>20, heapcap.Budget>>20, res, err)
			case err != nil && !errors.Is(err, ts.ErrMemory) && !errors.Is(err, context.DeadlineExceeded):
				t.Errorf("%v (shared %v): %v", s, shared, err)
			}
			t.Logf("%v (shared %v): %v transitions, %v after %v, heap grew by at most %.1f MB", s, shared, res.Transitions, err, out.Took.Round(time.Millisecond), float64(out.Peak)/(1<<20))
		}
	}
}
