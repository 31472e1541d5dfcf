package weft_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/weftlab/weft"
	"github.com/weftlab/weft/mat"
	"github.com/weftlab/weft/ts"
)

// endless: thread 0 writes object 0 forever, each write to a new state;
// thread 1 writes object 1 once.
type endless struct{}

type endlessState struct{ n, done int }

func (endless) Init() endlessState { return endlessState{} }
func (endless) Threads() int       { return 2 }
func (endless) Next(s endlessState, t ts.Tid) (ts.Step, ts.Status) {
	if t == 1 && s.done == 1 {
		return ts.Step{}, ts.Finished
	}
	return ts.Step{Obj: ts.Obj(t), Op: ts.Write}, ts.Enabled
}
func (endless) Apply(s endlessState, t ts.Tid) endlessState {
	if t == 0 {
		s.n++
	} else {
		s.done = 1
	}
	return s
}
func (endless) Hash(s endlessState) uint64 { return uint64(s.n)<<1 | uint64(s.done) }

// Every strategy reports an execution that never ends as ts.ErrDepth at
// Limits.Depth, with the thread and a schedule that replays, counting the
// transitions it took (the transaction strategies' inference pass too), or
// refuses the system for a stated reason.
func TestEveryStrategyEndlessExecutionIsErrDepth(t *testing.T) {
	const depth = 50
	for _, s := range everyStrategy() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		res, err := weft.Run(ctx, endless{}, s, ts.Options{Limits: ts.Limits{Depth: depth}})
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
		if _, err := ts.Replay(endless{}, se.Schedule); err != nil {
			t.Errorf("%s: the schedule does not replay: %v", s, err)
		}
		if res.Transitions < depth {
			t.Errorf("%s: %d transitions reported, want at least %d", s, res.Transitions, depth)
		}
	}
}
