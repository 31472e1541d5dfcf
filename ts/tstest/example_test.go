package tstest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// flags is a tiny system: thread t sets flag t, then finishes. Its state is
// a value, so Apply cannot modify its argument.
type flags struct{ n int }

func (f flags) Init() [2]bool { return [2]bool{} }
func (f flags) Threads() int  { return f.n }
func (f flags) Next(s [2]bool, t ts.Tid) (ts.Step, ts.Status) {
	if s[t] {
		return ts.Step{}, ts.Finished
	}
	return ts.Step{Obj: ts.Obj(t), Op: ts.Write}, ts.Enabled
}
func (f flags) Apply(s [2]bool, t ts.Tid) [2]bool {
	s[t] = true
	return s
}

// leaky claims its threads write different objects, but both write a
// shared "last" field.
type leaky struct{ flags }

func (l leaky) Init() [3]int { return [3]int{} }
func (l leaky) Next(s [3]int, t ts.Tid) (ts.Step, ts.Status) {
	if s[t] != 0 {
		return ts.Step{}, ts.Finished
	}
	return ts.Step{Obj: ts.Obj(t), Op: ts.Write}, ts.Enabled
}
func (l leaky) Apply(s [3]int, t ts.Tid) [3]int {
	s[t], s[2] = 1, int(t)
	return s
}

// printTB is a tstest.TB that prints what it is told.
type printTB struct{}

func (printTB) Helper()                           {}
func (printTB) Errorf(format string, args ...any) { fmt.Printf(format+"\n", args...) }

func ExampleCheckConformance() {
	fmt.Println(tstest.CheckConformance[[2]bool](flags{n: 2}, tstest.ConformanceOptions{}))
	for _, err := range tstest.CheckConformance[[3]int](leaky{flags{n: 2}}, tstest.ConformanceOptions{}) {
		fmt.Println(err)
	}
	// Output:
	// []
	// weft: independent steps do not commute: thread 0: its step write o0 and thread 1's step write o1 are independent, but the two orders reach different states (schedule [])
}

func ExampleCheckReduction() {
	// In a test, t is the test's *testing.T (or a *rapid.T); here it prints.
	t := printTB{}
	p := &tstest.Program{
		Vars: []tstest.Var{{Name: "x"}},
		Code: [][]tstest.Instr{
			{tstest.Store(0, 1), tstest.Store(0, 2)},
			{tstest.Load(0, 0), tstest.AssertNe(0, 2)},
		},
	}
	// The reduction under test would be, say, a closure around cbound.Explore
	// with its bound fixed; ts.Explore trivially passes.
	rep := tstest.CheckReduction(t, p, ts.Explore[tstest.State], tstest.ReductionOptions{Bound: ts.NoBound})
	fmt.Println("terminal states:", rep.ExpectedTerminals, "violations:", rep.ExpectedViolations)
	fmt.Println("executions:", rep.Reduction.Result.Executions, "discrepancies:", len(rep.Errors))
	for _, oc := range rep.Reference.Violations {
		fmt.Println(oc.Violation.Err, "schedule", oc.Schedule, "preemptions", oc.Preemptions)
	}
	// Output:
	// terminal states: 2 violations: 1
	// executions: 3 discrepancies: 0
	// T1@1: assert r0 != 2 failed (r0 = 2) schedule [0 0 1] preemptions 0
}

func ExampleReference() {
	// Fig. 1 of the cbpor paper: T0 = x := 1; y := 1, T1 = y := 2.
	p := &tstest.Program{
		Vars: []tstest.Var{{Name: "x"}, {Name: "y"}},
		Code: [][]tstest.Instr{{tstest.Store(0, 1), tstest.Store(1, 1)}, {tstest.Store(1, 2)}},
	}
	out, err := tstest.Reference(context.Background(), p, tstest.ReductionOptions{})
	if err != nil {
		panic(err)
	}
	for _, oc := range out.Terminals {
		if oc.State.(tstest.State).String()[:7] == "x=1 y=1" {
			fmt.Println("y = 1 with", oc.Preemptions, "preemptions, by", oc.Schedule)
		}
	}
	// Output:
	// y = 1 with 0 preemptions, by [1 0 0]
}

func ExampleProgram() {
	// Two threads increment a counter under a lock; a third asserts it has
	// not seen 1.
	p := &tstest.Program{
		Vars:  []tstest.Var{{Name: "n"}},
		Locks: []string{"m"},
		Code: [][]tstest.Instr{
			{tstest.Acquire(0), tstest.FetchAdd(0, 0, 1), tstest.Release(0)},
			{tstest.Acquire(0), tstest.FetchAdd(0, 0, 1), tstest.Release(0)},
			{tstest.Load(0, 0), tstest.AssertNe(0, 1)},
		},
	}
	fmt.Println(p)
	res, err := ts.Explore(context.Background(), p, ts.Options{})
	fmt.Println(res, err)
	fmt.Println(res.Violation.Trace.Schedule())
	// Output:
	// vars: n=0
	// locks: m
	// T0:
	//    0  lock(m)
	//    1  r0 := fetch_add(n, 1)
	//    2  unlock(m)
	// T1:
	//    0  lock(m)
	//    1  r0 := fetch_add(n, 1)
	//    2  unlock(m)
	// T2:
	//    0  r0 := n
	//    1  assert r0 != 1
	// check failure (T2@1: assert r0 != 1 failed (r0 = 1)) with 1 preemption after 5 steps: 3 executions, 10 transitions <nil>
	// [0 0 0 1 2]
}

func BenchmarkProgramApply(b *testing.B) {
	p := philosophers(4)
	s := p.Init()
	b.ReportAllocs()
	for b.Loop() {
		_ = p.Apply(s, 1)
	}
}
