package ts

import (
	"fmt"
	"strings"
)

// Schedule is a sequence of thread choices from the initial state: the i-th
// transition is taken by thread Schedule[i]. Together with a deterministic
// system it replays an execution.
type Schedule []Tid

// Clone returns a copy of s that does not share its array.
func (s Schedule) Clone() Schedule {
	if s == nil {
		return nil
	}
	return append(Schedule(make([]Tid, 0, len(s))), s...)
}

// Event is one transition of a trace.
type Event struct {
	Thread Tid  `json:"thread"`
	Step   Step `json:"step"`
	// Preempt is true when this transition preempted the previous thread,
	// which was still enabled.
	Preempt bool `json:"preempt,omitempty"`
	// Desc is the system's description of the transition, if it has one.
	Desc string `json:"desc,omitempty"`
}

// Trace is an execution: its transitions in order and its preemption count.
type Trace struct {
	Events      []Event
	Preemptions int
}

// Schedule returns the thread of each transition.
func (t Trace) Schedule() Schedule {
	if len(t.Events) == 0 {
		return nil
	}
	s := make(Schedule, len(t.Events))
	for i, e := range t.Events {
		s[i] = e.Thread
	}
	return s
}

// String renders the trace one transition a line, with preemptions marked.
func (t Trace) String() string { return t.Format(nil) }

// Format renders the trace like String, naming objects with names when it is
// not nil.
func (t Trace) Format(names ObjNamer) string {
	var b strings.Builder
	for i, e := range t.Events {
		mark := "  "
		if e.Preempt {
			mark = "* "
		}
		fmt.Fprintf(&b, "%s%3d  T%d  %s", mark, i, e.Thread, e.Step.Format(names))
		if e.Desc != "" {
			fmt.Fprintf(&b, "  %s", e.Desc)
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "%d steps, %d preemptions (marked *)\n", len(t.Events), t.Preemptions)
	return b.String()
}

// Run is an execution replayed by [Replay].
type Run[S any] struct {
	Final     S          // the state the schedule ends in
	Trace     Trace      // its transitions, described where the system can
	Violation *Violation // the violation the final state shows, or nil
}

// Replay runs a schedule from the initial state, checking each state along the
// way, and returns the final state, the trace and the violation it ends in: a
// failed Check, a deadlock, or a panic in user code. The schedule must not go
// past a violation. A thread out of range or not enabled where the schedule
// moves it is an error wrapping [ErrThreadRange] or [ErrNotEnabled].
func Replay[S any](sys TransitionSystem[S], sched Schedule) (run Run[S], err error) {
	r := newRunner(sys)
	n, err := r.threadCount()
	if err != nil {
		return run, err
	}
	defer func() {
		if p := recover(); p != nil {
			run.Violation = r.panicViolation(p, sched[:r.pos], r.current)
			run.Final = *new(S)
			run.Trace = run.Violation.Trace
			err = nil
		}
	}()
	r.current = -1
	s := sys.Init()
	run.Final = s
	prev := Tid(-1)
	for i, t := range sched {
		r.pos, r.current = i, -1
		r.hash(s)
		if v := r.check(s); v != nil {
			return run, &SystemError{Err: ErrNotEnabled, Thread: t, Schedule: sched.Clone(), schedule: true,
				Detail: fmt.Sprintf("the schedule goes on after a violation at step %d: %v", i, v)}
		}
		if t < 0 || int(t) >= n {
			return run, &SystemError{Err: ErrThreadRange, Thread: t, Schedule: sched.Clone(), schedule: true,
				Detail: fmt.Sprintf("step %d moves thread %d of %d", i, t, n)}
		}
		r.pos, r.current = i+1, t
		step, st := sys.Next(s, t)
		if st != Enabled {
			return run, &SystemError{Err: ErrNotEnabled, Thread: t, Schedule: sched.Clone(), schedule: true,
				Detail: fmt.Sprintf("step %d: thread is %v", i, st)}
		}
		preempt := false
		if prev >= 0 && prev != t {
			if _, pst := sys.Next(s, prev); pst == Enabled {
				preempt = true
				run.Trace.Preemptions++
			}
		}
		run.Trace.Events = append(run.Trace.Events, Event{Thread: t, Step: step, Preempt: preempt, Desc: r.describe(s, t)})
		s = sys.Apply(s, t)
		run.Final = s
		prev = t
	}
	r.pos = len(sched)
	r.current = -1
	r.hash(s)
	if v := r.check(s); v != nil {
		v.Trace = run.Trace
		run.Violation = v
		return run, nil
	}
	if v := r.deadlock(s, n); v != nil {
		v.Trace = run.Trace
		run.Violation = v
	}
	return run, nil
}

// Preemptions returns the number of preemptions in sched: switches away from
// a thread that is still enabled. It replays the schedule.
func Preemptions[S any](sys TransitionSystem[S], sched Schedule) (int, error) {
	run, err := Replay(sys, sched)
	if err != nil {
		return 0, err
	}
	return run.Trace.Preemptions, nil
}
