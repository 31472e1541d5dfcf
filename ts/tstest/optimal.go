package tstest

import (
	"context"
	"fmt"
	"strings"

	"github.com/weftlab/weft/ts"
)

// TraceKey returns the Mazurkiewicz trace of a schedule of sys as a string,
// canonical: two schedules have one key exactly when they are equivalent
// (the same events, and every two dependent events in the same order).
//
// An event is a thread's n-th transition with its outcome and, for each
// object it touches, whether it writes it and which write of the object it
// is (or, for a read, which write it reads), as the cbpor paper numbers
// events. The key lists each thread's events in order, in the format of
// hb.State's String for transitions of one object and outcome ("{T0[W o1:1
// R o2:0] T1[...]}"); an event of several objects joins its accesses with
// "+", and one with outcome c > 0 ends in "/c". The set of events fixes the order of every two dependent events,
// and so is canonical. Dependence is ts.Dependent's, with the system's
// invariant read set marked (ts.InvariantWrites), as every strategy sees it.
// It fails when the schedule does not replay: a thread out of range or not
// enabled, or an outcome out of range.
func TraceKey[S any](sys ts.TransitionSystem[S], sched ts.Schedule) (string, error) {
	n := sys.Threads()
	var inv *ts.InvariantWrites
	if i, ok := sys.(ts.Invariant[S]); ok {
		inv = ts.NewInvariantWrites(i.InvariantReads())
	}
	chooser, _ := sys.(ts.Chooser[S])
	s := sys.Init()
	writes := map[ts.Obj]int{}
	events := make([][]string, n)
	var b strings.Builder
	for i, m := range sched {
		t := m.Thread
		if int(t) < 0 || int(t) >= n {
			return "", fmt.Errorf("step %d of %v: %w", i, sched, ts.ErrThreadRange)
		}
		step, status := sys.Next(s, t)
		if status != ts.Enabled {
			return "", fmt.Errorf("step %d of %v: thread %d is %v: %w", i, sched, t, status, ts.ErrNotEnabled)
		}
		if k := outcomes(sys, s, t); m.Outcome < 0 || m.Outcome >= k {
			return "", fmt.Errorf("step %d of %v: outcome %d of %d: %w", i, sched, m.Outcome, k, ts.ErrNotEnabled)
		}
		step = inv.Mark(step)
		b.Reset()
		for j := range step.NumAccesses() {
			if j > 0 {
				b.WriteByte('+')
			}
			a := step.At(j)
			if a.Op == ts.Read {
				fmt.Fprintf(&b, "R o%d:%d", a.Obj, writes[a.Obj])
			} else {
				writes[a.Obj]++
				fmt.Fprintf(&b, "W o%d:%d", a.Obj, writes[a.Obj])
			}
		}
		if m.Outcome > 0 {
			fmt.Fprintf(&b, "/%d", m.Outcome)
		}
		events[t] = append(events[t], b.String())
		if m.Outcome == 0 {
			s = sys.Apply(s, t)
		} else {
			s = chooser.ApplyOutcome(s, t, m.Outcome)
		}
	}
	b.Reset()
	b.WriteByte('{')
	sep := ""
	for t, evs := range events {
		if len(evs) == 0 {
			continue
		}
		fmt.Fprintf(&b, "%sT%d[%s]", sep, t, strings.Join(evs, " "))
		sep = " "
	}
	b.WriteByte('}')
	return b.String(), nil
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
		return ts.Options{Limits: opt.Limits, KeepGoing: true, IgnoreDeadlocks: opt.IgnoreDeadlocks,
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
