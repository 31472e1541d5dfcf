package ts

import (
	"context"
	"errors"
	"fmt"
	"unsafe"

	"github.com/weftlab/weft/internal/flat"
	"github.com/weftlab/weft/internal/hashset"
	"github.com/weftlab/weft/internal/watch"
)

// Explore is the plain exhaustive search: a depth-first search over every
// interleaving of the system's threads, and every outcome of each
// transition, with no reduction and no state caching. Every reduction in
// weft is tested against it. The system must terminate: an execution longer
// than the depth limit is an error.
//
// It returns at the first violation unless Options.KeepGoing is set. Each
// violation's schedule is replayed before it is reported, so it is known to
// reproduce; a replay that does not is reported as ErrNondeterministic, or
// as ErrMutated when a state on the search's stack is found modified (the
// better explanation: the search saw a state no replay reaches).
//
// It checks the contract as it goes, at a cost of at most one Hash per
// transition: where it leaves a state from which it took several
// transitions, it asks the state's hash (when the system has one) and every
// thread's step again, and an answer that changed is an error wrapping
// ErrMutated (an Apply modified its argument; the error names the thread
// whose Apply did it, found by replay) or ErrNondeterministic. When the state
// type holds no references (no pointer, slice, map, channel, function or
// interface, at any depth), Apply is handed a copy that shares nothing with
// the state the search keeps and cannot modify it: the search then hashes
// nothing for the check, and asks one thread's step again (a different one
// at each depth), which still catches a Next that is not a function of the
// state.
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
//
// With Options.Workers above 1, other goroutines compute the system's
// answers ahead of the search, which stays on the caller's goroutine and
// returns exactly what it returns alone: see "Parallel search" in the
// package documentation for what that needs of the system.
func ExploreStateful[S any](ctx context.Context, sys TransitionSystem[S], opt Options) (Result, error) {
	return explore(ctx, sys, opt, true)
}

// FindsOf returns what a search that reports every violation of a system's
// own making finds under opt: check and invariant failures, panics, and
// deadlocks unless opt.IgnoreDeadlocks.
func FindsOf(opt Options) Kinds {
	k := KindsOf(CheckFailure, InvariantFailure, Panic, Deadlock)
	if opt.IgnoreDeadlocks {
		k = k.Without(Deadlock)
	}
	return k
}

func explore[S any](ctx context.Context, sys TransitionSystem[S], opt Options, stateful bool) (Result, error) {
	res := Result{Bound: NoBound, Finds: FindsOf(opt)}
	if ctx == nil {
		return res, fmt.Errorf("%w: nil context", ErrBadOptions)
	}
	if err := opt.Validate(); err != nil {
		return res, err
	}
	if opt.Workers > 1 && !stateful {
		return res, fmt.Errorf("%w: dfs explores on one goroutine: Workers must be 0 or 1, not %d (odpor, dpor, sleep and dfs-stateful split their search)", ErrBadOptions, opt.Workers)
	}
	r := newRunner(sys)
	if stateful && r.hasher == nil {
		return res, fmt.Errorf("%w: %w", ErrBadOptions, ErrNoHash)
	}
	n, err := r.threadCount()
	if err != nil {
		return res, err
	}
	e := &explorer[S]{runner: r, ctx: ctx, opt: opt, n: n, stateful: stateful, flat: flat.Is[S](),
		maxDepth: opt.Limits.MaxDepth(), maxMemory: opt.Limits.MaxMemory()}
	e.frameBytes = int64(unsafe.Sizeof(frame[S]{})) + int64(n)*int64(unsafe.Sizeof(Step{})+1) + int64(unsafe.Sizeof(Move{}))
	e.res = &res
	e.par = newParallel(e, opt.Workers)
	defer e.par.close()
	e.watch = watch.Start(ctx, opt.Progress != nil, opt.ProgressEvery)
	var before map[string]int64
	reporter, _ := sys.(StatsReporter)
	if reporter != nil {
		before = reporter.SearchStats()
	}
	err = e.run()
	e.watch.Stop()
	res.States = int64(e.visited.Len())
	e.visited.Free()
	if reporter != nil {
		res.Stats = make(map[string]int64)
		for k, v := range reporter.SearchStats() {
			res.Stats[k] = v - before[k]
		}
	}
	if err == nil {
		err = e.threadsAgain()
	}
	return res, err
}

// visitedEntryBytes is what one entry of a Go map[uint64]struct{} costs at
// most: the key, its share of the table's control bytes and the growth
// slack (measured with Go 1.26: 24 to 32 bytes, the most just after the
// map grows; counted at 24, the live heap passed the budget by 15%). The
// parallel search's table of claims is such a map.
const visitedEntryBytes = 40

// frame is a state on the depth-first search stack.
type frame[S any] struct {
	state    S
	hash     uint64   // the state's hash, when hashed
	hashed   bool     // hash holds the state's hash
	steps    []Step   // each thread's next step at state
	status   []Status // each thread's status at state
	outs     []int    // each enabled thread's number of outcomes (1 unless a Chooser says more)
	next     Tid      // the thread whose moves are being taken
	out      int      // its next outcome to take
	taken    int      // moves taken from here
	children int      // moves there are to take from here
	preempts int      // preemptions on the path to here
	last     Tid      // the thread whose transition reached here, or -1
}

type explorer[S any] struct {
	*runner[S]
	ctx       context.Context
	opt       Options
	res       *Result
	n         int
	stateful  bool
	flat      bool // S holds no references: Apply cannot modify the states kept
	maxDepth  int
	maxMemory int64
	visited   hashset.Set // stateful: the hashes of the states visited
	watch     *watch.Watch
	par       *parallel[S] // the workers of a parallel stateful search, or nil

	stack      []frame[S] // reused: frames keep their slices between uses
	depth      int        // frames in use
	sched      Schedule   // sched[i] is the move taken from stack[i]
	frameBytes int64

	// reproducer confirms the violations that are only counted; made at
	// the first.
	reproducer *Reproducer[S]

	stop bool
	err  error
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

// protect runs f, turning a panic in user code into a violation, and a
// panic in a callback of the caller's into an error. It reports whether f
// returned normally.
func (e *explorer[S]) protect(f func()) (ok bool) {
	defer func() {
		if p := recover(); p != nil {
			ok = false
			if cb, isCB := p.(*CallbackError); isCB {
				e.fail(cb)
				return
			}
			if se, isSE := p.(*SystemError); isSE {
				e.fail(se) // a wrapper's report that the system it wraps is broken
				return
			}
			// The panicking call belongs to the transition being pushed:
			// the schedule holds it already.
			sched := e.sched[:max(e.depth-1, 0)]
			if e.pushing {
				sched = e.sched[:e.depth]
			}
			v := e.panicViolation(p, sched, e.current)
			e.current, e.pushing = -1, false
			e.violation(v, sched)
		}
	}()
	f()
	return true
}

func (e *explorer[S]) start() {
	e.current = -1
	e.invariantReads() // as strategies that mark steps do, so that Replay matches
	s := e.sys.Init()
	e.visit(s, -1, 0)
}

// loop is the depth-first search proper.
func (e *explorer[S]) loop() {
	for e.depth > 0 && !e.stop {
		top := &e.stack[e.depth-1]
		m, ok := top.nextMove(e.n)
		if !ok {
			if top.children > 1 && !e.unchanged(e.depth-1) {
				return
			}
			e.depth--
			continue
		}
		if e.budgetSpent() {
			return
		}
		preempts := top.preempts
		if top.last >= 0 && top.last != m.Thread && top.status[top.last] == Enabled {
			preempts++
		}
		e.sched = append(e.sched[:e.depth-1], m)
		e.current, e.pushing = m.Thread, true
		var child S
		if e.par != nil {
			child = e.par.apply(top, m, e.depth-1)
		} else if m.Outcome == 0 {
			child = e.sys.Apply(top.state, m.Thread) // the common case, called directly
		} else {
			child = e.chooser.ApplyOutcome(top.state, m.Thread, m.Outcome)
		}
		e.res.Transitions++
		e.visit(child, m.Thread, preempts)
		e.current, e.pushing = -1, false
	}
}

// nextMove returns the next move to take from f, in the order every search
// of this package follows: threads by number, each thread's outcomes in
// order.
func (f *frame[S]) nextMove(n int) (Move, bool) {
	for int(f.next) < n {
		t := f.next
		if f.status[t] == Enabled && f.out < f.outs[t] {
			c := f.out
			f.out++
			f.taken++
			return Move{Thread: t, Outcome: c}, true
		}
		f.next++
		f.out = 0
	}
	return Move{}, false
}

// unchanged makes sure that the state of frame d, from which the search took
// several transitions, is what it was when the frame was pushed: the same
// hash, when the system has one, and the same steps and statuses. Otherwise
// an Apply modified its argument, or Next is not deterministic, and the
// search's answers would be silently wrong: it fails with an error that says
// which.
func (e *explorer[S]) unchanged(d int) bool {
	if err := e.changed(d); err != nil {
		e.fail(err)
		return false
	}
	return true
}

// changed returns the error that frame d shows, or nil.
func (e *explorer[S]) changed(d int) error {
	f := &e.stack[d]
	path := e.sched[:d]
	if f.hashed {
		e.current = -1
		if h := e.hasher.Hash(f.state); h != f.hash {
			return e.diagnose(d, fmt.Sprintf("the state's hash was %#x, now %#x", f.hash, h))
		}
	}
	// The hash shows a modified state; without it, every thread's answer
	// must be asked again. With it, or where the state cannot have been
	// modified (flat), one thread's (a different one at each depth) still
	// catches a Next that is not a function of the state.
	from, to := Tid(0), Tid(e.n)
	if f.hashed || e.flat {
		from = Tid(d % e.n)
		to = from + 1
	}
	for u := from; u < to; u++ {
		e.current = u
		step, st := e.sys.Next(f.state, u)
		if sameAnswer(step, st, f.steps[u], f.status[u]) {
			continue
		}
		step2, st2 := e.sys.Next(f.state, u)
		e.current = -1
		if !sameAnswer(step, st, step2, st2) {
			return systemError(ErrNondeterministic, u, path,
				"two calls of Next on one state returned %v %v and %v %v", step, st, step2, st2)
		}
		return e.diagnose(d, fmt.Sprintf("thread %d's next step changed from %v %v to %v %v",
			u, f.steps[u], f.status[u], step, st))
	}
	e.current = -1
	return nil
}

func sameAnswer(a Step, as Status, b Step, bs Status) bool {
	return as == bs && (as == Finished || a.Equal(b))
}

// diagnose finds which transition taken from frame d modified the frame's
// state, by replaying the path to it on a fresh copy and taking the frame's
// moves in order until the copy changes.
func (e *explorer[S]) diagnose(d int, seen string) (err error) {
	f := &e.stack[d]
	path := e.sched[:d]
	defer func() {
		if p := recover(); p != nil {
			err = systemError(ErrNondeterministic, -1, path, "%s, and replaying the schedule panicked: %v", seen, p)
		}
	}()
	s := e.sys.Init()
	for _, m := range path {
		s = e.apply(s, m)
	}
	same := func() bool {
		if f.hashed && e.hasher.Hash(s) != f.hash {
			return false
		}
		for u := range Tid(e.n) {
			if step, st := e.sys.Next(s, u); !sameAnswer(step, st, f.steps[u], f.status[u]) {
				return false
			}
		}
		return true
	}
	if !same() {
		return systemError(ErrNondeterministic, -1, path, "%s, and replaying the schedule does not reach the state it reached first", seen)
	}
	g := frame[S]{steps: f.steps, status: f.status, outs: f.outs}
	for range f.taken {
		m, _ := g.nextMove(e.n)
		e.apply(s, m)
		if !same() {
			return systemError(ErrMutated, m.Thread, path, "%s: its Apply (outcome %d) modified the state it was given", seen, m.Outcome)
		}
	}
	return systemError(ErrMutated, -1, path,
		"%s while the states after it were explored: a later Apply modified memory this state shares", seen)
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
	if e.stateful {
		e.current = -1
		if e.par != nil {
			h = e.par.hash(s)
		} else {
			h = e.hasher.Hash(s)
		}
		if g := e.visited.Growth(); g > 0 && e.maxMemory >= 0 && !e.visited.Has(h) && !e.memoryOKWith(g) {
			return // the table would double past the budget
		}
		if !e.visited.Add(h) {
			e.endExecution()
			return
		}
		if e.visited.Len()&1023 == 0 && !e.memoryOK() {
			return
		}
	}
	// Push a frame, reusing the slot's slices.
	if e.depth == len(e.stack) {
		e.stack = append(e.stack, frame[S]{steps: make([]Step, e.n), status: make([]Status, e.n), outs: make([]int, e.n)})
		if !e.memoryOK() {
			return
		}
	}
	f := &e.stack[e.depth]
	// A flat state cannot be modified: its hash is not checked again.
	f.state, f.hash, f.hashed, f.next, f.out, f.taken, f.children, f.preempts, f.last =
		s, h, e.stateful && !e.flat, 0, 0, 0, 0, preempts, last
	enabled, blocked := 0, 0
	steps, status, outs := f.steps[:e.n], f.status[:e.n], f.outs[:e.n]
	for t := e.par.look(f, h, e.depth, &enabled, &blocked); t < Tid(e.n); t++ { // the workers' answers, if any
		e.current = t
		steps[t], status[t] = e.sys.Next(s, t)
		st := status[t]
		if st > Idle || (st != Finished && !steps[t].Valid()) {
			e.current = -1
			e.fail(systemError(ErrBadStep, t, path, "%s", badStep(steps[t], st)))
			return
		}
		outs[t] = 1
		switch st {
		case Enabled:
			enabled++
			if e.chooser != nil {
				if outs[t] = e.chooser.Outcomes(s, t); outs[t] < 1 {
					e.current = -1
					e.fail(systemError(ErrBadStep, t, path, "Outcomes returned %d, want at least 1", outs[t]))
					return
				}
			}
			f.children += outs[t]
		case Blocked:
			blocked++
		}
	}
	e.current = -1
	if v := e.par.check(e.runner, s); v != nil {
		v.Thread = last
		e.violation(v, path)
		return
	}
	if enabled == 0 {
		e.terminal(s, path)
		if blocked > 0 && !e.opt.IgnoreDeadlocks {
			// Its waiting steps are named by the replay that confirms it,
			// if it is kept.
			e.violation(&Violation{Kind: Deadlock, Thread: last}, path)
			return
		}
		e.endExecution()
		return
	}
	if f.children > 1 && e.hasher != nil && !f.hashed && !e.flat {
		f.hash, f.hashed = e.hasher.Hash(s), true
	}
	e.depth++
	e.progress()
}

// badStep says what is wrong with a step or status Next returned.
func badStep(step Step, st Status) string {
	if !st.Valid() {
		return fmt.Sprintf("Next returned status %v", st)
	}
	return fmt.Sprintf("Next returned step %v: %v", step, step.Validate())
}

// terminal hands a terminal state to OnTerminal.
func (e *explorer[S]) terminal(s S, path Schedule) {
	if e.opt.OnTerminal != nil {
		callback("OnTerminal", func() { e.opt.OnTerminal(s, path) })
	}
}

func (e *explorer[S]) endExecution() {
	e.res.Executions++
	e.progress()
}

// violation records a violation found at the end of path, after confirming
// that the path replays to it.
func (e *explorer[S]) violation(v *Violation, path Schedule) {
	e.res.Executions++
	if e.res.Violation != nil && e.opt.OnViolation == nil && v.Kind != Panic {
		// Only counted: the replay that confirms it need not build a
		// trace. (A panic's violation is built with its trace in any case.)
		// An error is reported by the full confirmation below.
		if e.reproducer == nil {
			e.reproducer = newReproducer(e.runner, e.opt)
		}
		confirmed := e.reproducer.Reproduces(v, path)
		e.current = -1
		if confirmed {
			e.res.Violations++
			if !e.opt.KeepGoing {
				e.stop = true
			}
			return
		}
	}
	sched := path.Clone()
	rv, err := ConfirmWith(e.sys, v, sched, e.opt)
	if err != nil {
		// A state the search went back to may have been modified: that is
		// the better explanation.
		for d := range e.depth {
			if err2 := e.changed(d); err2 != nil && errors.Is(err2, ErrMutated) {
				err = err2
				break
			}
		}
		e.fail(err)
		return
	}
	e.res.Violations++
	if e.res.Violation == nil {
		e.res.Violation = rv
	}
	if e.opt.OnViolation != nil {
		callback("OnViolation", func() { e.opt.OnViolation(rv) })
	}
	if !e.opt.KeepGoing {
		e.stop = true
	}
}

func (e *explorer[S]) fail(err error) {
	if e.err == nil {
		e.err = err
	}
	e.stop = true
}

// threadsAgain asks Threads once more at the end of a search: a count that
// changed makes everything the search did suspect.
func (e *explorer[S]) threadsAgain() error {
	n, err := e.threadCount()
	if err != nil {
		return err
	}
	if n != e.n {
		return systemError(ErrNondeterministic, -1, nil, "Threads() returned %d, then %d", e.n, n)
	}
	return nil
}

// memoryOK fails the search if what it keeps passes the memory cap.
func (e *explorer[S]) memoryOK() bool { return e.memoryOKWith(0) }

// memoryOKWith is memoryOK with extra bytes more kept: those a table is
// about to grow by.
func (e *explorer[S]) memoryOKWith(extra int64) bool {
	if e.maxMemory < 0 {
		return true
	}
	used := int64(len(e.stack))*e.frameBytes + e.visited.Bytes() + extra
	if used > e.maxMemory {
		e.fail(fmt.Errorf("%w: %d bytes kept (%d stack frames, %d visited states), budget %d (Limits.Memory)",
			ErrMemory, used, len(e.stack), e.visited.Len(), e.maxMemory))
		return false
	}
	return true
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
	if e.watch.Flag() || (e.res.Transitions%watch.PollEvery == 0 && e.watch.Poll()) {
		e.fail(cancelled(e.ctx))
		return true
	}
	return false
}

// cancelled is the error of a search stopped by its context.
func cancelled(ctx context.Context) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return fmt.Errorf("weft: search cancelled: %w (%w)", err, cause)
	}
	return fmt.Errorf("weft: search cancelled: %w", err)
}

func (e *explorer[S]) progress() {
	if e.opt.Progress == nil || !e.watch.ProgressDue() {
		return
	}
	r := *e.res
	r.States = int64(e.visited.Len())
	callback("Progress", func() { e.opt.Progress(r) })
}

// callback runs one of the caller's callbacks, turning a panic in it into a
// *CallbackError panic that the search's recovery reports as an error, not
// as a violation of the system.
func callback(name string, f func()) {
	defer func() {
		if p := recover(); p != nil {
			if _, ok := p.(*CallbackError); ok {
				panic(p)
			}
			panic(&CallbackError{Callback: name, Value: p, Stack: stack()})
		}
	}()
	f()
}
