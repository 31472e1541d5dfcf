package por_test

// Outside audit of package por: regression tests of the defects it found,
// which failed before they were fixed. Each compares ODPOR with ts.Explore
// through tstest (CheckReduction, CheckOptimal), on systems that pass
// tstest.Conformance.
//
// The defect: ODPOR lost Mazurkiewicz traces, terminal states and
// deadlocks where a step that writes several objects may wait (a select of
// package threads, which writes every channel of its cases; the semaphore
// programs are in semaphore_test.go). See ODPOR's "Blocking steps of
// several objects that write".
//
// The audit's property tests (audit_wide_test.go, audit_sound_test.go,
// audit_sem_test.go, audit_threads_test.go) draw a few dozen programs each
// by default, and run at full size with -audit (see auditChecks).

import (
	"context"
	"fmt"
	"testing"

	"github.com/weftlab/weft"
	"github.com/weftlab/weft/wefttest"

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/sim"
	"github.com/weftlab/weft/threads"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// selectDeadlock is a Go program of package threads over two buffered
// channels of capacity 1, both empty:
//
//	main: <-c1; select { case <-c0: case <-c1: }
//	T1:   c1 <- 1
//	T2:   c0 <- 2; select { case c0 <- 2: case <-c1: }
//
// When T2's select takes T1's value from c1 before main receives it, main
// waits in <-c1 for ever: a deadlock (main waits; T1 and T2 have ended).
func selectDeadlock() *threads.Program {
	var c0, c1 *threads.Chan[int]
	return &threads.Program{MaxThreads: 3, Threads: []func(*threads.T){
		func(t *threads.T) {
			c0, c1 = threads.NewChan[int](t, "c0", 1), threads.NewChan[int](t, "c1", 1)
			c1.Recv(t)
			threads.Select(t, c0.RecvCase(nil, nil), c1.RecvCase(nil, nil))
		},
		func(t *threads.T) { c1.Send(t, 1) },
		func(t *threads.T) {
			c0.Send(t, 2)
			threads.Select(t, c0.SendCase(2), c1.RecvCase(nil, nil))
		},
	}}
}

// TestAuditODPORSelectDeadlock: on selectDeadlock, ts.Explore, Sleep and
// DPOR find the deadlock; ODPOR explored 8 of the 10 Mazurkiewicz traces,
// missed the 2 that end in the deadlock (2 of 10 terminal states) and
// reported no violation. A select is one step that writes both channels
// and may wait: the multi-object blocking write of
// TestODPORBlockingMultiObject, in ordinary Go. Found by
// TestAuditThreadsChannels (-rapid.seed 8102) on a larger program (ODPOR
// 568 of 576 traces, 280 of 288 deadlocks) and shrunk.
func TestAuditODPORSelectDeadlock(t *testing.T) {
	ctx := context.Background()
	sys := selectDeadlock().MustSystem()
	defer sys.Close()
	ref, err := ts.Explore[sim.State](ctx, sys, ts.Options{})
	if err != nil || ref.Violation == nil || ref.Violation.Kind != ts.Deadlock {
		t.Fatalf("ts.Explore: %v, %v; want a deadlock", ref, err)
	}
	for _, s := range strategies[sim.State]() {
		if s.name == "sdpor" {
			continue // needs a hash
		}
		res, err := s.f(ctx, sys, por.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Violation == nil || res.Violation.Kind != ts.Deadlock {
			t.Errorf("%s: %v; ts.Explore finds a deadlock by schedule %v", s.name, res, ref.Violation.Trace.Schedule())
		}
	}
	ro := tstest.ReductionOptions{Bound: ts.NoBound, Key: threadsKey(sys)}
	rep := tstest.CheckOptimal[sim.State](t, sys, threadsODPOR, ro)
	red := tstest.CheckReduction[sim.State](t, sys, threadsODPOR, ro)
	if len(rep.Traces) != 10 || rep.Result.Executions != 10 || red.ExpectedTerminals != 10 || len(red.Reduction.Terminals) != 10 {
		t.Errorf("odpor: %d executions of %d traces, %d of %d terminal states; want 10 of each",
			rep.Result.Executions, len(rep.Traces), len(red.Reduction.Terminals), red.ExpectedTerminals)
	}
}

// recTB records whether a test would fail, for running wefttest.Check on a
// system that should fail it.
type recTB struct {
	testing.TB
	failed bool
	msgs   []string
}

func (r *recTB) Error(args ...any) { r.failed = true; r.msgs = append(r.msgs, fmt.Sprint(args...)) }
func (r *recTB) Errorf(format string, args ...any) {
	r.failed = true
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}
func (r *recTB) Fatal(args ...any)                 { r.Error(args...) }
func (r *recTB) Fatalf(format string, args ...any) { r.Errorf(format, args...) }
func (r *recTB) Fail()                             { r.failed = true }
func (r *recTB) FailNow()                          { r.failed = true }
func (r *recTB) Log(args ...any)                   { r.msgs = append(r.msgs, fmt.Sprint(args...)) }
func (r *recTB) Logf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}

// TestAuditWefttestPassesDeadlock: wefttest.Check with its default strategy
// (odpor) passed the Go program of TestAuditODPORSelectDeadlock, which
// deadlocks (ts.Explore's schedule [1 2 2 0]); now both it and weft.DPOR()
// fail the test with the deadlock.
func TestAuditWefttestPassesDeadlock(t *testing.T) {
	for _, c := range []struct {
		name string
		s    weft.Strategy
	}{{"default", weft.Strategy{}}, {"dpor", weft.DPOR()}} {
		sys := selectDeadlock().MustSystem()
		r := &recTB{TB: t}
		res := wefttest.Check[sim.State](r, sys, wefttest.Options{Strategy: c.s})
		sys.Close()
		if !r.failed {
			t.Errorf("wefttest.Check (%s) passes a program that deadlocks: %v; it said %q", c.name, res, r.msgs)
		}
	}
}

// TestAuditODPORSelectTraces: a larger channel program found by
// TestAuditThreadsChannels (-rapid.seed 8202, after 8 programs), checked
// against ts.Explore: c0 holds one value at the start;
//
//	main: select { case c0 <- 0: case c1 <- 0: }; <-c1; <-c0
//	T1:   select { case c0 <- 1: case c1 <- 1: }; <-c1
//	T2:   select { case c0 <- 2: case <-c1: }; <-u
//
// each thread then stores what it received in x. ODPOR explored 156 of the
// 204 traces and reached 156 of the 204 terminal states.
func TestAuditODPORSelectTraces(t *testing.T) {
	sys := chanProg(1, []int{6, 3, 2}, []int{6, 3}, []int{5, 8}).MustSystem()
	defer sys.Close()
	ro := tstest.ReductionOptions{Bound: ts.NoBound, Key: threadsKey(sys)}
	rep := tstest.CheckOptimal[sim.State](t, sys, threadsODPOR, ro)
	red := tstest.CheckReduction[sim.State](t, sys, threadsODPOR, ro)
	if len(rep.Traces) != 204 || rep.Result.Executions != 204 || red.ExpectedTerminals != 204 || len(red.Reduction.Terminals) != 204 {
		t.Errorf("odpor: %d executions of %d traces, %d of %d terminal states; want 204 of each",
			rep.Result.Executions, len(rep.Traces), len(red.Reduction.Terminals), red.ExpectedTerminals)
	}
}

// TestAuditODPORSelectEachObject: where one event is the latest race of a
// select on both its channels, the earlier races behind it differ from
// channel to channel, and ODPOR must walk back along each. c0 holds one
// value at the start (cap 1, as c1):
//
//	main: select { case c0 <- 0: case v := <-c1: }
//	T1:   c1 <- 1
//	T2:   x = 2; select { case c0 <- 2: case c1 <- 2: }
//
// The traces where T2's select sends on c1 between main's fill of c0 and
// T1's send need T2 before T1's send (a race on c1), behind main's select,
// the latest race on both channels; walking back along c0 alone, ODPOR
// explored 11 of the 19 traces. The program found by
// TestAuditThreadsChannels (a full go test ./por run) had 131 of 195.
func TestAuditODPORSelectEachObject(t *testing.T) {
	for _, c := range []struct {
		ops    [][]int
		traces int
	}{
		{[][]int{{5, 12}, {1, 12}, {10, 6, 12}}, 19},
		{[][]int{{5}, {1, 9, 9}, {10, 6, 0}}, 195},
	} {
		sys := chanProg(1, c.ops...).MustSystem()
		ro := tstest.ReductionOptions{Bound: ts.NoBound, Key: threadsKey(sys)}
		rep := tstest.CheckOptimal[sim.State](t, sys, threadsODPOR, ro)
		red := tstest.CheckReduction[sim.State](t, sys, threadsODPOR, ro)
		sys.Close()
		if len(rep.Traces) != c.traces || rep.Result.Executions != int64(c.traces) || len(red.Reduction.Terminals) != red.ExpectedTerminals {
			t.Errorf("%v: odpor %d executions of %d traces (want %d), %d of %d terminal states",
				c.ops, rep.Result.Executions, len(rep.Traces), c.traces, len(red.Reduction.Terminals), red.ExpectedTerminals)
		}
	}
}
