package tstest

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/weftlab/weft/ts"
)

// Explorer is the shape of every strategy in weft: ts.Explore,
// ts.ExploreStateful, and a reduction with its own options fixed by a
// closure.
type Explorer[S any] func(context.Context, ts.TransitionSystem[S], ts.Options) (ts.Result, error)

// Outcomes is what a search reached, collected through its OnTerminal and
// OnViolation hooks by [Collect] and [Reference].
type Outcomes struct {
	// Result is the search's own result.
	Result ts.Result
	// Terminals holds the terminal states reached (deadlocked ones
	// included), by state key, except those whose Check fails: whether a
	// search reaches a violation in a terminal state or earlier depends on
	// the interleaving it tries, so those count as violations only.
	Terminals map[string]Outcome
	// Violations holds the violations found, by [ViolationKey].
	Violations map[string]Outcome
	// Problems lists what the search reported that does not hold up: a
	// schedule that does not replay, a terminal state that is not the one
	// its schedule reaches, a violation its schedule does not show.
	Problems []error
}

// Outcome is one terminal state or violation of a search.
type Outcome struct {
	State     any           // the terminal state, or the state showing the violation (nil for a panic)
	Violation *ts.Violation // the violation, for Outcomes.Violations
	// Preemptions is the fewest preemptions of the schedules by which the
	// search reached it (for Reference, of all schedules), or -1 when
	// unknown (ReductionOptions.Opaque).
	Preemptions int
	Schedule    ts.Schedule // a schedule reaching it, with Preemptions preemptions when Reference is not stateful
}

// ViolationKey identifies a violation across searches: a deadlock by the
// key of its state, every other kind by its kind and message.
func ViolationKey(v *ts.Violation, stateKey string) string {
	if v.Kind == ts.Deadlock {
		return "deadlock at " + stateKey
	}
	msg := ""
	if v.Err != nil {
		msg = v.Err.Error()
	}
	return v.Kind.String() + ": " + msg
}

// keyFunc returns the state key of the options: Key, or the hash when sys
// implements ts.Hasher, or fmt's %#v.
func keyFunc[S any](sys ts.TransitionSystem[S], opt ReductionOptions) func(any) string {
	if opt.Key != nil {
		return opt.Key
	}
	if h, ok := sys.(ts.Hasher[S]); ok {
		return func(s any) string { return fmt.Sprintf("%#016x", h.Hash(s.(S))) }
	}
	return func(s any) string { return fmt.Sprintf("%#v", s) }
}

// Reference runs the reference search (ts.Explore, or ts.ExploreStateful
// when opt.Stateful) with KeepGoing and returns every terminal state and
// violation with the fewest preemptions of any schedule reaching it. This is
// the brute force that [CheckReduction] compares reductions with; use it
// directly to assert exact counts. opt.Bound is not applied: Outcomes hold
// everything, and the caller filters by Preemptions.
//
// With Stateful the search visits each state once, so the fewest preemptions
// are computed separately by a 0-1 breadth-first search over (state, last
// thread) pairs; Schedule is then the one the search found.
func Reference[S any](ctx context.Context, sys ts.TransitionSystem[S], opt ReductionOptions) (Outcomes, error) {
	o := opt
	o.Opaque = false
	if !opt.Stateful {
		return Collect(ctx, sys, ts.Explore[S], o)
	}
	least, err := leastPreemptions(ctx, sys, keyFunc(sys, opt))
	if err != nil {
		return Outcomes{}, err
	}
	return collect(ctx, sys, ts.ExploreStateful[S], o, least)
}

// Collect runs explore on sys with KeepGoing and hooks that record every
// terminal state and violation it reports, and returns them with the fewest
// preemptions among the schedules it reported (counted by replaying them on
// sys, unless opt.Opaque). opt.Limits are passed on; opt.Bound is not: fix
// a reduction's bound in the closure.
func Collect[S any](ctx context.Context, sys ts.TransitionSystem[S], explore Explorer[S], opt ReductionOptions) (Outcomes, error) {
	return collect(ctx, sys, explore, opt, nil)
}

// collect is Collect; least, if not nil, gives the fewest preemptions of
// each state by key, which then replace those of the schedules reported.
func collect[S any](ctx context.Context, sys ts.TransitionSystem[S], explore Explorer[S], opt ReductionOptions, least map[string]int) (Outcomes, error) {
	key := keyFunc(sys, opt)
	out := Outcomes{Terminals: make(map[string]Outcome), Violations: make(map[string]Outcome)}
	w := &walker[S]{sys: sys}
	var mu sync.Mutex // a parallel strategy may call the hooks concurrently
	problem := func(format string, args ...any) {
		if len(out.Problems) < 100 {
			out.Problems = append(out.Problems, fmt.Errorf(format, args...))
		}
	}
	record := func(m map[string]Outcome, k string, oc Outcome) {
		if old, ok := m[k]; !ok || (oc.Preemptions >= 0 && oc.Preemptions < old.Preemptions) {
			m[k] = oc
		}
	}
	o := ts.Options{Limits: opt.Limits, KeepGoing: true, IgnoreDeadlocks: opt.IgnoreDeadlocks}
	o.OnTerminal = func(state any, sched ts.Schedule) {
		mu.Lock()
		defer mu.Unlock()
		if safeCheck(sys, state.(S)) != nil {
			return
		}
		k := key(state)
		oc := Outcome{State: state, Preemptions: -1, Schedule: sched.Clone()}
		if !opt.Opaque {
			final, pre, err := w.walk(sched)
			if err != nil {
				problem("terminal state %v: %w", state, err)
				return
			}
			if fk := key(final); fk != k {
				problem("terminal state %v (key %s) is not the state %v (key %s) its schedule %v reaches", state, k, final, fk, sched)
				return
			}
			oc.Preemptions = pre
		}
		if p, ok := least[k]; ok {
			oc.Preemptions = p
		}
		record(out.Terminals, k, oc)
	}
	o.OnViolation = func(v *ts.Violation) {
		mu.Lock()
		defer mu.Unlock()
		sched := v.Trace.Schedule()
		oc := Outcome{Violation: v, Preemptions: -1, Schedule: sched}
		stateKey := ""
		if opt.Opaque {
			oc.Preemptions = v.Trace.Preemptions
		} else {
			run, err := ts.ReplayWith(sys, sched, ts.Options{IgnoreDeadlocks: opt.IgnoreDeadlocks})
			switch {
			case err != nil:
				problem("%v: %w", v, err)
				return
			case run.Violation == nil || run.Violation.Kind != v.Kind:
				problem("%v: replaying the schedule shows %v", v, run.Violation)
				return
			case (v.Kind == ts.CheckFailure || v.Kind == ts.InvariantFailure) && run.Violation.Err.Error() != v.Err.Error():
				problem("%v: replaying the schedule shows %v", v, run.Violation)
				return
			}
			oc.Preemptions = run.Trace.Preemptions
			if v.Kind != ts.Panic {
				oc.State = run.Final
				stateKey = key(run.Final)
				if p, ok := least[stateKey]; ok {
					oc.Preemptions = p
				}
			}
		}
		if v.Kind == ts.Deadlock && stateKey == "" {
			// Opaque: the deadlocked state is not known; use the blocked threads.
			stateKey = "?" + v.Err.Error()
		}
		record(out.Violations, ViolationKey(v, stateKey), oc)
	}
	res, err := explore(ctx, sys, o)
	out.Result = res
	return out, err
}

// outcomes returns the number of outcomes of t's transition at s: 1 unless
// the system is a ts.Chooser.
func outcomes[S any](sys ts.TransitionSystem[S], s S, t ts.Tid) int {
	if c, ok := sys.(ts.Chooser[S]); ok {
		return c.Outcomes(s, t)
	}
	return 1
}

// apply takes move m at s: Apply for outcome 0, ApplyOutcome otherwise.
func apply[S any](sys ts.TransitionSystem[S], s S, m ts.Move) S {
	if m.Outcome == 0 {
		return sys.Apply(s, m.Thread)
	}
	return sys.(ts.Chooser[S]).ApplyOutcome(s, m.Thread, m.Outcome)
}

// walker replays schedules incrementally: consecutive schedules of a
// depth-first search share long prefixes, whose states it keeps.
type walker[S any] struct {
	sys    ts.TransitionSystem[S]
	n      int
	sched  ts.Schedule
	states []S   // states[i] is the state after sched[:i]
	pre    []int // pre[i] is the preemptions of sched[:i]
}

// walk returns the state sched reaches and its preemptions.
func (w *walker[S]) walk(sched ts.Schedule) (final S, preempts int, err error) {
	defer func() {
		if p := recover(); p != nil {
			w.sched, w.states, w.pre = nil, nil, nil
			err = fmt.Errorf("replaying schedule %v: panic: %v", sched, p)
		}
	}()
	if w.states == nil {
		w.n = w.sys.Threads()
		w.states, w.pre, w.sched = []S{w.sys.Init()}, []int{0}, ts.Schedule{}
	}
	k := 0
	for k < len(w.sched) && k < len(sched) && w.sched[k] == sched[k] {
		k++
	}
	w.sched, w.states, w.pre = w.sched[:k], w.states[:k+1], w.pre[:k+1]
	for i := k; i < len(sched); i++ {
		s, m := w.states[i], sched[i]
		t := m.Thread
		if t < 0 || int(t) >= w.n {
			return final, 0, fmt.Errorf("schedule %v: step %d moves thread %d of %d", sched, i, t, w.n)
		}
		if _, st := w.sys.Next(s, t); st != ts.Enabled {
			return final, 0, fmt.Errorf("schedule %v: step %d moves thread %d, which is %v", sched, i, t, st)
		}
		if k := outcomes(w.sys, s, t); m.Outcome < 0 || m.Outcome >= k {
			return final, 0, fmt.Errorf("schedule %v: step %d takes outcome %d of %d", sched, i, m.Outcome, k)
		}
		p := w.pre[i]
		if i > 0 && sched[i-1].Thread != t {
			if _, st := w.sys.Next(s, sched[i-1].Thread); st == ts.Enabled {
				p++
			}
		}
		w.states = append(w.states, apply(w.sys, s, m))
		w.pre = append(w.pre, p)
		w.sched = append(w.sched, m)
	}
	return w.states[len(sched)], w.pre[len(sched)], nil
}

// leastPreemptions returns, for every state reachable without passing a
// violating state, the fewest preemptions of a schedule reaching it: a 0-1
// breadth-first search over (state, last thread), since the cost of a
// transition depends on both.
func leastPreemptions[S any](ctx context.Context, sys ts.TransitionSystem[S], key func(any) string) (least map[string]int, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: panic while computing preemptions: %v", ts.ErrBadSystem, p)
		}
	}()
	n := sys.Threads()
	type item struct {
		s    S
		k    string
		last ts.Tid
	}
	type nodeKey struct {
		k    string
		last ts.Tid
	}
	least = make(map[string]int)
	dist := make(map[nodeKey]int)
	s0 := sys.Init()
	k0 := key(s0)
	dist[nodeKey{k0, -1}] = 0
	buckets := [][]item{{{s0, k0, -1}}}
	status := make([]ts.Status, n)
	for d := 0; d < len(buckets); d++ {
		for i := 0; i < len(buckets[d]); i++ {
			it := buckets[d][i]
			if dist[nodeKey{it.k, it.last}] < d {
				continue
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if old, ok := least[it.k]; !ok || d < old {
				least[it.k] = d
			}
			if safeCheck(sys, it.s) != nil {
				continue
			}
			for t := range ts.Tid(n) {
				_, status[t] = sys.Next(it.s, t)
			}
			for t := range ts.Tid(n) {
				if status[t] != ts.Enabled {
					continue
				}
				nd := d
				if it.last >= 0 && it.last != t && status[it.last] == ts.Enabled {
					nd++
				}
				for o := range outcomes(sys, it.s, t) {
					c := apply(sys, it.s, ts.Move{Thread: t, Outcome: o})
					ck := key(c)
					nk := nodeKey{ck, t}
					if old, ok := dist[nk]; ok && old <= nd {
						continue
					}
					dist[nk] = nd
					for len(buckets) <= nd {
						buckets = append(buckets, nil)
					}
					buckets[nd] = append(buckets[nd], item{c, ck, t})
				}
			}
		}
		buckets[d] = nil
	}
	return least, nil
}

// safeCheck calls Check and then Invariant, turning a panic into an error:
// the search reports the panic itself.
func safeCheck[S any](sys ts.TransitionSystem[S], s S) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	if c, ok := sys.(ts.Checker[S]); ok {
		if err := c.Check(s); err != nil {
			return err
		}
	}
	if i, ok := sys.(ts.Invariant[S]); ok {
		return i.Invariant(s)
	}
	return nil
}

var errIncomplete = errors.New("the reduction did not complete")
