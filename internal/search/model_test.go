package search

import (
	"errors"
	"strings"
	"testing"

	"github.com/weftlab/weft/ts"
)

// pcs is a two-thread system over a slice of program counters; thread t
// writes object t twice. mutate makes thread 1's Apply modify its argument.
type pcs struct{ mutate bool }

func (pcs) Init() []int  { return []int{0, 0} }
func (pcs) Threads() int { return 2 }
func (pcs) Next(s []int, t ts.Tid) (ts.Step, ts.Status) {
	if s[t] >= 2 {
		return ts.Step{}, ts.Finished
	}
	return ts.Step{Obj: ts.Obj(t), Op: ts.Write}, ts.Enabled
}
func (p pcs) Apply(s []int, t ts.Tid) []int {
	if p.mutate && t == 1 {
		s[t] += 2 // in place, and far enough to show in its status
		return s
	}
	c := append([]int(nil), s...)
	c[t]++
	return c
}
func (pcs) Invariant([]int) error    { return nil }
func (pcs) InvariantReads() []ts.Obj { return []ts.Obj{1} }

func TestModel(t *testing.T) {
	m, err := NewModel[[]int](pcs{})
	if err != nil || m.N != 2 || m.Inv == nil {
		t.Fatalf("%+v, %v", m, err)
	}
	steps, status := make([]ts.Step, 2), make([]ts.Status, 2)
	cur := ts.Tid(5)
	c, err := m.Look(m.Sys.Init(), steps, status, make([]int, 2), &cur)
	if err != nil || c.Enabled != 2 || c.Moves != 2 || cur != -1 {
		t.Fatalf("Look: %+v, %v", c, err)
	}
	// Thread 1 writes the invariant's object: its step is marked.
	if steps[0].NumAccesses() != 1 || steps[1].NumAccesses() != 2 {
		t.Errorf("marks: %v, %v", steps[0], steps[1])
	}
	if v := m.Check(m.Sys.Init()); v != nil {
		t.Errorf("Check: %v", v)
	}
	if Deadlock(Counts{Blocked: 1}, &ts.Options{IgnoreDeadlocks: true}) || !Deadlock(Counts{Blocked: 1}, &ts.Options{}) ||
		Deadlock(Counts{Idle: 1}, &ts.Options{}) {
		t.Error("Deadlock")
	}
}

func TestUnchanged(t *testing.T) {
	for _, mutate := range []bool{false, true} {
		m, _ := NewModel[[]int](pcs{mutate: mutate})
		s := m.Sys.Init()
		b := Baseline{Steps: make([]ts.Step, 2), Status: make([]ts.Status, 2)}
		cur := ts.Tid(-1)
		if _, err := m.Look(s, b.Steps, b.Status, make([]int, 2), &cur); err != nil {
			t.Fatal(err)
		}
		taken := []ts.Move{{Thread: 0}, {Thread: 1}}
		m.Apply(s, taken[0])
		m.Apply(s, taken[1])
		err := m.Unchanged(s, b, nil, taken, &cur)
		var se *ts.SystemError
		switch {
		case !mutate && err != nil:
			t.Errorf("clean system: %v", err)
		case mutate && (!errors.As(err, &se) || !errors.Is(err, ts.ErrMutated) || se.Thread != 1):
			t.Errorf("mutating thread 1: %v", err)
		}
	}
}

func TestLookRefusesTheExtendedModel(t *testing.T) {
	steps, status := make([]ts.Step, 1), make([]ts.Status, 1)
	cur := ts.Tid(-1)
	for _, f := range []fake{
		{threads: 1, step: ts.Step{Obj: 1, Also: []ts.Access{{Obj: 2}}}},
		{threads: 1, status: ts.Idle},
	} {
		if _, _, err := Look[int](f, 0, steps, status, &cur); !errors.Is(err, ts.ErrUnsupported) {
			t.Errorf("%+v: %v", f, err)
		}
	}
	if _, err := Threads[[]int](pcs{}); !errors.Is(err, ts.ErrUnsupported) {
		t.Errorf("invariant: %v", err)
	}
}

type vdSys struct {
	fake
	objs  []ts.Obj
	panic bool
}

func (v vdSys) ValueDependentObjs() []ts.Obj {
	if v.panic {
		panic("boom")
	}
	return v.objs
}

// Issue 19: the model knows the declared value-dependent objects; a bad
// declaration is a system error; RefuseValueDependent refuses a system that
// declares some, naming the strategy.
func TestModelValueDependent(t *testing.T) {
	m, err := NewModel[int](vdSys{fake: fake{threads: 1}, objs: []ts.Obj{3}})
	if err != nil || !m.ValueDependent() || !m.ValueDependentObj(3) || m.ValueDependentObj(0) ||
		!m.TouchesValueDependent(ts.Step{Obj: 0, Also: []ts.Access{{Obj: 3}}}) || m.TouchesValueDependent(ts.Step{Obj: 0}) {
		t.Fatalf("%v %v", m, err)
	}
	if m, err := NewModel[int](vdSys{fake: fake{threads: 1}}); err != nil || m.ValueDependent() {
		t.Fatalf("no objects: %v %v", m, err)
	}
	if _, err := NewModel[int](vdSys{fake: fake{threads: 1}, objs: []ts.Obj{ts.InvariantObj}}); !errors.Is(err, ts.ErrBadStep) {
		t.Errorf("InvariantObj: %v", err)
	}
	if _, err := NewModel[int](vdSys{fake: fake{threads: 1}, panic: true}); !errors.Is(err, ts.ErrBadSystem) {
		t.Errorf("panic: %v", err)
	}
	err = RefuseValueDependent(vdSys{fake: fake{threads: 1}, objs: []ts.Obj{3}}, "mat")
	if !errors.Is(err, ts.ErrUnsupported) || !strings.Contains(err.Error(), "mat does not support value-dependent steps") {
		t.Errorf("refusal: %v", err)
	}
	if _, err := Threads[int](vdSys{fake: fake{threads: 1}, objs: []ts.Obj{3}}); !errors.Is(err, ts.ErrUnsupported) {
		t.Errorf("legacy Threads: %v", err)
	}
	if err := RefuseValueDependent(fake{threads: 1}, "mat"); err != nil {
		t.Errorf("plain system: %v", err)
	}
}

type blockingSys struct {
	fake
	objs  []ts.Obj
	panic bool
}

func (b blockingSys) BlockingObjs() []ts.Obj {
	if b.panic {
		panic("boom")
	}
	return b.objs
}

// The model holds the objects a ts.Blocking system names; a bad list is a
// system error, as ValueDependentObjs's is.
func TestModelBlocking(t *testing.T) {
	m, err := NewModel[int](blockingSys{fake: fake{threads: 1}, objs: []ts.Obj{3, 5}})
	if err != nil || len(m.Blocking) != 2 || m.Blocking[0] != 3 || m.Blocking[1] != 5 {
		t.Fatalf("%v %v", m, err)
	}
	if m, err := NewModel[int](fake{threads: 1}); err != nil || m.Blocking != nil {
		t.Fatalf("plain system: %v %v", m, err)
	}
	if _, err := NewModel[int](blockingSys{fake: fake{threads: 1}, objs: []ts.Obj{-1}}); !errors.Is(err, ts.ErrBadStep) ||
		!strings.Contains(err.Error(), "BlockingObjs names object -1") {
		t.Errorf("negative object: %v", err)
	}
	if _, err := NewModel[int](blockingSys{fake: fake{threads: 1}, panic: true}); !errors.Is(err, ts.ErrBadSystem) ||
		!strings.Contains(err.Error(), "BlockingObjs panicked") {
		t.Errorf("panic: %v", err)
	}
}
