package mat

// Explore is the explicit-state analogue of the MAT-reduced token-passing
// model of Ganai and Kundu (SPIN 2009), section 4: a depth-first search that
// switches from thread v to thread u only when u == v or (last event of v,
// next event of u) is a token-passing pair.
//
// Invariant: the search path is always a prefix of a schedule the pairs allow
// in the word model (the completer prunes every other prefix), and at every
// state it visits each thread's next step is the one its unrolled sequence
// predicts (otherwise the system is rejected with ErrNotStraightLine).

import (
	"context"
	"errors"
	"fmt"
	"unsafe"

	"github.com/weftlab/weft/internal/search"
	"github.com/weftlab/weft/ts"
)

// ErrNotStraightLine is wrapped by the error Explore and Unroll return for a
// system whose threads' access sequences depend on the interleaving (a
// branch on a value read, a thread that blocks for ever): MATs are computed
// over fixed sequences.
var ErrNotStraightLine = errors.New("mat: a thread's accesses depend on the interleaving")

// Options configure Explore. The zero value explores one schedule per class
// of the real accesses (two threads).
type Options struct {
	ts.Options

	// EndOrders explores every order of the threads' virtual end events, as
	// the paper's count does: each class of the real accesses is then
	// explored once per order in which the threads can end (twice for two
	// threads). By default the end events come in thread order.
	EndOrders bool
}

func (o Options) validate() error {
	if err := search.OneWorker(&o.Options, "mat"); err != nil {
		return err
	}
	return o.Options.Validate()
}

// Unroll runs the system's non-preemptive schedule (the lowest-numbered
// enabled thread runs until it finishes or blocks) and returns each thread's
// accesses in order. Check is not consulted. It returns an error wrapping
// ErrNotStraightLine if a thread never finishes on that run, and a
// *ts.SystemError for a broken system or a run longer than limits.MaxDepth.
// The sequences are what Explore verifies at every state it visits.
func Unroll[S any](sys ts.TransitionSystem[S], limits ts.Limits) ([][]Access, error) {
	u, err := unroll(context.Background(), sys, limits)
	if err != nil {
		return nil, err
	}
	if u.limited {
		return nil, fmt.Errorf("%w: the unrolling run reached Limits.Transitions (%d) before every thread finished", ErrNotStraightLine, limits.Transitions)
	}
	if u.err != nil {
		return nil, u.err
	}
	return u.threads, nil
}

// unrolled is the outcome of the unrolling run.
type unrolled struct {
	threads [][]Access
	sched   ts.Schedule
	// first is the run's first violation, with its schedule (nil if none).
	first      *ts.Violation
	firstSched ts.Schedule
	// err wraps ErrNotStraightLine when some thread did not finish.
	err         error
	transitions int64
	limited     bool // stopped at Limits.Transitions
}

func unroll[S any](ctx context.Context, sys ts.TransitionSystem[S], limits ts.Limits) (u unrolled, err error) {
	maxDepth := limits.MaxDepth()
	n, err := search.Threads(sys)
	if err != nil {
		return u, err
	}
	checker, _ := sys.(ts.Checker[S])
	u.threads = make([][]Access, n)
	steps, status := make([]ts.Step, n), make([]ts.Status, n)
	current := ts.Tid(-1)
	defer func() {
		if p := recover(); p != nil {
			if se, ok := p.(*ts.SystemError); ok {
				err = se // a wrapper's report that the system is broken
				return
			}
			// Apply panicked (the schedule ends with its transition) or Next
			// or Check at the state the schedule reaches.
			sched := u.sched
			if u.first == nil {
				u.first, u.firstSched = &ts.Violation{Kind: ts.Panic, Thread: current}, sched.Clone()
			}
			u.err = fmt.Errorf("%w: thread %d panicked in the unrolling run (schedule %v): %v", ErrNotStraightLine, current, sched, p)
			err = nil
		}
	}()
	s := sys.Init()
	run := ts.Tid(0)
	for {
		enabled, blocked, lerr := search.Look(sys, s, steps, status, &current)
		if lerr != nil {
			return u, search.WithSchedule(lerr, u.sched)
		}
		if checker != nil && u.first == nil {
			if cerr := checker.Check(s); cerr != nil {
				u.first, u.firstSched = &ts.Violation{Kind: ts.CheckFailure, Err: cerr, Thread: -1}, u.sched.Clone()
			}
		}
		if enabled == 0 {
			if blocked > 0 {
				if u.first == nil {
					u.first, u.firstSched = &ts.Violation{Kind: ts.Deadlock, Thread: -1}, u.sched.Clone()
				}
				for t, st := range status {
					if st == ts.Blocked {
						u.err = fmt.Errorf("%w: thread %d is blocked for ever in the unrolling run after %d accesses (schedule %v)",
							ErrNotStraightLine, t, len(u.threads[t]), u.sched)
						break
					}
				}
			}
			return u, nil
		}
		if limits.Transitions > 0 && u.transitions >= limits.Transitions {
			u.limited = true
			return u, nil
		}
		if u.transitions&255 == 0 && ctx.Err() != nil {
			return u, search.Cancelled(ctx)
		}
		if int(run) >= n || status[run] != ts.Enabled {
			run = 0
			for status[run] != ts.Enabled {
				run++
			}
		}
		if len(u.sched) >= maxDepth {
			// Like every search, with the move that passes the limit and
			// its thread.
			return u, &ts.SystemError{Err: ts.ErrDepth, Thread: run, Schedule: append(u.sched.Clone(), ts.Move{Thread: run}),
				Detail: fmt.Sprintf("the unrolling run reached %d transitions; raise Limits.Depth if the system does terminate", len(u.sched)+1)}
		}
		u.threads[run] = append(u.threads[run], Access{Obj: steps[run].Obj, Op: steps[run].Op})
		u.sched = append(u.sched, ts.Move{Thread: run})
		current = run
		s = sys.Apply(s, run)
		u.transitions++
	}
}

// Explore explores the schedules of sys that the token-passing pairs allow:
// after thread v's event, thread u's next event may run only if u == v or
// the pair is in Analysis.TP. Each thread also has a virtual end event, taken
// after its last access; by default the end events come in thread order
// (Options.EndOrders lifts that).
//
// The threads' access sequences come from the system's non-preemptive run
// (Unroll) and are checked at every state the search visits: a system whose
// sequences depend on the interleaving is rejected with an error wrapping
// ErrNotStraightLine. If the unrolling run itself ends in a violation and
// Options.KeepGoing is not set, that violation is reported (confirmed by
// replay) without a search.
//
// With two threads Explore runs one execution per Mazurkiewicz class of the
// real accesses and reaches every terminal state of every execution that
// finishes. With three or more it uses ConflictPairs, which are sound but
// not optimal (package doc). Deadlocks it meets are real and reported, but it
// does not promise to find every deadlock.
//
// Result.Stats holds "mats" (MATs over real accesses), "tp" (pairs between
// real accesses in the set used), "all-pairs" (the same without MATs),
// "refused" (switches the pairs refused) and "dead-ends" (states where no move
// was allowed although some thread had not ended: a blocked thread the pairs
// wait for, or, for very long threads, a prefix the completer could not
// rule out).
func Explore[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options) (res ts.Result, err error) {
	// Deadlocks met are real and reported, but not every one is promised.
	res = ts.Result{Bound: ts.NoBound, Finds: search.Finds(&opt.Options).Without(ts.Deadlock)}
	if err := search.Context(ctx); err != nil {
		return res, err
	}
	if err := opt.validate(); err != nil {
		return res, err
	}
	// The system's figures, asked for on every return after its first
	// call: a system that runs threads as coroutines (package threads)
	// ends them then, so a refusal leaves no goroutine either.
	addSystemStats := search.SystemStats(sys)
	defer func() { addSystemStats(&res) }()
	maxDepth := opt.Limits.MaxDepth()
	m, err := search.NewModel(sys)
	if err != nil {
		return res, err
	}
	if m.ValueDependent() {
		// The unrolling run fixes each thread's accesses once for all
		// schedules; a value-dependent step has no one access.
		return res, search.RefuseValueDependent(sys, "mat")
	}
	u, err := unroll(ctx, sys, opt.Limits)
	res.Transitions += u.transitions
	if err != nil || u.limited {
		return res, err // a limit: an incomplete result, as for the search's
	}
	if u.first != nil && !opt.KeepGoing {
		res.Executions = 1
		rv, err := ts.Confirm(sys, u.first, u.firstSched)
		if err != nil {
			return res, err
		}
		res.Violations, res.Violation = 1, rv
		if opt.OnViolation != nil {
			err = search.Protect(func() { search.Callback("OnViolation", func() { opt.OnViolation(rv) }) })
		}
		return res, err
	}
	if u.err != nil {
		return res, u.err
	}
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("weft: search cancelled: %w", err)
	}
	if len(u.threads) != m.N {
		return res, &ts.SystemError{Err: ts.ErrNondeterministic, Thread: -1,
			Detail: fmt.Sprintf("Threads() returned %d, then %d", m.N, len(u.threads))}
	}
	// Threads that make no access take no part: they are finished from the
	// start, and their end events, in thread order, add nothing but cost
	// (quadratic in the threads). With every end order, they stay.
	active, real, idle := u.threads, make([]ts.Tid, len(u.threads)), []ts.Tid(nil)
	for t := range real {
		real[t] = ts.Tid(t)
	}
	if !opt.EndOrders {
		active, real = nil, nil
		for t, acc := range u.threads {
			if len(acc) == 0 {
				idle = append(idle, ts.Tid(t))
				continue
			}
			active, real = append(active, acc), append(real, ts.Tid(t))
		}
		if len(active) == 0 { // keep one thread, for one execution
			active, real, idle = u.threads[:1], []ts.Tid{0}, idle[1:]
		}
	}
	// The analysis allocates the token-passing sets, of a bit per ordered
	// pair of events each, and GenMAT's grid per pair of threads, before
	// the search keeps anything: asked first, so that long threads are
	// refused rather than allocated past the budget.
	limit := opt.Limits.MaxMemory()
	fixed := analysisBytes(active)
	if limit >= 0 && fixed > limit {
		return res, fmt.Errorf("%w: %d bytes for the token-passing pairs of %d threads of %d events (GenMAT's analysis), budget %d bytes (ts.Limits.Memory)",
			ts.ErrMemory, fixed, len(active), totalEvents(active), limit)
	}
	maxMATs := -1
	if limit >= 0 {
		maxMATs = int((limit - fixed) / matBytes)
	}
	a, ok := analyze(active, maxMATs)
	if !ok {
		return res, fmt.Errorf("%w: more than %d MATs for %d threads of %d events (%d bytes each while GenMAT builds them, beside %d bytes of token-passing pairs), budget %d bytes (ts.Limits.Memory)",
			ts.ErrMemory, maxMATs, len(active), totalEvents(active), matBytes, fixed, limit)
	}
	e := &explorer[S]{m: m, sys: sys, ctx: ctx, opt: opt, res: &res, maxDepth: maxDepth, current: -1,
		threads: active, real: real, idle: idle, nReal: len(u.threads), tp: a.TP, n: len(active)}
	e.Outcome = search.Outcome{Ctx: ctx, Opt: &e.opt.Options, Res: &res}
	e.checker, _ = sys.(ts.Checker[S])
	e.hasher, _ = sys.(ts.Hasher[S])
	e.lat = newLattice(a.TP, !opt.EndOrders)
	e.fixed = fixed + int64(cap(a.MATs))*int64(unsafe.Sizeof(MAT{}))
	for _, acc := range active {
		e.fixed += int64(cap(acc)) * int64(unsafe.Sizeof(Access{}))
	}
	if e.lat.fits {
		e.comp = newCompleter(e.lat)
		e.comp.full = e.completerFull
	}
	res.Stats = map[string]int64{
		"mats":      int64(a.RealMATs()),
		"tp":        int64(a.TP.Real()),
		"all-pairs": AllPairsCount(lengths(active)),
	}
	err = e.run()
	res.Stats["refused"] = e.refused
	res.Stats["dead-ends"] = e.deadEnds
	if err == nil {
		err = m.ThreadsAgain()
	}
	return res, err
}

type frame[S any] struct {
	state   S
	hash    uint64
	steps   []ts.Step
	status  []ts.Status
	pos     []int  // events taken per thread, end events included
	last    ts.Tid // thread of the last event, or -1
	next    ts.Tid // next thread to try
	tried   bool   // a move has been taken from here
	multi   bool   // two threads or more enabled: the contract is checked at pop
	pathLen int    // real transitions from the initial state
}

type explorer[S any] struct {
	m        *search.Model[S]
	sys      ts.TransitionSystem[S]
	checker  ts.Checker[S]
	hasher   ts.Hasher[S]
	ctx      context.Context
	opt      Options
	res      *ts.Result
	maxDepth int
	n        int      // threads taking part (indices below are theirs)
	nReal    int      // the system's threads
	real     []ts.Tid // the system's thread of each thread taking part
	idle     []ts.Tid // the system's threads that make no access
	threads  [][]Access
	tp       *Pairs
	lat      *lattice
	comp     *completer // nil when keys do not fit: no pruning

	stack []frame[S]
	depth int
	sched ts.Schedule

	refused, deadEnds int64
	fixed             int64 // bytes of the analysis and the threads' accesses

	current ts.Tid
	pushing bool
	search.Outcome
}

func (e *explorer[S]) run() error {
	return e.Drive(e.root, e.loop, e.panicked)
}

// panicked turns a panic in user code into a violation (search.Outcome.Drive).
func (e *explorer[S]) panicked(any) {
	sched := e.sched
	if !e.pushing && len(sched) > 0 && e.depth > 0 {
		sched = sched[:e.stack[e.depth-1].pathLen]
	}
	t := e.current
	e.current, e.pushing = -1, false
	e.violation(&ts.Violation{Kind: ts.Panic, Thread: t}, sched)
}

func (e *explorer[S]) root() {
	e.sched, e.depth = e.sched[:0], 0
	f := e.push()
	for t := range f.pos {
		f.pos[t] = 0
	}
	e.visit(f, e.sys.Init(), -1)
}

// push returns the next free frame, its slices allocated once.
func (e *explorer[S]) push() *frame[S] {
	if e.depth == len(e.stack) {
		e.stack = append(e.stack, frame[S]{steps: make([]ts.Step, e.nReal), status: make([]ts.Status, e.nReal), pos: make([]int, e.n)})
	}
	return &e.stack[e.depth]
}

// loop is the depth-first search.
func (e *explorer[S]) loop() {
	for e.depth > 0 && !e.Stop {
		top := &e.stack[e.depth-1]
		u := top.next
		for ; int(u) < e.n; u++ {
			if !e.movable(top, u) {
				continue
			}
			if !e.lat.allowed(top.pos, top.last, u) {
				e.refused++
				continue
			}
			if e.comp != nil {
				top.pos[u]++
				ok := e.comp.ok(top.pos, u)
				top.pos[u]--
				if e.Stop {
					return // the completer passed the memory budget
				}
				if !ok {
					continue
				}
			}
			break
		}
		if int(u) >= e.n {
			if !top.tried {
				e.deadEnds++ // a thread has not ended, yet no move is allowed
			}
			if top.multi && !e.unchanged(top) {
				return
			}
			e.depth--
			continue
		}
		top.next = u + 1
		top.tried = true
		if top.pos[u] == len(e.threads[u]) {
			e.end(top, u)
			continue
		}
		if e.Spent() || (e.res.Transitions&4095 == 0 && !e.memoryOK()) {
			return
		}
		ru := e.real[u]
		e.sched = append(e.sched[:top.pathLen], ts.Move{Thread: ru})
		e.current, e.pushing = ru, true
		child := e.sys.Apply(top.state, ru)
		e.res.Transitions++
		if e.hasher != nil {
			if h := e.hasher.Hash(top.state); h != top.hash {
				e.Fail(&ts.SystemError{Err: ts.ErrMutated, Thread: ru, Schedule: e.sched[:top.pathLen].Clone(),
					Detail: fmt.Sprintf("the state before its transition changed (hash %#x, now %#x)", top.hash, h)})
				return
			}
		}
		f := e.push()
		copy(f.pos, top.pos)
		f.pos[u]++
		e.visit(f, child, u)
		e.current, e.pushing = -1, false
	}
}

// memoryOK fails the search if what it keeps passes Limits.Memory: the
// stack, the completer's memo (a Go map, counted at 40 bytes an entry, the
// most one of its small keys takes), the token-passing analysis and the
// threads' accesses. An estimate: the states on the stack are counted by
// their Go size.
func (e *explorer[S]) memoryOK() bool {
	limit := e.opt.Limits.MaxMemory()
	if limit < 0 {
		return true
	}
	frame := int64(unsafe.Sizeof(frame[S]{})) + int64(e.nReal)*int64(unsafe.Sizeof(ts.Step{})+unsafe.Sizeof(ts.Status(0))) + int64(e.n)*8
	used := e.fixed + int64(cap(e.stack))*frame + int64(cap(e.sched))*int64(unsafe.Sizeof(ts.Move{}))
	memo := 0
	if e.comp != nil {
		memo = len(e.comp.memo)
		used += int64(memo) * mapEntryBytes
	}
	if used <= limit {
		return true
	}
	return e.MemoryOK(used, fmt.Sprintf("%d frames, %d completer entries, %d bytes of token-passing analysis", cap(e.stack), memo, e.fixed))
}

// completerFull is the completer's memory check (every 4096 entries it
// adds): true stops it, and the search, which memoryOK has failed.
func (e *explorer[S]) completerFull() bool { return !e.memoryOK() }

// mapEntryBytes is what a Go map takes per entry of a small key and value,
// at most (measured with Go 1.26: 24 to 32 bytes, the most just after it
// grows).
const mapEntryBytes = 40

// matBytes is what a MAT costs while GenMAT builds it, at most: its place
// in GenMAT's list and in the analysis's list of every pair's MATs, each of
// up to twice the room the MATs take (slices grow by doubling), and its
// start pair in GenMAT's queue, likewise.
const matBytes = 2*2*int64(unsafe.Sizeof(MAT{})) + 2*16

func totalEvents(threads [][]Access) int64 {
	var m int64
	for _, acc := range threads {
		m += int64(len(acc)) + 1
	}
	return m
}

// analysisBytes is what Analyze allocates for certain for these threads: a
// token-passing set of a bit per ordered pair of events (end events
// included) for the paper's pairs, their extra pairs and, for three threads
// or more, the conflict pairs, and for every pair of threads GenMAT's grid
// of a byte per pair of start events. (Its MATs, which the search keeps,
// are counted when they are known.)
func analysisBytes(threads [][]Access) int64 {
	m := totalEvents(threads)
	sets := int64(2)
	if len(threads) > 2 {
		sets = 3
	}
	b := sets * (m*m + 63) / 64 * 8
	for i := range threads {
		for j := i + 1; j < len(threads); j++ {
			b += int64(len(threads[i])+1) * int64(len(threads[j])+1)
		}
	}
	return b
}

// unchanged checks, where the search leaves a state with two threads or more
// enabled (whether or not the pairs let it take both), that the state is what it was (its hash, or every thread's step):
// an Apply that modified its argument, or a Next that is not a function of
// the state, stops the search with the error.
func (e *explorer[S]) unchanged(f *frame[S]) bool {
	b := search.Baseline{Hash: f.hash, Hashed: e.hasher != nil, Steps: f.steps, Status: f.status}
	if err := e.m.Unchanged(f.state, b, e.sched[:f.pathLen], nil, &e.current); err != nil {
		e.Fail(err)
		return false
	}
	return true
}

// movable reports whether thread u has a next event at f in the real system:
// an enabled access, or its end event once it has finished.
func (e *explorer[S]) movable(f *frame[S], u ts.Tid) bool {
	n := len(e.threads[u])
	switch {
	case f.pos[u] < n:
		return f.status[e.real[u]] == ts.Enabled
	case f.pos[u] == n:
		return true // finished (visit checked it); its end event
	}
	return false
}

// end takes thread u's virtual end event from top: the state is unchanged.
func (e *explorer[S]) end(top *frame[S], u ts.Tid) {
	f := e.push()
	f.state, f.hash, f.last, f.next, f.tried, f.multi, f.pathLen = top.state, top.hash, u, 0, false, false, top.pathLen
	copy(f.steps, top.steps)
	copy(f.status, top.status)
	copy(f.pos, top.pos)
	f.pos[u]++
	if e.lat.done(f.pos) {
		e.terminal(f)
		return
	}
	e.depth++
}

// terminal ends an execution whose every thread has ended.
func (e *explorer[S]) terminal(f *frame[S]) {
	search.Terminal(&e.Outcome, f.state, e.sched[:f.pathLen])
	e.res.Executions++
}

// visit processes state s reached by thread last (or the initial state) into
// frame f, which the caller has filled with the positions.
func (e *explorer[S]) visit(f *frame[S], s S, last ts.Tid) {
	pathLen := len(e.sched)
	if last < 0 {
		pathLen = 0
	}
	if pathLen > e.maxDepth {
		e.Fail(&ts.SystemError{Err: ts.ErrDepth, Thread: e.realOf(last), Schedule: e.sched.Clone(),
			Detail: fmt.Sprintf("an execution reached %d transitions; raise Limits.Depth if the system does terminate", pathLen)})
		return
	}
	var h uint64
	if e.hasher != nil {
		e.current = -1
		h = e.hasher.Hash(s)
	}
	enabled, blocked, err := search.Look(e.sys, s, f.steps, f.status, &e.current)
	if err != nil {
		e.Fail(search.WithSchedule(err, e.sched[:pathLen]))
		return
	}
	if e.checker != nil {
		if cerr := e.checker.Check(s); cerr != nil {
			e.violation(&ts.Violation{Kind: ts.CheckFailure, Err: cerr, Thread: e.realOf(last)}, e.sched[:pathLen])
			return
		}
	}
	if err := e.straight(f, pathLen); err != nil {
		e.Fail(err)
		return
	}
	if enabled == 0 && blocked > 0 {
		e.violation(&ts.Violation{Kind: ts.Deadlock, Thread: e.realOf(last)}, e.sched[:pathLen])
		return
	}
	f.state, f.hash, f.last, f.next, f.tried, f.multi, f.pathLen = s, h, last, 0, false, enabled > 1, pathLen
	e.depth++
}

// straight checks that every thread's next step at f is the one its unrolled
// sequence predicts.
func (e *explorer[S]) straight(f *frame[S], pathLen int) error {
	for i, acc := range e.threads {
		t := e.real[i]
		p, st := f.pos[i], f.status[t]
		switch {
		case p < len(acc) && st == ts.Finished:
			return fmt.Errorf("%w: thread %d finished after %d accesses; the unrolling run saw %d (schedule %v)",
				ErrNotStraightLine, t, p, len(acc), e.sched[:pathLen])
		case p < len(acc) && (f.steps[t].Obj != acc[p].Obj || f.steps[t].Op != acc[p].Op):
			return fmt.Errorf("%w: thread %d's access %d is %v; the unrolling run saw %v (schedule %v)",
				ErrNotStraightLine, t, p+1, f.steps[t], acc[p], e.sched[:pathLen])
		case p >= len(acc) && st != ts.Finished:
			return fmt.Errorf("%w: thread %d goes on (%v) after the %d accesses the unrolling run saw (schedule %v)",
				ErrNotStraightLine, t, f.steps[t], len(acc), e.sched[:pathLen])
		}
	}
	for _, t := range e.idle {
		if f.status[t] != ts.Finished {
			return fmt.Errorf("%w: thread %d goes on (%v) after the 0 accesses the unrolling run saw (schedule %v)",
				ErrNotStraightLine, t, f.steps[t], e.sched[:pathLen])
		}
	}
	return nil
}

// realOf returns the system's thread of thread t taking part, or -1.
func (e *explorer[S]) realOf(t ts.Tid) ts.Tid {
	if t < 0 {
		return -1
	}
	return e.real[t]
}

// violation confirms a violation by replaying its schedule and records it.
func (e *explorer[S]) violation(v *ts.Violation, sched ts.Schedule) {
	e.res.Executions++
	search.Confirm(&e.Outcome, e.sys, v, sched)
}
