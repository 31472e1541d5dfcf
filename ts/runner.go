package ts

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
)

// runner holds a system with its capabilities found once, and the helpers that
// every search and Replay share.
type runner[S any] struct {
	sys       TransitionSystem[S]
	checker   Checker[S]
	hasher    Hasher[S]
	describer Describer[S]

	// Where user code is running, for the violation a panic becomes.
	current Tid  // thread whose Next or Apply is running, or -1
	pushing bool // the running call belongs to the transition being taken
	pos     int  // Replay: index of the step being replayed
}

func newRunner[S any](sys TransitionSystem[S]) *runner[S] {
	r := &runner[S]{sys: sys, current: -1}
	r.checker, _ = sys.(Checker[S])
	r.hasher, _ = sys.(Hasher[S])
	r.describer, _ = sys.(Describer[S])
	return r
}

// threadCount calls Threads, turning a panic or a count out of range into an
// error.
func (r *runner[S]) threadCount() (n int, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &SystemError{Err: ErrBadSystem, Thread: -1, Detail: fmt.Sprintf("Threads panicked: %v", p)}
		}
	}()
	n = r.sys.Threads()
	if n < 1 || n > MaxThreads {
		return 0, systemError(ErrThreadRange, -1, nil, "Threads() = %d, want 1..%d", n, MaxThreads)
	}
	return n, nil
}

func (r *runner[S]) check(s S) *Violation {
	if r.checker == nil {
		return nil
	}
	if err := r.checker.Check(s); err != nil {
		return &Violation{Kind: CheckFailure, Err: err, Thread: -1}
	}
	return nil
}

// describe asks the system to describe t's next transition. A panic in
// Describe only spoils the description.
func (r *runner[S]) describe(s S, t Tid) (d string) {
	if r.describer == nil {
		return ""
	}
	defer func() {
		if p := recover(); p != nil {
			d = fmt.Sprintf("(Describe panicked: %v)", p)
		}
	}()
	return r.describer.Describe(s, t)
}

// hash calls Hash for its panics only: Replay reproduces what a search saw.
func (r *runner[S]) hash(s S) {
	if r.hasher != nil {
		r.current = -1
		r.hasher.Hash(s)
	}
}

// deadlock reports a deadlock at s: no thread enabled, some thread blocked.
// It asks every thread, as a search does, so that Replay reproduces a panic
// in any thread's Next.
func (r *runner[S]) deadlock(s S, n int) *Violation {
	var blocked []string
	enabled := false
	for t := range Tid(n) {
		r.current = t
		_, st := r.sys.Next(s, t)
		switch st {
		case Enabled:
			enabled = true
		case Blocked:
			blocked = append(blocked, fmt.Sprint(t))
		}
	}
	r.current = -1
	if enabled || len(blocked) == 0 {
		return nil
	}
	return &Violation{Kind: Deadlock, Thread: -1,
		Err: fmt.Errorf("no thread enabled; blocked: %s", strings.Join(blocked, ", "))}
}

func (r *runner[S]) panicViolation(p any, sched Schedule, t Tid) *Violation {
	v := &Violation{Kind: Panic, Err: &PanicError{Value: p, Stack: string(debug.Stack())}, Thread: t}
	// The trace is what could be replayed up to the panic; the panicking
	// transition is the last event when Apply panicked.
	v.Trace = traceOf(r, sched)
	return v
}

// traceOf rebuilds the events of a schedule without checking it; used where
// Replay cannot run (its own panic path).
func traceOf[S any](r *runner[S], sched Schedule) (tr Trace) {
	defer func() { _ = recover() }() // best effort: the schedule ends in a panic
	s := r.sys.Init()
	prev := Tid(-1)
	for _, t := range sched {
		step, _ := r.sys.Next(s, t)
		ev := Event{Thread: t, Step: step}
		if prev >= 0 && prev != t {
			if _, st := r.sys.Next(s, prev); st == Enabled {
				ev.Preempt = true
				tr.Preemptions++
			}
		}
		tr.Events = append(tr.Events, ev)
		prev = t
		s = r.sys.Apply(s, t)
	}
	return tr
}

// Confirm replays the schedule of a violation that a search found and returns
// the violation as the replay shows it, with its full trace (steps,
// descriptions, preemptions). A replay that does not end in the same kind of
// violation means the system is not deterministic: the error wraps
// ErrNondeterministic. Strategies call it before they report a violation; for
// a panic they pass a Violation of kind Panic and the schedule up to the
// panicking transition, and the replay recovers the panic again.
func Confirm[S any](sys TransitionSystem[S], v *Violation, sched Schedule) (*Violation, error) {
	run, err := Replay(sys, sched)
	if err != nil {
		var se *SystemError
		if errors.As(err, &se) {
			se.schedule = false
			se.Detail = "replaying a violation: " + se.Detail
			se.Err = errors.Join(ErrNondeterministic, se.Err)
		}
		return nil, err
	}
	if run.Violation == nil || run.Violation.Kind != v.Kind {
		got := "no violation"
		if run.Violation != nil {
			got = run.Violation.Kind.String()
		}
		return nil, systemError(ErrNondeterministic, v.Thread, sched,
			"the search found a %v but replaying its schedule shows %s", v.Kind, got)
	}
	rv := run.Violation
	if v.Kind == Panic || rv.Thread < 0 {
		rv.Thread = v.Thread
	}
	if (v.Kind == CheckFailure || v.Kind == Panic) && v.Err != nil {
		rv.Err = v.Err // keep the search's error (and its stack)
	}
	return rv, nil
}
