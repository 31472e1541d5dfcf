package models

import (
	"fmt"

	"github.com/weftlab/weft/ts"
)

// petersonMaxRounds is the largest number of rounds.
const petersonMaxRounds = 4

// Peterson is Peterson's mutual exclusion algorithm for two threads (G. L.
// Peterson, "Myths about the mutual exclusion problem", IPL 12(3), 1981).
// Thread i (j = 1-i) runs N rounds of
//
//	flag[i] = 1; turn = j
//	while flag[j] == 1 && turn == j {}   // busy wait: one read per transition
//	cs++; assert(the value read was 0)    // the critical section
//	cs--
//	flag[i] = 0
//
// Objects: flag[0] = 0, flag[1] = 1, turn = 2 (synchronization variables),
// cs = 3 (a data counter that checks mutual exclusion: a thread that reads a
// nonzero cs on entry records a failure, which Check reports). The busy wait
// reads flag[j] in one transition and turn in the next, and a thread spins
// on Enabled steps, so the state space is cyclic: explore it with
// ts.ExploreStateful. Stateless ts.Explore does not terminate on it and stops
// with an error wrapping ts.ErrDepth.
//
// PetersonBuggy is the classic wrong version that sets turn before its flag:
// turn = j; flag[i] = 1.
//
// Facts (under ts.ExploreStateful, complete): Peterson has no violation, no
// deadlock, 2 distinct terminal states (turn = 0 or 1) and 58, 210, 458, 802
// distinct states for 1..4 rounds. PetersonBuggy has a check failure (both
// threads in the critical section): with KeepGoing, 109, 413, 913, 1609
// states and 4, 16, 36, 64 violating states for 1..4 rounds; the fewest
// preemptions of a violating schedule is 2 (exact, by a 0-1 breadth-first
// search over (state, last thread)): T0 sets turn and is preempted, T1 runs
// into the critical section and is preempted there, T0 sets its flag, reads
// flag[1] = 1, reads turn = 0 ≠ 1 and enters too.
type Peterson struct {
	rounds int
	buggy  bool
}

// NewPeterson returns Peterson's algorithm with each thread entering the
// critical section n times, 1 ≤ n ≤ 4.
func NewPeterson(n int) *Peterson { return newPeterson(PetersonInfo, n, false) }

// NewPetersonBuggy returns the version that sets turn before its flag, with
// each thread entering the critical section n times, 1 ≤ n ≤ 4.
func NewPetersonBuggy(n int) *Peterson { return newPeterson(PetersonBuggyInfo, n, true) }

func newPeterson(info Info, n int, buggy bool) *Peterson {
	if n < info.Min || n > info.Max {
		panic(fmt.Sprintf("models: %s: n = %d, want %d..%d", info.Name, n, info.Min, info.Max))
	}
	return &Peterson{rounds: n, buggy: buggy}
}

// PetersonInfo describes NewPeterson.
var PetersonInfo = Info{
	Name:    "peterson",
	Summary: "Peterson's mutual exclusion, busy waiting (cyclic: stateful search)",
	Source:  "G. L. Peterson, Myths about the mutual exclusion problem, IPL 12(3), 1981",
	Param:   "rounds",
	Default: 1,
	Min:     1,
	Max:     petersonMaxRounds,
	Cyclic:  true,
}

// PetersonBuggyInfo describes NewPetersonBuggy.
var PetersonBuggyInfo = Info{
	Name:    "peterson-buggy",
	Summary: "Peterson's algorithm setting turn before flag: both threads enter, 2 preemptions",
	Source:  "G. L. Peterson, Myths about the mutual exclusion problem, IPL 12(3), 1981; the classic misordering",
	Param:   "rounds",
	Default: 1,
	Min:     1,
	Max:     petersonMaxRounds,
	Cyclic:  true,
}

// Peterson objects.
const (
	petersonFlag0 ts.Obj = iota
	petersonFlag1
	petersonTurn
	petersonCS
)

// Peterson program counters. The buggy version swaps the first two steps.
const (
	petersonSetFlag  = iota // flag[i] = 1 (buggy: turn = j)
	petersonSetTurn         // turn = j (buggy: flag[i] = 1)
	petersonReadFlag        // read flag[j]
	petersonReadTurn        // read turn
	petersonEnter           // cs++
	petersonExit            // cs--
	petersonClear           // flag[i] = 0
	petersonDone
)

// PetersonState is a state of Peterson.
type PetersonState struct {
	pc    [2]int8 // petersonSetFlag..petersonDone
	round [2]int8 // rounds completed
	flag  [2]int8
	turn  int8
	cs    int8 // threads in the critical section
	fail  int8 // 0, or t+1 when thread t entered with cs != 0
}

func (p *Peterson) Init() PetersonState { return PetersonState{} }
func (p *Peterson) Threads() int        { return 2 }

// op returns the step of thread t at program counter pc, with the buggy
// version's first two steps swapped.
func (p *Peterson) op(t ts.Tid, pc int8) ts.Step {
	if p.buggy && pc <= petersonSetTurn {
		pc = petersonSetTurn - pc
	}
	j := ts.Obj(1 - t)
	switch pc {
	case petersonSetFlag, petersonClear:
		return ts.Step{Obj: petersonFlag0 + ts.Obj(t), Op: ts.Write, Sync: true}
	case petersonSetTurn:
		return ts.Step{Obj: petersonTurn, Op: ts.Write, Sync: true}
	case petersonReadFlag:
		return ts.Step{Obj: petersonFlag0 + j, Op: ts.Read, Sync: true}
	case petersonReadTurn:
		return ts.Step{Obj: petersonTurn, Op: ts.Read, Sync: true}
	}
	return ts.Step{Obj: petersonCS, Op: ts.Write} // cs++ and cs--: read-modify-write
}

func (p *Peterson) Next(s PetersonState, t ts.Tid) (ts.Step, ts.Status) {
	if s.pc[t] == petersonDone {
		return ts.Step{}, ts.Finished
	}
	return p.op(t, s.pc[t]), ts.Enabled
}

func (p *Peterson) Apply(s PetersonState, t ts.Tid) PetersonState {
	j := 1 - t
	pc := s.pc[t]
	if p.buggy && pc <= petersonSetTurn {
		pc = petersonSetTurn - pc
	}
	next := s.pc[t] + 1
	switch pc {
	case petersonSetFlag:
		s.flag[t] = 1
	case petersonSetTurn:
		s.turn = int8(j)
	case petersonReadFlag:
		if s.flag[j] == 0 {
			next = petersonEnter
		}
	case petersonReadTurn:
		if s.turn == int8(j) {
			next = petersonReadFlag // wait on
		}
	case petersonEnter:
		if s.cs != 0 && s.fail == 0 {
			s.fail = int8(t) + 1
		}
		s.cs++
	case petersonExit:
		s.cs--
	case petersonClear:
		s.flag[t] = 0
		s.round[t]++
		next = petersonSetFlag
		if int(s.round[t]) == p.rounds {
			next = petersonDone
		}
	default:
		panic(fmt.Sprintf("peterson: thread %d has finished", t))
	}
	s.pc[t] = next
	return s
}

// Check reports a thread that entered the critical section while the other
// was in it.
func (p *Peterson) Check(s PetersonState) error {
	if s.fail != 0 {
		return fmt.Errorf("mutual exclusion violated: thread %d entered the critical section while thread %d was in it",
			s.fail-1, 2-s.fail)
	}
	return nil
}

func (p *Peterson) Hash(s PetersonState) uint64 {
	return hashInts(0, s.pc[0], s.pc[1], s.round[0], s.round[1], s.flag[0], s.flag[1], s.turn, s.cs, s.fail)
}

func (p *Peterson) Describe(s PetersonState, t ts.Tid) string {
	pc := s.pc[t]
	if pc == petersonDone {
		return "(finished)"
	}
	if p.buggy && pc <= petersonSetTurn {
		pc = petersonSetTurn - pc
	}
	i, j := int(t), 1-int(t)
	switch pc {
	case petersonSetFlag:
		return fmt.Sprintf("flag[%d] = 1", i)
	case petersonSetTurn:
		return fmt.Sprintf("turn = %d", j)
	case petersonReadFlag:
		return fmt.Sprintf("while flag[%d] == 1", j)
	case petersonReadTurn:
		return fmt.Sprintf("  && turn == %d", j)
	case petersonEnter:
		return "cs++ (enter)"
	case petersonExit:
		return "cs-- (exit)"
	}
	return fmt.Sprintf("flag[%d] = 0", i)
}

func (p *Peterson) ObjName(o ts.Obj) string {
	return fixturesVarName(o, "flag[0]", "flag[1]", "turn", "cs")
}
