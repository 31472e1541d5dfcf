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
