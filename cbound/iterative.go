package cbound

import (
	"context"
	"fmt"

	"github.com/weftlab/weft/ts"
)

// IterativePOR is iterative context bounding over cb-por: it runs POR at
// bounds 0, 1, ..., Options.Bound in turn and stops at the first bound whose
// search finds a violation, so the violation it reports is reached within
// the fewest preemptions of any (no execution with fewer reaches one), while
// each bound explores one execution per terminal HB class. The bound must be
// given: Unbounded is refused. Under KeepGoing every bound up to
// Options.Bound is explored; Result.Violation stays the first violation
// found, with the fewest preemptions, and Violations counts those of every
// bound (a violation is found again at each bound above its own). Limits
// hold for the whole run.
//
// Each bound's search starts afresh (the lower bounds are explored again, as
// in iterative deepening); Result counts the work of all of them, and its
// Coverage is that of the last.
func IterativePOR[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options) (ts.Result, error) {
	if opt.Bound == Unbounded {
		return ts.Result{Bound: opt.Bound}, fmt.Errorf("%w: IterativePOR needs a preemption bound", ts.ErrBadOptions)
	}
	if err := opt.validate(); err != nil {
		return ts.Result{Bound: opt.Bound}, err
	}
	opt = opt.resolved()
	var total ts.Result
	for c := 0; c <= opt.Bound; c++ {
		o := opt
		o.Bound = AtMost(c)
		// The limits hold for the whole run: a bound starts with what the
		// earlier ones left, and a budget spent at the end of a bound stops
		// the run there (a zero left would read as "no limit").
		if l := opt.Limits.Transitions; l > 0 {
			if total.Transitions >= l {
				total.Complete = false
				return total, nil
			}
			o.Limits.Transitions = l - total.Transitions
		}
		if l := opt.Limits.Executions; l > 0 {
			if total.Executions >= l {
				total.Complete = false
				return total, nil
			}
			o.Limits.Executions = l - total.Executions
		}
		res, err := POR(ctx, sys, o)
		res.Transitions += total.Transitions
		res.Executions += total.Executions
		res.Violations += total.Violations
		if total.Violation != nil {
			res.Violation = total.Violation // the first, with the fewest preemptions
		}
		total = res
		// Under KeepGoing every bound is explored: a violation stops the
		// run only when the search stops at its first.
		if err != nil || (res.Violation != nil && !opt.KeepGoing) || !res.Complete {
			return total, err
		}
	}
	return total, nil
}
