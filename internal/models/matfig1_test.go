package models

import (
	"testing"

	"github.com/weftlab/weft/ts"
)

func TestMATFig1(t *testing.T) {
	sys := NewMATFig1(0)
	f := fixturesExplore(t, sys)
	if f.res.Executions != 70 || f.res.Violations != 0 {
		t.Errorf("executions %d, violations %d; want 70, 0", f.res.Executions, f.res.Violations)
	}
	if len(f.terminals) != 5 {
		t.Errorf("%d distinct terminal states, want 5", len(f.terminals))
	}
	if c := fixturesClasses(t, sys); c != 5 {
		t.Errorf("%d classes, want 5", c)
	}
	fixturesNoMutation(t, sys)

	// With GenMAT's virtual end events, dependent on each other only.
	end := matFig1WithEnd{}
	fe := fixturesExplore(t, end)
	if fe.res.Executions != 252 {
		t.Errorf("with end events: %d executions, want 252", fe.res.Executions)
	}
	if c := fixturesClasses(t, end); c != 10 {
		t.Errorf("with end events: %d classes, want 10", c)
	}
}

// matFig1WithEnd is MATFig1 with one more step per thread after its last
// access: a write of a virtual object "end", so that the two end events are
// dependent on each other and on nothing else.
type matFig1WithEnd struct{}

type matFig1EndState struct {
	s     MATFig1State
	ended [2]bool
}

const matFig1End ts.Obj = 3

func (matFig1WithEnd) Init() matFig1EndState { return matFig1EndState{} }
func (matFig1WithEnd) Threads() int          { return 2 }

func (matFig1WithEnd) Next(s matFig1EndState, t ts.Tid) (ts.Step, ts.Status) {
	step, st := (&MATFig1{}).Next(s.s, t)
	if st == ts.Finished && !s.ended[t] {
		return ts.Step{Obj: matFig1End, Op: ts.Write}, ts.Enabled
	}
	return step, st
}

func (matFig1WithEnd) Apply(s matFig1EndState, t ts.Tid) matFig1EndState {
	if s.s.pc[t] == fixturesDone {
		s.ended[t] = true
		return s
	}
	s.s = (&MATFig1{}).Apply(s.s, t)
	return s
}

func (matFig1WithEnd) Hash(s matFig1EndState) uint64 {
	return hashInts((&MATFig1{}).Hash(s.s), fixturesBit(s.ended[0]), fixturesBit(s.ended[1]))
}
