package models

import (
	"fmt"

	"github.com/weftlab/weft/ts"
)

// WSQ is the work-stealing queue of the Cilk-5 runtime with its THE protocol
// (Frigo, Leiserson and Randall, "The implementation of the Cilk-5
// multithreaded language", PLDI'98, section 5), the benchmark of Musuvathi
// and Qadeer, "Iterative context bounding for systematic testing of
// multithreaded programs" (PLDI'07, section 4 and Table 2: a victim and a
// thief, three known bugs, one exposed with 1 preemption and two with 2) and
// of "Partial-order reduction for context-bounded state exploration"
// (MSR-TR-2007-12, Table 1: terminal executions per context bound).
//
// Shared objects (see ObjName): 0 the head H, 1 the tail T, 2 the lock L,
// 3..5 the cells tasks[0..2], 6..8 taken[1..3] (one per task), and 9 the
// flag start. Thread 0 is the owner (the victim), threads 1..N the thieves.
// The owner pushes task 1, sets start (the thieves wait for it, as for a
// thread being forked), pushes tasks 2 and 3, then pops three times; each
// thief makes one steal attempt:
//
//	push(x):  tasks[T] = x; T++
//	pop():    T--; h = H
//	          if h > T { T++; lock(L); T--; h = H
//	                     if h > T { T++; unlock(L); return EMPTY }
//	                     unlock(L) }
//	          take tasks[T]
//	steal():  lock(L); H++; t = T
//	          if H > t { H--; unlock(L); return EMPTY }
//	          take tasks[H-1]; unlock(L)
//
// H and T are volatile in the THE protocol: their accesses are
// synchronization accesses (Step.Sync), which order the data accesses to the
// cells, so the correct queue is free of data races and sync-only scheduling
// applies to it. Every read and write of H, T and a cell is its own
// transition. T-- and H++
// are one Write each: read-modify-writes of a variable whose only writer is
// the thread itself (the owner for T; for H, the holder of L). To take a task
// a thread reads the cell, asserting it holds a task (not 0), then increments
// taken[x] with one read-modify-write, asserting it read 0: a task taken
// twice fails in the thread that takes it second.
//
// The properties are chosen to survive every sound reduction. The two
// assertions are thread-local (over values the thread itself read); the rest
// is a check of terminal states only: once every thread has finished, every
// task has been taken, and the owner's successful pops plus the thieves'
// successful steals equal the tasks pushed (a task for which both sides
// returned EMPTY fails here). Nothing is checked of intermediate states,
// which a partial-order reduction need not visit.
//
// Facts under ts.Explore with N = 1 thief: no violation; 169,465 executions
// (1,560,759 transitions), 4 distinct terminal states (they differ in who
// took task 1 and in the values the threads last read); executions with at
// most c preemptions (each counted at the preemptions of its own schedule,
// as the cb-dfs column of MSR-TR-2007-12 Table 1 counts them) for c = 0..4:
// 1, 17, 110, 773, 2373. With N = 2 thieves the space exceeds 20 million
// executions, out of reach of ts.Explore; ts.ExploreStateful covers its 2,781
// states and finds no violation.
//
// Three buggy variants, each a plausible slip in the protocol, reproduce the
// PLDI'07 figures for this benchmark (one bug at bound 1, two at bound 2);
// the minimum preemptions of a violating schedule under ts.Explore (N = 1):
//
//   - wsq-bug1, 1 preemption: pop takes the task after its slow path without
//     re-reading H under the lock. A thief that has stolen the last task
//     makes the owner take it again: task taken twice.
//   - wsq-bug2, 2 preemptions: steal reads T before it increments H, so the
//     owner's pop can miss the thief's claim: the thief reads T, the owner
//     decrements T, reads the old H and takes the last task, then the thief
//     increments H and takes it too: task taken twice.
//   - wsq-bug3, 2 preemptions: pop's slow path re-checks the H it read
//     before taking the lock instead of reading it again. A thief whose
//     H++ the owner saw, and which then saw the owner's T-- and backed off,
//     makes the owner give up as well: both return EMPTY and a task is lost,
//     found by the terminal check. (Were the thief running before the first
//     push, its early failed claim would expose this with 1 preemption: the
//     start flag rules that out.)
type WSQ struct {
	variant wsqVariant
	thieves int
}

// wsqVariant selects the protocol or one of its bugs.
type wsqVariant int8

const (
	wsqCorrect    wsqVariant = iota
	wsqNoRecheck             // pop's slow path takes the task without re-reading H
	wsqReadTFirst            // steal reads T before H++
	wsqStaleH                // pop's slow path re-checks the H read before the lock
)

// The scenario: the owner's operations (u push, f set start, o pop), the
// tasks it pushes, and the thread bound.
const (
	wsqProg       = "ufuuooo"
	wsqTasks      = 3
	wsqMaxThieves = 2
	wsqThreads    = 1 + wsqMaxThieves
)

// Objects of WSQ.
const (
	wsqObjH     ts.Obj = 0
	wsqObjT     ts.Obj = 1
	wsqObjL     ts.Obj = 2
	wsqObjTasks ts.Obj = 3                      // tasks[i] is wsqObjTasks+i
	wsqObjTaken ts.Obj = wsqObjTasks + wsqTasks // taken[x], x = 1..wsqTasks, is wsqObjTaken+x-1
	wsqObjStart ts.Obj = wsqObjTaken + wsqTasks
)

// WSQInfo, WSQBug1Info, WSQBug2Info and WSQBug3Info describe the model and
// its buggy variants.
var (
	WSQInfo = Info{
		Name:    "wsq",
		Summary: "Cilk THE work-stealing queue: the owner pushes and pops 3 tasks while thieves steal",
		Source:  "Frigo, Leiserson, Randall PLDI'98 sec. 5; Musuvathi, Qadeer PLDI'07 sec. 4 and MSR-TR-2007-12 Table 1",
		Param:   "thieves",
		Default: 1,
		Min:     1,
		Max:     wsqMaxThieves,
	}
	WSQBug1Info = Info{
		Name:    "wsq-bug1",
		Summary: "work-stealing queue whose pop does not re-check H under the lock (bug at 1 preemption)",
		Source:  WSQInfo.Source,
		Param:   "thieves",
		Default: 1,
		Min:     1,
		Max:     wsqMaxThieves,
	}
	WSQBug2Info = Info{
		Name:    "wsq-bug2",
		Summary: "work-stealing queue whose steal reads T before incrementing H (bug at 2 preemptions)",
		Source:  WSQInfo.Source,
		Param:   "thieves",
		Default: 1,
		Min:     1,
		Max:     wsqMaxThieves,
	}
	WSQBug3Info = Info{
		Name:    "wsq-bug3",
		Summary: "work-stealing queue whose pop re-checks a stale H under the lock (bug at 2 preemptions)",
		Source:  WSQInfo.Source,
		Param:   "thieves",
		Default: 1,
		Min:     1,
		Max:     wsqMaxThieves,
	}
)

// NewWSQ returns the work-stealing queue with n thieves (1..2).
func NewWSQ(n int) *WSQ { return newWSQ(WSQInfo, wsqCorrect, n) }

// NewWSQBug1 returns the variant whose pop does not re-check H under the
// lock, with n thieves (1..2).
func NewWSQBug1(n int) *WSQ { return newWSQ(WSQBug1Info, wsqNoRecheck, n) }

// NewWSQBug2 returns the variant whose steal reads T before incrementing H,
// with n thieves (1..2).
func NewWSQBug2(n int) *WSQ { return newWSQ(WSQBug2Info, wsqReadTFirst, n) }

// NewWSQBug3 returns the variant whose pop re-checks a stale H under the
// lock, with n thieves (1..2).
func NewWSQBug3(n int) *WSQ { return newWSQ(WSQBug3Info, wsqStaleH, n) }

func newWSQ(info Info, v wsqVariant, n int) *WSQ {
	if n < info.Min || n > info.Max {
		panic(fmt.Sprintf("models: %s needs %d..%d thieves, got %d", info.Name, info.Min, info.Max, n))
	}
	return &WSQ{variant: v, thieves: n}
}

// Program counters.
const (
	// push
	wsqPushCell int8 = iota // tasks[t] = x
	wsqPushT                // T = t+1
	// set start
	wsqFork // start = 1
	// pop
	wsqPopDec      // T = t-1
	wsqPopReadH    // h = H
	wsqPopInc      // T = t+1 (slow path)
	wsqPopLock     // lock(L)
	wsqPopDec2     // T = t-1
	wsqPopReadH2   // h = H
	wsqPopInc2     // T = t+1 (empty)
	wsqPopUnlockE  // unlock(L), return EMPTY
	wsqPopUnlock   // unlock(L), then take
	wsqPopReadTask // x = tasks[t]
	wsqPopTake     // taken[x]++
	// steal
	wsqWaitStart     // wait until start == 1
	wsqStealLock     // lock(L)
	wsqStealIncH     // H++
	wsqStealReadT    // t = T
	wsqStealDecH     // H-- (empty)
	wsqStealUnlockE  // unlock(L), return EMPTY
	wsqStealReadTask // x = tasks[H-1]
	wsqStealTake     // taken[x]++
	wsqStealUnlock   // unlock(L)
	wsqDone          // finished
)

// Failure codes recorded in WSQState.Fail.
const (
	wsqOK        int8 = iota
	wsqEmptySlot      // read a cell that holds no task
	wsqTwice          // took a task already taken
	wsqBadIndex       // read a cell outside the array
)

// wsqThread is one thread's local state.
type wsqThread struct {
	Op  int8 // owner: index of its current operation in wsqProg
	PC  int8
	R   int8 // owner: its copy of T; thief: H after its H++
	V   int8 // owner: the H it read; thief: the T it read
	X   int8 // the task read from a cell
	Got int8 // tasks taken: successful pops or steals
}

// WSQState is a state of WSQ.
type WSQState struct {
	H, T  int8
	L     int8 // 0 when free, holder+1 when held
	Start int8
	Tasks [wsqTasks]int8 // 0: no task
	Taken [wsqTasks]int8 // Taken[x-1]: times task x was taken
	Th    [wsqThreads]wsqThread
	// The first failed assertion: code, thread and task or index.
	Fail, FailTid, FailArg int8
}

func (m *WSQ) Init() WSQState {
	var s WSQState
	s.Th[0].PC = wsqOwnerPC(0)
	for t := 1; t <= m.thieves; t++ {
		s.Th[t].PC = wsqWaitStart
	}
	return s
}

func (m *WSQ) Threads() int { return 1 + m.thieves }

// wsqStep is the visible access a thread makes at its pc: it depends on the
// thread's local state only.
func wsqStep(th wsqThread) ts.Step {
	switch th.PC {
	case wsqPushCell:
		return ts.Step{Obj: wsqObjTasks + ts.Obj(th.R), Op: ts.Write}
	case wsqPushT, wsqPopDec, wsqPopInc, wsqPopDec2, wsqPopInc2:
		return ts.Step{Obj: wsqObjT, Op: ts.Write}
	case wsqFork:
		return ts.Step{Obj: wsqObjStart, Op: ts.Write, Sync: true}
	case wsqPopReadH, wsqPopReadH2:
		return ts.Step{Obj: wsqObjH, Op: ts.Read}
	case wsqPopLock, wsqStealLock:
		return ts.Step{Obj: wsqObjL, Op: ts.Acquire}
	case wsqPopUnlockE, wsqPopUnlock, wsqStealUnlockE, wsqStealUnlock:
		return ts.Step{Obj: wsqObjL, Op: ts.Release}
	case wsqPopReadTask:
		return ts.Step{Obj: wsqCell(th.R), Op: ts.Read}
	case wsqStealReadTask:
		return ts.Step{Obj: wsqCell(th.R - 1), Op: ts.Read}
	case wsqPopTake, wsqStealTake:
		return ts.Step{Obj: wsqObjTaken + ts.Obj(th.X-1), Op: ts.Write}
	case wsqWaitStart:
		return ts.Step{Obj: wsqObjStart, Op: ts.Read, Sync: true}
	case wsqStealIncH, wsqStealDecH:
		return ts.Step{Obj: wsqObjH, Op: ts.Write}
	case wsqStealReadT:
		return ts.Step{Obj: wsqObjT, Op: ts.Read}
	}
	panic(fmt.Sprintf("wsq: bad pc %d", th.PC))
}

// wsqCell is the object of tasks[i]. An index outside the array (only a bug
// could make one) is reported as an access to the nearest cell; Apply fails
// the assertion there.
func wsqCell(i int8) ts.Obj {
	return wsqObjTasks + ts.Obj(min(max(i, 0), wsqTasks-1))
}

func (m *WSQ) Next(s WSQState, t ts.Tid) (ts.Step, ts.Status) {
	th := s.Th[t]
	if th.PC == wsqDone {
		return ts.Step{}, ts.Finished
	}
	st := wsqStep(th)
	st.Sync = st.Sync || st.Obj == wsqObjH || st.Obj == wsqObjT // volatile
	if (st.Op == ts.Acquire && s.L != 0) || (th.PC == wsqWaitStart && s.Start == 0) {
		return st, ts.Blocked
	}
	return st, ts.Enabled
}

// fail records the first failed assertion.
func (s *WSQState) fail(code int8, t ts.Tid, arg int8) {
	if s.Fail == wsqOK {
		s.Fail, s.FailTid, s.FailArg = code, int8(t), arg
	}
}

// readCell reads tasks[i] into th.X, asserting it holds a task, and reports
// whether the thread can go on.
func (s *WSQState) readCell(th *wsqThread, t ts.Tid, i int8) bool {
	if i < 0 || i >= wsqTasks {
		s.fail(wsqBadIndex, t, i)
		return false
	}
	th.X = s.Tasks[i]
	if th.X == 0 {
		s.fail(wsqEmptySlot, t, i)
		return false
	}
	return true
}

// take marks task th.X taken, asserting it was not.
func (s *WSQState) take(th *wsqThread, t ts.Tid) {
	if s.Taken[th.X-1] != 0 {
		s.fail(wsqTwice, t, th.X)
	}
	s.Taken[th.X-1]++
	th.Got++
}

func (m *WSQ) Apply(s WSQState, t ts.Tid) WSQState {
	th := s.Th[t]
	switch th.PC {
	case wsqPushCell:
		s.Tasks[th.R] = wsqTaskOf(th.Op)
		th.PC = wsqPushT
	case wsqPushT:
		th.R++
		s.T = th.R
		wsqOwnerNext(&th)
	case wsqFork:
		s.Start = 1
		wsqOwnerNext(&th)

	case wsqPopDec:
		th.R--
		s.T = th.R
		th.PC = wsqPopReadH
	case wsqPopReadH:
		th.V = s.H
		if th.V > th.R {
			th.PC = wsqPopInc
		} else {
			th.PC = wsqPopReadTask
		}
	case wsqPopInc:
		th.R++
		s.T = th.R
		th.PC = wsqPopLock
	case wsqPopLock:
		s.L = int8(t) + 1
		th.PC = wsqPopDec2
	case wsqPopDec2:
		th.R--
		s.T = th.R
		switch {
		case m.variant == wsqNoRecheck:
			th.PC = wsqPopUnlock
		case m.variant == wsqStaleH && th.V > th.R:
			th.PC = wsqPopInc2
		case m.variant == wsqStaleH:
			th.PC = wsqPopUnlock
		default:
			th.PC = wsqPopReadH2
		}
	case wsqPopReadH2:
		th.V = s.H
		if th.V > th.R {
			th.PC = wsqPopInc2
		} else {
			th.PC = wsqPopUnlock
		}
	case wsqPopInc2:
		th.R++
		s.T = th.R
		th.PC = wsqPopUnlockE
	case wsqPopUnlockE:
		s.L = 0
		wsqOwnerNext(&th)
	case wsqPopUnlock:
		s.L = 0
		th.PC = wsqPopReadTask
	case wsqPopReadTask:
		if s.readCell(&th, t, th.R) {
			th.PC = wsqPopTake
		}
	case wsqPopTake:
		s.take(&th, t)
		wsqOwnerNext(&th)

	case wsqWaitStart:
		th.PC = wsqStealLock
	case wsqStealLock:
		s.L = int8(t) + 1
		if m.variant == wsqReadTFirst {
			th.PC = wsqStealReadT
		} else {
			th.PC = wsqStealIncH
		}
	case wsqStealIncH:
		s.H++
		th.R = s.H
		if m.variant == wsqReadTFirst {
			wsqStealDecide(&th)
		} else {
			th.PC = wsqStealReadT
		}
	case wsqStealReadT:
		th.V = s.T
		if m.variant == wsqReadTFirst {
			th.PC = wsqStealIncH
		} else {
			wsqStealDecide(&th)
		}
	case wsqStealDecH:
		s.H--
		th.PC = wsqStealUnlockE
	case wsqStealUnlockE, wsqStealUnlock:
		s.L = 0
		th.PC = wsqDone
	case wsqStealReadTask:
		if s.readCell(&th, t, th.R-1) {
			th.PC = wsqStealTake
		}
	case wsqStealTake:
		s.take(&th, t)
		th.PC = wsqStealUnlock
	default:
		panic(fmt.Sprintf("wsq: thread %d applied at pc %d", t, th.PC))
	}
	s.Th[t] = th
	return s
}

// wsqStealDecide branches on the thief's H (th.R) against the T it read
// (th.V).
func wsqStealDecide(th *wsqThread) {
	if th.R > th.V {
		th.PC = wsqStealDecH
	} else {
		th.PC = wsqStealReadTask
	}
}

// wsqOwnerNext moves the owner to its next operation.
func wsqOwnerNext(th *wsqThread) {
	th.Op++
	th.PC = wsqOwnerPC(th.Op)
}

// wsqOwnerPC is the first pc of the owner's operation op.
func wsqOwnerPC(op int8) int8 {
	if int(op) >= len(wsqProg) {
		return wsqDone
	}
	switch wsqProg[op] {
	case 'u':
		return wsqPushCell
	case 'f':
		return wsqFork
	}
	return wsqPopDec
}

// wsqTaskOf is the task pushed by the owner's operation op: tasks are
// numbered 1, 2, ... in the order pushed.
func wsqTaskOf(op int8) int8 {
	x := int8(0)
	for i := int8(0); i <= op; i++ {
		if wsqProg[i] == 'u' {
			x++
		}
	}
	return x
}

func (m *WSQ) Check(s WSQState) error {
	switch s.Fail {
	case wsqEmptySlot:
		return fmt.Errorf("thread %d read tasks[%d] and found no task", s.FailTid, s.FailArg)
	case wsqTwice:
		return fmt.Errorf("thread %d took task %d, already taken", s.FailTid, s.FailArg)
	case wsqBadIndex:
		return fmt.Errorf("thread %d read tasks[%d], outside the array", s.FailTid, s.FailArg)
	}
	got := 0
	for t := range m.Threads() {
		if s.Th[t].PC != wsqDone {
			return nil // the rest is a check of terminal states
		}
		got += int(s.Th[t].Got)
	}
	for i, n := range s.Taken {
		if n != 1 {
			return fmt.Errorf("task %d taken %d times", i+1, n)
		}
	}
	if got != wsqTasks {
		return fmt.Errorf("pops and steals took %d tasks, %d were pushed", got, wsqTasks)
	}
	return nil
}

func (m *WSQ) Hash(s WSQState) uint64 { return hashFlat(0, &s) }

func (m *WSQ) Describe(s WSQState, t ts.Tid) string {
	th := s.Th[t]
	switch th.PC {
	case wsqPushCell:
		return fmt.Sprintf("tasks[%d] = %d", th.R, wsqTaskOf(th.Op))
	case wsqPushT, wsqPopInc, wsqPopInc2:
		return fmt.Sprintf("T = %d", th.R+1)
	case wsqPopDec, wsqPopDec2:
		return fmt.Sprintf("T = %d", th.R-1)
	case wsqFork:
		return "start = 1"
	case wsqPopReadH, wsqPopReadH2:
		return "h = H"
	case wsqPopLock, wsqStealLock:
		return "lock(L)"
	case wsqPopUnlockE, wsqStealUnlockE:
		return "unlock(L); return EMPTY"
	case wsqPopUnlock, wsqStealUnlock:
		return "unlock(L)"
	case wsqPopReadTask:
		return fmt.Sprintf("x = tasks[%d]", th.R)
	case wsqStealReadTask:
		return fmt.Sprintf("x = tasks[%d]", th.R-1)
	case wsqPopTake, wsqStealTake:
		return fmt.Sprintf("taken[%d]++", th.X)
	case wsqWaitStart:
		return "wait(start == 1)"
	case wsqStealIncH:
		return "H++"
	case wsqStealDecH:
		return "H--"
	case wsqStealReadT:
		return "t = T"
	}
	return "done"
}

func (m *WSQ) ObjName(o ts.Obj) string {
	switch {
	case o == wsqObjH:
		return "H"
	case o == wsqObjT:
		return "T"
	case o == wsqObjL:
		return "L"
	case o >= wsqObjTasks && o < wsqObjTaken:
		return fmt.Sprintf("tasks[%d]", o-wsqObjTasks)
	case o >= wsqObjTaken && o < wsqObjStart:
		return fmt.Sprintf("taken[%d]", o-wsqObjTaken+1)
	case o == wsqObjStart:
		return "start"
	}
	return fmt.Sprintf("o%d", o)
}
