package ts

import (
	"context"
	"fmt"
	"time"
)

// Explore is the plain exhaustive search: a depth-first search over every
// interleaving of the system's threads, with no reduction and no state
// caching. Every reduction in weft is tested against it. The system must
// terminate: an execution longer than the depth limit is an error.
//
// It returns at the first violation unless Options.KeepGoing is set. Each
// violation's schedule is replayed before it is reported, so it is known to
// reproduce; a replay that does not is reported as ErrNondeterministic.
func Explore[S any](ctx context.Context, sys TransitionSystem[S], opt Options) (Result, error) {
	return explore(ctx, sys, opt, false)
}

// ExploreStateful is Explore with a table of visited states: the search does
// not go on from a state it has seen before. It needs the system to implement
// [Hasher], and it handles cyclic state spaces. Result.States counts the
// distinct states; OnTerminal is called once per distinct terminal state.
//
// States are matched by their 64-bit hash alone; see Hasher for what a
// collision costs.
func ExploreStateful[S any](ctx context.Context, sys TransitionSystem[S], opt Options) (Result, error) {
	return explore(ctx, sys, opt, true)
}

func explore[S any](ctx context.Context, sys TransitionSystem[S], opt Options, stateful bool) (Result, error) {
	res := Result{Bound: NoBound}
	if err := opt.Validate(); err != nil {
		return res, err
	}
	r := newRunner(sys)
	if stateful && r.hasher == nil {
		return res, fmt.Errorf("%w: %w", ErrBadOptions, ErrNoHash)
	}
	n, err := r.threadCount()
	if err != nil {
		return res, err
	}
	e := &explorer[S]{runner: r, ctx: ctx, opt: opt, n: n, stateful: stateful, maxDepth: opt.Limits.MaxDepth()}
	if stateful {
		e.visited = make(map[uint64]struct{})
	}
	e.res = &res
	e.lastProgress = time.Now()
	err = e.run()
	res.States = int64(len(e.visited))
	return res, err
}

// frame is a state on the depth-first search stack.
type frame[S any] struct {
	state    S
	hash     uint64   // the state's hash, when the system has one
	steps    []Step   // each thread's next step at state
	status   []Status // each thread's status at state
	next     Tid      // the next thread to try from here
	preempts int      // preemptions on the path to here
	last     Tid      // the thread whose transition reached here, or -1
	tried    bool     // a child has been taken from here
}

type explorer[S any] struct {
	*runner[S]
	ctx      context.Context
	opt      Options
	res      *Result
	n        int
	stateful bool
	maxDepth int
	visited  map[uint64]struct{}

	stack []frame[S] // reused: frames keep their slices between uses
	depth int        // frames in use
	sched Schedule   // sched[i] is the thread taken from stack[i]

	stop         bool
	err          error
	lastProgress time.Time
}

// run drives the search, restarting the loop after a panic in user code has
// been turned into a violation.
func (e *explorer[S]) run() error {
	e.protect(e.start)
	for !e.stop && !e.protect(e.loop) {
		// a panic became a violation; with KeepGoing the search goes on
	}
	if e.err == nil && !e.stop {
		e.res.Complete = true
	}
	return e.err
}

// protect runs f, turning a panic in user code into a violation. It reports
// whether f returned normally.
func (e *explorer[S]) protect(f func()) (ok bool) {
	defer func() {
		if p := recover(); p != nil {
			// The panicking call belongs to the transition being pushed:
			// the schedule holds it already.
			sched := e.sched[:max(e.depth-1, 0)]
			if e.pushing {
				sched = e.sched[:e.depth]
			}
			v := e.panicViolation(p, sched, e.current)
			e.current, e.pushing = -1, false
			e.violation(v, sched)
			ok = false
		}
	}()
	f()
	return true
}

func (e *explorer[S]) start() {
	e.current = -1
	s := e.sys.Init()
	e.visit(s, -1, 0)
}

// loop is the depth-first search proper.
func (e *explorer[S]) loop() {
	for e.depth > 0 && !e.stop {
		top := &e.stack[e.depth-1]
		t := top.next
		for int(t) < e.n && top.status[t] != Enabled {
			t++
		}
		if int(t) >= e.n {
			e.depth--
			continue
		}
		top.next = t + 1
		if e.budgetSpent() {
			return
		}
		if !e.recheck(top, t) {
			return
		}
		preempts := top.preempts
		if top.last >= 0 && top.last != t && top.status[top.last] == Enabled {
			preempts++
		}
		e.sched = append(e.sched[:e.depth-1], t)
		e.current, e.pushing = t, true
		child := e.sys.Apply(top.state, t)
		e.res.Transitions++
		if e.hasher != nil {
			if h := e.hasher.Hash(top.state); h != top.hash {
				e.fail(systemError(ErrMutated, t, e.sched[:e.depth-1],
					"the state before its transition changed (hash %#x, now %#x)", top.hash, h))
				return
			}
		}
		e.visit(child, t, preempts)
		e.current, e.pushing = -1, false
	}
}

// recheck makes sure the state at top has not changed since the frame was
// pushed, before a second or later child is taken from it: an earlier Apply
// that modified its argument, or a Next that is not deterministic, would
// otherwise make the search silently wrong. With Hash the check is exact;
// without it, every thread's step and status must be as they were.
func (e *explorer[S]) recheck(top *frame[S], t Tid) bool {
	if !top.tried {
		top.tried = true
		return true // the first child: nothing has been applied to this state yet
	}
	if e.hasher != nil {
		return true // Apply compares hashes after every call
	}
	for u := range Tid(e.n) {
		e.current = u
		step, st := e.sys.Next(top.state, u)
		if step == top.steps[u] && st == top.status[u] || st == Finished && top.status[u] == Finished {
			continue
		}
		step2, st2 := e.sys.Next(top.state, u)
		e.current = -1
		sched := e.sched[:e.depth-1]
		if step2 != step || st2 != st {
			e.fail(systemError(ErrNondeterministic, u, sched,
				"two calls of Next on one state returned %v %v and %v %v", step, st, step2, st2))
		} else {
			e.fail(systemError(ErrMutated, u, sched,
				"the thread's next step at a state changed from %v %v to %v %v after another transition's Apply",
				top.steps[u], top.status[u], step, st))
		}
		return false
	}
	e.current = -1
	return true
}

// visit processes a state reached by thread last (or the initial state): it
// checks it, ends the execution there if it is terminal, violating or already
// visited, and pushes it otherwise. e.sched[:e.depth] is the path to its parent
// and e.sched[e.depth-1] (when last >= 0) the transition that reached it.
func (e *explorer[S]) visit(s S, last Tid, preempts int) {
	pathLen := e.depth // transitions from the initial state to s
	path := e.sched[:pathLen]
	if pathLen > e.maxDepth {
		e.fail(systemError(ErrDepth, last, path,
			"an execution reached %d transitions; raise Limits.Depth if the system does terminate", pathLen))
		return
	}
	var h uint64
	if e.hasher != nil {
		e.current = -1
		h = e.hasher.Hash(s)
		if e.stateful {
			if _, seen := e.visited[h]; seen {
				e.endExecution()
				return
			}
			e.visited[h] = struct{}{}
		}
	}
	// Push a frame, reusing the slot's slices.
	if e.depth == len(e.stack) {
		e.stack = append(e.stack, frame[S]{steps: make([]Step, e.n), status: make([]Status, e.n)})
	}
	f := &e.stack[e.depth]
	f.state, f.hash, f.next, f.preempts, f.last, f.tried = s, h, 0, preempts, last, false
	enabled, blocked := 0, 0
	for t := range Tid(e.n) {
		e.current = t
		step, st := e.sys.Next(s, t)
		if st > Finished || (st != Finished && (!step.Op.Valid() || step.Obj < 0)) {
			e.current = -1
			e.fail(systemError(ErrBadStep, t, path, "Next returned step %v with status %v", step, st))
			return
		}
		f.steps[t], f.status[t] = step, st
		switch st {
		case Enabled:
			enabled++
		case Blocked:
			blocked++
		}
	}
	e.current = -1
	if v := e.check(s); v != nil {
		v.Thread = last
		e.violation(v, path)
		return
	}
	if enabled == 0 && e.opt.OnTerminal != nil {
		e.opt.OnTerminal(s, path)
	}
	if enabled == 0 {
		if blocked > 0 {
			v := e.deadlock(s, e.n)
			v.Thread = last
			e.violation(v, path)
			return
		}
		e.endExecution()
		return
	}
	e.depth++
	e.progress()
}

func (e *explorer[S]) endExecution() {
	e.res.Executions++
	e.progress()
}

// violation records a violation found at the end of path, after confirming
// that the path replays to it.
func (e *explorer[S]) violation(v *Violation, path Schedule) {
	e.res.Executions++
	sched := path.Clone()
	rv, err := Confirm(e.sys, v, sched)
	if err != nil {
		e.fail(err)
		return
	}
	e.res.Violations++
	if e.res.Violation == nil {
		e.res.Violation = rv
	}
	if e.opt.OnViolation != nil {
		e.opt.OnViolation(rv)
	}
	if !e.opt.KeepGoing {
		e.stop = true
	}
}

func (e *explorer[S]) fail(err error) {
	e.err = err
	e.stop = true
}

// budgetSpent reports whether a limit or the context stops the search before
// the next transition.
func (e *explorer[S]) budgetSpent() bool {
	l := e.opt.Limits
	if (l.Transitions > 0 && e.res.Transitions >= l.Transitions) ||
		(l.Executions > 0 && e.res.Executions >= l.Executions) {
		e.stop = true
		return true
	}
	if e.res.Transitions&1023 == 0 {
		if err := e.ctx.Err(); err != nil {
			e.fail(fmt.Errorf("weft: search cancelled: %w", err))
			return true
		}
	}
	return false
}

func (e *explorer[S]) progress() {
	if e.opt.Progress == nil || e.res.Transitions == 0 || e.res.Transitions&1023 != 0 {
		return
	}
	if now := time.Now(); now.Sub(e.lastProgress) >= e.opt.progressEvery() {
		e.lastProgress = now
		r := *e.res
		r.States = int64(len(e.visited))
		e.opt.Progress(r)
	}
}
