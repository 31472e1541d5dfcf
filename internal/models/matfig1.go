package models

import (
	"fmt"

	"github.com/weftlab/weft/ts"
)

// MATFig1 is the two-thread example of Figure 1(a) of Ganai and Kundu,
// "Reduction of verification conditions for concurrent system using mutually
// atomic transactions" (SPIN 2009), as reconstructed in PAPER-NOTES section 5
// (the extracted text lacks the figure; this program fits every fact the
// text states):
//
//	M1 (T0): 1a y = 1; 2a a0 = x; 3a a1 = z; 4a a2 = y
//	M2 (T1): 1b b0 = x; 2b z = 1; 3b b1 = x; 4b y = 2
//
// Objects: x = 0, y = 1, z = 2. Reads keep the value read in thread locals
// (a0..a2, b0..b1), so terminal states tell the orders of conflicting
// accesses apart. The conflicting pairs are (1a, 4b), (4a, 4b) on y and
// (3a, 2b) on z, as the paper lists.
//
// Facts (under ts.Explore): 70 executions (C(8,4)); 5 Mazurkiewicz classes
// and 5 distinct terminal states; no violation. The paper's "10 allowed
// schedules = 10 classes" (PAPER-NOTES) counts GenMAT's virtual thread-end
// events, which are dependent on each other only: each class of the real
// accesses then splits in two by which thread ends first. With such an end
// step added to each thread, there are 252 executions (C(10,5)) in 10
// classes. Acyclic.
type MATFig1 struct{}

// NewMATFig1 returns the program. It has no parameter: n is ignored.
func NewMATFig1(n int) *MATFig1 { return &MATFig1{} }

// MATFig1Info describes MATFig1.
var MATFig1Info = Info{
	Name:    "mat-fig1",
	Summary: "the MAT paper's two-thread example: 70 executions, 5 classes (10 with end events)",
	Source:  "Ganai, Kundu, Reduction of verification conditions for concurrent system using mutually atomic transactions, SPIN 2009, Figure 1(a) (reconstructed)",
}

// MATFig1 objects.
const (
	matFig1X ts.Obj = iota
	matFig1Y
	matFig1Z
)

// MATFig1State is a state of MATFig1.
type MATFig1State struct {
	pc      [2]int8 // 0..3, or fixturesDone
	x, y, z int8
	a       [3]int8 // T0's reads: x at 2a, z at 3a, y at 4a
	b       [2]int8 // T1's reads: x at 1b and 3b
}

// matFig1Steps are the threads' accesses in program order.
var matFig1Steps = [2][4]ts.Step{
	{{Obj: matFig1Y, Op: ts.Write}, {Obj: matFig1X, Op: ts.Read}, {Obj: matFig1Z, Op: ts.Read}, {Obj: matFig1Y, Op: ts.Read}},
	{{Obj: matFig1X, Op: ts.Read}, {Obj: matFig1Z, Op: ts.Write}, {Obj: matFig1X, Op: ts.Read}, {Obj: matFig1Y, Op: ts.Write}},
}

var matFig1Desc = [2][4]string{
	{"1a: y = 1", "2a: a0 = x", "3a: a1 = z", "4a: a2 = y"},
	{"1b: b0 = x", "2b: z = 1", "3b: b1 = x", "4b: y = 2"},
}

func (*MATFig1) Init() MATFig1State { return MATFig1State{} }
func (*MATFig1) Threads() int       { return 2 }

func (*MATFig1) Next(s MATFig1State, t ts.Tid) (ts.Step, ts.Status) {
	if s.pc[t] == fixturesDone {
		return ts.Step{}, ts.Finished
	}
	return matFig1Steps[t][s.pc[t]], ts.Enabled
}

func (*MATFig1) Apply(s MATFig1State, t ts.Tid) MATFig1State {
	pc := s.pc[t]
	switch {
	case pc == fixturesDone:
		panic(fmt.Sprintf("mat-fig1: thread %d has finished", t))
	case t == 0 && pc == 0:
		s.y = 1
	case t == 0 && pc == 1:
		s.a[0] = s.x
	case t == 0 && pc == 2:
		s.a[1] = s.z
	case t == 0 && pc == 3:
		s.a[2] = s.y
	case t == 1 && pc == 0:
		s.b[0] = s.x
	case t == 1 && pc == 1:
		s.z = 1
	case t == 1 && pc == 2:
		s.b[1] = s.x
	case t == 1 && pc == 3:
		s.y = 2
	}
	s.pc[t]++
	if s.pc[t] == 4 {
		s.pc[t] = fixturesDone
	}
	return s
}

func (*MATFig1) Hash(s MATFig1State) uint64 {
	return hashInts(0, s.pc[0], s.pc[1], s.x, s.y, s.z, s.a[0], s.a[1], s.a[2], s.b[0], s.b[1])
}

func (*MATFig1) Describe(s MATFig1State, t ts.Tid) string {
	if s.pc[t] == fixturesDone {
		return "(finished)"
	}
	return matFig1Desc[t][s.pc[t]]
}

func (*MATFig1) ObjName(o ts.Obj) string { return fixturesVarName(o, "x", "y", "z") }
