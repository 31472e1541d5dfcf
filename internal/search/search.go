package search

import (
	"context"
	"errors"
	"fmt"

	"github.com/weftlab/weft/ts"
)

// Context returns an error wrapping ts.ErrBadOptions for a nil context, the
// one argument a search cannot do without.
func Context(ctx context.Context) error {
	if ctx == nil {
		return fmt.Errorf("%w: nil context", ts.ErrBadOptions)
	}
	return nil
}

// Threads calls sys.Threads, turning a panic or a count out of range into an
// error that wraps ts.ErrBadSystem. It is for strategies that do not support
// the extended model yet: it refuses a ts.Invariant that reads any object
// with an error wrapping ts.ErrUnsupported, and value-dependent steps
// (ts.ValueDependent) likewise (and Look refuses the other features).
// Strategies that do support it use NewModel.
func Threads[S any](sys ts.TransitionSystem[S]) (n int, err error) {
	if err := RefuseValueDependent(sys, "this strategy"); err != nil {
		return 0, err
	}
	if inv, ok := sys.(ts.Invariant[S]); ok {
		reads, err := invariantReads(inv)
		if err != nil {
			return 0, err
		}
		if len(reads) > 0 {
			return 0, fmt.Errorf("%w: a global invariant (ts.Invariant)", ts.ErrUnsupported)
		}
	}
	return threads(sys)
}

// ThreadCount calls sys.Threads as NewModel does, for a caller that needs
// the count without the model: a panic or a count out of range is an error
// wrapping ts.ErrBadSystem.
func ThreadCount[S any](sys ts.TransitionSystem[S]) (n int, err error) { return threads(sys) }

func threads[S any](sys ts.TransitionSystem[S]) (n int, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &ts.SystemError{Err: ts.ErrBadSystem, Thread: -1, Detail: fmt.Sprintf("Threads panicked: %v", p)}
		}
	}()
	n = sys.Threads()
	if n < 1 || n > ts.MaxThreads {
		return 0, &ts.SystemError{Err: ts.ErrThreadRange, Thread: -1,
			Detail: fmt.Sprintf("Threads() = %d, want 1..%d", n, ts.MaxThreads)}
	}
	return n, nil
}

// Look fills steps and status with every thread's next step and status at s
// and counts the enabled and blocked threads. It is for strategies that do
// not support the extended model yet: a step of several objects, a
// transition of several outcomes or an Idle thread is an error wrapping
// ts.ErrUnsupported.
// *current names the thread whose Next is running, for the violation a panic
// becomes; Look leaves it -1. A step or status outside the defined values is
// an error wrapping ts.ErrBadStep; its Schedule is for the caller to fill
// (WithSchedule).
func Look[S any](sys ts.TransitionSystem[S], s S, steps []ts.Step, status []ts.Status, current *ts.Tid) (enabled, blocked int, err error) {
	chooser, _ := sys.(ts.Chooser[S])
	for t := range ts.Tid(len(status)) {
		*current = t
		steps[t], status[t] = sys.Next(s, t) // at once, and read field by field: see Model.Look
		st := status[t]
		if err := validate(t, steps[t], st); err != nil {
			*current = -1
			return 0, 0, err
		}
		switch {
		case st == ts.Idle:
			err = fmt.Errorf("%w: thread %d is Idle", ts.ErrUnsupported, t)
		case st != ts.Finished && !steps[t].Single():
			err = fmt.Errorf("%w: thread %d's step touches several objects (%v)", ts.ErrUnsupported, t, steps[t])
		case st == ts.Enabled && chooser != nil && chooser.Outcomes(s, t) > 1:
			err = fmt.Errorf("%w: thread %d's transition has %d outcomes", ts.ErrUnsupported, t, chooser.Outcomes(s, t))
		}
		if err != nil {
			*current = -1
			return 0, 0, &ts.SystemError{Err: err, Thread: t}
		}
		switch st {
		case ts.Enabled:
			enabled++
		case ts.Blocked:
			blocked++
		}
	}
	*current = -1
	return enabled, blocked, nil
}

// validate returns the ts.ErrBadStep error for a step or status outside the
// defined values, or nil.
func validate(t ts.Tid, step ts.Step, st ts.Status) error {
	if st.Valid() && (st == ts.Finished || step.Valid()) {
		return nil
	}
	detail := fmt.Sprintf("Next returned status %v", st)
	if st.Valid() {
		detail = fmt.Sprintf("Next returned step %v: %v", step, step.Validate())
	}
	return &ts.SystemError{Err: ts.ErrBadStep, Thread: t, Detail: detail}
}

// WithSchedule sets the schedule of a *ts.SystemError to a copy of sched.
func WithSchedule(err error, sched ts.Schedule) error {
	var se *ts.SystemError
	if errors.As(err, &se) {
		se.Schedule = sched.Clone()
	}
	return err
}

// BudgetSpent reports whether a limit or the context stops the search before
// its next transition, with the cancellation error if that is why. It asks
// the context itself, which costs more than Outcome.Spent: use it only
// outside a search's transition loop.
func BudgetSpent(ctx context.Context, opt *ts.Options, res *ts.Result) (bool, error) {
	l := opt.Limits
	if (l.Transitions > 0 && res.Transitions >= l.Transitions) ||
		(l.Executions > 0 && res.Executions >= l.Executions) {
		return true, nil
	}
	if ctx.Err() != nil {
		return true, Cancelled(ctx)
	}
	return false, nil
}

// Cancelled is the error of a search stopped by its context.
func Cancelled(ctx context.Context) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return fmt.Errorf("weft: search cancelled: %w (%w)", err, cause)
	}
	return fmt.Errorf("weft: search cancelled: %w", err)
}

// OneWorker refuses a worker count above 1 (ts.Options.Workers) for a
// strategy that explores on the caller's goroutine only, so that asking for
// workers never silently gets one.
func OneWorker(opt *ts.Options, strategy string) error {
	if opt.Workers > 1 {
		return fmt.Errorf("%w: %s explores on one goroutine: Workers must be 0 or 1, not %d (odpor, dpor, sleep and dfs-stateful split their search)", ts.ErrBadOptions, strategy, opt.Workers)
	}
	return nil
}
