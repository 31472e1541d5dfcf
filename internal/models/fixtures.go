package models

// Small fixtures from the papers: each a few transitions, with facts small
// enough to check by hand. They are golden tests for every strategy.

import (
	"fmt"

	"github.com/weftlab/weft/ts"
)

// fixturesDone is the program counter of a thread that has finished.
const fixturesDone = -1

// ---------------------------------------------------------------------------
// cbpor-fig1

// CBPORFig1 is the program of Figure 1 of Musuvathi and Qadeer, "Partial-order
// reduction for context-bounded state exploration" (MSR-TR-2007-12):
//
//	T0: x := 1; y := 1        T1: y := 2
//
// Objects: x = 0, y = 1. Facts (under ts.Explore): 3 executions; the terminal
// states have y = 1 or y = 2 (2 distinct terminal states, 2 Mazurkiewicz
// classes); no violation. The terminal state y = 1 is reachable with 0
// preemptions by the schedule T1, T0, T0 (T1 runs to completion, then T0).
// Naive "sleep sets + prune above the bound" misses it at bound 0: after
// T1 first, T0's x := 1 is in the sleep set, being independent of y := 2.
// Every bounded reduction must reach y = 1 at bound 0. Acyclic.
type CBPORFig1 struct{}

// NewCBPORFig1 returns the program. It has no parameter: n is ignored.
func NewCBPORFig1(n int) *CBPORFig1 { return &CBPORFig1{} }

// CBPORFig1Info describes CBPORFig1.
var CBPORFig1Info = Info{
	Name:    "cbpor-fig1",
	Summary: "T0: x:=1; y:=1 and T1: y:=2; sleep sets + bound miss y=1 at bound 0",
	Source:  "Musuvathi, Qadeer, Partial-order reduction for context-bounded state exploration, MSR-TR-2007-12, Figure 1",
}

// CBPORFig1State is a state of CBPORFig1: the program counters and x, y.
type CBPORFig1State struct {
	pc   [2]int8 // T0: 0, 1; T1: 0; fixturesDone when finished
	x, y int8
}

// Y returns the value of y.
func (s CBPORFig1State) Y() int { return int(s.y) }

func (*CBPORFig1) Init() CBPORFig1State { return CBPORFig1State{} }
func (*CBPORFig1) Threads() int         { return 2 }

func (*CBPORFig1) Next(s CBPORFig1State, t ts.Tid) (ts.Step, ts.Status) {
	switch {
	case s.pc[t] == fixturesDone:
		return ts.Step{}, ts.Finished
	case t == 0 && s.pc[t] == 0:
		return ts.Step{Obj: 0, Op: ts.Write}, ts.Enabled
	default:
		return ts.Step{Obj: 1, Op: ts.Write}, ts.Enabled
	}
}

func (*CBPORFig1) Apply(s CBPORFig1State, t ts.Tid) CBPORFig1State {
	switch {
	case t == 0 && s.pc[0] == 0:
		s.x, s.pc[0] = 1, 1
	case t == 0 && s.pc[0] == 1:
		s.y, s.pc[0] = 1, fixturesDone
	case t == 1 && s.pc[1] == 0:
		s.y, s.pc[1] = 2, fixturesDone
	default:
		panic(fmt.Sprintf("cbpor-fig1: thread %d has finished", t))
	}
	return s
}

func (*CBPORFig1) Hash(s CBPORFig1State) uint64 {
	return hashInts(0, s.pc[0], s.pc[1], s.x, s.y)
}

func (*CBPORFig1) Describe(s CBPORFig1State, t ts.Tid) string {
	switch {
	case s.pc[t] == fixturesDone:
		return "(finished)"
	case t == 0 && s.pc[0] == 0:
		return "x := 1"
	case t == 0:
		return "y := 1"
	default:
		return "y := 2"
	}
}

func (*CBPORFig1) ObjName(o ts.Obj) string { return fixturesVarName(o, "x", "y") }

// fixturesVarName names object o from a list, or "o<n>" outside it.
func fixturesVarName(o ts.Obj, names ...string) string {
	if o >= 0 && int(o) < len(names) {
		return names[o]
	}
	return fmt.Sprintf("o%d", o)
}

// ---------------------------------------------------------------------------
// inspect-2.3.1

// Inspect231 is the DPOR example of section 2.3.1 of Yu Yang's thesis,
// "Efficient dynamic verification of concurrent programs" (Utah, 2009):
//
//	T0: x = 1; x = 2        T1: y = 1; x = 3
//
// (the thesis's t1 and t2). Objects: x = 0, y = 1. Facts (under ts.Explore):
// 6 executions (C(4,2)); 2 distinct terminal states (x = 2 or x = 3, y = 1);
// 3 Mazurkiewicz classes, which is what DPOR with sleep sets explores; no
// violation. Acyclic.
type Inspect231 struct{}

// NewInspect231 returns the program. It has no parameter: n is ignored.
func NewInspect231(n int) *Inspect231 { return &Inspect231{} }

// Inspect231Info describes Inspect231.
var Inspect231Info = Info{
	Name:    "inspect-2.3.1",
	Summary: "t1: x=1; x=2 and t2: y=1; x=3; DPOR with sleep sets explores 3 of 6 executions",
	Source:  "Yu Yang, Efficient Dynamic Verification of Concurrent Programs, PhD thesis, Utah 2009, section 2.3.1",
}

// Inspect231State is a state of Inspect231: the program counters and x, y.
type Inspect231State struct {
	pc   [2]int8 // 0, 1, or fixturesDone
	x, y int8
}

// X returns the value of x.
func (s Inspect231State) X() int { return int(s.x) }

func (*Inspect231) Init() Inspect231State { return Inspect231State{} }
func (*Inspect231) Threads() int          { return 2 }

func (*Inspect231) Next(s Inspect231State, t ts.Tid) (ts.Step, ts.Status) {
	switch {
	case s.pc[t] == fixturesDone:
		return ts.Step{}, ts.Finished
	case t == 1 && s.pc[t] == 0:
		return ts.Step{Obj: 1, Op: ts.Write}, ts.Enabled
	default:
		return ts.Step{Obj: 0, Op: ts.Write}, ts.Enabled
	}
}

func (*Inspect231) Apply(s Inspect231State, t ts.Tid) Inspect231State {
	switch {
	case t == 0 && s.pc[0] == 0:
		s.x, s.pc[0] = 1, 1
	case t == 0 && s.pc[0] == 1:
		s.x, s.pc[0] = 2, fixturesDone
	case t == 1 && s.pc[1] == 0:
		s.y, s.pc[1] = 1, 1
	case t == 1 && s.pc[1] == 1:
		s.x, s.pc[1] = 3, fixturesDone
	default:
		panic(fmt.Sprintf("inspect-2.3.1: thread %d has finished", t))
	}
	return s
}

func (*Inspect231) Hash(s Inspect231State) uint64 {
	return hashInts(0, s.pc[0], s.pc[1], s.x, s.y)
}

func (*Inspect231) Describe(s Inspect231State, t ts.Tid) string {
	if s.pc[t] == fixturesDone {
		return "(finished)"
	}
	return [2][2]string{{"x = 1", "x = 2"}, {"y = 1", "x = 3"}}[t][s.pc[t]]
}

func (*Inspect231) ObjName(o ts.Obj) string { return fixturesVarName(o, "x", "y") }

// ---------------------------------------------------------------------------
// locks3

// Locks3 is three threads that each take and release one lock:
//
//	T0, T1, T2: lock(l); unlock(l)
//
// the lock example of section 2.3 of Yu Yang's thesis (see PAPER-NOTES).
// Object: l = 0. Facts (under ts.Explore): 6 executions (3!, one per order
// of the critical sections), 1 distinct terminal state, no deadlock, no
// violation. Acyclic.
type Locks3 struct{}

// NewLocks3 returns the program. It has no parameter: n is ignored.
func NewLocks3(n int) *Locks3 { return &Locks3{} }

// Locks3Info describes Locks3.
var Locks3Info = Info{
	Name:    "locks3",
	Summary: "three threads each lock(l); unlock(l): 3! executions",
	Source:  "Yu Yang, Efficient Dynamic Verification of Concurrent Programs, PhD thesis, Utah 2009, chapter 2",
}

// Locks3State is a state of Locks3: the program counters and the lock's
// owner.
type Locks3State struct {
	pc    [3]int8 // 0 lock, 1 unlock, fixturesDone
	owner int8    // 0 when free, t+1 when held by thread t
}

func (*Locks3) Init() Locks3State { return Locks3State{} }
func (*Locks3) Threads() int      { return 3 }

func (*Locks3) Next(s Locks3State, t ts.Tid) (ts.Step, ts.Status) {
	switch s.pc[t] {
	case 0:
		if s.owner != 0 {
			return ts.Step{Obj: 0, Op: ts.Acquire}, ts.Blocked
		}
		return ts.Step{Obj: 0, Op: ts.Acquire}, ts.Enabled
	case 1:
		return ts.Step{Obj: 0, Op: ts.Release}, ts.Enabled
	}
	return ts.Step{}, ts.Finished
}

func (*Locks3) Apply(s Locks3State, t ts.Tid) Locks3State {
	switch s.pc[t] {
	case 0:
		if s.owner != 0 {
			panic(fmt.Sprintf("locks3: thread %d takes l held by thread %d", t, s.owner-1))
		}
		s.owner, s.pc[t] = int8(t)+1, 1
	case 1:
		s.owner, s.pc[t] = 0, fixturesDone
	default:
		panic(fmt.Sprintf("locks3: thread %d has finished", t))
	}
	return s
}

func (*Locks3) Hash(s Locks3State) uint64 {
	return hashInts(0, s.pc[0], s.pc[1], s.pc[2], s.owner)
}

func (*Locks3) Describe(s Locks3State, t ts.Tid) string {
	switch s.pc[t] {
	case 0:
		return "lock(l)"
	case 1:
		return "unlock(l)"
	}
	return "(finished)"
}

func (*Locks3) ObjName(o ts.Obj) string { return fixturesVarName(o, "l") }

// Symmetry: the three threads are identical and only the lock's owner names
// a thread, so every permutation of the threads is a symmetry (Canonical,
// Permute), and two threads at the same program counter are interchangeable
// (Signature): they cannot both hold the lock.

// Permute returns s with thread t's part moved to thread perm[t].
func (*Locks3) Permute(s Locks3State, perm []ts.Tid) Locks3State {
	var out Locks3State
	for t := range 3 {
		out.pc[perm[t]] = s.pc[t]
	}
	if s.owner != 0 {
		out.owner = int8(perm[s.owner-1]) + 1
	}
	return out
}

// Canonical sorts the threads by program counter (stable by thread id).
func (l *Locks3) Canonical(s Locks3State) (Locks3State, []ts.Tid) {
	perm := make([]ts.Tid, 3)
	for t := range 3 {
		for u := range 3 {
			if s.pc[u] < s.pc[t] || s.pc[u] == s.pc[t] && u < t {
				perm[t]++
			}
		}
	}
	return l.Permute(s, perm), perm
}

// Signature is the thread's program counter.
func (*Locks3) Signature(s Locks3State, t ts.Tid) uint64 { return uint64(s.pc[t]) }

// ---------------------------------------------------------------------------
// lost-update

// LostUpdate is the classic lost update: two threads increment a counter
// without a lock, reading and writing it in separate transitions:
//
//	T0, T1: r := counter; counter := r + 1
//
// Object: counter = 0. The property, checked at the terminal state, is
// counter = 2. Facts (under ts.Explore): 6 executions (C(4,2)), 4 of them
// violating (both reads before both writes): a check failure whose minimum
// number of preemptions is 1 (T0 reads, T1 runs to completion, T0 writes);
// 2 distinct terminal states that pass Check (counter = 2 with r = (0, 1) or
// (1, 0)); 4 Mazurkiewicz classes. Acyclic.
type LostUpdate struct{}

// NewLostUpdate returns the program. It has no parameter: n is ignored.
func NewLostUpdate(n int) *LostUpdate { return &LostUpdate{} }

// LostUpdateInfo describes LostUpdate.
var LostUpdateInfo = Info{
	Name:    "lost-update",
	Summary: "two unlocked increments of a counter; one is lost with 1 preemption",
	Source:  "classic; the textbook data race on counter++",
}

// LostUpdateState is a state of LostUpdate: the program counters, each
// thread's register r, and the counter.
type LostUpdateState struct {
	pc      [2]int8 // 0 read, 1 write, fixturesDone
	r       [2]int8
	counter int8
}

// Counter returns the value of the counter.
func (s LostUpdateState) Counter() int { return int(s.counter) }

func (*LostUpdate) Init() LostUpdateState { return LostUpdateState{} }
func (*LostUpdate) Threads() int          { return 2 }

func (*LostUpdate) Next(s LostUpdateState, t ts.Tid) (ts.Step, ts.Status) {
	switch s.pc[t] {
	case 0:
		return ts.Step{Obj: 0, Op: ts.Read}, ts.Enabled
	case 1:
		return ts.Step{Obj: 0, Op: ts.Write}, ts.Enabled
	}
	return ts.Step{}, ts.Finished
}

func (*LostUpdate) Apply(s LostUpdateState, t ts.Tid) LostUpdateState {
	switch s.pc[t] {
	case 0:
		s.r[t], s.pc[t] = s.counter, 1
	case 1:
		s.counter, s.pc[t] = s.r[t]+1, fixturesDone
	default:
		panic(fmt.Sprintf("lost-update: thread %d has finished", t))
	}
	return s
}

// Check reports a lost update at the terminal state.
func (*LostUpdate) Check(s LostUpdateState) error {
	if s.pc[0] == fixturesDone && s.pc[1] == fixturesDone && s.counter != 2 {
		return fmt.Errorf("lost update: counter = %d at the end, want 2", s.counter)
	}
	return nil
}

func (*LostUpdate) Hash(s LostUpdateState) uint64 {
	return hashInts(0, s.pc[0], s.pc[1], s.r[0], s.r[1], s.counter)
}

func (*LostUpdate) Describe(s LostUpdateState, t ts.Tid) string {
	switch s.pc[t] {
	case 0:
		return "r := counter"
	case 1:
		return fmt.Sprintf("counter := r + 1 (= %d)", s.r[t]+1)
	}
	return "(finished)"
}

func (*LostUpdate) ObjName(o ts.Obj) string { return fixturesVarName(o, "counter") }
