package ts_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/weftlab/weft/ts"
)

func TestStepAccesses(t *testing.T) {
	one := ts.Step{Obj: 1, Op: ts.Write}
	multi := ts.Step{Obj: 1, Op: ts.Read, Also: []ts.Access{{Obj: 2, Op: ts.Write}, {Obj: 3, Op: ts.Read, Sync: true}}}
	if one.NumAccesses() != 1 || !one.Single() || multi.NumAccesses() != 3 || multi.Single() {
		t.Fatalf("NumAccesses: %d, %d", one.NumAccesses(), multi.NumAccesses())
	}
	if a := multi.At(2); a != (ts.Access{Obj: 3, Op: ts.Read, Sync: true}) {
		t.Errorf("At(2) = %+v", a)
	}
	if op, ok := multi.OpOn(2); !ok || op != ts.Write {
		t.Errorf("OpOn(2) = %v, %v", op, ok)
	}
	if _, ok := multi.OpOn(4); ok {
		t.Error("OpOn(4) found an object the step does not touch")
	}
	if !multi.IsSync() || one.IsSync() {
		t.Error("IsSync: a step is sync when any of its accesses is")
	}
	for _, c := range []struct {
		a, b ts.Step
		dep  bool
	}{
		{one, ts.Step{Obj: 1, Op: ts.Read}, true},
		{ts.Step{Obj: 1, Op: ts.Read}, ts.Step{Obj: 1, Op: ts.Read}, false},
		{multi, ts.Step{Obj: 1, Op: ts.Read}, false},  // both read 1
		{multi, ts.Step{Obj: 2, Op: ts.Read}, true},   // multi writes 2
		{multi, ts.Step{Obj: 3, Op: ts.Write}, true},  // the other writes 3
		{multi, ts.Step{Obj: 5, Op: ts.Write}, false}, // nothing in common
		{multi, ts.Step{Obj: 9, Op: ts.Read, Also: []ts.Access{{Obj: 1, Op: ts.Acquire}}}, true},
	} {
		if got := ts.Dependent(c.a, c.b); got != c.dep {
			t.Errorf("Dependent(%v, %v) = %v, want %v", c.a, c.b, got, c.dep)
		}
		if got := ts.Dependent(c.b, c.a); got != c.dep {
			t.Errorf("Dependent(%v, %v) = %v, want %v (not symmetric)", c.b, c.a, got, c.dep)
		}
	}
	if !multi.Equal(ts.Step{Obj: 1, Op: ts.Read, Also: []ts.Access{{Obj: 2, Op: ts.Write}, {Obj: 3, Op: ts.Read, Sync: true}}}) ||
		multi.Equal(ts.Step{Obj: 1, Op: ts.Read, Also: []ts.Access{{Obj: 2, Op: ts.Write}}}) ||
		!one.Equal(ts.Step{Obj: 1, Op: ts.Write}) || one.Equal(ts.Step{Obj: 1, Op: ts.Write, Sync: true}) {
		t.Error("Equal")
	}
	if got := multi.String(); got != "read o1, write o2, read o3 (sync)" {
		t.Errorf("String = %q", got)
	}
	for _, st := range []ts.Step{one, multi, {Obj: 1, Also: []ts.Access{{Obj: 2, Op: 7}}}} {
		if st.Valid() != (st.Validate() == nil) {
			t.Errorf("%+v: Valid %v, Validate %v", st, st.Valid(), st.Validate())
		}
	}
	for _, bad := range []ts.Step{
		{Obj: -1},
		{Obj: ts.InvariantObj},
		{Obj: 1, Also: []ts.Access{{Obj: 1, Op: ts.Write}}},
		{Obj: 1, Also: []ts.Access{{Obj: 2, Op: 7}}},
		{Obj: 1, Also: []ts.Access{{Obj: ts.InvariantObj, Op: ts.Write}}},
	} {
		if bad.Validate() == nil {
			t.Errorf("%+v validates", bad)
		}
	}
	if multi.Validate() != nil {
		t.Errorf("%v: %v", multi, multi.Validate())
	}
}

func TestInvariantWrites(t *testing.T) {
	w := ts.NewInvariantWrites([]ts.Obj{1, 2})
	a := w.Mark(ts.Step{Obj: 1, Op: ts.Write})
	b := w.Mark(ts.Step{Obj: 5, Op: ts.Read, Also: []ts.Access{{Obj: 2, Op: ts.Write}}})
	r := w.Mark(ts.Step{Obj: 1, Op: ts.Read})
	if a.NumAccesses() != 2 || a.At(1) != (ts.Access{Obj: ts.InvariantObj, Op: ts.Write}) || a.String() != "write o1, write invariant" {
		t.Errorf("marked %v: %d accesses", a, a.NumAccesses())
	}
	// A multi-object step gets a longer Also, built once per slice.
	also := []ts.Access{{Obj: 2, Op: ts.Write}}
	m1, m2 := w.Mark(ts.Step{Obj: 7, Also: also}), w.Mark(ts.Step{Obj: 7, Also: also})
	if m1.NumAccesses() != 3 || &m1.Also[0] != &m2.Also[0] || len(also) != 1 {
		t.Errorf("marked multi-object step %v, %v", m1, m2)
	}
	if !ts.Dependent(a, b) {
		t.Error("two writes of the invariant's objects are independent")
	}
	if r.NumAccesses() != 1 || ts.Dependent(r, b) {
		t.Error("a read of the invariant's objects is marked")
	}
	if a.Equal(ts.Step{Obj: 1, Op: ts.Write}) {
		t.Error("a marked step equals the unmarked one")
	}
	var none *ts.InvariantWrites
	if none.Mark(ts.Step{Obj: 1, Op: ts.Write}).NumAccesses() != 1 || ts.NewInvariantWrites(nil) != nil {
		t.Error("a nil marker marks")
	}
	big := make([]ts.Obj, 20)
	for i := range big {
		big[i] = ts.Obj(i * 3)
	}
	if wb := ts.NewInvariantWrites(big); !wb.Reads(57) || wb.Reads(58) {
		t.Error("large read sets")
	}
}

func TestSchedules(t *testing.T) {
	s := ts.Schedule{{Thread: 0}, {Thread: 1, Outcome: 2}, {Thread: 0}}
	if s.String() != "[0 1/2 0]" {
		t.Errorf("String = %q", s)
	}
	for _, text := range []string{"[0 1/2 0]", "0,1/2,0", " 0 1/2\t0 "} {
		got, err := ts.ParseSchedule(text)
		if err != nil || !got.Equal(s) {
			t.Errorf("ParseSchedule(%q) = %v, %v", text, got, err)
		}
	}
	for _, bad := range []string{"x", "1/", "-1", "2/-1"} {
		if _, err := ts.ParseSchedule(bad); err == nil {
			t.Errorf("ParseSchedule(%q) accepted", bad)
		}
	}
	if got, err := ts.ParseSchedule("[]"); err != nil || len(got) != 0 {
		t.Errorf("empty: %v, %v", got, err)
	}
	if !ts.ScheduleOf(2, 1).Equal(ts.Schedule{{Thread: 2}, {Thread: 1}}) {
		t.Error("ScheduleOf")
	}
	long := make(ts.Schedule, 100)
	if got := long.Short(4); got != "100 moves, ending ...0 0 0 0]" {
		t.Errorf("Short = %q", got)
	}
}

// net is a tiny protocol that uses the whole extended model: a sender
// (thread 0) puts a message on a lossy link (object 0) with two outcomes
// (delivered, lost); a server (thread 1) waits for it, Idle, and on
// delivery writes its log (object 1) and acknowledges on object 2 in one
// transition. The invariant reads the log: it fails if the log holds 2.
type net struct {
	twice  bool // the sender sends twice
	noIdle bool
}

type netState struct {
	sent, link, log, ack int
	served               int
}

func (n net) Init() netState { return netState{} }
func (n net) Threads() int   { return 2 }
func (n net) Next(s netState, t ts.Tid) (ts.Step, ts.Status) {
	msgs := 1
	if n.twice {
		msgs = 2
	}
	if t == 0 {
		if s.sent == msgs {
			return ts.Step{}, ts.Finished
		}
		return ts.Step{Obj: 0, Op: ts.Write}, ts.Enabled
	}
	step := ts.Step{Obj: 0, Op: ts.Write, Also: []ts.Access{{Obj: 1, Op: ts.Write}, {Obj: 2, Op: ts.Write}}}
	if s.link == 0 {
		if n.noIdle {
			return step, ts.Blocked
		}
		return step, ts.Idle
	}
	return step, ts.Enabled
}
func (n net) Apply(s netState, t ts.Tid) netState { return n.ApplyOutcome(s, t, 0) }

// Outcomes: the sender's message is delivered (0) or lost (1).
func (n net) Outcomes(s netState, t ts.Tid) int {
	if t == 0 {
		return 2
	}
	return 1
}
func (n net) ApplyOutcome(s netState, t ts.Tid, c int) netState {
	if t == 0 {
		s.sent++
		if c == 0 {
			s.link++
		}
		return s
	}
	s.link--
	s.log++
	s.ack++
	s.served++
	return s
}
func (n net) Invariant(s netState) error {
	if s.log >= 2 {
		return fmt.Errorf("log holds %d entries", s.log)
	}
	return nil
}
func (n net) InvariantReads() []ts.Obj { return []ts.Obj{1} }

// noOutcome is net with a Chooser that says a transition has no outcome.
type noOutcome struct{ net }

func (noOutcome) Outcomes(netState, ts.Tid) int { return 0 }

func TestExploreExtendedModel(t *testing.T) {
	var terminals []netState
	res, err := ts.Explore(ctx, net{}, ts.Options{KeepGoing: true,
		OnTerminal: func(s any, sched ts.Schedule) { terminals = append(terminals, s.(netState)) }})
	if err != nil {
		t.Fatal(err)
	}
	// Delivered: the server runs (one execution); lost: the server waits,
	// Idle, and that is a normal end.
	if res.Executions != 2 || res.Transitions != 3 || res.Violations != 0 || !res.Complete || len(terminals) != 2 {
		t.Fatalf("got %+v, %d terminals; want 2 executions, 3 transitions, no violation", res, len(terminals))
	}
	// Blocked instead of Idle: every end is a deadlock, the server waiting
	// for a message after serving one, or after the loss.
	res, err = ts.Explore(ctx, net{noIdle: true}, ts.Options{KeepGoing: true})
	if err != nil || res.Violations != 2 || res.Violation.Kind != ts.Deadlock || !res.Violation.Trace.Schedule().Equal(ts.ScheduleOf(0, 1)) {
		t.Fatalf("blocked server: %+v, %v", res, err)
	}
	if !strings.Contains(res.Violation.Err.Error(), "T1 waits to write o0, write o1, write o2") {
		t.Errorf("deadlock message %q", res.Violation.Err)
	}
	// ... unless deadlocks are ignored.
	res, err = ts.Explore(ctx, net{noIdle: true}, ts.Options{KeepGoing: true, IgnoreDeadlocks: true})
	if err != nil || res.Violations != 0 || res.Finds.Has(ts.Deadlock) || !strings.Contains(res.String(), "deadlocks not looked for") {
		t.Fatalf("ignored deadlocks: %v, %v", res, err)
	}
	// Two messages, both delivered: the log holds 2 and the invariant fails,
	// with the outcomes in the schedule.
	res, err = ts.Explore(ctx, net{twice: true}, ts.Options{})
	if err != nil || res.Violation == nil || res.Violation.Kind != ts.InvariantFailure {
		t.Fatalf("twice: %+v, %v", res, err)
	}
	run, err := ts.Replay(net{twice: true}, res.Violation.Trace.Schedule())
	if err != nil || run.Violation == nil || run.Violation.Kind != ts.InvariantFailure || run.Final.log != 2 {
		t.Errorf("replay: %+v, %v", run, err)
	}
	if tr := res.Violation.Trace.String(); !strings.Contains(tr, "write o0 -> outcome 0 of 2") {
		t.Errorf("trace does not show the outcome:\n%s", tr)
	}
	// A lost message replays to the Idle end.
	run, err = ts.Replay(net{}, ts.Schedule{{Thread: 0, Outcome: 1}})
	if err != nil || run.Violation != nil || run.Final.sent != 1 || run.Final.link != 0 {
		t.Errorf("replay of a loss: %+v, %v", run, err)
	}
	// An outcome out of range is a bad schedule.
	if _, err := ts.Replay(net{}, ts.Schedule{{Thread: 0, Outcome: 2}}); !errors.Is(err, ts.ErrNotEnabled) || errors.Is(err, ts.ErrBadSystem) {
		t.Errorf("outcome out of range: %v", err)
	}
	// A Chooser that claims no outcome is a broken system.
	if _, err := ts.Explore(ctx, noOutcome{}, ts.Options{}); !errors.Is(err, ts.ErrBadStep) {
		t.Errorf("zero outcomes: %v", err)
	}
}

func TestStatesAndResultsPrint(t *testing.T) {
	if ts.Idle.String() != "idle" || !ts.Idle.Waiting() || ts.Enabled.Waiting() || ts.Status(9).Valid() {
		t.Error("Idle")
	}
	k := ts.KindsOf(ts.CheckFailure, ts.Panic)
	if k.String() != "check failure, panic" || k.Missing() != "invariant failures and deadlocks" {
		t.Errorf("Kinds: %q, missing %q", k, k.Missing())
	}
	b, _ := json.Marshal(ts.Result{Finds: k, Bound: ts.NoBound})
	if !strings.Contains(string(b), `"finds":["check failure","panic"]`) {
		t.Errorf("JSON %s", b)
	}
	b, _ = json.Marshal(ts.Step{Obj: 1, Op: ts.Acquire, Also: []ts.Access{{Obj: 2, Op: ts.Read}}})
	if string(b) != `{"obj":1,"op":"acquire","also":[{"obj":2,"op":"read"}]}` {
		t.Errorf("step JSON %s", b)
	}
}

// flakyCheck fails its check with a message that changes from call to call:
// Confirm reports the mismatch instead of the search's text.
type flakyCheck struct {
	grid
	calls *int
}

func (f flakyCheck) Check(s gridState) error {
	if s.pc[0] == 1 {
		*f.calls++
		return fmt.Errorf("failure #%d", *f.calls)
	}
	return nil
}

func TestConfirmComparesMessages(t *testing.T) {
	calls := 0
	_, err := ts.Explore(ctx, flakyCheck{grid{1, 1, 1}, &calls}, ts.Options{})
	if !errors.Is(err, ts.ErrNondeterministic) || !strings.Contains(err.Error(), `"failure #1" but replaying its schedule shows "failure #2"`) {
		t.Fatalf("got %v", err)
	}
}

func TestCallbackPanics(t *testing.T) {
	for _, c := range []struct {
		name string
		opt  ts.Options
	}{
		{"OnTerminal", ts.Options{OnTerminal: func(any, ts.Schedule) { panic("mine") }}},
		{"OnViolation", ts.Options{OnViolation: func(*ts.Violation) { panic("mine") }}},
		{"Progress", ts.Options{ProgressEvery: 1, Progress: func(ts.Result) { panic("mine") }}},
	} {
		var err error
		if c.name == "OnViolation" {
			_, err = ts.Explore(ctx, &prog{threads: 2, steps: 1, lock: true}, c.opt) // deadlocks
		} else {
			_, err = ts.Explore(ctx, slowGrid{grid{3, 4, 1}}, c.opt)
		}
		var ce *ts.CallbackError
		if !errors.As(err, &ce) || ce.Callback != c.name || ce.Value != "mine" || !strings.Contains(ce.Stack, "model_test.go") ||
			errors.Is(err, ts.ErrBadSystem) || !errors.Is(err, ts.ErrCallback) {
			t.Errorf("%s: got %v", c.name, err)
		}
	}
}

func TestBadContext(t *testing.T) {
	//lint:ignore SA1012 the nil context is the point
	_, err := ts.Explore(nil, grid{1, 1, 1}, ts.Options{}) //nolint:staticcheck
	if !errors.Is(err, ts.ErrBadOptions) {
		t.Errorf("nil context: %v", err)
	}
}

// counterNext answers Next from a counter shared by every call: the search
// sees two different answers at one state, without Hash.
type counterNext struct {
	grid
	calls *int
}

func (c counterNext) Next(s gridState, t ts.Tid) (ts.Step, ts.Status) {
	*c.calls++
	step, st := c.grid.Next(s, t)
	if st != ts.Finished {
		step.Obj = ts.Obj(*c.calls % 3)
	}
	return step, st
}

// threadsDrift returns one more thread on every call after the first.
type threadsDrift struct {
	grid
	calls *int
}

func (d threadsDrift) Threads() int {
	*d.calls++
	if *d.calls > 1 {
		return d.grid.threads + 1
	}
	return d.grid.threads
}

// sliceMutator keeps its program counters in a slice and increments them in
// place: an Apply that modifies its argument, with no Hash to show it.
type sliceMutator struct{}

func (sliceMutator) Init() []int  { return []int{0, 0} }
func (sliceMutator) Threads() int { return 2 }
func (sliceMutator) Next(s []int, t ts.Tid) (ts.Step, ts.Status) {
	if s[t] >= 2 {
		return ts.Step{}, ts.Finished
	}
	return ts.Step{Obj: ts.Obj(t), Op: ts.Write}, ts.Enabled
}
func (sliceMutator) Apply(s []int, t ts.Tid) []int { s[t]++; return s }

func TestContractBreaches(t *testing.T) {
	calls := 0
	if _, err := ts.Explore(ctx, counterNext{grid{2, 2, 2}, &calls}, ts.Options{}); !errors.Is(err, ts.ErrNondeterministic) {
		t.Errorf("Next from a global counter: %v", err)
	}
	calls = 0
	if _, err := ts.Explore(ctx, threadsDrift{grid{2, 2, 2}, &calls}, ts.Options{}); !errors.Is(err, ts.ErrNondeterministic) ||
		!strings.Contains(err.Error(), "Threads() returned 2, then 3") {
		t.Errorf("Threads drifting: %v", err)
	}
	_, err := ts.Explore(ctx, sliceMutator{}, ts.Options{})
	var se *ts.SystemError
	if !errors.As(err, &se) || !errors.Is(err, ts.ErrMutated) || se.Thread != 0 {
		t.Errorf("in-place Apply: %v", err)
	}
}

func TestMemoryLimit(t *testing.T) {
	_, err := ts.ExploreStateful(ctx, hashedGrid{grid{4, 6, 4}}, ts.Options{Limits: ts.Limits{Memory: 2000}})
	if !errors.Is(err, ts.ErrMemory) {
		t.Errorf("got %v, want ErrMemory", err)
	}
	if _, err := ts.ExploreStateful(ctx, hashedGrid{grid{4, 6, 4}}, ts.Options{Limits: ts.Limits{Memory: -1}}); err != nil {
		t.Errorf("no cap: %v", err)
	}
}

// The depth error names the schedule in a few words, not 10,000 moves.
func TestDepthMessageIsShort(t *testing.T) {
	_, err := ts.Explore(ctx, &prog{threads: 1, forever: true}, ts.Options{})
	if !errors.Is(err, ts.ErrDepth) || len(err.Error()) > 400 {
		t.Errorf("%d bytes: %.300v", len(err.Error()), err)
	}
	if strings.Contains(err.Error(), "weft: weft:") {
		t.Errorf("doubled prefix: %v", err)
	}
}

func TestCancelledBeforeStart(t *testing.T) {
	c, cancel := context.WithCancel(ctx)
	cancel()
	res, err := ts.Explore(c, grid{2, 2, 2}, ts.Options{})
	if !errors.Is(err, context.Canceled) || res.Transitions > 0 {
		t.Errorf("%+v, %v", res, err)
	}
}

// namedProg names its threads.
type namedProg struct{ *prog }

func (namedProg) ThreadName(t ts.Tid) string { return fmt.Sprintf("worker %d", t) }

// Traces and deadlock reports use the threads' names.
func TestThreadNames(t *testing.T) {
	sys := namedProg{&prog{threads: 2, steps: 1, lock: true}} // deadlocks
	res, err := ts.Explore(ctx, sys, ts.Options{})
	if err != nil || res.Violation == nil || res.Violation.Kind != ts.Deadlock {
		t.Fatalf("got %v, %v; want a deadlock", res, err)
	}
	v := res.Violation
	if msg := v.Err.Error(); !strings.Contains(msg, "T0 (worker 0) waits to") && !strings.Contains(msg, "T1 (worker 1) waits to") {
		t.Errorf("deadlock report %q lacks the names", msg)
	}
	if text := v.Trace.String(); !strings.Contains(text, "T0 (worker 0)") && !strings.Contains(text, "T1 (worker 1)") {
		t.Errorf("trace lacks the names:\n%s", text)
	}
	if v.Trace.Events[0].ThreadName == "" {
		t.Errorf("event without its thread's name: %+v", v.Trace.Events[0])
	}
}
