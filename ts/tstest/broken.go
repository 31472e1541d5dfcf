package tstest

import (
	"errors"

	"github.com/weftlab/weft/ts"
)

// Breach names a way a system breaks the ts.TransitionSystem contract, for
// testing that a search notices it (see [Broken]).
type Breach int

const (
	// MutatesState: Apply increments its argument's counter in place and
	// returns it, the classic slip with a slice state.
	MutatesState Breach = iota
	// NextNotAFunction: Next depends on a counter shared by every call, not
	// on the state; each call names a new object.
	NextNotAFunction
	// ThreadsChange: Threads returns 2, then 3.
	ThreadsChange
)

// Breaches lists every Breach.
var Breaches = []Breach{MutatesState, NextNotAFunction, ThreadsChange}

func (b Breach) String() string {
	switch b {
	case MutatesState:
		return "Apply modifies its argument"
	case NextNotAFunction:
		return "Next is not a function of the state"
	case ThreadsChange:
		return "Threads changes"
	}
	return "unknown breach"
}

// Noticed reports whether err is what a search should return on a system
// with this breach: an error wrapping ts.ErrMutated or
// ts.ErrNondeterministic (which of the two depends on where a search
// notices: a modified state shows as a changed Next to a search that
// replays), or, for ThreadsChange, ts.ErrNondeterministic.
func (b Breach) Noticed(err error) bool {
	if b == ThreadsChange {
		return errors.Is(err, ts.ErrNondeterministic)
	}
	return errors.Is(err, ts.ErrMutated) || errors.Is(err, ts.ErrNondeterministic)
}

// Broken returns a system of two threads that each write their own counter
// twice, with breach b, and with ts.Hasher if hashed (the hash then shows
// a modified state; without it only the steps Next returns can). Every call
// returns a fresh system: NextNotAFunction and ThreadsChange count calls.
func Broken(b Breach, hashed bool) ts.TransitionSystem[[]int] {
	s := &broken{breach: b}
	if hashed {
		return hashedBroken{s}
	}
	return s
}

type broken struct {
	breach Breach
	calls  int
}

type hashedBroken struct{ *broken }

func (hashedBroken) Hash(s []int) uint64 { return uint64(s[0])*31 + uint64(s[1]) + 7 }

func (b *broken) Init() []int { return []int{0, 0} }

func (b *broken) Threads() int {
	if b.breach == ThreadsChange {
		b.calls++
		if b.calls > 1 {
			return 3
		}
	}
	return 2
}

func (b *broken) Next(s []int, t ts.Tid) (ts.Step, ts.Status) {
	if int(t) >= len(s) || s[t] >= 2 {
		return ts.Step{}, ts.Finished
	}
	step := ts.Step{Obj: ts.Obj(t), Op: ts.Write}
	if b.breach == NextNotAFunction {
		b.calls++
		step.Obj = ts.Obj(b.calls) // never the same twice
	}
	return step, ts.Enabled
}

func (b *broken) Apply(s []int, t ts.Tid) []int {
	if b.breach == MutatesState {
		s[t]++
		return s
	}
	c := append([]int(nil), s...)
	c[t]++
	return c
}

// BrokenIndependence returns a system of four threads that each write their
// own object twice, with ts.Hasher, whose thread 0 breaks the independence
// contract of ts.Dependent: its first transition also turns thread 3's next
// step into a write of object 5, which thread 0's step does not touch.
// Conformance reports it. ts.Explore asks every thread at every state and
// explores it as it is; a reduction, whose soundness rests on that
// contract, should stop with an error wrapping ts.ErrBadSystem where it
// notices (the reductions of package por do).
func BrokenIndependence() ts.TransitionSystem[[5]int] { return crosstalk{} }

type crosstalk struct{}

func (crosstalk) Init() [5]int { return [5]int{} }
func (crosstalk) Threads() int { return 4 }
func (crosstalk) Next(s [5]int, t ts.Tid) (ts.Step, ts.Status) {
	if s[t] >= 2 {
		return ts.Step{}, ts.Finished
	}
	if t == 3 && s[4] > 0 {
		return ts.Step{Obj: 5, Op: ts.Write}, ts.Enabled
	}
	return ts.Step{Obj: ts.Obj(t), Op: ts.Write}, ts.Enabled
}
func (crosstalk) Apply(s [5]int, t ts.Tid) [5]int {
	s[t]++
	if t == 0 {
		s[4] = 1
	}
	return s
}
func (crosstalk) Hash(s [5]int) uint64 {
	h := uint64(17)
	for _, x := range s {
		h = h*31 + uint64(x)
	}
	return h
}

// Endless returns a system of two threads, with ts.Hasher, whose thread 0
// writes object 0 for ever, each write reaching a new state, and whose
// thread 1 writes object 1 once: an execution that never ends, which no
// state repeats, so that only Limits.Depth stops a search of it (with an
// error wrapping ts.ErrDepth, naming the thread and the schedule).
func Endless() ts.TransitionSystem[EndlessState] { return endless{} }

// EndlessState is the state of Endless: thread 0's writes, and whether
// thread 1 has written.
type EndlessState struct{ N, Done int }

type endless struct{}

func (endless) Init() EndlessState { return EndlessState{} }
func (endless) Threads() int       { return 2 }
func (endless) Next(s EndlessState, t ts.Tid) (ts.Step, ts.Status) {
	if t == 1 && s.Done == 1 {
		return ts.Step{}, ts.Finished
	}
	return ts.Step{Obj: ts.Obj(t), Op: ts.Write}, ts.Enabled
}
func (endless) Apply(s EndlessState, t ts.Tid) EndlessState {
	if t == 0 {
		s.N++
	} else {
		s.Done = 1
	}
	return s
}
func (endless) Hash(s EndlessState) uint64 { return uint64(s.N)<<1 | uint64(s.Done) }
