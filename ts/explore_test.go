package ts_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/weftlab/weft/ts"
)

// prog is a configurable test system over a mutable-by-mistake state: each
// thread runs len(ops) steps on object obj[i]. Knobs break the contract in
// the ways the design says weft must detect.
type prog struct {
	threads int
	steps   int
	mutate  bool // Apply modifies its argument
	flaky   *int // Next answers differently on alternate calls
	panicAt int  // Apply panics when the total step count reaches this (0: never)
	forever bool // threads never finish
	badOp   bool // Next returns an undefined Op
	lock    bool // every step is a lock acquire of object 0 that is never released
}

type pst struct {
	pc []int
}

func (p *prog) Init() *pst   { return &pst{pc: make([]int, p.threads)} }
func (p *prog) Threads() int { return p.threads }

func (p *prog) Next(s *pst, t ts.Tid) (ts.Step, ts.Status) {
	if p.flaky != nil {
		*p.flaky++
		if *p.flaky%2 == 0 {
			return ts.Step{Obj: 7, Op: ts.Write}, ts.Enabled
		}
	}
	if !p.forever && s.pc[t] >= p.steps {
		return ts.Step{}, ts.Finished
	}
	if p.badOp {
		return ts.Step{Op: 9}, ts.Enabled
	}
	if p.lock {
		for u, pc := range s.pc {
			if pc > 0 && ts.Tid(u) != t {
				return ts.Step{Obj: 0, Op: ts.Acquire}, ts.Blocked
			}
		}
		return ts.Step{Obj: 0, Op: ts.Acquire}, ts.Enabled
	}
	return ts.Step{Obj: ts.Obj(t), Op: ts.Write}, ts.Enabled
}

func (p *prog) Apply(s *pst, t ts.Tid) *pst {
	total := 0
	for _, pc := range s.pc {
		total += pc
	}
	if p.panicAt > 0 && total+1 >= p.panicAt {
		panic("boom")
	}
	if p.mutate {
		s.pc[t]++
		return &pst{pc: append([]int(nil), s.pc...)}
	}
	n := &pst{pc: append([]int(nil), s.pc...)}
	n.pc[t]++
	return n
}

type hashedProg struct{ *prog }

func (h hashedProg) Hash(s *pst) uint64 {
	var x uint64 = 14695981039346656037
	for _, pc := range s.pc {
		x = (x ^ uint64(pc)) * 1099511628211
	}
	return x
}

var ctx = context.Background()

func TestExploreCounts(t *testing.T) {
	// Two threads of two independent steps: C(4,2) = 6 interleavings.
	res, err := ts.Explore(ctx, &prog{threads: 2, steps: 2}, ts.Options{})
	if err != nil || res.Executions != 6 || res.Transitions != 18 || !res.Complete || res.Violation != nil {
		t.Fatalf("got %+v, %v; want 6 executions, 18 transitions, complete", res, err)
	}
	// Stateful: the 9 distinct (pc0, pc1) states; executions are the runs
	// that ended at a terminal or a visited state.
	res, err = ts.ExploreStateful(ctx, hashedProg{&prog{threads: 2, steps: 2}}, ts.Options{})
	if err != nil || res.States != 9 || res.Transitions != 12 || !res.Complete {
		t.Fatalf("stateful: got %+v, %v; want 9 states, 12 transitions", res, err)
	}
}

func TestDeadlock(t *testing.T) {
	res, err := ts.Explore(ctx, &prog{threads: 2, steps: 1, lock: true}, ts.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := res.Violation
	if v == nil || v.Kind != ts.Deadlock || res.Complete {
		t.Fatalf("got %+v, want a deadlock", res)
	}
	if got := v.Trace.Schedule(); len(got) != 1 || got[0].Thread != 0 {
		t.Errorf("schedule %v, want [0]", got)
	}
	if !strings.Contains(v.Err.Error(), "blocked: T1 waits to acquire o0 (held by T0)") {
		t.Errorf("error %q does not name the blocked thread", v.Err)
	}
}

// renamingProg names its objects by how many names it has given: a
// system whose names change as it runs (package threads names objects as
// each execution makes them).
type renamingProg struct {
	*prog
	calls int
}

func (p *renamingProg) ObjName(o ts.Obj) string {
	p.calls++
	return fmt.Sprintf("lock%d", p.calls)
}

// A deadlock's error names the waiting steps' objects as the system named
// them when the deadlock was found, not when the error is read (later, on
// another goroutine, after the system moved on).
func TestDeadlockNamesFixed(t *testing.T) {
	sys := &renamingProg{prog: &prog{threads: 2, steps: 1, lock: true}}
	res, err := ts.Explore(ctx, sys, ts.Options{})
	if err != nil || res.Violation == nil {
		t.Fatalf("got %+v, %v; want a deadlock", res, err)
	}
	first := res.Violation.Err.Error()
	if !strings.Contains(first, "waits to acquire lock") {
		t.Fatalf("error %q does not use the system's names", first)
	}
	calls := sys.calls
	if again := res.Violation.Err.Error(); again != first || sys.calls != calls {
		t.Errorf("error read again: %q (%d more ObjName calls), first %q", again, sys.calls-calls, first)
	}
}

func TestLimits(t *testing.T) {
	res, err := ts.Explore(ctx, &prog{threads: 3, steps: 2}, ts.Options{Limits: ts.Limits{Executions: 5}})
	if err != nil || res.Executions != 5 || res.Complete {
		t.Errorf("execution limit: got %+v, %v", res, err)
	}
	res, err = ts.Explore(ctx, &prog{threads: 3, steps: 2}, ts.Options{Limits: ts.Limits{Transitions: 10}})
	if err != nil || res.Transitions != 10 || res.Complete {
		t.Errorf("transition limit: got %+v, %v", res, err)
	}
}

func TestBadOptions(t *testing.T) {
	for _, opt := range []ts.Options{
		{Limits: ts.Limits{Transitions: -1}},
		{Limits: ts.Limits{Executions: -1}},
		{Limits: ts.Limits{Depth: -1}},
		{ProgressEvery: -time.Second},
	} {
		if _, err := ts.Explore(ctx, &prog{threads: 1, steps: 1}, opt); !errors.Is(err, ts.ErrBadOptions) {
			t.Errorf("%+v: got %v, want ErrBadOptions", opt, err)
		}
	}
	_, err := ts.ExploreStateful(ctx, &prog{threads: 1, steps: 1}, ts.Options{})
	if !errors.Is(err, ts.ErrBadOptions) || !errors.Is(err, ts.ErrNoHash) {
		t.Errorf("stateful without Hash: got %v", err)
	}
}

func TestMutatedArgument(t *testing.T) {
	// Without Hash: found when the search returns to the state and a
	// thread's status has changed. (A change no status shows needs Hash, or
	// tstest.Conformance, to be seen.)
	_, err := ts.Explore(ctx, &prog{threads: 2, steps: 1, mutate: true}, ts.Options{})
	if !errors.Is(err, ts.ErrMutated) || !errors.Is(err, ts.ErrBadSystem) {
		t.Fatalf("got %v, want ErrMutated", err)
	}
	// With Hash: found where the search leaves the state it modified,
	// naming the thread whose Apply did it (found by replay).
	_, err = ts.Explore(ctx, hashedProg{&prog{threads: 2, steps: 2, mutate: true}}, ts.Options{})
	var se *ts.SystemError
	if !errors.As(err, &se) || !errors.Is(err, ts.ErrMutated) || se.Thread != 0 || len(se.Schedule) > 1 {
		t.Fatalf("got %v, want ErrMutated by thread 0", err)
	}
}

func TestNondeterministic(t *testing.T) {
	flips := 0
	_, err := ts.Explore(ctx, &prog{threads: 2, steps: 2, flaky: &flips}, ts.Options{})
	if !errors.Is(err, ts.ErrBadSystem) {
		t.Fatalf("got %v, want a broken-system error", err)
	}
}

func TestThreadRange(t *testing.T) {
	for _, n := range []int{0, -1, ts.MaxThreads + 1} {
		_, err := ts.Explore(ctx, &prog{threads: n}, ts.Options{})
		if !errors.Is(err, ts.ErrThreadRange) {
			t.Errorf("Threads() = %d: got %v, want ErrThreadRange", n, err)
		}
	}
	_, err := ts.Replay[*pst](&prog{threads: 2, steps: 1}, ts.ScheduleOf(0, 2))
	var se *ts.SystemError
	if !errors.As(err, &se) || !errors.Is(err, ts.ErrThreadRange) || se.Thread != 2 || errors.Is(err, ts.ErrBadSystem) {
		t.Errorf("replay of thread 2 of 2: got %v, want ErrThreadRange naming thread 2 (a bad schedule, not a bad system)", err)
	}
	_, err = ts.Replay[*pst](&prog{threads: 2, steps: 1}, ts.ScheduleOf(0, 0))
	if !errors.Is(err, ts.ErrNotEnabled) {
		t.Errorf("replay of a finished thread: got %v, want ErrNotEnabled", err)
	}
}

// A replay says which threads could still move where its schedule stops,
// and none where the execution ended.
func TestReplayEnabled(t *testing.T) {
	sys := &prog{threads: 2, steps: 1}
	for _, c := range []struct {
		sched ts.Schedule
		want  []ts.Tid
	}{{nil, []ts.Tid{0, 1}}, {ts.ScheduleOf(1), []ts.Tid{0}}, {ts.ScheduleOf(1, 0), nil}} {
		run, err := ts.Replay[*pst](sys, c.sched)
		if err != nil || run.Violation != nil || fmt.Sprint(run.Enabled) != fmt.Sprint(c.want) {
			t.Errorf("%v: enabled %v, %v, %v; want %v", c.sched, run.Enabled, run.Violation, err, c.want)
		}
	}
}

func TestBadStep(t *testing.T) {
	_, err := ts.Explore(ctx, &prog{threads: 1, steps: 1, badOp: true}, ts.Options{})
	if !errors.Is(err, ts.ErrBadStep) {
		t.Errorf("got %v, want ErrBadStep", err)
	}
}

func TestPanicIsViolation(t *testing.T) {
	res, err := ts.Explore(ctx, &prog{threads: 2, steps: 2, panicAt: 3}, ts.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := res.Violation
	if v == nil || v.Kind != ts.Panic {
		t.Fatalf("got %+v, want a panic violation", res)
	}
	var pe *ts.PanicError
	if !errors.As(v.Err, &pe) || pe.Value != "boom" || !strings.Contains(pe.Stack, "Apply") {
		t.Errorf("error %v does not carry the panic value and stack", v.Err)
	}
	// The schedule ends with the transition that panicked, and replays to it.
	if got := v.Trace.Schedule(); len(got) != 3 || v.Thread != got[2].Thread {
		t.Errorf("schedule %v, thread %d: want 3 steps ending in the panicking thread", got, v.Thread)
	}
	run, err := ts.Replay[*pst](&prog{threads: 2, steps: 2, panicAt: 3}, v.Trace.Schedule())
	if err != nil || run.Violation == nil || run.Violation.Kind != ts.Panic {
		t.Errorf("replay: %+v, %v; want the panic again", run.Violation, err)
	}
	// KeepGoing goes on after each panic.
	res, err = ts.Explore(ctx, &prog{threads: 2, steps: 2, panicAt: 3}, ts.Options{KeepGoing: true})
	if err != nil || res.Violations != 6 || !res.Complete {
		t.Errorf("keep going: got %d violations, complete %v, %v; want 6 (one per 3-step prefix), complete", res.Violations, res.Complete, err)
	}
}

func TestDepthLimit(t *testing.T) {
	_, err := ts.Explore(ctx, &prog{threads: 1, forever: true}, ts.Options{Limits: ts.Limits{Depth: 50}})
	var se *ts.SystemError
	if !errors.As(err, &se) || !errors.Is(err, ts.ErrDepth) || len(se.Schedule) != 51 {
		t.Fatalf("got %v, want ErrDepth with the 51-step schedule that exceeds 50", err)
	}
	// The default limit applies when none is given.
	_, err = ts.Explore(ctx, &prog{threads: 1, forever: true}, ts.Options{})
	if !errors.As(err, &se) || len(se.Schedule) != ts.DefaultMaxDepth+1 {
		t.Fatalf("got %v, want ErrDepth at the default depth", err)
	}
	// A stateful search handles the same cycle-free but endless system no
	// better, and says so the same way.
	_, err = ts.ExploreStateful(ctx, hashedProg{&prog{threads: 1, forever: true}}, ts.Options{Limits: ts.Limits{Depth: 50}})
	if !errors.Is(err, ts.ErrDepth) {
		t.Fatalf("stateful: got %v, want ErrDepth", err)
	}
}

func TestCancel(t *testing.T) {
	c, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	var at int64 = -1
	res, err := ts.Explore(c, &prog{threads: 6, steps: 4}, ts.Options{
		ProgressEvery: time.Nanosecond,
		Progress: func(r ts.Result) { // cancel once the search is under way
			if at < 0 && r.Transitions > 0 { // a tick may come before the first transition
				at = r.Transitions
				cancel()
			}
		},
	})
	if !errors.Is(err, context.Canceled) || res.Complete {
		t.Fatalf("got %+v, %v; want context.Canceled and a partial result", res, err)
	}
	// The cancellation is seen within a poll interval.
	if at <= 0 || res.Transitions > at+256 {
		t.Errorf("cancelled after %d transitions, stopped after %d", at, res.Transitions)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v to notice the cancellation", d)
	}
}

func TestProgress(t *testing.T) {
	calls := 0
	start := time.Now()
	res, err := ts.Explore(ctx, slowGrid{grid{3, 4, 1}}, ts.Options{
		ProgressEvery: time.Nanosecond, // kept at least watch.MinProgressEvery apart
		Progress:      func(ts.Result) { calls++ },
		Limits:        ts.Limits{Transitions: 200},
	})
	elapsed := time.Since(start)
	if err != nil || res.Complete || calls == 0 || calls > int(elapsed/time.Millisecond)+1 {
		t.Errorf("%d progress calls in %v over %d transitions, %v", calls, elapsed, res.Transitions, err)
	}
}

// Reproduces confirms a counted violation as ConfirmWith does, without the
// trace: true where the schedule replays to it, false where it does not
// (ConfirmWith then says why) and for a panic, always confirmed in full.
func TestReproduces(t *testing.T) {
	sys := &prog{threads: 2, steps: 1, lock: true}
	res, err := ts.Explore(ctx, sys, ts.Options{})
	if err != nil || res.Violation == nil {
		t.Fatalf("got %+v, %v; want a deadlock", res, err)
	}
	v := res.Violation
	if !ts.Reproduces[*pst](sys, v, ts.Schedule{{Thread: 0}}, ts.Options{}) {
		t.Errorf("the deadlock's own schedule does not reproduce it")
	}
	if ts.Reproduces[*pst](sys, v, ts.Schedule{}, ts.Options{}) {
		t.Errorf("the initial state, where both threads can move, reproduces the deadlock")
	}
	if _, err := ts.ConfirmWith[*pst](sys, v, ts.Schedule{}, ts.Options{}); err == nil {
		t.Errorf("ConfirmWith confirms what Reproduces refused")
	}
	panicked := *v
	panicked.Kind = ts.Panic
	if ts.Reproduces[*pst](sys, &panicked, ts.Schedule{{Thread: 0}}, ts.Options{}) {
		t.Errorf("a panic is reproduced without its trace")
	}
}
