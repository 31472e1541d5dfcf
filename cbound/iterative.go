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
// given: Unbounded is refused.
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
		if o.Limits.Transitions > 0 {
			o.Limits.Transitions -= total.Transitions
		}
		if o.Limits.Executions > 0 {
			o.Limits.Executions -= total.Executions
		}
		res, err := POR(ctx, sys, o)
		res.Transitions += total.Transitions
		res.Executions += total.Executions
		res.Violations += total.Violations
		total = res
		if err != nil || res.Violation != nil || !res.Complete {
			return total, err
		}
	}
	return total, nil
}
