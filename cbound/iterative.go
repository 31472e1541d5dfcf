package cbound

import (
	"context"
	"fmt"
	"strings"

	"github.com/weftlab/weft/hb"
	"github.com/weftlab/weft/internal/search"
	"github.com/weftlab/weft/ts"
)

// IterativePOR is iterative context bounding over cb-por: it runs POR at
// bounds 0, 1, ..., Options.Bound in turn and stops at the first bound whose
// search finds a violation, so the violation it reports is reached within
// the fewest preemptions of any (no execution with fewer reaches one), while
// each bound explores one execution per terminal HB class. The bound must be
// given: Unbounded is refused.
//
// Each bound's search explores the lower bounds' executions again, as in
// iterative deepening, but the searches share the memo of context bounds
// and of replayed enabled sets (a state's context bound does not depend on
// the bound searched), so that the CB computations of the lower bounds are
// not done again; Result counts the work of all of them (its Stats the
// memo's figures over all bounds), Limits apply to that total (a limit spent at the end of one bound stops the
// search before the next, with an incomplete result), and Coverage is that
// of the last bound searched.
//
// With KeepGoing every bound is searched. Result.Violation is the first
// violation of the lowest bound that has one; a violation is handed to
// OnViolation and counted in Result.Violations once, at the first bound that
// finds it (the searches of higher bounds find it again: it is recognized
// by its kind, its message and the happens-before state its trace reaches).
func IterativePOR[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options) (ts.Result, error) {
	bad := ts.Result{Bound: opt.Bound, Finds: search.Finds(&opt.Options)}
	if err := search.Context(ctx); err != nil {
		return bad, err
	}
	if opt.Bound == Unbounded {
		return bad, fmt.Errorf("%w: IterativePOR needs a preemption bound", ts.ErrBadOptions)
	}
	if err := opt.validate(); err != nil {
		return bad, err
	}
	opt = opt.resolved()
	total := ts.Result{Bound: 0, Finds: bad.Finds}
	seen := map[string]bool{}
	var first *ts.Violation
	// One memo for every bound, its values clamped at the highest.
	opt.shared = &sharedMemo{clamp: int32(opt.Bound) + 1}
	for c := 0; c <= opt.Bound; c++ {
		o := opt
		o.Bound = AtMost(c)
		l := opt.Limits
		if l.Transitions > 0 {
			if o.Limits.Transitions = l.Transitions - total.Transitions; o.Limits.Transitions <= 0 {
				total.Complete = false
				return total, nil
			}
		}
		if l.Executions > 0 {
			if o.Limits.Executions = l.Executions - total.Executions; o.Limits.Executions <= 0 {
				total.Complete = false
				return total, nil
			}
		}
		before := total
		if opt.Progress != nil {
			o.Progress = func(r ts.Result) {
				r.Executions += before.Executions
				r.Transitions += before.Transitions
				r.Violations += before.Violations
				opt.Progress(r)
			}
		}
		var fresh int64
		if opt.KeepGoing {
			o.OnViolation = func(v *ts.Violation) {
				k := violationKey(v)
				if seen[k] {
					return
				}
				seen[k] = true
				fresh++
				if first == nil {
					first = v
				}
				if opt.OnViolation != nil {
					opt.OnViolation(v)
				}
			}
		}
		res, err := POR(ctx, sys, o)
		res.Transitions += before.Transitions
		res.Executions += before.Executions
		if opt.KeepGoing {
			res.Violations = before.Violations + fresh
			res.Violation = first
		} else {
			res.Violations += before.Violations
		}
		total = res
		if err != nil || !res.Complete || (!opt.KeepGoing && res.Violation != nil) {
			return total, err
		}
	}
	return total, nil
}

// violationKey identifies a violation across the searches of several
// bounds: its kind, its message, and the HB state of its trace (which every
// bound's search reports with the same fewest-preemption schedule).
func violationKey(v *ts.Violation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v|", v.Kind)
	if v.Err != nil {
		b.WriteString(v.Err.Error())
	}
	s := hb.New(0)
	for _, ev := range v.Trace.Events {
		s.AddOutcome(ev.Thread, ev.Step, ev.Outcome)
	}
	fmt.Fprintf(&b, "|%d|%s", len(v.Trace.Events), s.String())
	return b.String()
}
