package ts

import (
	"fmt"
	"strconv"
	"strings"
)

// Move is one transition of a schedule: the thread that takes it and, for a
// step of several outcomes, the outcome (0 otherwise).
type Move struct {
	Thread  Tid `json:"thread"`
	Outcome int `json:"outcome,omitempty"`
}

// String renders the move as "2", or "2/1" for outcome 1.
func (m Move) String() string {
	if m.Outcome == 0 {
		return strconv.Itoa(int(m.Thread))
	}
	return fmt.Sprintf("%d/%d", m.Thread, m.Outcome)
}

// Schedule is a sequence of moves from the initial state: the i-th
// transition is taken by thread Schedule[i].Thread, with outcome
// Schedule[i].Outcome. Together with a deterministic system it replays an
// execution. Its text form, from String and for [ParseSchedule], lists the
// moves: "[0 1 1/2 0]".
type Schedule []Move

// ScheduleOf returns the schedule of the given threads, each with outcome 0.
func ScheduleOf(threads ...Tid) Schedule {
	s := make(Schedule, len(threads))
	for i, t := range threads {
		s[i].Thread = t
	}
	return s
}

// Clone returns a copy of s that does not share its array.
func (s Schedule) Clone() Schedule {
	if s == nil {
		return nil
	}
	return append(Schedule(make([]Move, 0, len(s))), s...)
}

// Threads returns the thread of each move.
func (s Schedule) Threads() []Tid {
	ts := make([]Tid, len(s))
	for i, m := range s {
		ts[i] = m.Thread
	}
	return ts
}

// Equal reports whether s and o are the same moves.
func (s Schedule) Equal(o Schedule) bool {
	if len(s) != len(o) {
		return false
	}
	for i := range s {
		if s[i] != o[i] {
			return false
		}
	}
	return true
}

// String renders the schedule as "[0 1 1/2 0]".
func (s Schedule) String() string {
	var b strings.Builder
	b.WriteByte('[')
	for i, m := range s {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(m.String())
	}
	b.WriteByte(']')
	return b.String()
}

// Short renders the schedule as String does when it has at most max moves,
// and otherwise as its length and its last max moves.
func (s Schedule) Short(max int) string {
	if len(s) <= max {
		return s.String()
	}
	return fmt.Sprintf("%d moves, ending ...%v", len(s), s[len(s)-max:].String()[1:])
}

// ParseSchedule parses the text form of a schedule: moves "t" or "t/c"
// (thread t, outcome c) separated by spaces or commas, optionally in
// brackets. A bracket without its pair, or an empty text, is an error: a
// schedule cut off on its way (a token pasted in part) must not pass for a
// shorter one. The empty schedule is written "[]".
func ParseSchedule(text string) (Schedule, error) {
	text = strings.TrimSpace(text)
	opened, closed := strings.HasPrefix(text, "["), strings.HasSuffix(text, "]")
	switch {
	case text == "":
		return nil, fmt.Errorf("ts: parsing schedule: empty text (the empty schedule is \"[]\")")
	case opened && !closed:
		return nil, fmt.Errorf("ts: parsing schedule %q: no closing ']': the schedule may be cut off", text)
	case closed && !opened:
		return nil, fmt.Errorf("ts: parsing schedule %q: ']' without '['", text)
	case opened:
		text = text[1 : len(text)-1]
	}
	fields := strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' || r == '\n' })
	s := make(Schedule, 0, len(fields))
	for _, f := range fields {
		tpart, cpart, hasC := strings.Cut(f, "/")
		t, err := strconv.Atoi(tpart)
		if err != nil || t < 0 {
			return nil, fmt.Errorf("ts: parsing schedule: bad thread %q in move %d", tpart, len(s))
		}
		m := Move{Thread: Tid(t)}
		if hasC {
			c, err := strconv.Atoi(cpart)
			if err != nil || c < 0 {
				return nil, fmt.Errorf("ts: parsing schedule: bad outcome %q in move %d", cpart, len(s))
			}
			m.Outcome = c
		}
		s = append(s, m)
	}
	return s, nil
}

// Event is one transition of a trace.
type Event struct {
	Thread Tid  `json:"thread"`
	Step   Step `json:"step"`
	// Outcome is the outcome taken, of Outcomes, for a transition of
	// several (see Chooser); both are 0 otherwise.
	Outcome  int `json:"outcome,omitempty"`
	Outcomes int `json:"outcomes,omitempty"`
	// Preempt is true when this transition preempted the previous thread,
	// which was still enabled.
	Preempt bool `json:"preempt,omitempty"`
	// Desc is the system's description of the transition, if it has one.
	Desc string `json:"desc,omitempty"`
	// ThreadName is the thread's name, if the system names it
	// (ThreadNamer).
	ThreadName string `json:"thread_name,omitempty"`
}

// Move returns the event's thread and outcome.
func (e Event) Move() Move { return Move{Thread: e.Thread, Outcome: e.Outcome} }

// Trace is an execution: its transitions in order and its preemption count.
type Trace struct {
	Events      []Event
	Preemptions int
}

// Schedule returns the move of each transition.
func (t Trace) Schedule() Schedule {
	if len(t.Events) == 0 {
		return nil
	}
	s := make(Schedule, len(t.Events))
	for i, e := range t.Events {
		s[i] = e.Move()
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
		fmt.Fprintf(&b, "%s%3d  T%d", mark, i, e.Thread)
		if e.ThreadName != "" {
			fmt.Fprintf(&b, " (%s)", e.ThreadName)
		}
		fmt.Fprintf(&b, "  %s", e.Step.Format(names))
		if e.Outcomes > 1 {
			fmt.Fprintf(&b, " -> outcome %d of %d", e.Outcome, e.Outcomes)
		}
		if e.Desc != "" {
			fmt.Fprintf(&b, "  %s", e.Desc)
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "%s, %s (marked *)\n", count(len(t.Events), "step"), count(t.Preemptions, "preemption"))
	return b.String()
}

// Run is an execution replayed by [Replay].
type Run[S any] struct {
	Final     S          // the state the schedule ends in
	Trace     Trace      // its transitions, described where the system can
	Violation *Violation // the violation the final state shows, or nil
	// Enabled lists the threads enabled at Final when it shows no
	// violation: empty where the execution ended, not empty where the
	// schedule stops before its end.
	Enabled []Tid
}

// Replay runs a schedule from the initial state, checking each state along the
// way, and returns the final state, the trace and the violation it ends in: a
// failed Check or Invariant, a deadlock, or a panic in user code. The
// schedule must not go past a violation. A thread out of range, not enabled
// where the schedule moves it, or an outcome out of range is an error
// wrapping [ErrThreadRange] or [ErrNotEnabled]. A schedule may stop before
// the execution ends, with no violation: Run.Enabled then lists the threads
// that could move on.
func Replay[S any](sys TransitionSystem[S], sched Schedule) (run Run[S], err error) {
	return ReplayWith(sys, sched, Options{})
}

// ReplayWith is Replay under the options that change what counts as a
// violation (IgnoreDeadlocks); the other fields are ignored.
func ReplayWith[S any](sys TransitionSystem[S], sched Schedule, opt Options) (run Run[S], err error) {
	return replay(newRunner(sys), sched, opt, true)
}

// replay is ReplayWith; without trace, it builds no trace (no events,
// descriptions, names or preemptions), does not call Hash (which a replay
// calls to reproduce a panic in it), and returns neither the enabled
// threads nor a deadlock's waiting steps, for a search that confirms a
// violation other than a panic that it will only count. It runs on r, whose
// current thread and position it sets as it goes.
func replay[S any](r *runner[S], sched Schedule, opt Options, trace bool) (run Run[S], err error) {
	sys := r.sys
	n, err := r.threadCount()
	if err != nil {
		return run, err
	}
	defer func() {
		if p := recover(); p != nil {
			if se, isSE := p.(*SystemError); isSE {
				err = se
				return
			}
			run.Violation = r.panicViolation(p, sched[:r.pos], r.current)
			run.Final = *new(S)
			run.Trace = run.Violation.Trace
			err = nil
		}
	}()
	r.current = -1
	r.invariantReads()
	s := sys.Init()
	run.Final = s
	prev := Tid(-1)
	for i, m := range sched {
		t := m.Thread
		r.pos, r.current = i, -1
		if trace {
			r.hash(s)
		}
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
		outs := r.outcomes(s, t)
		if outs < 1 {
			return run, systemError(ErrBadStep, t, sched[:i], "Outcomes returned %d, want at least 1", outs)
		}
		if m.Outcome < 0 || m.Outcome >= outs {
			return run, &SystemError{Err: ErrNotEnabled, Thread: t, Schedule: sched.Clone(), schedule: true,
				Detail: fmt.Sprintf("step %d: outcome %d of a transition with %d", i, m.Outcome, outs)}
		}
		if trace {
			preempt := false
			if prev >= 0 && prev != t {
				if _, pst := sys.Next(s, prev); pst == Enabled {
					preempt = true
					run.Trace.Preemptions++
				}
			}
			ev := Event{Thread: t, Step: step, Outcome: m.Outcome, Preempt: preempt, Desc: r.describe(s, t), ThreadName: r.threadName(t)}
			if outs > 1 {
				ev.Outcomes = outs
			}
			run.Trace.Events = append(run.Trace.Events, ev)
		}
		s = r.apply(s, m)
		run.Final = s
		prev = t
	}
	r.pos = len(sched)
	r.current = -1
	if trace {
		r.hash(s)
	}
	// The violation shows at the state the schedule's last step reaches:
	// that step's thread is the violation's (Violation.Thread).
	if v := r.check(s); v != nil {
		v.Trace, v.Thread = run.Trace, prev
		run.Violation = v
		return run, nil
	}
	if !trace {
		// A confirmation that builds no trace wants the violation's kind
		// only: the waiting steps are not named.
		if !opt.IgnoreDeadlocks && r.deadlocked(s, n) {
			run.Violation = &Violation{Kind: Deadlock, Thread: prev}
		}
		return run, nil
	}
	run.Enabled = r.enabled(s, n)
	if len(run.Enabled) > 0 || opt.IgnoreDeadlocks {
		return run, nil
	}
	if v := r.deadlock(s, n); v != nil {
		v.Trace, v.Thread = run.Trace, prev
		v.Err.(*DeadlockError).holders(run.Trace)
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
