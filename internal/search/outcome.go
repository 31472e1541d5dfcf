package search

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/weftlab/weft/internal/watch"
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

	// States, if set, gives Result.States for progress reports.
	States func() int64
	// Mutated, if set, runs the contract check (Model.Unchanged) on every
	// state the search is still in the middle of, and returns its error or
	// nil. Explain asks it when a violation's replay disagrees with the
	// search: an Apply that modified a state the search went back to makes
	// the search see a violation that a replay from the initial state does
	// not, and ErrMutated, naming the thread, says more than
	// ErrNondeterministic.
	Mutated func() error

	// reproducer is the *ts.Reproducer[S] of Confirm's counted
	// violations, made at the first.
	reproducer any

	watch *watch.Watch
	// plain: no transition or execution limit and no progress callback,
	// so that Spent has only the context to watch (set with watch).
	plain bool
}

// Fail records err, unless an error came first, and stops the search.
func (o *Outcome) Fail(err error) {
	if o.Err == nil {
		o.Err = err
	}
	o.Stop = true
}

// Record counts a confirmed violation, keeps the first, calls OnViolation and
// stops the search unless it is to keep going. A deadlock under
// IgnoreDeadlocks is not a violation and is dropped.
func (o *Outcome) Record(v *ts.Violation) {
	if v.Kind == ts.Deadlock && o.Opt.IgnoreDeadlocks {
		return
	}
	o.Res.Violations++
	if o.Res.Violation == nil {
		o.Res.Violation = v
	}
	if o.Opt.OnViolation != nil {
		Callback("OnViolation", func() { o.Opt.OnViolation(v) })
	}
	if !o.Opt.KeepGoing {
		o.Stop = true
	}
}

// Terminal hands a terminal state and the schedule that reached it to
// OnTerminal, if set. It is a function, not a method, so that the state is
// boxed only when there is a callback to hand it to.
func Terminal[S any](o *Outcome, state S, sched ts.Schedule) {
	if o.Opt.OnTerminal != nil {
		Callback("OnTerminal", func() { o.Opt.OnTerminal(state, sched) })
	}
}

// Confirm replays the schedule of a violation found by the search
// (ts.ConfirmWith) and records it, or records the error if it does not
// replay. It does not count an execution: the caller knows whether one
// ended. A deadlock under IgnoreDeadlocks is dropped unreplayed. A
// violation that is only counted (one was kept already, and there is no
// OnViolation) is replayed without building its trace, by a ts.Reproducer
// the search keeps (from the prefix it shares with the last one's
// schedule).
func Confirm[S any](o *Outcome, sys ts.TransitionSystem[S], v *ts.Violation, sched ts.Schedule) {
	if v.Kind == ts.Deadlock && o.Opt.IgnoreDeadlocks {
		return
	}
	if Count(o, sys, v, sched) {
		return
	}
	rv, err := ts.ConfirmWith(sys, v, sched.Clone(), *o.Opt)
	if err != nil {
		o.Fail(o.Explain(err))
		return
	}
	o.Record(rv)
}

// Count counts violation v, and reports that it did, where it is only
// counted (a violation was kept already, and there is no OnViolation) and
// sched replays to it (ts.Reproducer, which builds no trace); false means
// the caller must confirm it with ts.ConfirmWith and Record it.
func Count[S any](o *Outcome, sys ts.TransitionSystem[S], v *ts.Violation, sched ts.Schedule) bool {
	if o.Res.Violation == nil || o.Opt.OnViolation != nil || !reproducerOf(o, sys).Reproduces(v, sched) {
		return false
	}
	o.Res.Violations++
	if !o.Opt.KeepGoing {
		o.Stop = true
	}
	return true
}

// reproducerOf returns o's reproducer of sys's violations. A search
// confirms the violations of one system: the first call's.
func reproducerOf[S any](o *Outcome, sys ts.TransitionSystem[S]) *ts.Reproducer[S] {
	p, ok := o.reproducer.(*ts.Reproducer[S])
	if !ok {
		p = ts.NewReproducer(sys, *o.Opt)
		o.reproducer = p
	}
	return p
}

// Explain returns the error of a violation's replay that disagrees with the
// search, err, or the better explanation Mutated finds: a state on the
// search's stack that an Apply modified (an error wrapping ts.ErrMutated).
// A panic in the check leaves err as it is: the replay's error stands.
func (o *Outcome) Explain(err error) (out error) {
	if o.Mutated == nil || !errors.Is(err, ts.ErrNondeterministic) {
		return err
	}
	defer func() {
		if p := recover(); p != nil {
			out = err
		}
	}()
	if m := o.Mutated(); m != nil && errors.Is(m, ts.ErrMutated) {
		return m
	}
	return err
}

// start begins watching the context and the progress interval, once, and
// reports whether there is a context to watch: a nil one stops the search
// with an error wrapping ts.ErrBadOptions.
func (o *Outcome) start() bool {
	if o.Ctx == nil {
		o.Fail(fmt.Errorf("%w: nil context", ts.ErrBadOptions))
		return false
	}
	if o.watch == nil {
		o.watch = watch.Start(o.Ctx, o.Opt.Progress != nil, o.Opt.ProgressEvery)
		l := o.Opt.Limits
		o.plain = l.Transitions <= 0 && l.Executions <= 0 && o.Opt.Progress == nil
	}
	return true
}

// End stops watching the context and the progress interval. Drive calls it;
// a strategy that calls Spent or Cancelled outside Drive calls it too
// before it returns. It may be called more than once.
func (o *Outcome) End() {
	if o.watch != nil {
		o.watch.Stop()
		o.watch = nil
	}
}

// Spent reports whether a limit or the context stops the search before its
// next transition, and stops it if so. It also reports progress when a
// progress interval has passed. It costs an atomic load or two: call it
// before every transition, replays included.
func (o *Outcome) Spent() bool {
	if !o.start() {
		return true
	}
	l := o.Opt.Limits
	if (l.Transitions > 0 && o.Res.Transitions >= l.Transitions) ||
		(l.Executions > 0 && o.Res.Executions >= l.Executions) {
		o.Stop = true
		return true
	}
	if o.watch.Cancelled() {
		o.Fail(Cancelled(o.Ctx))
		return true
	}
	if o.Opt.Progress != nil && o.watch.ProgressDue() {
		r := *o.Res
		if o.States != nil {
			r.States = o.States()
		}
		Callback("Progress", func() { o.Opt.Progress(r) })
	}
	return false
}

// Quiet reports, for the cost of a few loads, that Spent would return false
// (and counts the call as Spent does): no limit, no progress callback, and
// the context neither cancelled nor due to be asked. False means only that
// Spent must be asked. A search's loop calls it, inlined, before Spent:
//
//	if !e.Quiet() && e.Spent() { ... }
func (o *Outcome) Quiet() bool {
	w := o.watch
	return w != nil && o.plain && w.Quiet()
}

// Cancelled reports whether the context stops the search, and stops it if
// so; for loops that must not count against the limits (a replay that
// counts its transitions once it is done).
func (o *Outcome) Cancelled() bool {
	if !o.start() {
		return true
	}
	if o.watch.Cancelled() {
		o.Fail(Cancelled(o.Ctx))
		return true
	}
	return false
}

// MemoryOK fails the search with an error wrapping ts.ErrMemory when used,
// the bytes the search keeps by its own count, passes Limits.Memory; what
// says what the bytes are, for the message.
func (o *Outcome) MemoryOK(used int64, what string) bool {
	limit := o.Opt.Limits.MaxMemory()
	if limit < 0 || used <= limit {
		return true
	}
	o.Fail(fmt.Errorf("%w: %d bytes kept (%s), budget %d bytes (ts.Limits.Memory)", ts.ErrMemory, used, what, limit))
	return false
}

// Drive runs a search whose user code may panic: root, then loop until it
// returns normally or the search stops. A panic in either is recovered and
// handed to panicked, called in the deferred function (so the stack is still
// the panicking one), which turns it into a violation with its schedule;
// loop is called again unless that stopped the search (with KeepGoing the
// search resumes where it was). loop must therefore pick up where a panic
// left it. A panic in one of the caller's callbacks (see Callback) is not
// the system's: it stops the search with a *ts.CallbackError. A search that
// ends on its own, without an error or a stop, is marked complete. Drive
// returns o.Err, and stops watching the context (End).
//
// The strategies differ in what a panic leaves to tidy up and in the
// schedule it is reported with, which is panicked's part; how they are
// driven around it is the same, and is here once.
func (o *Outcome) Drive(root, loop func(), panicked func(p any)) error {
	defer o.End()
	if !o.start() {
		return o.Err
	}
	o.protect(root, panicked)
	for !o.Stop && !o.protect(loop, panicked) {
		// a panic became a violation; with KeepGoing the search goes on
	}
	if o.Err == nil && !o.Stop {
		o.Res.Complete = true
	}
	return o.Err
}

// protect runs f, handing a panic to panicked, and reports whether f
// returned normally.
func (o *Outcome) protect(f func(), panicked func(p any)) (ok bool) {
	defer func() {
		if p := recover(); p != nil {
			ok = false
			if cb, isCB := p.(*ts.CallbackError); isCB {
				o.Fail(cb)
				return
			}
			if se, isSE := p.(*ts.SystemError); isSE {
				o.Fail(se) // a wrapper's report that the system it wraps is broken
				return
			}
			panicked(p)
		}
	}()
	f()
	return true
}

// Callback runs one of the caller's callbacks, turning a panic in it into a
// *ts.CallbackError panic, which Drive (or Protect) reports as an error of
// the caller's, not as a violation of the system.
func Callback(name string, f func()) {
	defer func() {
		if p := recover(); p != nil {
			if _, ok := p.(*ts.CallbackError); ok {
				panic(p)
			}
			panic(&ts.CallbackError{Callback: name, Value: p, Stack: string(debug.Stack())})
		}
	}()
	f()
}

// Protect runs f outside Drive and returns the *ts.CallbackError of a
// callback that panicked in it, or the *ts.SystemError a wrapper panicked
// with, or nil; other panics go on.
func Protect(f func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			switch e := p.(type) {
			case *ts.CallbackError:
				err = e
				return
			case *ts.SystemError:
				err = e
				return
			}
			panic(p)
		}
	}()
	f()
	return nil
}

// SystemStats starts counting the figures sys reports of its own work
// ([ts.StatsReporter]) for one search; the function it returns adds to
// res.Stats what grew since. Without the capability it does nothing.
func SystemStats(sys any) func(res *ts.Result) {
	r, ok := sys.(ts.StatsReporter)
	if !ok {
		return func(*ts.Result) {}
	}
	before := r.SearchStats()
	return func(res *ts.Result) { AddStatsSince(res, r.SearchStats(), before) }
}

// AddStatsSince adds to res.Stats each figure of after less its value in
// before.
func AddStatsSince(res *ts.Result, after, before map[string]int64) {
	if len(after) == 0 {
		return
	}
	if res.Stats == nil {
		res.Stats = make(map[string]int64, len(after))
	}
	for k, v := range after {
		res.Stats[k] += v - before[k]
	}
}
