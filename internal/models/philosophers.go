package models

import (
	"fmt"

	"github.com/weftlab/weft/ts"
)

// philosophersMax is the largest number of philosophers.
const philosophersMax = 8

// Philosophers is Dijkstra's dining philosophers with the forks as locks, in
// the deadlocking version: philosopher i (thread i) runs
//
//	lock(fork[i]); lock(fork[(i+1)%N]); unlock(fork[i]); unlock(fork[(i+1)%N])
//
// once. Objects: fork[i] = i. The state is regular for symmetry: a program
// counter per philosopher and an owner per fork, so rotating the philosophers
// and the forks together maps states to states.
//
// Facts (under ts.Explore): the violation is a deadlock, every philosopher
// holding its left fork, reached by the N! orders of the philosophers' first
// steps (so N! deadlocking executions); its minimum number of preemptions is
// 1 for every N ≥ 2, not N-1: philosopher N-1 takes its fork and is
// preempted (its right fork 0 is free), then N-2, ..., 0 each take their left
// fork and find the right one held, so every later switch is away from a
// blocked thread. Two distinct terminal states: all finished, and the
// deadlock. Executions (transitions): 4 (18) for N = 2, 396 (1680) for
// N = 3, 104704 (386816) for N = 4. Acyclic.
//
// testdata/promela/philosophers.pml is the same system in Promela, for
// SPIN (TestSpinStates: the same states and transitions).
type Philosophers struct{ n int }

// NewPhilosophers returns n dining philosophers, 2 ≤ n ≤ 8.
func NewPhilosophers(n int) *Philosophers {
	if n < PhilosophersInfo.Min || n > PhilosophersInfo.Max {
		panic(fmt.Sprintf("models: philosophers: n = %d, want %d..%d", n, PhilosophersInfo.Min, PhilosophersInfo.Max))
	}
	return &Philosophers{n: n}
}

// PhilosophersInfo describes Philosophers.
var PhilosophersInfo = Info{
	Name:    "philosophers",
	Summary: "dining philosophers, forks as locks; deadlocks with 1 preemption",
	Source:  "Dijkstra, Hierarchical ordering of sequential processes (1971); the classic deadlock benchmark",
	Param:   "philosophers",
	Default: 3,
	Min:     2,
	Max:     philosophersMax,
}

// Philosopher program counters.
const (
	philosophersTakeLeft = iota
	philosophersTakeRight
	philosophersPutLeft
	philosophersPutRight
	philosophersDone
)

// PhilosophersState is a state of Philosophers: each philosopher's program
// counter and each fork's owner. Entries at N and above are zero.
type PhilosophersState struct {
	pc    [philosophersMax]int8 // philosophersTakeLeft..philosophersDone
	owner [philosophersMax]int8 // 0 when free, i+1 when held by philosopher i
}

func (p *Philosophers) Init() PhilosophersState { return PhilosophersState{} }
func (p *Philosophers) Threads() int            { return p.n }

// fork returns the fork philosopher t's step at pc touches.
func (p *Philosophers) fork(t ts.Tid, pc int8) int {
	if pc == philosophersTakeLeft || pc == philosophersPutLeft {
		return int(t)
	}
	return (int(t) + 1) % p.n
}

func (p *Philosophers) Next(s PhilosophersState, t ts.Tid) (ts.Step, ts.Status) {
	pc := s.pc[t]
	switch pc {
	case philosophersTakeLeft, philosophersTakeRight:
		f := p.fork(t, pc)
		step := ts.Step{Obj: ts.Obj(f), Op: ts.Acquire}
		if s.owner[f] != 0 {
			return step, ts.Blocked
		}
		return step, ts.Enabled
	case philosophersPutLeft, philosophersPutRight:
		return ts.Step{Obj: ts.Obj(p.fork(t, pc)), Op: ts.Release}, ts.Enabled
	}
	return ts.Step{}, ts.Finished
}

func (p *Philosophers) Apply(s PhilosophersState, t ts.Tid) PhilosophersState {
	pc := s.pc[t]
	switch pc {
	case philosophersTakeLeft, philosophersTakeRight:
		f := p.fork(t, pc)
		if s.owner[f] != 0 {
			panic(fmt.Sprintf("philosophers: %d takes fork[%d] held by %d", t, f, s.owner[f]-1))
		}
		s.owner[f] = int8(t) + 1
	case philosophersPutLeft, philosophersPutRight:
		s.owner[p.fork(t, pc)] = 0
	default:
		panic(fmt.Sprintf("philosophers: philosopher %d has finished", t))
	}
	s.pc[t]++
	return s
}

func (p *Philosophers) Hash(s PhilosophersState) uint64 { return hashFlat(0, &s) }

func (p *Philosophers) Describe(s PhilosophersState, t ts.Tid) string {
	pc := s.pc[t]
	switch pc {
	case philosophersTakeLeft, philosophersTakeRight:
		return fmt.Sprintf("lock(fork[%d])", p.fork(t, pc))
	case philosophersPutLeft, philosophersPutRight:
		return fmt.Sprintf("unlock(fork[%d])", p.fork(t, pc))
	}
	return "(finished)"
}

func (p *Philosophers) ObjName(o ts.Obj) string { return fmt.Sprintf("fork[%d]", o) }

// Symmetry: rotating the philosophers and the forks together maps states to
// states (philosopher i uses forks i and i+1), so the symmetry group is the
// N rotations. Transpositions are not symmetries (two philosophers share
// at most one fork, and which one depends on their ids), so Philosophers
// declares its symmetry (Canonical, Permute) and gives no signatures.

// rotate returns s with every philosopher and fork moved r places on: the
// part of philosopher i goes to philosopher (i+r) mod N.
func (p *Philosophers) rotate(s PhilosophersState, r int) PhilosophersState {
	var out PhilosophersState
	for i := range p.n {
		j := (i + r) % p.n
		out.pc[j] = s.pc[i]
		if o := s.owner[i]; o != 0 {
			out.owner[j] = int8((int(o)-1+r)%p.n) + 1
		}
	}
	return out
}

// Canonical returns the least rotation of s (comparing program counters,
// then fork owners) and the rotation that gives it: philosopher t of s is
// philosopher p[t] of the representative.
func (p *Philosophers) Canonical(s PhilosophersState) (PhilosophersState, []ts.Tid) {
	best, bestR := s, 0
	for r := 1; r < p.n; r++ {
		if c := p.rotate(s, r); philosophersLess(c, best) {
			best, bestR = c, r
		}
	}
	perm := make([]ts.Tid, p.n)
	for t := range perm {
		perm[t] = ts.Tid((t + bestR) % p.n)
	}
	return best, perm
}

func philosophersLess(a, b PhilosophersState) bool {
	if a.pc != b.pc {
		for i := range a.pc {
			if a.pc[i] != b.pc[i] {
				return a.pc[i] < b.pc[i]
			}
		}
	}
	for i := range a.owner {
		if a.owner[i] != b.owner[i] {
			return a.owner[i] < b.owner[i]
		}
	}
	return false
}

// Permute returns s with philosopher t's part (and its left fork) moved to
// philosopher perm[t]. perm must be a rotation, t ↦ (t+r) mod N: other
// permutations are not symmetries of the ring.
func (p *Philosophers) Permute(s PhilosophersState, perm []ts.Tid) PhilosophersState {
	return p.rotate(s, int(perm[0]))
}
