package models

import (
	"fmt"

	"github.com/weftlab/weft/ts"
)

// Lastzero is the lastzero benchmark of Abdulla, Aronis, Jonsson and
// Sagonas, "Optimal dynamic partial order reduction" (POPL'14, from its
// experiments): thread 0 searches an array backwards for its last zero
// while threads 1..N each make one cell one more than its left neighbour:
//
//	int array[0..N]          // all 0
//	thread 0:  for (i = N; array[i] != 0; i--) {}
//	thread j:  array[j] = array[j-1] + 1      // j = 1..N
//
// Objects: array[i] is i (0..N). Thread 0 reads one cell per transition
// (array[0] is never written, so it stops there at the latest); thread j
// reads array[j-1] in one transition and writes array[j] in the next. The
// benchmark is built so that thread 0's reads race with the writers in many
// ways whose combinations source-set DPOR explores redundantly (sleep-set
// blocked executions) and optimal DPOR does not. There is nothing to check:
// the model counts executions and terminal states.
//
// Facts under ts.Explore (executions, distinct terminal states): N = 1: 3, 2;
// N = 2: 35, 5; N = 3: 920, 12; N = 4: 44,300, 28; N = 5: 3,487,880, 64.
// The default N = 5 is where plain search starts to hurt (about half a
// minute); larger N are for the reductions.
//
// testdata/promela/lastzero.pml is the same system in Promela, for SPIN
// (TestSpinStates: the same states and transitions).
type Lastzero struct{ n int }

const lastzeroMax = 20

// LastzeroInfo describes Lastzero.
var LastzeroInfo = Info{
	Name:    "lastzero",
	Summary: "thread 0 searches an array backwards for a zero while N threads fill it in",
	Source:  "Abdulla, Aronis, Jonsson, Sagonas POPL'14 (lastzero benchmark)",
	Param:   "writer threads",
	Default: 5,
	Min:     1,
	Max:     lastzeroMax,
}

// NewLastzero returns lastzero with n writer threads (1..20), n+1 threads in
// all.
func NewLastzero(n int) *Lastzero {
	if n < LastzeroInfo.Min || n > LastzeroInfo.Max {
		panic(fmt.Sprintf("models: lastzero needs %d..%d writers, got %d", LastzeroInfo.Min, LastzeroInfo.Max, n))
	}
	return &Lastzero{n: n}
}

// Program counters of a writer.
const (
	lastzeroRead  int8 = iota // r = array[j-1]
	lastzeroWrite             // array[j] = r + 1
	lastzeroDone
)

// LastzeroState is a state of Lastzero.
type LastzeroState struct {
	Array [lastzeroMax + 1]int8
	// Thread 0: the index it reads next, or where it found zero once Found.
	I     int8
	Found bool
	// Writers 1..N: program counter and the value read.
	PC [lastzeroMax + 1]int8
	R  [lastzeroMax + 1]int8
}

func (m *Lastzero) Init() LastzeroState { return LastzeroState{I: int8(m.n)} }

func (m *Lastzero) Threads() int { return m.n + 1 }

func (m *Lastzero) Next(s LastzeroState, t ts.Tid) (ts.Step, ts.Status) {
	if t == 0 {
		if s.Found {
			return ts.Step{}, ts.Finished
		}
		return ts.Step{Obj: ts.Obj(s.I), Op: ts.Read}, ts.Enabled
	}
	switch s.PC[t] {
	case lastzeroRead:
		return ts.Step{Obj: ts.Obj(t - 1), Op: ts.Read}, ts.Enabled
	case lastzeroWrite:
		return ts.Step{Obj: ts.Obj(t), Op: ts.Write}, ts.Enabled
	}
	return ts.Step{}, ts.Finished
}

func (m *Lastzero) Apply(s LastzeroState, t ts.Tid) LastzeroState {
	if t == 0 {
		if s.Found {
			panic("lastzero: thread 0 has finished")
		}
		if s.Array[s.I] == 0 {
			s.Found = true
		} else {
			s.I--
		}
		return s
	}
	switch s.PC[t] {
	case lastzeroRead:
		s.R[t] = s.Array[t-1]
		s.PC[t] = lastzeroWrite
	case lastzeroWrite:
		s.Array[t] = s.R[t] + 1
		s.PC[t] = lastzeroDone
	default:
		panic(fmt.Sprintf("lastzero: thread %d has finished", t))
	}
	return s
}

func (m *Lastzero) Hash(s LastzeroState) uint64 { return hashFlat(0, &s) }

func (m *Lastzero) Describe(s LastzeroState, t ts.Tid) string {
	if t == 0 {
		if s.Found {
			return "done"
		}
		return fmt.Sprintf("array[%d] != 0", s.I)
	}
	switch s.PC[t] {
	case lastzeroRead:
		return fmt.Sprintf("r = array[%d]", t-1)
	case lastzeroWrite:
		return fmt.Sprintf("array[%d] = %d", t, s.R[t]+1)
	}
	return "done"
}

func (m *Lastzero) ObjName(o ts.Obj) string {
	if o >= 0 && int(o) <= m.n {
		return fmt.Sprintf("array[%d]", o)
	}
	return fmt.Sprintf("o%d", o)
}
