package ts_test

import (
	"context"
	"fmt"
	"slices"

	"github.com/weftlab/weft/ts"
)

// counter is a value-state system: two threads each read a shared counter
// and write back the value plus one, a lost update waiting to happen. The
// state is a small struct passed by value, so Apply cannot modify its
// argument.
type counter struct{}

type counterState struct {
	pc  [2]uint8 // 0: about to read, 1: about to write, 2: done
	reg [2]int   // each thread's register
	n   int      // the shared counter, object 0
}

func (counter) Init() counterState { return counterState{} }
func (counter) Threads() int       { return 2 }

func (counter) Next(s counterState, t ts.Tid) (ts.Step, ts.Status) {
	switch s.pc[t] {
	case 0:
		return ts.Step{Obj: 0, Op: ts.Read}, ts.Enabled
	case 1:
		return ts.Step{Obj: 0, Op: ts.Write}, ts.Enabled
	}
	return ts.Step{}, ts.Finished
}

func (counter) Apply(s counterState, t ts.Tid) counterState {
	if s.pc[t] == 0 {
		s.reg[t] = s.n
	} else {
		s.n = s.reg[t] + 1
	}
	s.pc[t]++
	return s
}

// Check fails at a final state where an increment was lost.
func (counter) Check(s counterState) error {
	if s.pc == [2]uint8{2, 2} && s.n != 2 {
		return fmt.Errorf("counter is %d, want 2", s.n)
	}
	return nil
}

func (counter) Describe(s counterState, t ts.Tid) string {
	if s.pc[t] == 0 {
		return fmt.Sprintf("r%d := n", t)
	}
	return fmt.Sprintf("n := r%d + 1", t)
}

// A value-state system explored by the reference search: the first violation
// comes with a schedule that replays it.
func Example() {
	res, err := ts.Explore(context.Background(), counter{}, ts.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res)
	fmt.Print(res.Violation.Trace)

	run, _ := ts.Replay(counter{}, res.Violation.Trace.Schedule())
	fmt.Println("replayed:", run.Violation.Err)
	// Output:
	// check failure (counter is 1, want 2) with 2 preemptions after 4 steps: 2 executions, 7 transitions
	//     0  T0  read o0  r0 := n
	// *   1  T1  read o0  r1 := n
	// *   2  T0  write o0  n := r0 + 1
	//     3  T1  write o0  n := r1 + 1
	// 4 steps, 2 preemptions (marked *)
	// replayed: counter is 1, want 2
}

// Every violation and every terminal state, with KeepGoing.
func ExampleExplore_keepGoing() {
	var finals, failures []string
	res, _ := ts.Explore(context.Background(), counter{}, ts.Options{
		KeepGoing: true,
		OnTerminal: func(s any, sched ts.Schedule) {
			finals = append(finals, fmt.Sprintf("%v: n = %d", sched, s.(counterState).n))
		},
		OnViolation: func(v *ts.Violation) {
			failures = append(failures, fmt.Sprintf("%v: %v", v.Trace.Schedule(), v.Err))
		},
	})
	fmt.Println(res.Executions, "executions,", res.Violations, "violations")
	fmt.Println("passed:", finals)
	fmt.Println("failed:", failures)
	// Output:
	// 6 executions, 4 violations
	// passed: [[0 0 1 1]: n = 2 [1 1 0 0]: n = 2]
	// failed: [[0 1 0 1]: counter is 1, want 2 [0 1 1 0]: counter is 1, want 2 [1 0 0 1]: counter is 1, want 2 [1 0 1 0]: counter is 1, want 2]
}

// simulator is an existing mutable simulator: its methods change it in place.
// It is what a user typically has before wrapping it for weft.
type simulator struct {
	pc  []int
	reg []int
	n   int
}

func (m *simulator) step(t int) {
	if m.pc[t] == 0 {
		m.reg[t] = m.n
	} else {
		m.n = m.reg[t] + 1
	}
	m.pc[t]++
}

func (m *simulator) clone() *simulator {
	return &simulator{pc: slices.Clone(m.pc), reg: slices.Clone(m.reg), n: m.n}
}

// cloning wraps the simulator by cloning it in Apply: the state is a pointer,
// and Apply works on a copy.
type cloning struct{ threads int }

func (c cloning) Init() *simulator {
	return &simulator{pc: make([]int, c.threads), reg: make([]int, c.threads)}
}
func (c cloning) Threads() int { return c.threads }
func (c cloning) Next(m *simulator, t ts.Tid) (ts.Step, ts.Status) {
	switch m.pc[t] {
	case 0:
		return ts.Step{Obj: 0, Op: ts.Read}, ts.Enabled
	case 1:
		return ts.Step{Obj: 0, Op: ts.Write}, ts.Enabled
	}
	return ts.Step{}, ts.Finished
}
func (c cloning) Apply(m *simulator, t ts.Tid) *simulator {
	m = m.clone()
	m.step(int(t))
	return m
}

// A mutable simulator wrapped by cloning in Apply.
func ExampleExplore_cloning() {
	finals := map[int]bool{}
	res, _ := ts.Explore(context.Background(), cloning{threads: 3}, ts.Options{
		OnTerminal: func(s any, _ ts.Schedule) { finals[s.(*simulator).n] = true },
	})
	fmt.Println(res)
	fmt.Println(finals)
	// Output:
	// no violation: 90 executions, 270 transitions
	// map[1:true 2:true 3:true]
}

// replaying wraps a simulator that cannot be cloned: the state is the
// schedule so far, and the simulator is rebuilt by replaying it. It costs a
// replay per call, and it is always correct.
type replaying struct{ threads int }

func (r replaying) rebuild(s ts.Schedule) *simulator {
	m := &simulator{pc: make([]int, r.threads), reg: make([]int, r.threads)}
	for _, mv := range s {
		m.step(int(mv.Thread))
	}
	return m
}

func (r replaying) Init() ts.Schedule { return nil }
func (r replaying) Threads() int      { return r.threads }
func (r replaying) Next(s ts.Schedule, t ts.Tid) (ts.Step, ts.Status) {
	return cloning(r).Next(r.rebuild(s), t)
}
func (r replaying) Apply(s ts.Schedule, t ts.Tid) ts.Schedule {
	return append(s[:len(s):len(s)], ts.Move{Thread: t}) // a full slice expression: never write into s
}

// A mutable simulator wrapped by replay.
func ExampleExplore_replaying() {
	finals := map[int]bool{}
	res, _ := ts.Explore(context.Background(), replaying{threads: 2}, ts.Options{
		OnTerminal: func(s any, _ ts.Schedule) { finals[replaying{2}.rebuild(s.(ts.Schedule)).n] = true },
	})
	fmt.Println(res)
	fmt.Println(finals)
	// Output:
	// no violation: 6 executions, 18 transitions
	// map[1:true 2:true]
}

// A strategy of your own that keeps going confirms the violations it only
// counts with a Reproducer: each replay starts from the prefix its schedule
// shares with the last one's, and builds no trace.
func ExampleReproducer() {
	rep := ts.NewReproducer(counter{}, ts.Options{KeepGoing: true})
	lost := &ts.Violation{Kind: ts.CheckFailure, Err: fmt.Errorf("counter is 1, want 2")}
	for _, sched := range []ts.Schedule{
		{{Thread: 0}, {Thread: 1}, {Thread: 0}, {Thread: 1}},
		{{Thread: 0}, {Thread: 1}, {Thread: 1}, {Thread: 0}},
		{{Thread: 0}, {Thread: 0}, {Thread: 1}, {Thread: 1}},
	} {
		fmt.Println(sched, rep.Reproduces(lost, sched))
	}
	// Output:
	// [0 1 0 1] true
	// [0 1 1 0] true
	// [0 0 1 1] false
}
