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
	chooser   Chooser[S]
	invariant Invariant[S]
	names     ObjNamer
	threads   ThreadNamer

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
	r.chooser, _ = sys.(Chooser[S])
	r.invariant, _ = sys.(Invariant[S])
	r.names, _ = sys.(ObjNamer)
	r.threads, _ = sys.(ThreadNamer)
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

// invariantReads calls InvariantReads, as a search does once, so that Replay
// reproduces a panic in it.
func (r *runner[S]) invariantReads() []Obj {
	if r.invariant == nil {
		return nil
	}
	return r.invariant.InvariantReads()
}

// check runs Check, then Invariant, and returns the violation s shows.
func (r *runner[S]) check(s S) *Violation {
	if r.checker != nil {
		if err := r.checker.Check(s); err != nil {
			return &Violation{Kind: CheckFailure, Err: err, Thread: -1}
		}
	}
	if r.invariant != nil {
		if err := r.invariant.Invariant(s); err != nil {
			return &Violation{Kind: InvariantFailure, Err: err, Thread: -1}
		}
	}
	return nil
}

// outcomes returns the number of outcomes of t's next transition at s: 1
// unless the system is a Chooser.
func (r *runner[S]) outcomes(s S, t Tid) int {
	if r.chooser == nil {
		return 1
	}
	return r.chooser.Outcomes(s, t)
}

// apply takes move m at s: Apply for outcome 0, ApplyOutcome otherwise.
func (r *runner[S]) apply(s S, m Move) S {
	if m.Outcome == 0 {
		return r.sys.Apply(s, m.Thread)
	}
	return r.chooser.ApplyOutcome(s, m.Thread, m.Outcome)
}

// threadName returns t's name, or "". A panic in ThreadName only spoils
// the name.
func (r *runner[S]) threadName(t Tid) (name string) {
	if r.threads == nil {
		return ""
	}
	defer func() {
		if p := recover(); p != nil {
			name = fmt.Sprintf("(ThreadName panicked: %v)", p)
		}
	}()
	return r.threads.ThreadName(t)
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

// enabled returns the threads enabled at s, asking every thread as a search
// does, so that Replay reproduces a panic in any thread's Next.
func (r *runner[S]) enabled(s S, n int) []Tid {
	var on []Tid
	for t := range Tid(n) {
		r.current = t
		if _, st := r.sys.Next(s, t); st == Enabled {
			on = append(on, t)
		}
	}
	r.current = -1
	return on
}

// deadlock reports a deadlock at s: no thread enabled, some thread Blocked
// (Idle threads may wait forever). It asks every thread, as a search does,
// so that Replay reproduces a panic in any thread's Next.
func (r *runner[S]) deadlock(s S, n int) *Violation {
	var waiting []Waiter
	enabled := false
	for t := range Tid(n) {
		r.current = t
		step, st := r.sys.Next(s, t)
		switch st {
		case Enabled:
			enabled = true
		case Blocked:
			// The step is named now: a system's object names may change
			// with the execution (package threads names objects as they
			// are made), and the error may be read later, elsewhere.
			waiting = append(waiting, Waiter{Thread: t, Name: r.threadName(t), Step: step, Holder: -1, step: step.Format(r.names)})
		}
	}
	r.current = -1
	if enabled || len(waiting) == 0 {
		return nil
	}
	return &Violation{Kind: Deadlock, Thread: -1, Err: &DeadlockError{Waiting: waiting}}
}

// deadlocked reports whether s is a deadlock, as deadlock finds one, without
// naming the steps the threads wait for: for a violation that is only
// counted.
func (r *runner[S]) deadlocked(s S, n int) bool {
	blocked := false
	for t := range Tid(n) {
		r.current = t
		switch _, st := r.sys.Next(s, t); st {
		case Enabled:
			r.current = -1
			return false
		case Blocked:
			blocked = true
		}
	}
	r.current = -1
	return blocked
}

func (r *runner[S]) panicViolation(p any, sched Schedule, t Tid) *Violation {
	if t < 0 && len(sched) > 0 {
		// Neither Next nor Apply: Check, Invariant or Hash panicked at the
		// state the last step reached, and the violation is that step's.
		t = sched[len(sched)-1].Thread
	}
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
	for _, m := range sched {
		t := m.Thread
		step, _ := r.sys.Next(s, t)
		ev := Event{Thread: t, Step: step, Outcome: m.Outcome, ThreadName: r.threadName(t)}
		if k := r.outcomes(s, t); k > 1 {
			ev.Outcomes = k
		}
		if prev >= 0 && prev != t {
			if _, st := r.sys.Next(s, prev); st == Enabled {
				ev.Preempt = true
				tr.Preemptions++
			}
		}
		tr.Events = append(tr.Events, ev)
		prev = t
		s = r.apply(s, m)
	}
	return tr
}

// Waiter is a thread that waits in a deadlock: its pending step and, for a
// lock acquire, the thread that holds the lock (from the trace's Acquire and
// Release steps), or -1.
type Waiter struct {
	Thread Tid
	Name   string // the thread's name (ThreadNamer), or ""
	Step   Step
	Holder Tid
	step   string // Step formatted with the system's object names
}

// DeadlockError is the error of a [Deadlock] violation: the threads that
// wait, each with the step it cannot take.
type DeadlockError struct {
	Waiting []Waiter
}

func (e *DeadlockError) Error() string {
	var b strings.Builder
	b.WriteString("no thread enabled; blocked: ")
	for i, w := range e.Waiting {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "T%d", w.Thread)
		if w.Name != "" {
			fmt.Fprintf(&b, " (%s)", w.Name)
		}
		what := w.step
		if what == "" {
			what = w.Step.Format(nil)
		}
		fmt.Fprintf(&b, " waits to %s", what)
		if w.Holder >= 0 {
			fmt.Fprintf(&b, " (held by T%d)", w.Holder)
		}
	}
	return b.String()
}

// holders fills in who holds the locks the waiters of a deadlock at the end
// of tr wait for.
func (e *DeadlockError) holders(tr Trace) {
	held := map[Obj]Tid{}
	for _, ev := range tr.Events {
		for i := range ev.Step.NumAccesses() {
			switch a := ev.Step.At(i); a.Op {
			case Acquire:
				held[a.Obj] = ev.Thread
			case Release:
				delete(held, a.Obj)
			}
		}
	}
	for i := range e.Waiting {
		w := &e.Waiting[i]
		for j := range w.Step.NumAccesses() {
			if a := w.Step.At(j); a.Op == Acquire {
				if h, ok := held[a.Obj]; ok {
					w.Holder = h
					break
				}
			}
		}
	}
}

// Confirm replays the schedule of a violation that a search found and returns
// the violation as the replay shows it, with its full trace (steps,
// descriptions, preemptions). A replay that does not end in the same
// violation (the same kind and, for a failed check or invariant or a panic,
// the same message) means the system is not deterministic: the error wraps
// ErrNondeterministic. Strategies call it before they report a violation;
// for a panic they pass a Violation of kind Panic and the schedule up to the
// panicking transition, and the replay recovers the panic again.
func Confirm[S any](sys TransitionSystem[S], v *Violation, sched Schedule) (*Violation, error) {
	return ConfirmWith(sys, v, sched, Options{})
}

// ConfirmWith is Confirm under the options that change what counts as a
// violation (IgnoreDeadlocks).
func ConfirmWith[S any](sys TransitionSystem[S], v *Violation, sched Schedule, opt Options) (*Violation, error) {
	return confirm(newRunner(sys), v, sched, opt, true)
}

// Reproduces reports whether replaying sched ends in violation v, as
// ConfirmWith would confirm it, without building the trace: for a search
// that will only count v, having reported a violation already. False means
// only that ConfirmWith must say (with the error, or a panic's violation,
// which is always built with its trace).
func Reproduces[S any](sys TransitionSystem[S], v *Violation, sched Schedule, opt Options) bool {
	if v.Kind == Panic {
		return false
	}
	return NewReproducer(sys, opt).Reproduces(v, sched)
}

// confirm is ConfirmWith; without trace, the violation it returns has no
// trace (see replay).
func confirm[S any](r *runner[S], v *Violation, sched Schedule, opt Options, trace bool) (*Violation, error) {
	run, err := replay(r, sched, opt, trace)
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
	if v.Err != nil && rv.Err != nil && v.Kind != Deadlock && v.Kind != DataRace {
		if a, b := errText(v.Err), errText(rv.Err); a != b {
			return nil, systemError(ErrNondeterministic, v.Thread, sched,
				"the search found %v %q but replaying its schedule shows %q", v.Kind, a, b)
		}
	}
	if v.Thread >= 0 && (v.Kind == Panic || rv.Thread < 0) {
		// The search knows which thread's Next panicked; the replay, which
		// asks Next only of the threads it moves, may not. A search that
		// does not know (a panic in Check or Hash) takes the replay's.
		rv.Thread = v.Thread
	}
	return rv, nil
}

// errText is an error's message; for a panic, the panic value's.
func errText(err error) string {
	if pe, ok := err.(*PanicError); ok {
		return fmt.Sprint(pe.Value)
	}
	switch err.(type) {
	case interface{ Unwrap() error }, interface{ Unwrap() []error }, interface{ As(any) bool }:
		// it may hold a *PanicError: errors.As below finds it
	default:
		return err.Error() // errors.As would find no *PanicError: skip its reflection
	}
	var pe *PanicError
	if errors.As(err, &pe) {
		return fmt.Sprint(pe.Value)
	}
	return err.Error()
}

// stack returns the goroutine's stack, for panics.
func stack() string { return string(debug.Stack()) }
