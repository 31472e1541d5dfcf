package models

import (
	"fmt"

	"github.com/weftlab/weft/ts"
)

// CAS is one of three compare-and-swap benchmarks of GenMC's test suite
// (tests/correct/synthetic: casw, wcas, casrot), written for weft: threads
// that race on one shared variable x (object 0, initially 0) with
// compare-and-swaps. A compare-and-swap that finds the value it expects
// writes x (a ts.Write); one that fails only reads it (a ts.Read), so the
// model implements ts.ValueDependent, declaring x. Two failed
// compare-and-swaps are then independent, which is what lets a reduction
// explore one execution per execution graph as GenMC does:
//
//	casw-N:   thread i = 0..N-1:  cas(x, 0, 1); x = i + 3
//	wcas-N:   thread 0: x = 2;    thread i = 1..N:  cas(x, 2, 3)
//	casrot-N: thread i = 0..N-1:  cas(x, i, i + 1)
//
// Traces (one per Mazurkiewicz trace of the actual accesses, which ODPOR and
// cb-por2 explore once each, and GenMC's execution graphs under SC):
// casw-2..5: 6, 66, 1,200, 32,880 (per context bound, casw-3: 6, 24, 54,
// 66); wcas-N: N*2^(N-1)+1 (wcas-9: 2,305); casrot-2..9: 2, 5, 14, 43, 144,
// 523, 2,048, 8,597. With every compare-and-swap a Write, ODPOR explores
// every interleaving of the steps on x: casw-5 113,400, wcas-9 3,628,800,
// casrot-9 362,880.
type CAS struct {
	kind casKind
	n    int
}

type casKind uint8

const (
	casW casKind = iota
	casWCAS
	casRot
)

const casMax = 16

// CASWInfo describes casw-N.
var CASWInfo = Info{
	Name:     "casw",
	Summary:  "N threads each run cas(x, 0, 1) and then write x; a failed cas is a read",
	Source:   "GenMC tests/correct/synthetic/casw",
	Param:    "threads",
	Default:  4,
	Min:      1,
	Max:      casMax,
	Extended: true,
}

// WCASInfo describes wcas-N.
var WCASInfo = Info{
	Name:     "wcas",
	Summary:  "one thread writes x = 2 while N threads run cas(x, 2, 3); a failed cas is a read",
	Source:   "GenMC tests/correct/synthetic/wcas",
	Param:    "cas threads",
	Default:  9,
	Min:      1,
	Max:      casMax - 1,
	Extended: true,
}

// CASRotInfo describes casrot-N.
var CASRotInfo = Info{
	Name:     "casrot",
	Summary:  "thread i runs cas(x, i, i+1) for i = 0..N-1; a failed cas is a read",
	Source:   "GenMC tests/correct/synthetic/casrot",
	Param:    "threads",
	Default:  9,
	Min:      1,
	Max:      casMax,
	Extended: true,
}

func newCAS(kind casKind, info Info, n int) *CAS {
	if n < info.Min || n > info.Max {
		panic(fmt.Sprintf("models: %s needs %d..%d, got %d", info.Name, info.Min, info.Max, n))
	}
	return &CAS{kind: kind, n: n}
}

// NewCASW returns casw-n (n threads, 1..16).
func NewCASW(n int) *CAS { return newCAS(casW, CASWInfo, n) }

// NewWCAS returns wcas-n (a writer and n compare-and-swap threads, 1..15).
func NewWCAS(n int) *CAS { return newCAS(casWCAS, WCASInfo, n) }

// NewCASRot returns casrot-n (n threads, 1..16).
func NewCASRot(n int) *CAS { return newCAS(casRot, CASRotInfo, n) }

// CASState is a state of a CAS model: x and each thread's program counter
// (0: its first instruction, 1: casw's write, then done).
type CASState struct {
	X  int8
	PC [casMax]int8
}

// op is thread t's instruction at pc: a compare-and-swap from old to new,
// or (cas false) a write of new.
func (m *CAS) op(t ts.Tid, pc int8) (cas bool, old, new int8, ok bool) {
	switch m.kind {
	case casW:
		switch pc {
		case 0:
			return true, 0, 1, true
		case 1:
			return false, 0, int8(t) + 3, true
		}
	case casWCAS:
		if pc == 0 {
			if t == 0 {
				return false, 0, 2, true
			}
			return true, 2, 3, true
		}
	case casRot:
		if pc == 0 {
			return true, int8(t), int8(t) + 1, true
		}
	}
	return false, 0, 0, false
}

func (m *CAS) Init() CASState { return CASState{} }

func (m *CAS) Threads() int {
	if m.kind == casWCAS {
		return m.n + 1
	}
	return m.n
}

func (m *CAS) Next(s CASState, t ts.Tid) (ts.Step, ts.Status) {
	cas, old, _, ok := m.op(t, s.PC[t])
	if !ok {
		return ts.Step{}, ts.Finished
	}
	if cas && s.X != old {
		return ts.Step{Obj: 0, Op: ts.Read}, ts.Enabled // it fails: a read
	}
	return ts.Step{Obj: 0, Op: ts.Write}, ts.Enabled
}

func (m *CAS) Apply(s CASState, t ts.Tid) CASState {
	cas, old, new, ok := m.op(t, s.PC[t])
	if !ok {
		panic(fmt.Sprintf("models: thread %d has finished", t))
	}
	if !cas || s.X == old {
		s.X = new
	}
	s.PC[t]++
	return s
}

// ValueDependentObjs implements ts.ValueDependent: x, where a failed
// compare-and-swap is a read.
func (m *CAS) ValueDependentObjs() []ts.Obj { return []ts.Obj{0} }

func (m *CAS) Hash(s CASState) uint64 { return hashInts(hashInts(0, s.X), s.PC[:]...) }

// ObjHash lets ts/tstest.Conformance check that a failed compare-and-swap
// leaves x as it was.
func (m *CAS) ObjHash(s CASState, o ts.Obj) uint64 { return uint64(s.X) }

func (m *CAS) Describe(s CASState, t ts.Tid) string {
	cas, old, new, ok := m.op(t, s.PC[t])
	switch {
	case !ok:
		return "done"
	case cas:
		return fmt.Sprintf("cas(x, %d, %d)", old, new)
	}
	return fmt.Sprintf("x = %d", new)
}

func (m *CAS) ObjName(o ts.Obj) string {
	if o == 0 {
		return "x"
	}
	return fmt.Sprintf("o%d", o)
}
