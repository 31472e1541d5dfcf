package search

import (
	"context"

	"github.com/weftlab/weft/ts"
)

// Outcome is the part of a search that every strategy shares: the result
// being filled, when the search must stop, and why. Strategies embed it.
type Outcome struct {
	Ctx  context.Context
	Opt  *ts.Options
	Res  *ts.Result
	Stop bool  // the search must stop: a violation (unless KeepGoing), a limit, an error
	Err  error // the first error, returned by the search
}

// Fail records err, unless an error came first, and stops the search.
func (o *Outcome) Fail(err error) {
	if o.Err == nil {
		o.Err = err
	}
	o.Stop = true
}

// Record counts a confirmed violation, keeps the first, calls OnViolation and
// stops the search unless it is to keep going.
func (o *Outcome) Record(v *ts.Violation) {
	o.Res.Violations++
	if o.Res.Violation == nil {
		o.Res.Violation = v
	}
	if o.Opt.OnViolation != nil {
		o.Opt.OnViolation(v)
	}
	if !o.Opt.KeepGoing {
		o.Stop = true
	}
}

// Confirm replays the schedule of a violation found by the search
// (ts.Confirm) and records it, or records the error if it does not replay.
// It does not count an execution: the caller knows whether one ended.
func Confirm[S any](o *Outcome, sys ts.TransitionSystem[S], v *ts.Violation, sched ts.Schedule) {
	rv, err := ts.Confirm(sys, v, sched.Clone())
	if err != nil {
		o.Fail(err)
		return
	}
	o.Record(rv)
}

// Spent reports whether a limit or the context stops the search before its
// next transition, and stops it if so.
func (o *Outcome) Spent() bool {
	spent, err := BudgetSpent(o.Ctx, o.Opt, o.Res)
	if !spent {
		return false
	}
	if err != nil {
		o.Fail(err)
	}
	o.Stop = true
	return true
}

// Drive runs a search whose user code may panic: root, then loop until it
// returns normally or the search stops. A panic in either is recovered and
// handed to panicked, called in the deferred function (so the stack is still
// the panicking one), which turns it into a violation with its schedule;
// loop is called again unless that stopped the search (with KeepGoing the
// search resumes where it was). loop must therefore pick up where a panic
// left it. A search that ends on its own, without an error or a stop, is
// marked complete. Drive returns o.Err.
//
// The strategies differ in what a panic leaves to tidy up and in the
// schedule it is reported with, which is panicked's part; how they are
// driven around it is the same, and is here once.
func (o *Outcome) Drive(root, loop func(), panicked func(p any)) error {
	protect(root, panicked)
	for !o.Stop && !protect(loop, panicked) {
		// a panic became a violation; with KeepGoing the search goes on
	}
	if o.Err == nil && !o.Stop {
		o.Res.Complete = true
	}
	return o.Err
}

// protect runs f, handing a panic to panicked, and reports whether f
// returned normally.
func protect(f func(), panicked func(p any)) (ok bool) {
	defer func() {
		if p := recover(); p != nil {
			ok = false
			panicked(p)
		}
	}()
	f()
	return true
}
