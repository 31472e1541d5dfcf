package ts

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// NoBound is Result.Bound for a search without a preemption bound.
const NoBound = -1

// Result is what a search found: figures, coverage and the first violation.
// A violation is a result, not an error.
type Result struct {
	// Executions counts complete executions explored: runs that ended in a
	// terminal state or a violation, and for stateful searches runs cut at a
	// state already visited.
	Executions int64 `json:"executions"`
	// Transitions counts the transitions applied, replays included.
	Transitions int64 `json:"transitions"`
	// States counts the distinct states stored; 0 for stateless searches.
	States int64 `json:"states"`
	// Complete is true when the search covered everything it set out to
	// (within Bound, where there is one), and false when it stopped at a
	// violation, a limit or a cancellation.
	Complete bool `json:"complete"`
	// Bound is the preemption bound the search kept to, or NoBound.
	Bound int `json:"bound"`
	// Finds is what the search looks for: a clean result says nothing of
	// the kinds of violation it does not hold.
	Finds Kinds `json:"finds"`
	// Coverage holds figures per preemption bound 0..Bound, for strategies
	// that explore by increasing bound.
	Coverage []Coverage `json:"coverage,omitempty"`
	// Violation is the first violation found, or nil.
	Violation *Violation `json:"violation,omitempty"`
	// Violations counts the violations found (more than one only with
	// Options.KeepGoing).
	Violations int64 `json:"violations"`
	// Stats holds strategy-specific figures by name, such as memo cache hits.
	Stats map[string]int64 `json:"stats,omitempty"`
	// Estimated is, in a report to Options.Progress, how far the search is
	// by an estimate of its size (package estimate sets it), or nil.
	Estimated *Estimated `json:"estimated,omitempty"`
}

// Estimated is a search's progress by an estimate of its size.
type Estimated struct {
	Executions float64       `json:"executions"` // the whole search's executions, estimated
	Fraction   float64       `json:"fraction"`   // done: executions so far over the estimate, at most 1
	ETA        time.Duration `json:"eta"`        // time left at the pace so far; -1: unknown
}

// Coverage is what a bounded search had explored once it finished a bound.
// Figures are cumulative: bound c counts everything with at most c
// preemptions. TerminalStates counts the distinct terminal states that pass
// their checks (deadlocks included), as Options.OnTerminal sees them.
type Coverage struct {
	Bound          int   `json:"bound"`
	Executions     int64 `json:"executions"`
	TerminalStates int64 `json:"terminalStates"`
	States         int64 `json:"states,omitempty"`
}

// String summarizes the result in one line: the verdict, what the search
// did not look for, and the coverage.
func (r Result) String() string {
	var b strings.Builder
	switch {
	case r.Violation != nil:
		fmt.Fprintf(&b, "%v", r.Violation.Kind)
		if r.Violation.Err != nil {
			fmt.Fprintf(&b, " (%v)", r.Violation.Err)
		}
		fmt.Fprintf(&b, " with %s after %s", count(r.Violation.Trace.Preemptions, "preemption"), count(len(r.Violation.Trace.Events), "step"))
	case r.Complete && r.Bound != NoBound:
		fmt.Fprintf(&b, "no violation within %s", count(r.Bound, "preemption"))
	case r.Complete:
		b.WriteString("no violation")
	default:
		b.WriteString("no violation found (search incomplete)")
	}
	if r.Violation == nil && r.Finds != 0 {
		if miss := r.Finds.Missing(); miss != "" {
			fmt.Fprintf(&b, " (%s not looked for)", miss)
		}
	}
	fmt.Fprintf(&b, ": %s, %s", count(r.Executions, "execution"), count(r.Transitions, "transition"))
	if r.States > 0 {
		fmt.Fprintf(&b, ", %s", count(r.States, "state"))
	}
	return b.String()
}

// ViolationKind says what kind of bug a violation is.
type ViolationKind uint8

const (
	// CheckFailure: the system's Check returned an error.
	CheckFailure ViolationKind = iota + 1
	// Deadlock: no thread enabled while some thread is Blocked (not Idle).
	Deadlock
	// DataRace: two accesses to the same data object, at least one a write,
	// not ordered by happens-before.
	DataRace
	// Panic: user code (Next, Apply, Check, Hash, Describe) panicked.
	Panic
	// InvariantFailure: the system's global Invariant returned an error.
	InvariantFailure
)

var kindNames = [...]string{CheckFailure: "check failure", Deadlock: "deadlock", DataRace: "data race",
	Panic: "panic", InvariantFailure: "invariant failure"}

func (k ViolationKind) String() string {
	if k > 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("ViolationKind(%d)", uint8(k))
}

// MarshalText encodes the kind as its name ("deadlock").
func (k ViolationKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Kinds is a set of violation kinds.
type Kinds uint8

// KindsOf returns the set of the given kinds.
func KindsOf(kinds ...ViolationKind) Kinds {
	var s Kinds
	for _, k := range kinds {
		s |= 1 << k
	}
	return s
}

// Has reports whether k is in the set.
func (s Kinds) Has(k ViolationKind) bool { return s&(1<<k) != 0 }

// With returns the set with k added.
func (s Kinds) With(k ViolationKind) Kinds { return s | 1<<k }

// Without returns the set with k removed.
func (s Kinds) Without(k ViolationKind) Kinds { return s &^ (1 << k) }

// List returns the kinds in the set, in order.
func (s Kinds) List() []ViolationKind {
	var out []ViolationKind
	for k := CheckFailure; k <= InvariantFailure; k++ {
		if s.Has(k) {
			out = append(out, k)
		}
	}
	return out
}

// String lists the kinds' names ("check failure, deadlock").
func (s Kinds) String() string {
	var names []string
	for _, k := range s.List() {
		names = append(names, k.String())
	}
	return strings.Join(names, ", ")
}

// Missing names the kinds a search that finds s does not look for, among
// those every system can show (check failures, invariant failures,
// deadlocks, panics; data races are only looked for by race-checking
// strategies and are not named): "deadlocks", or "" when none.
func (s Kinds) Missing() string {
	var names []string
	for _, k := range []ViolationKind{CheckFailure, InvariantFailure, Deadlock, Panic} {
		if !s.Has(k) {
			names = append(names, k.String()+"s")
		}
	}
	return strings.Join(names, " and ")
}

// MarshalJSON encodes the set as a list of kind names.
func (s Kinds) MarshalJSON() ([]byte, error) {
	names := []string{}
	for _, k := range s.List() {
		names = append(names, k.String())
	}
	return json.Marshal(names)
}

// Violation is a bug found by a search, with the schedule that shows it.
type Violation struct {
	Kind ViolationKind
	// Err says what went wrong: the Check or Invariant error, a *PanicError,
	// the race, or a *DeadlockError.
	Err error
	// Thread is the thread whose step showed the violation (the one that
	// panicked, or took the last step), or -1.
	Thread Tid
	// Trace is the replayable execution from the initial state that ends in
	// the violation.
	Trace Trace
}

func (v *Violation) Error() string {
	return fmt.Sprintf("%v: %v (schedule %v, %s)", v.Kind, v.Err, v.Trace.Schedule().Short(64), count(v.Trace.Preemptions, "preemption"))
}

// Unwrap returns the violation's error.
func (v *Violation) Unwrap() error { return v.Err }

// MarshalJSON encodes the violation with its kind, message, schedule,
// preemption count and steps.
func (v *Violation) MarshalJSON() ([]byte, error) {
	msg := ""
	if v.Err != nil {
		msg = v.Err.Error()
	}
	sched := v.Trace.Schedule()
	if sched == nil {
		sched = Schedule{}
	}
	return json.Marshal(struct {
		Kind        ViolationKind `json:"kind"`
		Error       string        `json:"error"`
		Thread      Tid           `json:"thread"`
		Schedule    Schedule      `json:"schedule"`
		Replay      string        `json:"replay"`
		Preemptions int           `json:"preemptions"`
		Steps       []Event       `json:"steps"`
	}{v.Kind, msg, v.Thread, sched, sched.String(), v.Trace.Preemptions, v.Trace.Events})
}

// count writes n and the noun, in the plural unless n is 1.
func count[N int | int64](n N, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
