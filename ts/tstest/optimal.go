package tstest

import (
	"context"
	"fmt"

	"github.com/weftlab/weft/hb"
	"github.com/weftlab/weft/ts"
)

// TraceKey returns the Mazurkiewicz trace of a schedule of sys as a string:
// the listing of the happens-before state the schedule reaches (canonical,
// so two schedules have one key exactly when they are equivalent). It fails
// when the schedule does not replay: a thread out of range or not enabled.
func TraceKey[S any](sys ts.TransitionSystem[S], sched ts.Schedule) (string, error) {
	n := sys.Threads()
	s := sys.Init()
	st := hb.New(n)
	for i, t := range sched {
		if int(t) < 0 || int(t) >= n {
			return "", fmt.Errorf("step %d of %v: %w", i, sched, ts.ErrThreadRange)
		}
		step, status := sys.Next(s, t)
		if status != ts.Enabled {
			return "", fmt.Errorf("step %d of %v: thread %d is %v: %w", i, sched, t, status, ts.ErrNotEnabled)
		}
		st.Add(t, step)
		s = sys.Apply(s, t)
	}
	return st.String(), nil
}

// OptimalityReport is what [CheckOptimal] compared.
type OptimalityReport struct {
	// Traces counts the reference's complete executions (within the bound)
	// by Mazurkiewicz trace: its keys are what an optimal reduction explores,
	// once each.
	Traces map[string]int
	// Explored counts the reduction's complete executions by trace.
	Explored map[string]int
	// Result is the reduction's own result.
	Result ts.Result
	// Errors lists the discrepancies, at most MaxReports of them.
	Errors []error
}

// CheckOptimal checks what a reduction that promises optimality must do,
// beyond [CheckReduction]'s soundness: run with KeepGoing, it explores
// exactly one execution per Mazurkiewicz trace of the system's complete
// executions (those ending in a terminal state, deadlocks included), within
// opt.Bound preemptions when bounded: Result.Executions equals the number of
// distinct traces ts.Explore reaches, no trace is explored twice, and none
// is missed or unknown to the reference. Traces are compared by [TraceKey].
//
// Optimality is about complete executions, so a system whose checks fail is
// refused (hide its Check, or generate programs with NoAsserts): where an
// execution stops at a failed check depends on the interleaving, and a
// sound reduction rightly skips the equivalent prefixes. opt.Stateful and
// opt.Opaque are refused too: a trace needs real schedules of the system,
// explored without state caching.
//
// It reports each discrepancy with t.Errorf and returns the report.
func CheckOptimal[S any](t TB, sys ts.TransitionSystem[S], explore Explorer[S], opt ReductionOptions) OptimalityReport {
	t.Helper()
	rep, err := CompareOptimal(context.Background(), sys, explore, opt)
	if err != nil {
		t.Errorf("tstest: %v", err)
		return rep
	}
	for _, e := range rep.Errors {
		t.Errorf("%v", e)
	}
	return rep
}

// CompareOptimal runs the comparison [CheckOptimal] makes and returns it; the
// error is for a search that fails or a system or options it refuses.
func CompareOptimal[S any](ctx context.Context, sys ts.TransitionSystem[S], explore Explorer[S], opt ReductionOptions) (OptimalityReport, error) {
	rep := OptimalityReport{Traces: map[string]int{}, Explored: map[string]int{}}
	if opt.Stateful || opt.Opaque {
		return rep, fmt.Errorf("%w: optimality needs real schedules from a stateless search (Stateful and Opaque are refused)", ts.ErrBadOptions)
	}
	var keyErr error
	collect := func(into map[string]int, bounded bool) ts.Options {
		add := func(sched ts.Schedule) {
			if bounded && opt.Bound >= 0 {
				if p, err := ts.Preemptions(sys, sched); err != nil || p > opt.Bound {
					return
				}
			}
			k, err := TraceKey(sys, sched)
			if err != nil {
				keyErr = err
				return
			}
			into[k]++
		}
		return ts.Options{Limits: opt.Limits, KeepGoing: true,
			OnTerminal: func(_ any, sched ts.Schedule) { add(sched) },
			OnViolation: func(v *ts.Violation) {
				if v.Kind != ts.Deadlock && v.Kind != ts.DataRace && keyErr == nil {
					keyErr = fmt.Errorf("%w: the system has a violation (%v); optimality is defined for systems whose checks do not fail", ts.ErrBadSystem, v)
				}
				// A deadlocked state is terminal: OnTerminal counted it.
			},
		}
	}
	ref, err := ts.Explore(ctx, sys, collect(rep.Traces, true))
	if err == nil && !ref.Complete {
		err = fmt.Errorf("stopped at a limit: %v", ref)
	}
	if err == nil {
		err = keyErr
	}
	if err != nil {
		return rep, fmt.Errorf("reference search: %w", err)
	}
	rep.Result, err = explore(ctx, sys, collect(rep.Explored, false))
	if err == nil {
		err = keyErr
	}
	if err != nil {
		return rep, fmt.Errorf("reduction: %w", err)
	}
	limit := opt.MaxReports
	if limit <= 0 {
		limit = DefaultMaxReports
	}
	add := func(format string, args ...any) {
		if len(rep.Errors) < limit {
			rep.Errors = append(rep.Errors, fmt.Errorf(format, args...))
		}
	}
	if !rep.Result.Complete {
		add("reduction: %v: %v", errIncomplete, rep.Result)
	}
	if rep.Result.Executions != int64(len(rep.Traces)) {
		add("reduction explores %d executions; there are %d Mazurkiewicz traces", rep.Result.Executions, len(rep.Traces))
	}
	for _, k := range sortedKeys(rep.Explored) {
		switch n := rep.Explored[k]; {
		case rep.Traces[k] == 0:
			add("reduction explores trace %s, which the reference does not reach (within the bound)", k)
		case n > 1:
			add("reduction explores trace %s %d times", k, n)
		}
	}
	for _, k := range sortedKeys(rep.Traces) {
		if rep.Explored[k] == 0 {
			add("reduction misses trace %s", k)
		}
	}
	return rep, nil
}
