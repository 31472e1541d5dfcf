package tstest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// casToy is two threads over x (object 0) and y (object 1), state [pc0,
// pc1, x, y]: thread 0 runs cas(x, 0, 1), a Write while x is 0 and a Read
// after; thread 1 takes one step, which kind says. declare lists the
// objects it declares ts.ValueDependent; mode bends thread 0's failed cas
// out of the relaxed contract.
type casToy struct {
	kind    string // thread 1: "write x", "read x", "write y"
	mode    string // "", "acquire" (a failed cas acquires x), "other" (reads y)
	declare []ts.Obj
}

func (c *casToy) Init() []int  { return []int{0, 0, 0, 0} }
func (c *casToy) Threads() int { return 2 }

func (c *casToy) Next(s []int, t ts.Tid) (ts.Step, ts.Status) {
	if s[t] > 0 {
		return ts.Step{}, ts.Finished
	}
	if t == 1 {
		switch c.kind {
		case "read x":
			return ts.Step{Obj: 0, Op: ts.Read}, ts.Enabled
		case "write y":
			return ts.Step{Obj: 1, Op: ts.Write}, ts.Enabled
		}
		return ts.Step{Obj: 0, Op: ts.Write}, ts.Enabled
	}
	if s[2] == 0 && (c.kind != "write y" || s[3] == 0) {
		return ts.Step{Obj: 0, Op: ts.Write}, ts.Enabled
	}
	switch c.mode {
	case "acquire":
		return ts.Step{Obj: 0, Op: ts.Acquire}, ts.Enabled
	case "other":
		return ts.Step{Obj: 1, Op: ts.Read}, ts.Enabled
	}
	return ts.Step{Obj: 0, Op: ts.Read}, ts.Enabled
}

func (c *casToy) Apply(s []int, t ts.Tid) []int {
	s = append([]int(nil), s...)
	s[t] = 1
	switch {
	case t == 0 && s[2] == 0:
		s[2] = 1
	case t == 1 && c.kind == "write x":
		s[2] = 2
	case t == 1 && c.kind == "write y":
		s[3] = 1
	}
	return s
}

type declaredToy struct{ *casToy }

func (d declaredToy) ValueDependentObjs() []ts.Obj { return d.declare }

// Issue 19: Conformance accepts exactly the relaxed contract of
// ts.ValueDependent: a step that switches between Write and Read of a
// declared object when another thread writes it; every other change is
// still ErrStepChanged, with a hint when only the declaration is missing.
func TestConformanceValueDependent(t *testing.T) {
	for _, tc := range []struct {
		name string
		sys  ts.TransitionSystem[[]int]
		want string // "" for conforming, else a fragment of the breach
	}{
		{"declared", declaredToy{&casToy{kind: "write x", declare: []ts.Obj{0}}}, ""},
		{"undeclared", &casToy{kind: "write x"}, "only on objects declared by ts.ValueDependent"},
		{"another object declared", declaredToy{&casToy{kind: "write x", declare: []ts.Obj{1}}}, "only on objects declared"},
		{"changed by a write of another object", declaredToy{&casToy{kind: "write y", declare: []ts.Obj{0, 1}}}, "must come from a write of the object"},
		{"write to acquire", declaredToy{&casToy{kind: "write x", mode: "acquire", declare: []ts.Obj{0}}}, "became acquire"},
		{"another object", declaredToy{&casToy{kind: "write x", mode: "other", declare: []ts.Obj{0, 1}}}, "became read o1"},
		{"bad object", declaredToy{&casToy{kind: "write x", declare: []ts.Obj{-1}}}, "names object -1"},
	} {
		errs := tstest.CheckConformance(tc.sys, tstest.ConformanceOptions{})
		switch {
		case tc.want == "" && len(errs) > 0:
			t.Errorf("%s: %v", tc.name, errs)
		case tc.want != "" && (len(errs) == 0 || !strings.Contains(errs[0].Error(), tc.want)):
			t.Errorf("%s: %v, want a breach saying %q", tc.name, errs, tc.want)
		case tc.want != "" && tc.name != "bad object" && !errors.Is(errs[0], tstest.ErrStepChanged):
			t.Errorf("%s: %v, want ErrStepChanged", tc.name, errs[0])
		}
	}
}

// A program's compare-and-swaps are Writes unless CASReads, and then a
// failed one is a Read of a declared variable; the programs conform both ways.
func TestProgramCASReads(t *testing.T) {
	cas := tstest.CAS(0, 0, 0, 1)
	for _, reads := range []bool{false, true} {
		p := &tstest.Program{Vars: []tstest.Var{{Name: "x"}, {Name: "y"}}, CASReads: reads,
			Code: [][]tstest.Instr{{cas}, {cas, tstest.Store(1, 1)}}}
		tstest.Conformance(t, p, tstest.ConformanceOptions{})
		s := p.ApplyOutcome(p.Init(), 0, 0)
		step, _ := p.Next(s, 1)
		want := ts.Write
		if reads {
			want = ts.Read
		}
		if step.Op != want || step.Obj != 0 {
			t.Errorf("CASReads=%v: the failed cas is %v, want %v x", reads, step, want)
		}
		if objs := p.ValueDependentObjs(); reads != (len(objs) == 1 && objs[0] == 0) {
			t.Errorf("CASReads=%v: declares %v", reads, objs)
		}
		if reads != strings.Contains(p.GoString(), "CASReads: true") || reads != strings.Contains(p.String(), "a failed cas is a read") {
			t.Errorf("CASReads=%v: listing\n%s\n%#v", reads, p, p)
		}
	}
}
