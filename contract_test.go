package weft_test

import (
	"context"
	"errors"
	"fmt"
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

// pair: two threads each write their own object twice, in a state with a
// slice (so that a search hashes it to check the contract); Check or Hash
// panics at one state.
type pair struct{ in string }

type pairState struct{ pc []int }

func (pair) Init() pairState { return pairState{pc: []int{0, 0}} }
func (pair) Threads() int    { return 2 }
func (pair) Next(s pairState, t ts.Tid) (ts.Step, ts.Status) {
	if s.pc[t] == 2 {
		return ts.Step{}, ts.Finished
	}
	return ts.Step{Obj: ts.Obj(t), Op: ts.Write}, ts.Enabled
}
func (pair) Apply(s pairState, t ts.Tid) pairState {
	pc := append([]int(nil), s.pc...)
	pc[t]++
	return pairState{pc: pc}
}
func (p pair) Check(s pairState) error {
	if p.in == "Check" && s.pc[0] == 2 && s.pc[1] == 1 {
		panic("Check")
	}
	return nil
}
func (p pair) Hash(s pairState) uint64 {
	// At a state with two moves, where every strategy that hashes does.
	if p.in == "Hash" && s.pc[0] == 1 && s.pc[1] == 0 {
		panic("Hash")
	}
	return uint64(s.pc[0]) | uint64(s.pc[1])<<8
}

// A panic in Check or Hash is the violation of the thread that took the
// last step (ts.Violation.Thread), in every strategy: it is at the state
// that step reached.
func TestEveryStrategyNamesTheThreadOfAPanicInCheckOrHash(t *testing.T) {
	for _, in := range []string{"Check", "Hash"} {
		for _, s := range weft.Strategies() {
			res, err := weft.Run[pairState](context.Background(), pair{in: in}, s, ts.Options{})
			if errors.Is(err, ts.ErrUnsupported) || errors.Is(err, ts.ErrBadOptions) {
				continue
			}
			v := res.Violation
			if err != nil || v == nil {
				if in == "Hash" && err == nil && !s.Needs().Has(weft.NeedsHash) {
					continue // it may never hash that state
				}
				t.Errorf("%s, panic in %s: %v, %v", in, s, res, err)
				continue
			}
			ev := v.Trace.Events
			if v.Kind != ts.Panic || fmt.Sprint(v.Err.(*ts.PanicError).Value) != in || len(ev) == 0 || v.Thread != ev[len(ev)-1].Thread {
				t.Errorf("%s, panic in %s: thread %d: %v", s, in, v.Thread, v)
			}
		}
	}
}
