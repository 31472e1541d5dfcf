package cbound

import (
	"context"
	"fmt"
	"unsafe"

	"github.com/bits-and-blooms/bitset"

	"github.com/weftlab/weft/hb"
	"github.com/weftlab/weft/internal/flat"
	"github.com/weftlab/weft/internal/search"
	"github.com/weftlab/weft/ts"
)

// HBSearch implements Algorithm 1 of Musuvathi and Qadeer, "Partial-order
// reduction for context-bounded state exploration" (MSR-TR-2007-12), the
// strategy cb-por1: a depth-first search over happens-before states that
// visits every HB state s with CB(s) <= Options.Bound exactly once, and so
// every terminal HB class within the bound exactly once.
//
//	Search(s): H = H ∪ {s}
//	           for t in E(s): if ¬(next(s,t) ∈ H ∨ CB(s,t) > c) then Search(next(s,t))
//
// Invariant (CI of the paper): every state in the table H is on the search
// stack or has all of Reach(s) (the states reachable from it by steps of
// context bound at most c) in H. By monotonicity (the paper's Theorem 1)
// every state with CB <= c is reachable by such steps, so at the end H holds
// exactly the HB states with CB <= c (Theorem 2). Result.States counts them.
//
// A state is an HB state: the set of events of the execution that reached
// it (package hb), each with its accesses and its outcome, so two executions
// that differ only in the order of independent transitions reach one state,
// and the second is not explored. The search's moves are a thread and an
// outcome of its transition; every outcome is explored (see the package
// documentation for the whole model).
// CB(s, t) comes from the memoized dynamic program of section 3.2 (see
// cbound's package documentation); its figures are in Result.Stats.
//
// A violation is reported with a schedule that reaches the violating HB
// state with its fewest preemptions, at most the bound. Result.Coverage holds,
// per bound 0..c, the terminal HB classes (each one execution), the distinct
// terminal states by hash (when the system implements ts.Hasher) and the
// HB states stored, with CB at most that bound. Unbounded explores every HB
// state and sets Result.Bound to the largest CB of a terminal state.
func HBSearch[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options) (ts.Result, error) {
	return runHB(ctx, sys, opt, false)
}

// POR implements Algorithm 2 of the cbpor paper, the strategy cb-por2: the
// search drives the system only to terminal states and to the states leading
// there, and each terminal state it reaches is handed to Mark (mark.go), which
// stores it and every prefix from which no unexplored terminal state within
// the bound is reachable. The search never enters a stored state, so it
// explores every terminal HB class with CB <= Options.Bound exactly once
// (Theorems 3 and 4): Result.Executions is the number of those classes, and
// two executions never end in the same HB state.
//
// Invariant (Inv): an HB state is in the table iff every terminal state
// reachable from it by steps of context bound at most c is in the table.
//
// A state whose Check fails, or where user code panicked, is a terminal
// state of the search (it has no successors), stored by Mark, so that each
// violation is reported once. Violations, coverage and Unbounded are as for
// HBSearch, except that Coverage.States is not counted.
func POR[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options) (ts.Result, error) {
	return runHB(ctx, sys, opt, true)
}

// stopPanic unwinds the search from deep in a recursion once e.Fail has
// recorded an error or a limit stopped it.
type stopPanic struct{}

var errStop any = stopPanic{}

// hbFrame is a state on the search stack: frames[i] is the state after the
// path's first i transitions.
type hbFrame[S any] struct {
	state  S
	hash   uint64 // the system's hash of state, when hashed
	hashed bool
	multi  bool // two threads or more enabled: the contract is checked at pop
	steps  []ts.Step
	status []ts.Status
	outs   []int
	en     bitset.BitSet // the enabled threads
	counts search.Counts
	t      ts.Tid // the thread of the transition into this state, -1 at the root
	n      int32  // that transition's event number among t's events
	h1     uint64 // the HB state's hash here
	h2     uint64 // second fingerprint of the HB state here
	id     int32  // Algorithm 1: the state's id in the table
	it     int    // the next position in the thread order
	u      ts.Tid // the thread whose moves are being tried, or -1
	oc     int    // u's next outcome to try
	cbU    int32  // CB(s, u) once computed for u's moves, or -1
	leaf   bool   // the search does not go on from here
	moved  bool   // a child was searched
	taken  []ts.Move
	// dep[u*w:(u+1)*w], w = depWords(index): the path positions of other
	// threads' transitions Dependent with u's next step here (derive.go)
	dep   []uint64
	depOK bool
	// statuses learned from replays at prefixes the stack does not decide,
	// valid while this frame is on the stack (derive.go)
	known     []knownStatus
	knownBits []uint64
}

type hbSearch[S any] struct {
	m        *search.Model[S]
	sys      ts.TransitionSystem[S]
	opt      Options
	res      *ts.Result
	n        int
	maxDepth int
	alg2     bool
	bounded  bool
	c        int32

	frames []hbFrame[S]
	depth  int         // frames in use
	sched  ts.Schedule // sched[i-1] = frames[i].t
	tpos   [][]int32   // tpos[t][k]: the frame index of t's (k+1)-th transition on the path
	cur    *hb.State   // the HB state of frames[depth-1]
	curH2  uint64
	table  hb.Table // H
	memo   *memo
	mfr    []bitset.BitSet // Mark's frontier scratch, by state size

	scratchSteps  []ts.Step
	scratchStatus []ts.Status
	scratchOuts   []int
	rsched        ts.Schedule // the schedule of a prefix being replayed
	replaying     bool
	undX          bitset.BitSet // the threads whose status at x the stack does not decide (markable)
	mrow          []uint64      // Mark's bounds on CB(x, t) at the scratch state, a memo row (loadCB)
	refuser       ts.Tid        // the thread whose move last kept Mark from storing a state
	zOff          []zEvent      // the events statusAt took off the scratch state
	zfr           bitset.BitSet // statusAt's frontier scratch
	ownFinish     bool          // no thread was seen turning Finished on another's transition
	// The states replays reached, by HB state, when S holds no
	// references (Apply, handed a copy, cannot modify them) and the memo
	// keeps values: a replay starts from the last state on its way that
	// one of them holds (replayPrefix). nil otherwise.
	rstates *keptStates[S]
	rlist   []int32   // replayPrefix's path positions
	rkeys   []memoKey // and the HB states after each

	current  ts.Tid  // thread whose user code runs, or -1
	moving   ts.Move // the move being taken (its Apply, the Next of the state it reaches); Thread -1 if none
	visiting bool    // the top frame is being checked
	search.Outcome

	leafCB    []int64          // leaves (terminal HB classes) by CB
	stateCB   []int64          // Algorithm 1: stored states by CB
	termCB    map[uint64]int32 // terminal state hash -> least CB
	marks     int64
	markNanos int64 // time in Mark, with Options.timeMark
	stuck     int64 // frames left with enabled threads and no child searched
	maxCB     int32
	memCheck  int64 // the work count at which memory is checked next

	// incr: IterativePOR's search, which keeps the table across bounds
	// and each state's level in level, by table id (see levels).
	incr  bool
	top   int32 // incr: the last bound to search
	level []uint8
	seen  map[string]bool // incr: the violations recorded, by violationKey
	// incr: states stored where the search found every move stored or
	// over the bound (markStuck)
	stuckMarks int64
	// the one thread whose event Mark takes off the state it starts
	// from, or -1 for all (tryMark)
	markOnly ts.Tid
}

func newHBSearch[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options, alg2 bool) (*hbSearch[S], error) {
	model, err := search.NewModel(sys)
	if err != nil {
		return nil, err
	}
	n := model.N
	var m *memo
	if sh := opt.shared; sh != nil && sh.m != nil && len(sh.m.row) == n {
		m = sh.m
	} else {
		m = newMemo(n, opt.MemoCost, opt.Limits.MaxMemory())
		m.eager = opt.eagerCache
		if sh != nil {
			m.setClamp(sh.clamp)
			sh.m = m
		}
	}
	if model.ValueDependent() {
		m.stepBytes = int64(n)*int64(unsafe.Sizeof(ts.Step{})) + 64 // the slice and its map slot
	}
	e := &hbSearch[S]{m: model, sys: sys, opt: opt, res: &ts.Result{Bound: opt.Bound, Finds: search.Finds(&opt.Options)}, n: n,
		maxDepth: opt.Limits.MaxDepth(), alg2: alg2, bounded: opt.Bound != Unbounded, c: int32(opt.Bound),
		tpos: make([][]int32, n), cur: hb.New(n), memo: m, current: -1, markOnly: -1, moving: ts.Move{Thread: -1}, ownFinish: true,
		scratchSteps: make([]ts.Step, n), scratchStatus: make([]ts.Status, n), scratchOuts: make([]int, n)}
	m.tpos = e.tpos // a memo shared by several searches takes the current one's
	m.grows = e.memoGrows
	if flat.Is[S]() && m.keep {
		e.rstates = newKeptStates[S](int(m.cost / 8 / 2 / stateEntryBytes[S]()))
	}
	e.Outcome = search.Outcome{Ctx: ctx, Opt: &e.opt.Options, Res: e.res}
	e.Mutated = e.mutated
	e.States = func() int64 { return int64(e.table.Len()) }
	if model.Hasher != nil {
		e.termCB = make(map[uint64]int32)
	}
	return e, nil
}

func runHB[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options, alg2 bool) (ts.Result, error) {
	bad := ts.Result{Bound: opt.Bound, Finds: search.Finds(&opt.Options)}
	if err := search.Context(ctx); err != nil {
		return bad, err
	}
	if err := opt.validate(); err != nil {
		return bad, err
	}
	opt = opt.resolved()
	bad.Bound = opt.Bound
	if opt.SyncOnly {
		return bad, fmt.Errorf("%w: SyncOnly is for ICB only", ts.ErrBadOptions)
	}
	e, err := newHBSearch(ctx, sys, opt, alg2)
	if err != nil {
		return bad, err
	}
	if opt.shared == nil {
		defer e.memo.close() // a shared memo is closed by its owner
	}
	defer e.table.Free()
	if e.bounded && opt.shared == nil {
		e.memo.setClamp(e.c + 1)
	}
	addSystemStats := search.SystemStats(sys)
	if opt.incremental {
		e.incr = true
		if opt.KeepGoing {
			e.seen = map[string]bool{}
		}
		e.runBounds()
	} else {
		e.run()
	}
	res := e.res
	res.States = int64(e.table.Len())
	res.Stats = map[string]int64{}
	e.memo.stats(res.Stats)
	res.Stats["hb.states"] = int64(e.table.Len())
	res.Stats["hb.table_bytes"] = e.table.Bytes()
	if b := e.table.OffHeapBytes(); b > 0 {
		res.Stats["hb.table_offheap_bytes"] = b // of those
	}
	if alg2 {
		res.Stats["mark.calls"] = e.marks
		if opt.timeMark {
			res.Stats["mark.nanos"] = e.markNanos
		}
	}
	res.Stats["search.stuck"] = e.stuck
	if e.incr {
		res.Stats["mark.stuck"] = e.stuckMarks
	}
	addSystemStats(res)
	if e.Err == nil {
		if err := e.m.ThreadsAgain(); err != nil {
			res.Complete = false
			return *res, err
		}
	}
	return *res, e.Err
}

func (e *hbSearch[S]) run() {
	e.Drive(e.start, e.loop, e.panicked) // its error is e.Err
	if e.Stop {
		return
	}
	top := e.c
	if !e.bounded {
		top = e.maxCB
		e.res.Bound = int(top)
	}
	var execs, states int64
	for b := int32(0); b <= top; b++ {
		if int(b) < len(e.leafCB) {
			execs += e.leafCB[b]
		}
		if int(b) < len(e.stateCB) {
			states += e.stateCB[b]
		}
		var terms int64
		for _, cb := range e.termCB {
			if cb <= b {
				terms++
			}
		}
		e.res.Coverage = append(e.res.Coverage, ts.Coverage{Bound: int(b), Executions: execs, TerminalStates: terms, States: states})
	}
}

// panicked turns a panic in user code into a violation (search.Outcome.Drive);
// errStop only unwinds.
func (e *hbSearch[S]) panicked(p any) {
	if p == errStop {
		return
	}
	t := e.current
	var sched ts.Schedule
	switch {
	case e.replaying:
		sched = e.rsched.Clone()
	case e.moving.Thread >= 0:
		sched = append(e.sched.Clone(), e.moving)
		if t < 0 {
			t = e.moving.Thread
		}
	default:
		sched = e.sched.Clone()
	}
	moving, replaying, visiting := e.moving, e.replaying, e.visiting && e.depth > 0
	e.current, e.moving, e.replaying = -1, ts.Move{Thread: -1}, false
	if visiting {
		e.frames[e.depth-1].leaf = true
	}
	e.visiting = false
	e.res.Executions++
	v := &ts.Violation{Kind: ts.Panic, Thread: t}
	// A schedule within the bound that reaches the same HB state: the
	// fewest preemptions to the state where the panicking transition
	// starts (plus that transition), or to the state being visited.
	var w ts.Schedule
	if !replaying {
		w = e.tryWitness(moving)
	}
	e.report(v, w, sched)
	if e.alg2 && !e.Stop && !replaying {
		// The state the panic left is a leaf of the search, as one whose
		// Check fails: unstored, it would keep its predecessors from
		// being marked, and the search would reach it, and report its
		// panic, again by every equivalent path.
		e.tryMark(moving, visiting)
	}
}

// tryMark calls Mark on the state where user code panicked: next(s, last)
// for the top state s when last.Thread >= 0 (its Apply, or Next at the
// state it reaches, panicked), else the top state (visited: its Check or
// Hash panicked). Only s precedes next(s, last): any other predecessor
// holds last's event, whose Apply panics there too (its step accesses the
// same values), so nothing leads from it. Like tryWitness it runs inside
// Drive's recovery: a panic in the replays Mark needs (the system broke a
// contract there) leaves the marking unfinished, which costs only work.
func (e *hbSearch[S]) tryMark(last ts.Move, visited bool) {
	if last.Thread < 0 && !visited {
		return
	}
	defer func() {
		if p := recover(); p != nil {
			e.current, e.replaying = -1, false
			switch err := p.(type) {
			case *ts.CallbackError:
				e.Fail(err)
			case *ts.SystemError:
				e.Fail(err)
			}
		}
	}()
	if last.Thread < 0 {
		e.mark(true) // its predecessors' Check may panic too: checked
		return
	}
	m := e.memo
	m.begin(e.cur, e.curH2)
	m.addStep(last.Thread, e.frames[e.depth-1].steps[last.Thread], last.Outcome)
	e.markScratch()
	id, _ := e.table.Insert(m.x)
	e.setLevel(id, levelAll)
	e.markOnly = last.Thread
	e.markRec(id, levelAll, false)
}

// tryWitness computes a fewest-preemption schedule to the current state
// (followed by the move last when last.Thread >= 0), or nil if user code
// panics on the way.
func (e *hbSearch[S]) tryWitness(last ts.Move) (w ts.Schedule) {
	// It runs inside Drive's recovery: nothing may panic out of it. A stop
	// (errStop) or a callback's panic stops the search; user code's panic
	// leaves the schedule to the caller.
	defer func() {
		if p := recover(); p != nil {
			e.replaying = false
			switch err := p.(type) {
			case *ts.CallbackError:
				e.Fail(err)
			case *ts.SystemError: // a wrapper's report that the system is broken
				e.Fail(err)
			}
			w = nil
		}
	}()
	e.memo.begin(e.cur, e.curH2)
	w, _ = e.witness(last)
	return w
}

func (e *hbSearch[S]) start() {
	e.moving = ts.Move{Thread: -1}
	if e.incr {
		if in, _ := e.stored(e.cur); in {
			return // IterativePOR: a lower bound found everything this one may
		}
	}
	e.visit(e.sys.Init(), ts.Move{Thread: -1}, ts.Step{})
}

// nextMove returns the next move to try from f: each enabled thread's
// outcomes in turn, the thread that moved last first (so the first
// execution has no preemptions); Thread -1 when none is left.
func (e *hbSearch[S]) nextMove(f *hbFrame[S]) ts.Move {
	if f.leaf {
		return ts.Move{Thread: -1}
	}
	if f.u >= 0 && f.oc < f.outs[f.u] {
		f.oc++
		return ts.Move{Thread: f.u, Outcome: f.oc - 1}
	}
	for f.it <= e.n {
		i := f.it
		f.it++
		var u ts.Tid
		if i == 0 {
			if u = f.t; u < 0 {
				continue
			}
		} else if u = ts.Tid(i - 1); u == f.t {
			continue
		}
		if f.status[u] == ts.Enabled {
			f.u, f.oc, f.cbU = u, 1, -1
			return ts.Move{Thread: u}
		}
	}
	f.u = -1
	return ts.Move{Thread: -1}
}

// loop is the depth-first search: Search of both algorithms, whose steps
// are moves: a thread and one of its transition's outcomes. Two outcomes
// lead to different HB states (an event carries its outcome), and a move's
// context bound is its thread's, whatever the outcome: a choice is not a
// preemption.
func (e *hbSearch[S]) loop() {
	for e.depth > 0 && !e.Stop {
		top := &e.frames[e.depth-1]
		mv := e.nextMove(top)
		t := mv.Thread
		if t < 0 {
			if !top.leaf && !top.moved {
				// Once: a panic in markStuck's replays resumes the loop
				// here, which must then pop, not replay again.
				top.leaf = true
				if !e.incr || !e.markStuck() {
					e.stuck++
				}
			}
			e.pop()
			continue
		}
		// next(s, mv) ∈ H ?
		step := top.steps[t]
		e.cur.AddOutcome(t, step, mv.Outcome)
		in, _ := e.stored(e.cur)
		e.cur.Remove(t)
		if in {
			continue
		}
		// CB(s, t) > c ? Asked once for all of t's outcomes.
		if !e.within(top, t) {
			continue
		}
		if e.spent() {
			return
		}
		top.moved = true
		top.taken = append(top.taken, mv)
		e.current, e.moving = t, mv
		child := e.m.Apply(top.state, mv)
		e.res.Transitions++
		e.current = -1
		e.visit(child, mv, step)
	}
}

// within reports whether CB(s, t) <= c at the top state s, asked once for
// all of t's outcomes.
func (e *hbSearch[S]) within(top *hbFrame[S], t ts.Tid) bool {
	if !e.bounded {
		return true
	}
	if top.cbU < 0 {
		e.memo.begin(e.cur, e.curH2)
		e.memo.queries++
		top.cbU = 0
		if !e.cbWithin(t) {
			top.cbU = e.c + 1
		}
	}
	return top.cbU <= e.c
}

// spent reports whether a limit, the memory budget or the context stops the
// search before its next transition (replays included), reporting progress
// on the way.
func (e *hbSearch[S]) spent() bool {
	if e.Spent() {
		return true
	}
	return !e.keepsMemory()
}

// keepsMemory checks the memory budget every 4096 units of work
// (transitions, replays, Mark calls, states stored and CB subproblems) and
// reports false, having failed the search, once what it keeps passes
// Limits.Memory. It is called between transitions and inside the
// operations that store without taking one (a CB query, whose recursion
// can visit and memoize every prefix of a state, and Mark, which can store
// a number of predecessors exponential in the threads): those are where a
// search's memory grows fastest.
func (e *hbSearch[S]) keepsMemory() bool {
	work := e.res.Transitions + e.marks + int64(e.table.Len()) + e.memo.subproblems
	if work < e.memCheck {
		return true
	}
	e.memCheck = work + 4096
	return e.memoryOK()
}

// memoryOK fails the search if what it keeps passes Limits.Memory: the
// table, the memo, the stack (with the statuses its frames learned) and
// the coverage by terminal state. Go maps are counted at 40 bytes an entry
// of a small key, the most they take just after they grow (measured with
// Go 1.26: 24 to 32).
func (e *hbSearch[S]) memoryOK() bool {
	limit := e.opt.Limits.MaxMemory()
	if limit < 0 {
		return true
	}
	used := e.memoryUsed()
	if used <= limit {
		return true
	}
	return e.MemoryOK(used, fmt.Sprintf("%d HB states, %d memo entries, %d frames", e.table.Len(), e.memo.entries(), cap(e.frames)))
}

// memoGrows stops the search, before the memo's CB table doubles, if the
// new array would take what the search keeps past Limits.Memory: the table
// doubles in one step, which would otherwise pass the budget by as much as
// the table's size before the next check.
func (e *hbSearch[S]) memoGrows(bytes int64) {
	limit := e.opt.Limits.MaxMemory()
	if limit < 0 {
		return
	}
	if used := e.memoryUsed() + bytes; used > limit {
		e.MemoryOK(used, fmt.Sprintf("%d HB states, %d memo entries, %d frames, and %d bytes more for the memo table to grow", e.table.Len(), e.memo.entries(), cap(e.frames), bytes))
		panic(errStop)
	}
}

// memoryUsed is the estimate of the bytes the search keeps that memoryOK
// compares with the budget.
func (e *hbSearch[S]) memoryUsed() int64 {
	n := int64(e.n)
	frameBytes := int64(unsafe.Sizeof(hbFrame[S]{})) + n*(int64(unsafe.Sizeof(ts.Step{}))+1+8+8+4) + (n+63)/8*8
	used := e.table.Bytes() + e.memo.bytes() + int64(cap(e.frames))*frameBytes + int64(len(e.termCB))*40 + int64(cap(e.level))
	if e.rstates != nil {
		used += e.rstates.footprint() * stateEntryBytes[S]()
	}
	for i := range e.frames {
		f := &e.frames[i]
		used += int64(cap(f.dep)+cap(f.knownBits))*8 + int64(cap(f.known))*int64(unsafe.Sizeof(knownStatus{})) + int64(cap(f.taken))*int64(unsafe.Sizeof(ts.Move{}))
	}
	for _, p := range e.tpos {
		used += int64(cap(p)) * 4
	}
	return used
}

// visit pushes the state s reached by the move mv, whose step is step
// (mv.Thread < 0: the initial state), and processes it: it stores it
// (Algorithm 1), checks it, and ends the execution there if it is terminal
// or violating (Algorithm 2: Mark). User code that panics in Next here
// belongs to mv's transition; in Check or Hash, to the state.
func (e *hbSearch[S]) visit(s S, mv ts.Move, step ts.Step) {
	t := mv.Thread
	if len(e.sched)+1 > e.maxDepth && t >= 0 {
		e.Fail(&ts.SystemError{Err: ts.ErrDepth, Thread: t, Schedule: append(e.sched.Clone(), mv),
			Detail: fmt.Sprintf("an execution reached %d transitions; raise Limits.Depth if the system does terminate", len(e.sched)+1)})
		e.moving = ts.Move{Thread: -1}
		return
	}
	e.moving = mv
	e.push(s, mv, step)
	e.moving = ts.Move{Thread: -1}
	if e.Stop {
		return
	}
	e.visiting = true
	top := &e.frames[e.depth-1]
	e.current = -1
	failed := e.m.Check(s)
	if failed == nil && e.m.Hasher != nil && (top.counts.Enabled >= 2 || top.counts.Enabled == 0) {
		// The baseline of the contract check where the search may come
		// back, and the terminal state's identity for Coverage.
		top.hash, top.hashed = e.m.Hasher.Hash(s), true
	}
	top.multi = failed == nil && top.counts.Enabled >= 2
	if !e.alg2 {
		if t < 0 {
			id, _ := e.table.Insert(e.cur)
			top.id = int32(id)
		} else {
			id, _ := e.table.InsertAdded(e.cur, int(e.frames[e.depth-2].id), t)
			top.id = int32(id)
		}
	}
	if failed != nil || top.counts.Enabled == 0 {
		top.leaf = true
	}
	if !e.alg2 {
		cb, _ := e.cbLeaf(failed != nil)
		e.stateCB = bump(e.stateCB, cb)
	}
	switch {
	case failed != nil:
		failed.Thread = t
		e.leaf(failed, true)
	case top.counts.Enabled == 0:
		search.Terminal(&e.Outcome, s, e.sched)
		var v *ts.Violation
		if search.Deadlock(top.counts, &e.opt.Options) {
			v = &ts.Violation{Kind: ts.Deadlock, Thread: t}
		}
		e.leaf(v, false)
	}
	e.visiting = false
	e.current = -1
}

func bump(counts []int64, i int32) []int64 {
	for len(counts) <= int(i) {
		counts = append(counts, 0)
	}
	counts[i]++
	return counts
}

// push reads every thread's next step (marked: see search.Model) at s, then
// makes s, reached by the move mv whose step is step, the top of the stack
// and extends the HB state by mv's event.
func (e *hbSearch[S]) push(s S, mv ts.Move, step ts.Step) {
	t := mv.Thread
	if e.depth == len(e.frames) {
		n := e.n
		e.frames = append(e.frames, hbFrame[S]{steps: make([]ts.Step, n), status: make([]ts.Status, n),
			outs: make([]int, n), taken: make([]ts.Move, 0, 2)})
	}
	f := &e.frames[e.depth]
	sched := e.sched
	if t >= 0 {
		sched = append(sched, mv)
		e.sched = sched[:len(sched)-1]
	}
	counts, err := e.m.Look(s, f.steps, f.status, f.outs, &e.current)
	if err != nil {
		e.Fail(search.WithSchedule(err, sched))
		return
	}
	f.state, f.counts, f.t, f.it, f.leaf, f.moved, f.multi, f.hashed = s, counts, t, 0, false, false, false, false
	f.u, f.oc, f.cbU = -1, 0, -1
	f.taken = f.taken[:0]
	f.depOK = false
	f.known, f.knownBits = f.known[:0], f.knownBits[:0]
	f.en.ClearAll()
	for u, st := range f.status {
		if st == ts.Enabled {
			f.en.Set(uint(u))
		}
		if t >= 0 && ts.Tid(u) != t && (st == ts.Finished) != (e.frames[e.depth-1].status[u] == ts.Finished) {
			e.ownFinish = false
		}
	}
	if t >= 0 {
		h := e.cur.Hash()
		ev := e.cur.AddOutcome(t, step, mv.Outcome)
		e.curH2 ^= fp2(h ^ e.cur.Hash())
		f.n = int32(ev.N)
		e.tpos[t] = append(e.tpos[t], int32(e.depth))
		e.sched = sched
	}
	f.h1, f.h2 = e.cur.Hash(), e.curH2
	e.depth++
}

// pop removes the top of the stack, after checking the contract where the
// state had two moves or more.
func (e *hbSearch[S]) pop() {
	f := &e.frames[e.depth-1]
	if f.multi {
		// Checked wherever the search could have taken another move, as
		// ts.Explore does, also where it took only one. Once: a panic
		// here is reported and the frame popped after.
		f.multi = false
		b := search.Baseline{Hash: f.hash, Hashed: f.hashed, Steps: f.steps, Status: f.status, Outs: f.outs}
		if err := e.m.Unchanged(f.state, b, e.sched[:e.depth-1], f.taken, &e.current); err != nil {
			e.Fail(err)
			return
		}
	}
	e.depth--
	var zero S
	f.state = zero
	if f.t >= 0 {
		e.cur.Remove(f.t)
		e.curH2 = e.frames[e.depth-1].h2
		e.tpos[f.t] = e.tpos[f.t][:len(e.tpos[f.t])-1]
		e.sched = e.sched[:len(e.sched)-1]
	}
}

// cbLeaf returns CB of the current state, and -1. For a state whose Check
// fails (failed) it returns the least CB(x, t) over its predecessors x = s - t
// whose Check passes, and the t that achieves it: the search reaches such a
// state only from a state that passes, so this is its context bound in the
// system the search explores, where nothing moves on from a violation.
func (e *hbSearch[S]) cbLeaf(failed bool) (int32, ts.Tid) {
	m := e.memo
	m.begin(e.cur, e.curH2)
	if !failed || m.x.Len() == 0 {
		return e.cbState(), -1
	}
	x := m.x
	best, via := infCB, ts.Tid(-1)
	var fr bitset.BitSet
	x.Frontier(&fr)
	for u, ok := fr.NextSet(0); ok; u, ok = fr.NextSet(u + 1) {
		ev := m.remove(ts.Tid(u))
		if _, bad := e.enabledAt(); !bad {
			if v := e.cbAt(ts.Tid(u)); v < best {
				best, via = v, ts.Tid(u)
			}
		}
		e.readd(ts.Tid(u), ev)
	}
	return best, via
}

// leaf ends an execution at the top state: a terminal state (a deadlock when
// v is a Deadlock) or a state whose Check fails.
func (e *hbSearch[S]) leaf(v *ts.Violation, failed bool) {
	e.res.Executions++
	cb, via := e.cbLeaf(failed)
	e.leafCB = bump(e.leafCB, cb)
	e.maxCB = max(e.maxCB, cb)
	if top := &e.frames[e.depth-1]; e.termCB != nil && !failed && top.hashed {
		if old, ok := e.termCB[top.hash]; !ok || cb < old {
			e.termCB[top.hash] = cb
		}
	}
	if e.alg2 {
		e.mark(failed)
	}
	if v != nil {
		if e.seen == nil && search.Count(&e.Outcome, e.sys, v, e.sched) {
			// Only counted: neither the witness nor its trace is needed.
			// (IterativePOR keys the violations it reports by their trace.)
			return
		}
		e.memo.begin(e.cur, e.curH2)
		last := ts.Move{Thread: -1}
		if via >= 0 {
			last = ts.Move{Thread: via, Outcome: e.memo.remove(via).Outcome}
		}
		w, _ := e.witness(last)
		e.report(v, w, e.sched)
	}
}

// report confirms a violation by replaying a schedule and records it. It
// replays w, the fewest-preemption schedule to the violating HB state, cut
// at its first state whose Check fails (an equivalent schedule can meet a
// thread's failed assertion before its last step), and falls back to path,
// the search's own schedule, if w does not show the violation.
func (e *hbSearch[S]) report(v *ts.Violation, w, path ts.Schedule) {
	var rv *ts.Violation
	var err error
	if w != nil {
		w = e.cutAtViolation(w)
		rv, err = ts.ConfirmWith(e.sys, v, w, *e.Opt)
	}
	if w == nil || err != nil {
		rv, err = ts.ConfirmWith(e.sys, v, path.Clone(), *e.Opt)
	}
	if err != nil {
		e.Fail(e.Explain(err))
		return
	}
	if e.seen != nil {
		// IterativePOR: a violation found again (a panic in a replay
		// leaves its state unstored, and a higher bound may reach it
		// again) is recorded once.
		k := violationKey(rv)
		if e.seen[k] {
			return
		}
		e.seen[k] = true
	}
	e.Record(rv)
}

// cutAtViolation returns the prefix of w that ends at its first state whose
// Check fails, or w. User code that panics leaves w as it is.
func (e *hbSearch[S]) cutAtViolation(w ts.Schedule) (out ts.Schedule) {
	if e.m.Checker == nil && e.m.Invariant == nil {
		return w
	}
	defer func() {
		if p := recover(); p != nil {
			if err, ok := p.(*ts.SystemError); ok {
				e.Fail(err)
			}
			out = w
		}
	}()
	s := e.sys.Init()
	for i, mv := range w[:max(len(w)-1, 0)] {
		s = e.m.Apply(s, mv)
		if e.m.Check(s) != nil {
			return w[:i+1]
		}
	}
	return w
}
