package weft_test

import (
	"context"
	"errors"
	"testing"

	"github.com/weftlab/weft"
	"github.com/weftlab/weft/ts"
)

// leaky: two threads each take lock 0, then give it back; taking it,
// thread 1 reads x[0] into r. With mutate, thread 0's taking it sets x[0]
// in place, in the array the state it was given shares: a search that goes
// back to the initial state then finds thread 1 reading 1 there, which no
// replay from the initial state shows.
type leaky struct{ mutate bool }

type leakState struct {
	pc   [2]int
	held int // 1 + the holder, 0 for none
	r    [2]int
	x    []int
}

func (leaky) Init() leakState { return leakState{x: []int{0}} }
func (leaky) Threads() int    { return 2 }
func (leaky) Next(s leakState, t ts.Tid) (ts.Step, ts.Status) {
	switch s.pc[t] {
	case 0:
		if s.held != 0 {
			return ts.Step{Obj: 0, Op: ts.Acquire}, ts.Blocked
		}
		return ts.Step{Obj: 0, Op: ts.Acquire}, ts.Enabled
	case 1:
		return ts.Step{Obj: 0, Op: ts.Release}, ts.Enabled
	}
	return ts.Step{}, ts.Finished
}
func (l leaky) Apply(s leakState, t ts.Tid) leakState {
	if l.mutate && t == 0 && s.pc[0] == 0 {
		s.x[0] = 1
	} else {
		s.x = append([]int(nil), s.x...)
	}
	if s.pc[t] == 0 {
		s.held = int(t) + 1
		if t == 1 {
			s.r[1] = s.x[0]
		}
	} else {
		s.held = 0
	}
	s.pc[t]++
	return s
}
func (leaky) Check(s leakState) error {
	if s.pc[0] == 0 && s.r[1] == 1 {
		return errors.New("thread 1 read 1 before thread 0 moved")
	}
	return nil
}
func (leaky) Hash(s leakState) uint64 {
	return uint64(s.pc[0]) | uint64(s.pc[1])<<4 | uint64(s.held)<<8 | uint64(s.r[1])<<12 | uint64(s.x[0])<<16
}

// Every exhaustive strategy reports an Apply that modifies its argument, on
// a system with Hash, as ts.ErrMutated naming the thread, and not as the
// nondeterminism the false violation it causes looks like when its
// schedule is replayed. The samplers never go back to a state, so the
// modification does them no harm.
func TestEveryStrategyNamesTheMutatingApply(t *testing.T) {
	for _, s := range everyStrategy() {
		if s.IsSampler() {
			continue
		}
		res, err := weft.Run[leakState](context.Background(), leaky{mutate: true}, s, ts.Options{})
		var se *ts.SystemError
		switch {
		case errors.Is(err, ts.ErrUnsupported) || errors.Is(err, ts.ErrBadOptions):
		case !errors.Is(err, ts.ErrMutated) || !errors.As(err, &se) || se.Thread != 0:
			t.Errorf("%s: %v, %v", s, res, err)
		}
		if _, err := weft.Run[leakState](context.Background(), leaky{}, s, ts.Options{}); err != nil &&
			!errors.Is(err, ts.ErrUnsupported) && !errors.Is(err, ts.ErrBadOptions) {
			t.Errorf("%s, a clean Apply: %v", s, err)
		}
	}
}
