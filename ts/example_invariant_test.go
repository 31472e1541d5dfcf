package ts_test

import (
	"context"
	"fmt"

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
)

// section is two threads that each enter and leave a critical section with
// no lock: thread t writes in[t] = 1, then in[t] = 0. Mutual exclusion is a
// global property of intermediate states: both flags set at once.
type section struct{}

type sectionState struct {
	pc [2]uint8 // 0: enter, 1: leave, 2: done
	in [2]uint8 // objects 0 and 1
}

func (section) Init() sectionState { return sectionState{} }
func (section) Threads() int       { return 2 }

func (section) Next(s sectionState, t ts.Tid) (ts.Step, ts.Status) {
	if s.pc[t] == 2 {
		return ts.Step{}, ts.Finished
	}
	return ts.Step{Obj: ts.Obj(t), Op: ts.Write}, ts.Enabled
}

func (section) Apply(s sectionState, t ts.Tid) sectionState {
	s.in[t] = 1 - s.pc[t]
	s.pc[t]++
	return s
}

func (section) ObjName(o ts.Obj) string { return fmt.Sprintf("in[%d]", o) }

func exclusion(s sectionState) error {
	if s.in[0] == 1 && s.in[1] == 1 {
		return fmt.Errorf("both threads in the critical section")
	}
	return nil
}

// checked declares mutual exclusion as a Check: partial-order reduction
// does not promise intermediate states, and the two threads touch different
// objects, so one execution stands for all six.
type checked struct{ section }

func (checked) Check(s sectionState) error { return exclusion(s) }

// declared declares it as an Invariant that reads both flags: every two
// writes of a flag are then dependent, and no reduction may skip the state
// where it fails.
type declared struct{ section }

func (declared) Invariant(s sectionState) error { return exclusion(s) }
func (declared) InvariantReads() []ts.Obj       { return []ts.Obj{0, 1} }

// A property of intermediate states over shared objects is declared as an
// Invariant with the objects it reads; as a Check, optimal DPOR explores one
// execution of two independent threads and never sees both in the section.
func ExampleInvariant() {
	ctx := context.Background()
	res, _ := por.ODPOR(ctx, checked{}, por.Options{})
	fmt.Println("as a Check:", res)

	res, _ = por.ODPOR(ctx, declared{}, por.Options{})
	fmt.Println("as an Invariant:", res)
	fmt.Print(res.Violation.Trace.Format(declared{}))
	// Output:
	// as a Check: no violation: 1 execution, 4 transitions
	// as an Invariant: invariant failure (both threads in the critical section) with 1 preemption after 2 steps: 2 executions, 5 transitions
	//     0  T0  write in[0]
	// *   1  T1  write in[1]
	// 2 steps, 1 preemption (marked *)
}
