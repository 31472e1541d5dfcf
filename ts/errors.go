package ts

import (
	"errors"
	"fmt"
	"strings"
)

var (
	// ErrBadOptions is wrapped by every error about invalid options.
	ErrBadOptions = errors.New("weft: bad options")

	// ErrBadSystem is wrapped by every error about a system that breaks the
	// TransitionSystem contract. The error is a *SystemError, which also
	// wraps one of the more specific errors below.
	ErrBadSystem = errors.New("weft: transition system breaks its contract")

	// ErrMutated: Apply modified the state it was given.
	//lint:ignore ST1005 Apply is the method's name
	ErrMutated = errors.New("Apply modified its argument")
	// ErrNondeterministic: the same schedule reached different steps,
	// statuses or states.
	ErrNondeterministic = errors.New("system is not deterministic")
	// ErrThreadRange: a thread id outside 0..Threads()-1, or a thread count
	// outside 1..MaxThreads.
	ErrThreadRange = errors.New("thread id out of range")
	// ErrBadStep: Next returned an undefined Op or Status, an object out of
	// range or twice in one step, or a step of several outcomes from a system
	// that is not a Chooser.
	ErrBadStep = errors.New("invalid step or status")
	// ErrDepth: an execution longer than the depth limit; the system may not
	// terminate.
	ErrDepth = errors.New("execution exceeds the depth limit")
	// ErrNotEnabled: a schedule asks a thread to move that is not enabled.
	ErrNotEnabled = errors.New("scheduled thread is not enabled")
	// ErrNoHash: a stateful strategy was given a system without Hash.
	ErrNoHash = errors.New("stateful search needs the system to implement Hasher")
	// ErrMemory: a search would keep more than Limits.Memory bytes.
	ErrMemory = errors.New("weft: search exceeds its memory budget")
	// ErrUnsupported: a strategy was given a system that uses a feature of
	// the model it does not support, or options it cannot honour.
	ErrUnsupported = errors.New("weft: strategy does not support this system")
	// ErrCallback: one of the caller's own callbacks (OnTerminal,
	// OnViolation, Progress, ...) panicked. The error is a *CallbackError.
	ErrCallback = errors.New("weft: a callback panicked")
)

// CallbackError reports a panic in one of the caller's callbacks: which one,
// the panic value and the stack. It wraps ErrCallback.
type CallbackError struct {
	Callback string // "OnTerminal", "OnViolation", "Progress", ...
	Value    any
	Stack    string
}

func (e *CallbackError) Error() string {
	return fmt.Sprintf("weft: callback %s panicked: %v", e.Callback, e.Value)
}

// Unwrap returns ErrCallback and the panic value if it is an error.
func (e *CallbackError) Unwrap() []error {
	if err, ok := e.Value.(error); ok {
		return []error{ErrCallback, err}
	}
	return []error{ErrCallback}
}

// MaxThreads is the largest thread count weft accepts.
const MaxThreads = 4096

// SystemError reports a broken system or an unusable schedule: what went
// wrong, the thread involved, and the schedule from the initial state that
// shows it. It wraps ErrBadSystem (unless the schedule itself was bad input)
// and the specific error.
//
// A system that wraps another may panic with a *SystemError when it finds
// the system it wraps broken (an adapter over a simulator whose replay went
// another way): every strategy, Replay and Confirm then stop with that
// error instead of reporting a violation of kind Panic.
type SystemError struct {
	Err      error    // ErrMutated, ErrNondeterministic, ErrThreadRange, ...
	Thread   Tid      // the thread involved, or -1
	Schedule Schedule // from the initial state to where it showed
	Detail   string   // what was seen, in words
	schedule bool     // the schedule was the caller's input, not the system's fault
}

func (e *SystemError) Error() string {
	var b strings.Builder
	b.WriteString("weft: ")
	b.WriteString(strings.TrimPrefix(e.Err.Error(), "weft: "))
	if e.Thread >= 0 {
		fmt.Fprintf(&b, ": thread %d", e.Thread)
	}
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	fmt.Fprintf(&b, " (schedule %s)", e.Schedule.Short(64))
	return b.String()
}

// Unwrap returns the specific error and, for defects of the system,
// ErrBadSystem.
func (e *SystemError) Unwrap() []error {
	if e.schedule {
		return []error{e.Err}
	}
	return []error{ErrBadSystem, e.Err}
}

func systemError(err error, t Tid, sched Schedule, format string, args ...any) *SystemError {
	return &SystemError{Err: err, Thread: t, Schedule: sched.Clone(), Detail: fmt.Sprintf(format, args...)}
}

// PanicError is the error of a violation of kind Panic: user code panicked.
type PanicError struct {
	Value any    // what was passed to panic
	Stack string // the goroutine's stack at the panic
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Unwrap returns the panic value if it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}
