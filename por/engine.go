package por

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/bits-and-blooms/bitset"

	"github.com/weftlab/weft/hb"
	"github.com/weftlab/weft/internal/search"
	"github.com/weftlab/weft/ts"
)

// The four strategies share one depth-first engine: a stack of frames (the
// states of the current execution) and, between frame i and frame i+1, the
// event i (the transition taken), with its vector clock and the locks its
// thread held. What differs is which threads a frame explores (mode) and
// what the engine does at each state it reaches.

type mode uint8

const (
	modeSleep mode = iota
	modeDPOR
	modeODPOR
	modeSDPOR
)

var modeNames = [...]string{modeSleep: "sleep", modeDPOR: "dpor", modeODPOR: "odpor", modeSDPOR: "sdpor"}

// event is one transition of the current execution.
type event struct {
	t          ts.Tid
	step       ts.Step
	n          uint32   // the thread's n-th event, from 1
	clock      hb.VC    // happens-before clock: clock[u] events of u happen before or are this one
	prevObj    int32    // the previous event on the same object, or -1
	prevThread int32    // the thread's previous event, or -1
	held       []ts.Obj // locks the thread held before this step (a multiset)
}

// frame is a state of the current execution.
type frame[S any] struct {
	state  S
	hash   uint64
	steps  []ts.Step
	status []ts.Status
	count  []uint32 // events of each thread before this state
	// sleep holds the threads asleep here and, as the search goes on, those
	// explored from here (the two play the same part).
	sleep bitset.BitSet
	bt    bitset.BitSet // DPOR, SDPOR: the backtrack set
	last  ts.Tid        // the thread whose transition reached this state, or -1
	root  int32         // ODPOR: the wakeup tree's root node
	cur   int32         // ODPOR: the child being explored, or -1
	tried bool          // ODPOR: a branch has been taken from here
}

type explorer[S any] struct {
	sys      ts.TransitionSystem[S]
	checker  ts.Checker[S]
	hasher   ts.Hasher[S]
	ctx      context.Context
	opt      Options
	res      *ts.Result
	mode     mode
	n        int
	maxDepth int

	stack   []frame[S]
	depth   int
	ev      []event // ev[i] leads from stack[i] to stack[i+1]; len(ev) == depth-1 between steps
	evStore []event // backing store of ev, whose slots keep their clocks
	sched   ts.Schedule
	thrLast []int32
	objLast map[ts.Obj]int32
	held    [][]ts.Obj
	zero    hb.VC

	nextSleep bitset.BitSet // the sleep set of the state being visited
	nextRoot  int32         // ODPOR: the wakeup subtree of the state being visited

	// ODPOR
	wt          wtree
	raceFrom    int   // the first event whose races have not been analysed
	seqBuf      []wev // reused wakeup sequences
	cands       []int32
	reinsert    [][]wev
	replaySched ts.Schedule // feasibility replays
	replays     int64
	infeasible  int64               // wakeup-tree branches found not enabled
	blockedObjs map[ts.Obj]struct{} // objects of steps seen Blocked
	strict      bool                // a check has failed: weak initials by initials only

	// SDPOR
	visited map[uint64]uint8 // 1 on the stack, 2 explored
	graph   opGraph

	init        bitset.BitSet // initials, reused
	firstN      []uint32      // per thread, its first event's number in a notdep sequence
	pendingStep ts.Step       // the step backtrackAt is reversing

	sleepBlocked int64
	backtracks   int64
	revisits     int64

	current      ts.Tid
	pushing      bool
	lastProgress time.Time
	search.Outcome
}

func run[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options, m mode) (ts.Result, error) {
	res := ts.Result{Bound: ts.NoBound}
	if err := opt.validate(); err != nil {
		return res, err
	}
	e := &explorer[S]{sys: sys, ctx: ctx, opt: opt, res: &res, mode: m, maxDepth: opt.Limits.MaxDepth(), current: -1, lastProgress: time.Now()}
	e.Outcome = search.Outcome{Ctx: ctx, Opt: &e.opt.Options, Res: &res}
	e.checker, _ = sys.(ts.Checker[S])
	e.hasher, _ = sys.(ts.Hasher[S])
	if m == modeSDPOR && e.hasher == nil {
		return res, fmt.Errorf("%w: %w", ts.ErrBadOptions, ts.ErrNoHash)
	}
	n, err := search.Threads(sys)
	if err != nil {
		return res, err
	}
	e.n = n
	e.zero = hb.NewVC(n)
	e.thrLast = make([]int32, n)
	e.firstN = make([]uint32, n)
	e.held = make([][]ts.Obj, n)
	e.objLast = make(map[ts.Obj]int32)
	e.blockedObjs = make(map[ts.Obj]struct{})
	for i := range e.thrLast {
		e.thrLast[i] = -1
	}
	if m == modeSDPOR {
		e.visited = make(map[uint64]uint8)
		e.graph.init()
	}
	err = e.run()
	if e.visited != nil {
		res.States = int64(len(e.visited))
	}
	res.Stats = map[string]int64{"sleep-blocked": e.sleepBlocked}
	switch m {
	case modeDPOR, modeSDPOR:
		res.Stats["backtrack-points"] = e.backtracks
	case modeODPOR:
		res.Stats["wakeup-insertions"] = e.backtracks
		res.Stats["feasibility-replays"] = e.replays
		res.Stats["infeasible-branches"] = e.infeasible
	}
	if m == modeSDPOR {
		res.Stats["revisits"] = e.revisits
		res.Stats["graph-ops"] = int64(len(e.graph.ops))
	}
	return res, err
}

func (e *explorer[S]) run() error {
	return e.Drive(e.root, e.loop, e.panicked)
}

// panicked turns a panic in user code into a violation (search.Outcome.Drive).
func (e *explorer[S]) panicked(any) {
	sched := e.sched[:len(e.ev)]
	if !e.pushing && len(sched) > 0 {
		sched = sched[:len(sched)-1]
	}
	t := e.current
	e.current, e.pushing = -1, false
	// Drop the transition that did not make it to a frame.
	for len(e.ev) > max(e.depth-1, 0) {
		e.popEvent()
	}
	e.violation(&ts.Violation{Kind: ts.Panic, Thread: t}, sched)
}

func (e *explorer[S]) root() {
	e.nextSleep.ClearAll()
	e.nextRoot = -1
	if e.mode == modeODPOR {
		e.nextRoot = e.wt.alloc(-1, ts.Step{})
	}
	e.visit(e.sys.Init(), -1)
}

// loop is the depth-first search.
func (e *explorer[S]) loop() {
	for e.depth > 0 && !e.Stop {
		top := &e.stack[e.depth-1]
		t := e.pick(top)
		if t < 0 {
			e.pop()
			continue
		}
		if e.budgetSpent() {
			return
		}
		e.take(top, t)
	}
}

// pick returns the next thread to explore from the top frame, or -1.
func (e *explorer[S]) pick(f *frame[S]) ts.Tid {
	switch e.mode {
	case modeSleep:
		// The thread that moved last first (no preemption), then by number:
		// the order DPOR follows too.
		if l := f.last; l >= 0 && f.status[l] == ts.Enabled && !f.sleep.Test(uint(l)) {
			return l
		}
		for t := range ts.Tid(e.n) {
			if f.status[t] == ts.Enabled && !f.sleep.Test(uint(t)) {
				return t
			}
		}
	case modeDPOR, modeSDPOR:
		if l := f.last; l >= 0 && f.bt.Test(uint(l)) && f.status[l] == ts.Enabled && !f.sleep.Test(uint(l)) {
			return l
		}
		for u, ok := f.bt.NextSet(0); ok; u, ok = f.bt.NextSet(u + 1) {
			if f.status[u] == ts.Enabled && !f.sleep.Test(u) {
				return ts.Tid(u)
			}
		}
	case modeODPOR:
		return e.pickWakeup(f)
	}
	return -1
}

// take explores thread t's transition from the top frame.
func (e *explorer[S]) take(top *frame[S], t ts.Tid) {
	k := e.depth - 1
	// The child's sleep set: the threads asleep or explored here whose
	// steps are independent of t's.
	e.nextSleep.ClearAll()
	if e.mode != modeSDPOR {
		for u, ok := top.sleep.NextSet(0); ok; u, ok = top.sleep.NextSet(u + 1) {
			if ts.Tid(u) != t && !ts.Dependent(top.steps[u], top.steps[t]) {
				e.nextSleep.Set(u)
			}
		}
	}
	if e.mode != modeODPOR {
		top.sleep.Set(uint(t)) // explored (ODPOR adds it when the branch is done)
	}
	e.nextRoot = -1
	if e.mode == modeODPOR {
		e.nextRoot = top.cur
	}
	e.sched = append(e.sched[:k], ts.Move{Thread: t})
	e.pushEvent(t, top.steps[t])
	e.current, e.pushing = t, true
	child := e.sys.Apply(top.state, t)
	e.res.Transitions++
	if e.hasher != nil {
		if h := e.hasher.Hash(top.state); h != top.hash {
			e.Fail(&ts.SystemError{Err: ts.ErrMutated, Thread: t, Schedule: e.sched[:k].Clone(),
				Detail: fmt.Sprintf("the state before its transition changed (hash %#x, now %#x)", top.hash, h)})
			return
		}
	}
	if !e.visit(child, t) {
		e.popEvent()
	}
	e.current, e.pushing = -1, false
}

// pop removes the top frame and the event that reached it.
func (e *explorer[S]) pop() {
	e.depth--
	f := &e.stack[e.depth]
	if e.visited != nil {
		e.visited[f.hash] = 2
	}
	if e.mode == modeODPOR && e.depth == 0 {
		e.wt.free(f.root)
	}
	if e.depth > 0 {
		e.popEvent()
	}
}

// pushEvent appends thread t's transition with step st to the execution,
// computing its clock: program order, and per object the dependent accesses
// before it (a read follows the last write; a write follows the last write and
// every read since).
func (e *explorer[S]) pushEvent(t ts.Tid, st ts.Step) {
	i := len(e.ev)
	if i == len(e.evStore) {
		e.evStore = append(e.evStore, event{clock: hb.NewVC(e.n)})
	}
	e.ev = e.evStore[:i+1]
	x := &e.ev[i]
	x.t, x.step = t, st
	x.prevThread = e.thrLast[t]
	if p := x.prevThread; p >= 0 {
		x.n = e.ev[p].n + 1
		x.clock.CopyFrom(e.ev[p].clock)
	} else {
		x.n = 1
		x.clock.CopyFrom(e.zero)
	}
	x.clock[t] = x.n
	prev, ok := e.objLast[st.Obj]
	if !ok {
		prev = -1
	}
	x.prevObj = prev
	for j := prev; j >= 0; j = e.ev[j].prevObj {
		y := &e.ev[j]
		if ts.Dependent(y.step, st) {
			x.clock.Join(y.clock)
		}
		if y.step.Op != ts.Read {
			break // everything earlier on the object happens before y
		}
	}
	e.objLast[st.Obj] = int32(i)
	e.thrLast[t] = int32(i)
	x.held = append(x.held[:0], e.held[t]...)
	switch st.Op {
	case ts.Acquire:
		e.held[t] = append(e.held[t], st.Obj)
	case ts.Release:
		e.held[t] = removeLock(e.held[t], st.Obj)
	}
}

// popEvent removes the last event of the execution.
func (e *explorer[S]) popEvent() {
	i := len(e.ev) - 1
	x := &e.ev[i]
	e.objLast[x.step.Obj] = x.prevObj
	e.thrLast[x.t] = x.prevThread
	e.held[x.t] = append(e.held[x.t][:0], x.held...)
	e.ev = e.ev[:i]
	if i < e.raceFrom {
		e.raceFrom = i
	}
}

func removeLock(held []ts.Obj, l ts.Obj) []ts.Obj {
	for i := len(held) - 1; i >= 0; i-- {
		if held[i] == l {
			return append(held[:i], held[i+1:]...)
		}
	}
	return held
}

// clockOf returns thread t's clock: that of its last event.
func (e *explorer[S]) clockOf(t ts.Tid) hb.VC {
	if j := e.thrLast[t]; j >= 0 {
		return e.ev[j].clock
	}
	return e.zero
}

// covers reports whether event j happens before (or is) the point of clock c.
func (e *explorer[S]) covers(c hb.VC, j int32) bool {
	x := &e.ev[j]
	return c[x.t] >= x.n
}

// coEnabled reports whether event j and a step st of thread p, which holds
// the locks hp, may be co-enabled. Two steps made while their threads hold a
// common lock never are, nor is an acquire of a lock with a step made while
// another thread holds it.
func (e *explorer[S]) coEnabled(j int32, st ts.Step, hp []ts.Obj) bool {
	x := &e.ev[j]
	for _, l := range x.held {
		if slices.Contains(hp, l) || (st.Op == ts.Acquire && st.Obj == l) {
			return false
		}
	}
	return !(x.step.Op == ts.Acquire && slices.Contains(hp, x.step.Obj))
}

// latestRace returns the latest event of the execution that is dependent and
// may be co-enabled with thread p's step st and does not happen before p (by
// p's clock cp), or -1: the event Flanagan and Godefroid's backtrack rule
// reverses.
func (e *explorer[S]) latestRace(p ts.Tid, st ts.Step, cp hb.VC, hp []ts.Obj) int32 {
	j, ok := e.objLast[st.Obj]
	if !ok {
		return -1
	}
	for ; j >= 0; j = e.ev[j].prevObj {
		x := &e.ev[j]
		if x.t != p && !ts.Dependent(x.step, st) {
			continue // two reads
		}
		if e.covers(cp, j) {
			if x.step.Op != ts.Read {
				return -1 // everything earlier on the object happens before p too
			}
			continue
		}
		if x.t != p && e.coEnabled(j, st, hp) {
			return j
		}
	}
	return -1
}

// visit processes a state reached by thread last (or the initial state) and
// pushes a frame for it unless the execution ends there. It reports whether
// it pushed one.
func (e *explorer[S]) visit(s S, last ts.Tid) bool {
	k := len(e.ev)
	if k > e.maxDepth {
		e.Fail(&ts.SystemError{Err: ts.ErrDepth, Thread: last, Schedule: e.sched[:k].Clone(),
			Detail: fmt.Sprintf("an execution reached %d transitions; raise Limits.Depth if the system does terminate", k)})
		return false
	}
	var h uint64
	if e.hasher != nil {
		e.current = -1
		h = e.hasher.Hash(s)
	}
	if e.depth == len(e.stack) {
		e.stack = append(e.stack, frame[S]{steps: make([]ts.Step, e.n), status: make([]ts.Status, e.n), count: make([]uint32, e.n)})
	}
	f := &e.stack[e.depth]
	enabled, blocked, err := search.Look(e.sys, s, f.steps, f.status, &e.current)
	if err != nil {
		e.Fail(search.WithSchedule(err, e.sched[:k]))
		return false
	}
	if e.visited != nil {
		switch e.visited[h] {
		case 1:
			e.Fail(&ts.SystemError{Err: ErrCyclic, Thread: last, Schedule: e.sched[:k].Clone(),
				Detail: fmt.Sprintf("the state reached by this schedule (hash %#x) is on the search stack", h)})
			return false
		case 2, 3:
			if e.visited[h] == 3 {
				e.failureRaces(f)
			}
			e.revisit(f)
			e.res.Executions++
			return false
		}
		e.visited[h] = 2 // 1 once its frame is pushed
	}
	e.current = -1
	var failed error
	if e.checker != nil {
		failed = e.checker.Check(s)
	}
	ends := failed != nil || enabled == 0
	if failed != nil {
		e.strict = true // see ODPOR's documentation
	}
	switch e.mode {
	case modeDPOR, modeSDPOR:
		e.backtrackAll(f)
		if e.mode == modeSDPOR {
			recordEdges(e, f)
		}
	case modeODPOR:
		e.pending(f, ends)
	}
	if failed != nil {
		e.failureRaces(f)
		if e.visited != nil {
			e.visited[h] = 3
		}
	}
	if failed != nil {
		e.endExecution()
		e.violation(&ts.Violation{Kind: ts.CheckFailure, Err: failed, Thread: last}, e.sched[:k])
		return false
	}
	if enabled == 0 {
		e.endExecution()
		if e.opt.OnTerminal != nil {
			e.opt.OnTerminal(s, e.sched[:k])
		}
		if blocked > 0 {
			e.violation(&ts.Violation{Kind: ts.Deadlock, Thread: last}, e.sched[:k])
			return false
		}
		e.res.Executions++
		return false
	}
	f.state, f.hash, f.last = s, h, last
	f.sleep.ClearAll()
	f.bt.ClearAll()
	if e.mode != modeSDPOR {
		f.sleep.InPlaceUnion(&e.nextSleep)
	}
	if k > 0 {
		prev := &e.stack[e.depth-1]
		copy(f.count, prev.count)
		f.count[last]++
	} else {
		clear(f.count)
	}
	first := ts.Tid(-1)
	if last >= 0 && f.status[last] == ts.Enabled && !f.sleep.Test(uint(last)) {
		first = last // no preemption first
	} else {
		for t := range ts.Tid(e.n) {
			if f.status[t] == ts.Enabled && !f.sleep.Test(uint(t)) {
				first = t
				break
			}
		}
	}
	switch e.mode {
	case modeDPOR, modeSDPOR:
		if first >= 0 {
			f.bt.Set(uint(first))
		}
	case modeODPOR:
		f.root, f.cur, f.tried = e.nextRoot, -1, false
		if e.wt.nodes[f.root].first < 0 && first >= 0 {
			e.wt.addChild(f.root, first, f.steps[first])
		}
		if e.wt.nodes[f.root].first < 0 {
			first = -1
		}
	}
	if first < 0 {
		// Every enabled thread is asleep: what follows was explored from
		// an equivalent execution.
		e.sleepBlocked++
		e.endExecution()
		return false
	}
	if e.visited != nil {
		e.visited[h] = 1
	}
	e.depth++
	return true
}

// failureRaces handles the end of an execution at a failed check. The
// transition that failed stops every other thread, as if it disabled their
// next steps, and so it is dependent with each of them: the other threads
// must also be tried before it, or a failure of theirs that the failing
// thread would mask could be missed.
func (e *explorer[S]) failureRaces(f *frame[S]) {
	k := int32(len(e.ev)) - 1
	if k < 0 {
		return
	}
	last := e.ev[k].t
	pre := &e.stack[k]
	for p := range ts.Tid(e.n) {
		if p == last || f.status[p] == ts.Finished {
			continue
		}
		if e.mode == modeODPOR {
			if pre.status[p] == ts.Enabled {
				e.addRootChild(pre, p)
			} else {
				for q := range ts.Tid(e.n) {
					if pre.status[q] == ts.Enabled {
						e.addRootChild(pre, q)
					}
				}
			}
			continue
		}
		e.pendingStep = f.steps[p]
		e.backtrackAt(k, p, e.clockOf(p))
	}
}

// endExecution is called where an execution ends, before it is reported:
// ODPOR analyses its races there.
func (e *explorer[S]) endExecution() {
	if e.mode == modeODPOR {
		e.races()
	}
}

// violation confirms a violation by replaying its schedule and records it.
func (e *explorer[S]) violation(v *ts.Violation, sched ts.Schedule) {
	e.res.Executions++
	search.Confirm(&e.Outcome, e.sys, v, sched)
}

// budgetSpent reports whether a limit or the context stops the search before
// the next transition, and reports progress.
func (e *explorer[S]) budgetSpent() bool {
	if e.Spent() {
		return true
	}
	if e.opt.Progress != nil && e.res.Transitions&1023 == 0 && e.res.Transitions > 0 {
		every := e.opt.ProgressEvery
		if every == 0 {
			every = time.Second
		}
		if now := time.Now(); now.Sub(e.lastProgress) >= every {
			e.lastProgress = now
			r := *e.res
			r.States = int64(len(e.visited))
			e.opt.Progress(r)
		}
	}
	return false
}
