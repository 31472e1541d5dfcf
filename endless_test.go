package weft_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/weftlab/weft"
	"github.com/weftlab/weft/mat"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// Every strategy reports an execution that never ends as ts.ErrDepth at
// Limits.Depth, with the thread and a schedule that replays, counting the
// transitions it took (the transaction strategies' inference pass too), or
// refuses the system for a stated reason.
func TestEveryStrategyEndlessExecutionIsErrDepth(t *testing.T) {
	const depth = 50
	for _, s := range everyStrategy() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		res, err := weft.Run(ctx, tstest.Endless(), s, ts.Options{Limits: ts.Limits{Depth: depth}})
		cancel()
		if errors.Is(err, ts.ErrUnsupported) || errors.Is(err, ts.ErrBadOptions) || errors.Is(err, mat.ErrNotStraightLine) {
			continue // refused: the symmetry strategies need a declared symmetry
		}
		var se *ts.SystemError
		if !errors.Is(err, ts.ErrDepth) || !errors.As(err, &se) {
			t.Errorf("%s: %v, want ErrDepth", s, err)
			continue
		}
		if n := len(se.Schedule); n != depth+1 || se.Thread != se.Schedule[n-1].Thread {
			t.Errorf("%s: thread %d, schedule of %d moves %v, want %d moves ending with the thread's",
				s, se.Thread, n, se.Schedule.Short(8), depth+1)
		}
		if _, err := ts.Replay(tstest.Endless(), se.Schedule); err != nil {
			t.Errorf("%s: the schedule does not replay: %v", s, err)
		}
		if res.Transitions < depth {
			t.Errorf("%s: %d transitions reported, want at least %d", s, res.Transitions, depth)
		}
	}
}
