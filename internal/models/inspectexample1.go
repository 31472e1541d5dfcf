package models

import (
	"fmt"

	"github.com/weftlab/weft/ts"
)

// InspectExample1 is the program of Figure 4.1 of Yu Yang's thesis,
// "Efficient dynamic verification of concurrent programs" (Utah, 2009),
// chapter 4 (stateful dynamic partial-order reduction), the benchmark
// "example1" of its Table 4.1: two threads that, in atomic blocks nested
// within loops, write to a shared variable d.
//
//	const int N;  int d = 0;
//	thread1: local int i = 0;           thread2: local int j = 0;
//	L0: while (i < N) {                 M0: while (j < N) {
//	L1:   atomic { d = d + i;           M1:   atomic { d = d - j;
//	               assert(d%5 != 4); }  M2:            assert(d%5 != 4); }
//	L2:   i = i + 5;                    M3:   j = j + 2;
//	L3: }                               M4: }
//
// N is the loop bound of both threads, the figure's `const int N`: thread1
// runs ⌈N/5⌉ atomic blocks (i = 0, 5, 10, ...) and thread2 ⌈N/2⌉ (j = 0,
// 2, 4, ...). The thesis fixes N = 64 (13 and 32 blocks) and reports example1
// with 35 runs and 2084 transitions under its stateful DPOR, and no result for
// stateless DPOR within 24 hours; those counts are of its instrumented C
// program, with its own notion of transition and run, so they are not
// comparable with ours.
//
// Each atomic block is one transition: an atomic (Sync) write of d, object 0;
// the loop test and the increment of i or j are the thread's local
// computation (the first loop test is Init's). Threads: thread1 = 0,
// thread2 = 1.
//
// State: thread1 after a blocks and thread2 after b blocks have d =
// 5·a(a-1)/2 - b(b-1) whatever the order, so the reachable states form an
// (⌈N/5⌉+1) × (⌈N/2⌉+1) grid while the interleavings number
// C(⌈N/5⌉+⌈N/2⌉, ⌈N/5⌉): every block writes d, so no two interleavings are
// equivalent, and stateless search (DPOR included) is exponential where
// stateful search is quadratic. There is one terminal state: every order of
// the blocks ends with the same d.
//
// The assertion. The figure's assert(d%5 != 4), with C's truncated %, fails:
// d%5 is 4 exactly when d > 0 and thread2 has run b ≡ 3 (mod 5) blocks
// (thread1 adds multiples of 5, and b(b-1) ≡ 1 (mod 5) then), and d > 0
// needs thread1 ahead: thread1 runs three blocks (d = 0+5+10 = 15), then
// thread2 three (d = 15-0-2-4 = 9). So it holds for N ≤ 10 and fails for
// N ≥ 11, at N = 64 on the very first execution of a depth-first search that
// runs thread1 first. The thesis reports a complete search of example1 at
// N = 64, so its program or its tool must differ there (the extracted figure
// is garbled around the assertion). The benchmark measures, as the thesis's
// table does, the whole state space: the assertion is off unless Assert is
// set. With Assert, a thread whose assertion fails goes wrong, stops
// (Finished), and Check reports it; Options.KeepGoing then explores past the
// failures (not from them).
//
// Facts (under ts.Explore): N = 1 and 2: 2 executions, 1 distinct terminal
// state; N = 3: 3 executions, 1 terminal state; N = 8: 15 executions; N = 40:
// 3108105 executions (C(28,8)); no violation. Under ts.ExploreStateful:
// (⌈N/5⌉+1)(⌈N/2⌉+1) states: 4 for N = 1 and 2, 6 for N = 3, 15 for N = 8,
// 189 for N = 40, 462 for N = 64. With Assert: no violation for N ≤ 10; for
// N = 11 the first violation needs 0 preemptions (thread1 to its end, then
// thread2's third block: d = 15-6 = 9); at N = 64 ExploreStateful with
// KeepGoing stores 466 states. Acyclic. The default, N = 40, is where the
// two part ways: ts.Explore takes seconds (3108105 executions, 14307148
// transitions), ts.ExploreStateful well under a millisecond (189 states, 348
// transitions); at N = 64 only stateful search finishes.
type InspectExample1 struct {
	n int
	// Assert turns on the figure's assertion, assert(d%5 != 4) after each
	// block, which fails for N ≥ 11.
	Assert bool
}

// inspectExample1Max is the largest loop bound.
const inspectExample1Max = 1024

// NewInspectExample1 returns the program with loop bound n, 1 ≤ n ≤ 1024.
func NewInspectExample1(n int) *InspectExample1 {
	if n < InspectExample1Info.Min || n > InspectExample1Info.Max {
		panic(fmt.Sprintf("models: inspect-example1: n = %d, want %d..%d", n, InspectExample1Info.Min, InspectExample1Info.Max))
	}
	return &InspectExample1{n: n}
}

// InspectExample1Info describes InspectExample1.
var InspectExample1Info = Info{
	Name:    "inspect-example1",
	Summary: "two threads write d in atomic blocks within loops: quadratic states, exponential interleavings",
	Source:  "Yu Yang, Efficient dynamic verification of concurrent programs (PhD thesis, Utah, 2009), Figure 4.1 and Table 4.1 (example1)",
	Param:   "loop bound (the thesis's N = 64)",
	Default: 40,
	Min:     1,
	Max:     inspectExample1Max,
}

// InspectExample1State is a state of InspectExample1: thread1's i, thread2's
// j, the shared d, and the thread whose assertion failed.
type InspectExample1State struct {
	i, j  int32 // the next value each thread adds to or subtracts from d
	d     int32
	wrong int8 // the thread whose assertion failed, + 1; 0 when none
}

// D returns the value of d.
func (s InspectExample1State) D() int { return int(s.d) }

// Blocks returns the atomic blocks thread1 and thread2 have run.
func (s InspectExample1State) Blocks() (int, int) { return int(s.i / 5), int(s.j / 2) }

func (p *InspectExample1) Init() InspectExample1State { return InspectExample1State{} }
func (p *InspectExample1) Threads() int               { return 2 }

// done reports whether thread t has left its loop or gone wrong.
func (p *InspectExample1) done(s InspectExample1State, t ts.Tid) bool {
	if s.wrong == int8(t)+1 {
		return true
	}
	if t == 0 {
		return int(s.i) >= p.n
	}
	return int(s.j) >= p.n
}

func (p *InspectExample1) Next(s InspectExample1State, t ts.Tid) (ts.Step, ts.Status) {
	step := ts.Step{Obj: 0, Op: ts.Write, Sync: true}
	if p.done(s, t) {
		return step, ts.Finished
	}
	return step, ts.Enabled
}

func (p *InspectExample1) Apply(s InspectExample1State, t ts.Tid) InspectExample1State {
	if p.done(s, t) {
		panic(fmt.Sprintf("inspect-example1: thread %d has finished", t))
	}
	if t == 0 {
		s.d += s.i
		s.i += 5
	} else {
		s.d -= s.j
		s.j += 2
	}
	if p.Assert && s.d%5 == 4 {
		s.wrong = int8(t) + 1
	}
	return s
}

// Check reports a failed assertion.
func (p *InspectExample1) Check(s InspectExample1State) error {
	if s.wrong == 0 {
		return nil
	}
	return fmt.Errorf("thread%d: assert(d%%5 != 4) failed: d = %d", s.wrong, s.d)
}

func (p *InspectExample1) Hash(s InspectExample1State) uint64 {
	return hashInts(0, s.i, s.j, s.d, int32(s.wrong))
}

// Describe returns thread t's next atomic block, "atomic { d = d + 10; ... }".
func (p *InspectExample1) Describe(s InspectExample1State, t ts.Tid) string {
	if p.done(s, t) {
		return "(finished)"
	}
	if t == 0 {
		return fmt.Sprintf("atomic { d = d + %d; assert(d%%5 != 4) }", s.i)
	}
	return fmt.Sprintf("atomic { d = d - %d; assert(d%%5 != 4) }", s.j)
}

func (p *InspectExample1) ObjName(o ts.Obj) string {
	if o == 0 {
		return "d"
	}
	return fmt.Sprintf("o%d", o)
}
