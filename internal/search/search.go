package search

import (
	"context"
	"errors"
	"fmt"

	"github.com/weftlab/weft/ts"
)

// Threads calls sys.Threads, turning a panic or a count out of range into an
// error that wraps ts.ErrBadSystem.
func Threads[S any](sys ts.TransitionSystem[S]) (n int, err error) {
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
// and counts the enabled and blocked threads. *current names the thread whose
// Next is running, for the violation a panic becomes; Look leaves it -1. A
// step or status outside the defined values is an error wrapping
// ts.ErrBadStep; its Schedule is for the caller to fill (WithSchedule).
func Look[S any](sys ts.TransitionSystem[S], s S, steps []ts.Step, status []ts.Status, current *ts.Tid) (enabled, blocked int, err error) {
	for t := range ts.Tid(len(status)) {
		*current = t
		step, st := sys.Next(s, t)
		if st > ts.Finished || (st != ts.Finished && (!step.Op.Valid() || step.Obj < 0)) {
			*current = -1
			return 0, 0, &ts.SystemError{Err: ts.ErrBadStep, Thread: t,
				Detail: fmt.Sprintf("Next returned step %v with status %v", step, st)}
		}
		steps[t], status[t] = step, st
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

// WithSchedule sets the schedule of a *ts.SystemError to a copy of sched.
func WithSchedule(err error, sched ts.Schedule) error {
	var se *ts.SystemError
	if errors.As(err, &se) {
		se.Schedule = sched.Clone()
	}
	return err
}

// BudgetSpent reports whether a limit or the context stops the search before
// its next transition, with the cancellation error if that is why. The
// context is polled every 1024 transitions.
func BudgetSpent(ctx context.Context, opt *ts.Options, res *ts.Result) (bool, error) {
	l := opt.Limits
	if (l.Transitions > 0 && res.Transitions >= l.Transitions) ||
		(l.Executions > 0 && res.Executions >= l.Executions) {
		return true, nil
	}
	if res.Transitions&1023 == 0 {
		if err := ctx.Err(); err != nil {
			return true, fmt.Errorf("weft: search cancelled: %w", err)
		}
	}
	return false, nil
}
