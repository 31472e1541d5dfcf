package por_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// unmarked hides the Sync flag of a system's steps, so that an await looks
// like a plain read that happens to block: ODPOR then learns which objects
// block only as it sees them Blocked.
type unmarked[S any] struct{ ts.TransitionSystem[S] }

func (u unmarked[S]) Next(s S, t ts.Tid) (ts.Step, ts.Status) {
	st, status := u.TransitionSystem.Next(s, t)
	st.Sync = false
	return st, status
}

func (u unmarked[S]) Hash(s S) uint64 { return u.TransitionSystem.(ts.Hasher[S]).Hash(s) }

func (u unmarked[S]) Check(s S) error {
	if c, ok := u.TransitionSystem.(ts.Checker[S]); ok {
		return c.Check(s)
	}
	return nil
}

// Every strategy stays sound when blocking steps are not marked: awaits
// that report plain reads.
func TestUnmarkedBlocking(t *testing.T) {
	var infeasible int64
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(genShape(t)).Draw(t, "program")
		sys := unmarked[tstest.State]{p}
		for _, s := range strategies[tstest.State]() {
			rep := tstest.CheckReduction(t, sys, adapt(s.f), tstest.ReductionOptions{Bound: ts.NoBound, Stateful: s.name == "sdpor"})
			infeasible += rep.Reduction.Result.Stats["infeasible-branches"]
		}
	})
	t.Logf("%d infeasible wakeup-tree branches", infeasible)
}
