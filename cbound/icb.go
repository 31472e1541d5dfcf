package cbound

import (
	"context"
	"fmt"
	"slices"
	"unsafe"

	"github.com/weftlab/weft/hb"
	"github.com/weftlab/weft/internal/flat"
	"github.com/weftlab/weft/internal/grow"
	"github.com/weftlab/weft/internal/offheap"
	"github.com/weftlab/weft/internal/search"
	"github.com/weftlab/weft/ts"
)

// ICB implements iterative context bounding: Algorithm 1 of Musuvathi and
// Qadeer, "Iterative context bounding for systematic testing of multithreaded
// programs" (PLDI 2007).
//
// A work item is a state and the move to take there. Running the same
// thread on is free, with any outcome of its transition (ts.Chooser: the
// environment's choice is not a preemption); switching away from a thread
// that is still enabled is a preemption, and the item it makes goes to the
// next iteration's queue; switching away from a blocked, idle or finished
// thread is free. So iteration c explores exactly the executions with c
// preemptions, every execution with c preemptions comes before any with
// c+1, and the first violation found has the fewest preemptions of any.
//
// Invariant: the queue of iteration c holds the items reached by exactly c
// preemptions, and every item reached by at most c preemptions has been run
// or queued by the end of iteration c.
//
// When the system implements ts.Hasher (and Options.NoCache is not set) a
// cache of visited (state, last thread) pairs stops the search where it has
// been before: what follows was explored then, with no more preemptions than
// now. The cache makes cyclic systems finite. It is not used in SyncOnly mode,
// whose race check needs every execution whole.
//
// Result.Coverage holds, per bound 0..c (a bound above the last with work
// left has that bound's figures), the executions explored with at most
// that many preemptions, the distinct terminal states (by hash, when the
// system has one; states where OnTerminal is called: violations of a check
// or an invariant are not terminal states) and the distinct (state, thread)
// items cached.
func ICB[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options) (ts.Result, error) {
	return runICB(ctx, sys, opt, false)
}

// DFS is the baseline the cbpor paper calls cb-dfs: a stateless depth-first
// search of every execution with at most Options.Bound preemptions, with no
// partial-order reduction and no cache (a cache keyed by state would be
// unsound here: DFS may meet a state first by a path with more preemptions).
// It explores the same executions as ICB, in depth-first order, so the first
// violation it finds need not have the fewest preemptions. Coverage holds,
// for each c, the executions with at most c preemptions and the distinct
// terminal states (by hash) that one of those reaches.
func DFS[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options) (ts.Result, error) {
	opt.NoCache = true
	return runICB(ctx, sys, opt, true)
}

func runICB[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options, dfs bool) (ts.Result, error) {
	res := ts.Result{Bound: opt.Bound, Finds: search.Finds(&opt.Options)}
	if opt.SyncOnly {
		res.Finds = res.Finds.With(ts.DataRace)
	}
	if err := search.Context(ctx); err != nil {
		return res, err
	}
	if err := opt.validate(); err != nil {
		return res, err
	}
	opt = opt.resolved()
	res.Bound = opt.Bound
	m, err := search.NewModel(sys)
	if err != nil {
		return res, err
	}
	e := &icb[S]{m: m, sys: sys, opt: opt, res: &res, n: m.N, maxDepth: opt.Limits.MaxDepth(), current: -1, dfs: dfs, flat: flat.Is[S]()}
	e.Outcome = search.Outcome{Ctx: ctx, Opt: &e.opt.Options, Res: &res}
	e.Mutated = e.mutated
	e.States = func() int64 { return int64(e.cache.len()) }
	if !dfs {
		// Room for the first iterations' items: growing from nothing
		// costs a small search more than the room does.
		const room = queueRoom
		e.queue, e.next = make([]icbItem, 0, room), make([]icbItem, 0, room)
		e.queueFrom, e.nextFrom = make([]icbOrigin[S], 0, room/4), make([]icbOrigin[S], 0, room/4)
		e.nodes = make([]schedNode, 0, room)
	}
	pooled := takeBuffers()
	if pooled != nil && !dfs {
		// A slice the last search did not leave keeps its first room.
		if cap(pooled.queue) > 0 {
			e.queue = pooled.queue[:0]
		}
		if cap(pooled.next) > 0 {
			e.next = pooled.next[:0]
		}
		if cap(pooled.nodes) > 0 {
			e.nodes = pooled.nodes[:0]
		}
	}
	// Room for executions of a few dozen transitions: the stack and the
	// schedule would otherwise grow by doubling, an allocation each time.
	const depth = 32
	e.stack, e.sched = make([]icbFrame[S], 0, depth), make(ts.Schedule, 0, depth)
	if opt.SyncOnly {
		e.det = hb.NewDetector(e.n)
		// A step that writes what the invariant reads is a scheduling
		// point: the invariant may tell its interleavings apart.
		e.syncObjs = map[ts.Obj]struct{}{ts.InvariantObj: {}}
		e.reported = make(map[string]struct{})
	}
	if m.Hasher != nil {
		e.terminals = make(map[uint64]int)
		if !opt.NoCache && !opt.SyncOnly {
			e.cache = newItemCache(pooled)
		}
	}
	addSystemStats := search.SystemStats(sys)
	err = e.run()
	res.States = int64(e.cache.len())
	mapped := e.mappedBytes()
	e.free()
	if err == nil {
		err = m.ThreadsAgain()
	}
	if opt.SyncOnly {
		res.Stats = map[string]int64{"sync-objects": int64(len(e.syncObjs) - 1), "restarts": e.restarts, "restart-transitions": e.wasted}
	}
	if mapped > 0 {
		if res.Stats == nil {
			res.Stats = make(map[string]int64)
		}
		res.Stats["icb.offheap_bytes"] = mapped
	}
	addSystemStats(&res)
	return res, err
}

// schedNode is a link of a schedule shared by queued items: the move of the
// last transition and the node of the prefix before it. (Its step, which
// only sync-only mode reads, is in icb.nodeSteps: nodes hold no pointer,
// which the garbage collector need not scan.)
type schedNode struct {
	parent int32
	depth  int32 // the schedule's length
	mv     ts.Move
}

const (
	noNode    int32 = -1 // the empty schedule
	unsetNode int32 = -2 // not materialized yet
)

// icbItem is a preemption waiting for the next iteration: at the state of
// origin (reached by the schedule of node), take thread's move of outcome
// out, whose step was step. It holds no pointer, so that the queues, the
// search's largest slices, need no scanning by the garbage collector.
type icbItem struct {
	origin int32 // the index of the state in its queue's origins
	node   int32
	thread int32
	out    int32
	step   packedStep
}

func (it *icbItem) move() ts.Move { return ts.Move{Thread: ts.Tid(it.thread), Outcome: int(it.out)} }

// packedStep is a step in a form that holds no pointer: a step of one
// access in place, a step of several by its index in icb.wideSteps.
type packedStep struct {
	obj  ts.Obj
	op   ts.Op
	sync bool
	wide int32 // -1 for a step of one access
}

// pack returns st's packed form.
func (e *icb[S]) pack(st ts.Step) packedStep {
	if len(st.Also) == 0 {
		return packedStep{obj: st.Obj, op: st.Op, sync: st.Sync, wide: -1}
	}
	e.wideSteps = append(e.wideSteps, st)
	return packedStep{wide: int32(len(e.wideSteps) - 1)}
}

// unpack returns the step p packs.
func (e *icb[S]) unpack(p packedStep) ts.Step {
	if p.wide >= 0 {
		return e.wideSteps[p.wide]
	}
	return ts.Step{Obj: p.obj, Op: p.op, Sync: p.sync}
}

// icbOrigin is a state that queued items start from, kept once for all the
// preemptions queued there.
type icbOrigin[S any] struct {
	state  S
	hash   uint64
	hashed bool
}

type icbFrame[S any] struct {
	state   S
	hash    uint64
	hashed  bool
	steps   []ts.Step
	status  []ts.Status
	outs    []int
	taken   []ts.Move // the moves taken from here, for the contract check
	multi   bool      // two moves or more: the contract is checked at pop
	last    ts.Tid    // the thread that moved into this state, or -1
	next    ts.Tid    // the thread of the next move to try
	nextOut int       // the outcome of the next move to try
	phase   uint8     // 0: the running thread's outcomes; 1: the others
	queued  bool      // the preemptions from here have been queued (ICB)
	point   bool      // sync-only: made a scheduling point after the fact
	pathLen int       // transitions from the initial state
	node    int32     // schedule node of the path here, or unsetNode
	in      ts.Step   // the step of the transition that reached this state
	pre     int       // preemptions on the path here (DFS mode)
}

type icb[S any] struct {
	m        *search.Model[S]
	sys      ts.TransitionSystem[S]
	opt      Options
	res      *ts.Result
	n        int
	maxDepth int

	c           int // the current iteration's bound
	queue, next []icbItem
	queueAt     int // the next item of queue to run
	// The states the items of queue and next start from.
	queueFrom, nextFrom []icbOrigin[S]
	nodes               []schedNode
	// The mapped memory the slices above are in once they outgrow 2 MB
	// (offheap; nil: the Go heap), which swaps with its slice.
	queueMem, nextMem, queueFromMem, nextFromMem, nodesMem *offheap.Region
	// nextFloor is the length of the queue whose memory next took over
	// (memoryOK).
	nextFloor int
	reserve   int64          // bytes the cache is about to grow by, counted while memoryOK decides
	nodeSteps []ts.Step      // sync-only mode: nodeSteps[i] is the step of nodes[i]'s move
	wideSteps []ts.Step      // the steps of several accesses that queued items hold
	cache     *itemCache     // nil: no cache
	terminals map[uint64]int // terminal state hash -> the fewest preemptions it was reached with

	stack []icbFrame[S]
	depth int
	// What is left of the blocks the frames' slices are cut from.
	frameSteps  []ts.Step
	frameStatus []ts.Status
	frameOuts   []int
	frameTaken  []ts.Move
	sched       ts.Schedule // the path to the state being visited or on top
	steps       []ts.Step   // sync-only mode: the step of each transition of sched
	baseNode    int32       // schedule node of the running item's state

	// An item's schedule is built only when the search goes on from the
	// state the item reaches (most reach a cached state): while lazy, sched
	// and steps are those of baseNode followed by lazyMove (lazyStep).
	lazy     bool
	lazyMove ts.Move
	lazyStep ts.Step

	flat bool // S holds no references: Apply cannot modify the states kept

	// Sync-only mode.
	det      *hb.Detector        // the race detector, reused
	syncObjs map[ts.Obj]struct{} // objects whose accesses are scheduling points
	skipped  bool                // a state was not made a scheduling point
	restart  bool                // syncObjs grew after a skip: search again
	restarts int64
	wasted   int64               // transitions taken before the last restart
	reported map[string]struct{} // violations reported before a restart
	// reportedBytes is what reported keeps: each schedule's text, its
	// string header and a map slot (40 bytes, as for the other maps)
	reportedBytes int64

	dfs     bool    // cb-dfs: preemptions are children, not queued items
	pre     int     // DFS mode: preemptions of the transition being taken
	byBound []int64 // DFS mode: executions by preemption count

	current ts.Tid // thread whose user code is running, or -1
	pushing bool   // the running call belongs to the transition sched ends with
	search.Outcome
}

func (e *icb[S]) run() error {
	if e.dfs {
		e.Drive(e.root, e.dfsLoop, e.panicked)
		if !e.Stop {
			e.coverDFS()
		}
		return e.Err
	}
	return e.Drive(e.root, e.iterate, e.panicked)
}

// dfsLoop is cb-dfs's loop, with the restarts of sync-only mode.
func (e *icb[S]) dfsLoop() {
	for {
		e.loop()
		if !e.restart || e.Stop {
			return
		}
		e.again()
	}
}

// iterate runs the iterations, from where the search is: the rest of the
// item being searched, the items queued, then the next bound's. After a
// panic (search.Outcome.Drive) it is called again and goes on from there.
func (e *icb[S]) iterate() {
	for {
		e.loop()
		if e.Stop {
			return
		}
		if e.restart {
			e.again()
			continue
		}
		if e.queueAt < len(e.queue) {
			it := e.queue[e.queueAt]
			e.queueAt++
			e.runItem(&it, &e.queueFrom[it.origin])
			continue
		}
		cov := ts.Coverage{Bound: e.c, Executions: e.res.Executions, TerminalStates: int64(len(e.terminals)), States: int64(e.cache.len())}
		e.res.Coverage = append(e.res.Coverage, cov)
		if len(e.next) == 0 || e.c == e.opt.Bound {
			if e.opt.Bound == Unbounded {
				e.res.Bound = e.c
			}
			// No work is left above this bound: the bounds up to the
			// one asked for cover what this one does.
			for b := e.c + 1; b <= e.opt.Bound; b++ {
				cov.Bound = b
				e.res.Coverage = append(e.res.Coverage, cov)
			}
			return // Drive marks the search complete
		}
		e.nextFloor = len(e.queue) // next reuses the queue's memory
		e.queue, e.next, e.queueAt = e.next, e.queue[:0], 0
		e.queueMem, e.nextMem = e.nextMem, e.queueMem
		e.queueFrom, e.nextFrom = e.nextFrom, e.queueFrom[:0]
		e.queueFromMem, e.nextFromMem = e.nextFromMem, e.queueFromMem
		e.c++
	}
}

// again starts the search over after sync-only mode learned a new
// synchronization object: the executions explored so far may lack
// scheduling points before its accesses. The work done stays counted in
// Transitions; violations already reported are not reported again.
func (e *icb[S]) again() {
	e.restart, e.skipped = false, false
	e.restarts++
	e.wasted = e.res.Transitions
	e.res.Executions, e.res.Coverage = 0, e.res.Coverage[:0]
	e.queue, e.next, e.nodes, e.nodeSteps, e.queueAt = e.queue[:0], e.next[:0], e.nodes[:0], e.nodeSteps[:0], 0
	e.nextFloor = 0
	e.wideSteps = e.wideSteps[:0]
	e.queueFrom, e.nextFrom = e.queueFrom[:0], e.nextFrom[:0]
	e.byBound = e.byBound[:0]
	e.c = 0
	clear(e.terminals)
	e.root()
}

// panicked turns a panic in user code into a violation (search.Outcome.Drive).
func (e *icb[S]) panicked(any) {
	e.materialize()
	sched := e.sched
	if !e.pushing && len(sched) > 0 && e.depth > 0 {
		sched = sched[:e.stack[e.depth-1].pathLen]
	}
	t := e.current
	if t < 0 && e.pushing && len(sched) > 0 {
		// Hash, Check or Invariant panicked at the state the move being
		// pushed reached: the violation is that move's thread's.
		t = sched[len(sched)-1].Thread
	}
	if e.pushing && e.opt.SyncOnly && e.depth > 0 {
		e.plainEnd(&e.stack[e.depth-1], t)
	}
	e.current, e.pushing = -1, false
	e.violation(&ts.Violation{Kind: ts.Panic, Thread: t}, sched)
}

func (e *icb[S]) root() {
	e.sched, e.steps, e.baseNode, e.depth, e.pre = e.sched[:0], e.steps[:0], noNode, 0, 0
	e.lazy = false
	e.visit(e.m.Sys.Init(), -1, ts.Step{})
	if e.depth > 0 {
		e.stack[0].node = noNode
	}
}

// runItem starts the search of a preemption: the item's move is taken at
// the item's state.
func (e *icb[S]) runItem(it *icbItem, from *icbOrigin[S]) {
	e.sched, e.steps = e.sched[:0], e.steps[:0]
	e.baseNode, e.depth = it.node, 0
	mv, step := it.move(), e.unpack(it.step)
	e.lazy, e.lazyMove, e.lazyStep = true, mv, step
	if e.budgetSpent() {
		return
	}
	e.current, e.pushing = mv.Thread, true
	child := e.apply(from.state, mv)
	e.res.Transitions++
	if !e.itemUnchanged(mv.Thread, step, from) {
		return
	}
	e.visit(child, mv.Thread, step)
	e.current, e.pushing = -1, false
}

// itemUnchanged checks that taking an item's move (of thread t, whose step
// was queued) left the item's state alone: the same hash, or else the same
// step for the item's thread.
func (e *icb[S]) itemUnchanged(t ts.Tid, queued ts.Step, from *icbOrigin[S]) bool {
	e.current = -1
	if from.hashed {
		if h := e.m.Hasher.Hash(from.state); h != from.hash {
			e.materialize()
			path := e.sched[:len(e.sched)-1]
			e.Fail(&ts.SystemError{Err: ts.ErrMutated, Thread: t, Schedule: path.Clone(),
				Detail: fmt.Sprintf("the state before its transition changed (hash %#x, now %#x)", from.hash, h)})
			return false
		}
	}
	e.current = t
	step, st := e.m.Next(from.state, t)
	e.current = -1
	if st != ts.Enabled || !step.Equal(queued) {
		e.materialize()
		path := e.sched[:len(e.sched)-1]
		e.Fail(&ts.SystemError{Err: ts.ErrMutated, Thread: t, Schedule: path.Clone(),
			Detail: fmt.Sprintf("thread %d's next step at the state before its transition changed from %v to %v %v (an Apply that modified its argument, or a Next that is not a function of the state)", t, queued, step, st)})
		return false
	}
	return true
}

// apply takes move mv at s, calling Apply directly in the common case.
func (e *icb[S]) apply(s S, mv ts.Move) S {
	if mv.Outcome == 0 {
		return e.sys.Apply(s, mv.Thread)
	}
	return e.m.Chooser.ApplyOutcome(s, mv.Thread, mv.Outcome)
}

// materialize builds the schedule of the running item (see icb.lazy).
func (e *icb[S]) materialize() {
	if !e.lazy {
		return
	}
	e.lazy = false
	e.sched, e.steps = e.sched[:0], e.steps[:0]
	for n := e.baseNode; n != noNode; n = e.nodes[n].parent {
		e.sched = append(e.sched, e.nodes[n].mv)
		if e.opt.SyncOnly {
			e.steps = append(e.steps, e.nodeSteps[n])
		}
	}
	slices.Reverse(e.sched)
	slices.Reverse(e.steps)
	e.sched = append(e.sched, e.lazyMove)
	if e.opt.SyncOnly {
		e.steps = append(e.steps, e.lazyStep)
	}
}

// pathLen is the length of the schedule to the state being visited.
func (e *icb[S]) pathLen() int {
	if !e.lazy {
		return len(e.sched)
	}
	if e.baseNode == noNode {
		return 1
	}
	return int(e.nodes[e.baseNode].depth) + 1
}

// nextMove returns the next move to take from top, and whether it is a
// preemption (DFS mode; ICB queues those instead), or ok false when top is
// done.
func (e *icb[S]) nextMove(top *icbFrame[S]) (mv ts.Move, preempt, ok bool) {
	running := top.last >= 0 && top.status[top.last] == ts.Enabled
	if running && top.phase == 0 {
		if top.nextOut < top.outs[top.last] {
			top.nextOut++
			return ts.Move{Thread: top.last, Outcome: top.nextOut - 1}, false, true
		}
		top.phase, top.nextOut = 1, 0
		if !e.dfs {
			return ts.Move{}, false, false
		}
		if !e.mayPreempt(top) {
			return ts.Move{}, false, false
		}
	}
	for int(top.next) < e.n {
		u := top.next
		if u == top.last && running || top.status[u] != ts.Enabled || top.nextOut >= top.outs[u] {
			top.next++
			top.nextOut = 0
			continue
		}
		top.nextOut++
		return ts.Move{Thread: u, Outcome: top.nextOut - 1}, running, true
	}
	return ts.Move{}, false, false
}

// loop is the depth-first search of one item: free choices branch, the
// running thread goes on, preemptions are queued for the next iteration (or,
// in DFS mode, are children with one more preemption).
func (e *icb[S]) loop() {
	for e.depth > 0 && !e.Stop && !e.restart {
		top := &e.stack[e.depth-1]
		if !e.dfs && !top.queued && top.last >= 0 && top.status[top.last] == ts.Enabled {
			top.queued = true
			e.queuePreemptions(top)
		}
		mv, preempt, ok := e.nextMove(top)
		if !ok {
			if !e.pop(top) {
				return
			}
			continue
		}
		e.pre = top.pre
		if preempt {
			e.pre++
		}
		if e.budgetSpent() {
			return
		}
		t := mv.Thread
		top.taken = append(top.taken, mv)
		e.sched = append(e.sched[:top.pathLen], mv)
		if e.opt.SyncOnly {
			e.steps = append(e.steps[:top.pathLen], top.steps[t])
		}
		e.current, e.pushing = t, true
		var child S
		if mv.Outcome == 0 {
			child = e.sys.Apply(top.state, t) // the common case, called directly
		} else {
			child = e.m.Chooser.ApplyOutcome(top.state, t, mv.Outcome)
		}
		e.res.Transitions++
		e.visit(child, t, top.steps[t])
		e.current, e.pushing = -1, false
	}
}

// pop leaves the top frame, after checking the contract where the state had
// two moves or more, and reports whether the search goes on.
func (e *icb[S]) pop(top *icbFrame[S]) bool {
	if top.multi {
		var err error
		if e.flat {
			err = e.flatUnchanged(top)
		} else {
			b := search.Baseline{Hash: top.hash, Hashed: top.hashed, Steps: top.steps, Status: top.status, Outs: top.outs}
			err = e.m.Unchanged(top.state, b, e.sched[:top.pathLen], top.taken, &e.current)
		}
		if err != nil {
			e.Fail(err)
			return false
		}
	}
	e.depth--
	return true
}

// mutated runs pop's contract check on every frame of the stack that had
// two moves or more, deepest first, and returns the first error, or nil: for
// search.Outcome.Explain, when a violation does not replay. A flat state
// is skipped: Apply, handed a copy, cannot have modified it.
func (e *icb[S]) mutated() error {
	if e.flat {
		return nil
	}
	for i := e.depth - 1; i >= 0; i-- {
		if f := &e.stack[i]; f.multi {
			b := search.Baseline{Hash: f.hash, Hashed: f.hashed, Steps: f.steps, Status: f.status, Outs: f.outs}
			if err := e.m.Unchanged(f.state, b, e.sched[:f.pathLen], f.taken, &e.current); err != nil {
				return err
			}
		}
	}
	return nil
}

// flatUnchanged is the contract check of a state of a type that holds no
// references: Apply, handed a copy, cannot have modified it, so no Hash is
// needed; one thread's answer (a different one at each depth, as
// search.Model.Unchanged asks with a hash) still catches a Next that is not
// a function of the state. A difference is diagnosed by the full check.
func (e *icb[S]) flatUnchanged(top *icbFrame[S]) error {
	u := ts.Tid(top.pathLen % e.n)
	e.current = u
	step, st := e.m.Next(top.state, u)
	same := st == top.status[u] && (st == ts.Finished || step.Equal(top.steps[u]))
	if same && e.m.Chooser != nil && st != ts.Finished {
		same = e.m.Chooser.Outcomes(top.state, u) == top.outs[u]
	}
	e.current = -1
	if same {
		return nil
	}
	path := e.sched[:top.pathLen]
	b := search.Baseline{Hash: top.hash, Hashed: top.hashed, Steps: top.steps, Status: top.status, Outs: top.outs}
	if err := e.m.Unchanged(top.state, b, path, top.taken, &e.current); err != nil {
		return err
	}
	return &ts.SystemError{Err: ts.ErrNondeterministic, Thread: u, Schedule: path.Clone(),
		Detail: fmt.Sprintf("two calls of Next on one state returned %v %v and %v %v", top.steps[u], top.status[u], step, st)}
}

// mappedBytes is the memory of the queues, schedule nodes and cache that is
// in mapped memory (offheap), which the Go heap's figures do not count.
func (e *icb[S]) mappedBytes() int64 {
	var b int64
	if e.queueMem != nil {
		b += int64(cap(e.queue)) * int64(unsafe.Sizeof(icbItem{}))
	}
	if e.nextMem != nil {
		b += int64(cap(e.next)) * int64(unsafe.Sizeof(icbItem{}))
	}
	if e.queueFromMem != nil {
		b += int64(cap(e.queueFrom)) * int64(unsafe.Sizeof(icbOrigin[S]{}))
	}
	if e.nextFromMem != nil {
		b += int64(cap(e.nextFrom)) * int64(unsafe.Sizeof(icbOrigin[S]{}))
	}
	if e.nodesMem != nil {
		b += int64(cap(e.nodes)) * int64(unsafe.Sizeof(schedNode{}))
	}
	if e.cache != nil && e.cache.mem != nil {
		b += e.cache.bytes()
	}
	return b
}

// free unmaps what the search kept in mapped memory, at its end, rather
// than when the collector finds it unreachable: a program that runs many
// searches and allocates little would otherwise hold them all.
func (e *icb[S]) free() {
	b := &icbBuffers{}
	itemSize, nodeSize := int(unsafe.Sizeof(icbItem{})), int(unsafe.Sizeof(schedNode{}))
	if !e.dfs {
		if keptBuffer(cap(e.queue), itemSize, e.queueMem) {
			b.queue = e.queue[:0]
		}
		if keptBuffer(cap(e.next), itemSize, e.nextMem) {
			b.next = e.next[:0]
		}
		if keptBuffer(cap(e.nodes), nodeSize, e.nodesMem) {
			b.nodes = e.nodes[:0]
		}
	}
	if c := e.cache; c != nil && keptBuffer(len(c.slots), int(unsafe.Sizeof(itemSlot{})), c.mem) {
		clear(c.slots)
		b.slots, c.slots = c.slots, nil
	}
	for _, r := range []*offheap.Region{e.queueMem, e.nextMem, e.queueFromMem, e.nextFromMem, e.nodesMem} {
		r.Free()
	}
	e.queue, e.next, e.queueFrom, e.nextFrom, e.nodes = nil, nil, nil, nil, nil
	e.cache.free()
	if b.queue != nil || b.next != nil || b.nodes != nil || b.slots != nil {
		icbPool.Put(b)
	}
}

// queuePreemptions queues, for the next iteration, every move of another
// enabled thread taking over from top's running thread.
func (e *icb[S]) queuePreemptions(top *icbFrame[S]) {
	if !e.mayPreempt(top) {
		return
	}
	node := unsetNode
	var origin int32
	for u := range ts.Tid(e.n) {
		if u == top.last || top.status[u] != ts.Enabled {
			continue
		}
		if node == unsetNode {
			node = e.nodeOf(e.depth - 1)
			e.nextFrom, e.nextFromMem = offheap.Grow(e.nextFrom, e.nextFromMem, 1)
			e.nextFrom = append(e.nextFrom, icbOrigin[S]{state: top.state, hash: top.hash, hashed: top.hashed})
			origin = int32(len(e.nextFrom) - 1)
		}
		step := e.pack(top.steps[u])
		e.next, e.nextMem = offheap.Grow(e.next, e.nextMem, top.outs[u])
		for c := range top.outs[u] {
			e.next = append(e.next, icbItem{origin: origin, node: node, thread: int32(u), out: int32(c), step: step})
		}
	}
}

// mayPreempt reports whether another thread may preempt top's running
// thread within the bound: in sync-only mode, only before a step on a
// synchronization object, or where a violation was reached without one.
func (e *icb[S]) mayPreempt(top *icbFrame[S]) bool {
	pre := e.c
	if e.dfs {
		pre = top.pre
	}
	if e.opt.Bound != Unbounded && pre >= e.opt.Bound {
		return false
	}
	if !e.opt.SyncOnly || top.point || e.onSyncObj(top.steps[top.last]) {
		return true
	}
	for u, st := range top.status {
		if st == ts.Enabled && ts.Tid(u) != top.last {
			e.skipped = true // a preemption was possible and not taken
			break
		}
	}
	return false
}

// onSyncObj reports whether step st touches a synchronization object.
func (e *icb[S]) onSyncObj(st ts.Step) bool {
	for a := range st.NumAccesses() {
		if _, ok := e.syncObjs[st.At(a).Obj]; ok {
			return true
		}
	}
	return false
}

// learn adds to the synchronization objects those of the steps of a state
// that the search had not seen as such: every object a synchronization
// access touches, and every object of a step seen blocked (an await not
// marked Sync). If the search has already passed a state without making it
// a scheduling point, it must start again.
func (e *icb[S]) learn(steps []ts.Step, status []ts.Status) {
	for u := range steps {
		if status[u] == ts.Finished {
			continue
		}
		st := steps[u]
		for a := range st.NumAccesses() {
			acc := st.At(a)
			if !acc.IsSync() && !status[u].Waiting() {
				continue
			}
			if _, ok := e.syncObjs[acc.Obj]; !ok {
				e.syncObjs[acc.Obj] = struct{}{}
				if e.skipped {
					e.restart = true
				}
			}
		}
	}
}

// plainEnd is called where thread t's move from frame f ended its execution
// with a violation. If f was passed without a scheduling point (sync-only
// mode), the violation may hide what other threads would do had they run
// first, so f becomes a scheduling point: its preemptions are explored too.
func (e *icb[S]) plainEnd(f *icbFrame[S], t ts.Tid) {
	if f.last != t || f.point || e.onSyncObj(f.steps[t]) {
		return
	}
	f.point = true
	if !e.dfs && f.queued {
		e.queuePreemptions(f)
	}
}

// nodeOf materializes the schedule node of the path to stack[i].
func (e *icb[S]) nodeOf(i int) int32 {
	f := &e.stack[i]
	if f.node != unsetNode {
		return f.node
	}
	parent := e.baseNode
	if i > 0 {
		parent = e.nodeOf(i - 1)
	}
	e.nodes, e.nodesMem = offheap.Grow(e.nodes, e.nodesMem, 1)
	e.nodes = append(e.nodes, schedNode{parent: parent, depth: int32(f.pathLen), mv: e.sched[f.pathLen-1]})
	if e.opt.SyncOnly {
		e.nodeSteps = grow.Append(e.nodeSteps, f.in)
	}
	f.node = int32(len(e.nodes) - 1)
	return f.node
}

// visit processes a state reached by thread last: the end of an execution,
// or a frame pushed for the loop.
func (e *icb[S]) visit(s S, last ts.Tid, in ts.Step) {
	pathLen := e.pathLen()
	if pathLen > e.maxDepth {
		e.materialize()
		e.Fail(&ts.SystemError{Err: ts.ErrDepth, Thread: last, Schedule: e.sched.Clone(),
			Detail: fmt.Sprintf("an execution reached %d transitions; raise Limits.Depth if the system does terminate", pathLen)})
		return
	}
	if e.depth == len(e.stack) {
		e.growStack()
	}
	f := &e.stack[e.depth]
	// The cache is asked first: a state seen before (with the same last
	// thread) was looked at then, and its threads' answers are the same.
	var h uint64
	hashed := false
	slot := 0
	if e.cache != nil {
		e.current = -1
		h, hashed = e.m.Hasher.Hash(s), true
		var found bool
		if slot, found = e.cache.find(h, last); found {
			return
		}
	}
	if e.lazy {
		e.materialize()
	}
	c, err := e.m.Look(s, f.steps, f.status, f.outs, &e.current)
	if err != nil {
		e.Fail(search.WithSchedule(err, e.sched))
		return
	}
	if e.cache != nil {
		if g := e.cache.ownGrowth(); g > 0 && e.opt.Limits.MaxMemory() >= 0 {
			// Refuse before the table doubles past the budget.
			e.reserve = g
			ok := e.memoryOK()
			e.reserve = 0
			if !ok {
				return
			}
		}
		e.cache.insert(slot, h, last)
	}
	terminal := c.Enabled == 0
	if terminal && !hashed && e.terminals != nil {
		// Terminal states are counted by hash.
		e.current = -1
		h, hashed = e.m.Hasher.Hash(s), true
	}
	if e.opt.SyncOnly {
		e.learn(f.steps, f.status)
	}
	e.current = -1
	failed := e.m.Check(s)
	if e.opt.SyncOnly && (terminal || failed != nil) {
		// Every execution is checked for races where it ends; a race is
		// reported first, as it may be the cause of what follows.
		if failed != nil && e.depth > 0 {
			e.plainEnd(&e.stack[e.depth-1], last)
		}
		if e.raced() && e.Stop {
			e.countExecution()
			return
		}
	}
	if failed != nil {
		failed.Thread = last
		e.violation(failed, e.sched)
		return
	}
	if terminal {
		if e.terminals != nil {
			pre := e.c // ICB reaches a state first at the lowest bound
			if e.dfs {
				pre = e.pre
			}
			if old, ok := e.terminals[h]; !ok || pre < old {
				e.terminals[h] = pre
			}
		}
		search.Terminal(&e.Outcome, s, e.sched)
		if search.Deadlock(c, &e.opt.Options) {
			e.violation(&ts.Violation{Kind: ts.Deadlock, Thread: last}, e.sched)
			return
		}
		e.countExecution()
		return
	}
	f.pre = e.pre
	// A flat state cannot be modified: its hash is not checked again.
	f.state, f.hash, f.hashed, f.last, f.multi = s, h, hashed && !e.flat, last, c.Moves > 1
	f.next, f.nextOut, f.phase, f.queued, f.point = 0, 0, 0, false, false
	f.pathLen, f.node, f.in = pathLen, unsetNode, in
	f.taken = f.taken[:0]
	if f.multi && !f.hashed && !e.flat && e.m.Hasher != nil {
		e.current = -1
		f.hash, f.hashed = e.m.Hasher.Hash(s), true
	}
	e.depth++
}

// growStack adds a frame to the stack, its slices cut from blocks made for
// several frames at a time.
func (e *icb[S]) growStack() {
	n := e.n
	if len(e.frameSteps) < n {
		const frames = 16
		e.frameSteps, e.frameStatus = make([]ts.Step, frames*n), make([]ts.Status, frames*n)
		e.frameOuts, e.frameTaken = make([]int, frames*n), make([]ts.Move, frames*n)
	}
	// Full slice expressions: a frame that takes more moves than it has
	// threads grows its own taken, never into its neighbour's.
	e.stack = append(e.stack, icbFrame[S]{steps: e.frameSteps[:n:n], status: e.frameStatus[:n:n],
		outs: e.frameOuts[:n:n], taken: e.frameTaken[:0:n]})
	e.frameSteps, e.frameStatus = e.frameSteps[n:], e.frameStatus[n:]
	e.frameOuts, e.frameTaken = e.frameOuts[n:], e.frameTaken[n:]
}

// raced checks the execution that just ended (e.sched, e.steps) for data
// races and reports the first as a violation. Sync-only search is sound only
// with this check (ICB paper, Theorems 2 and 3): an execution that holds no
// race reaches, through sync-only scheduling points, every terminal state the
// full search reaches; one that holds a race is itself the bug.
func (e *icb[S]) raced() bool {
	e.det.Reset()
	for i, mv := range e.sched {
		races := e.det.Step(mv.Thread, e.steps[i])
		if len(races) == 0 {
			continue
		}
		sched := e.sched[:i+1]
		if e.seen(sched) {
			return false
		}
		run, err := ts.ReplayWith(e.sys, sched.Clone(), e.opt.Options)
		if err != nil {
			e.Fail(err)
			return true
		}
		race := races[0]
		if names, ok := e.sys.(ts.ObjNamer); ok {
			// Named now, as the trace names it: a system's names may
			// change as it runs (package threads names objects as an
			// execution makes them), and the error is read later.
			race.Names = fixedName{race.Obj, names.ObjName(race.Obj)}
		}
		e.Record(&ts.Violation{Kind: ts.DataRace, Err: race, Thread: mv.Thread, Trace: run.Trace})
		return true
	}
	return false
}

// seen reports whether a violation with this schedule was reported before
// a restart, and remembers it.
func (e *icb[S]) seen(sched ts.Schedule) bool {
	if e.reported == nil {
		return false
	}
	k := sched.String()
	if _, ok := e.reported[k]; ok {
		return true
	}
	e.reported[k] = struct{}{}
	e.reportedBytes += int64(len(k)) + 16 + 40
	return false
}

// violation counts the execution a violation ends, confirms the violation by
// replaying its schedule and records it.
func (e *icb[S]) violation(v *ts.Violation, sched ts.Schedule) {
	e.countExecution()
	if e.seen(sched) {
		return
	}
	search.Confirm(&e.Outcome, e.sys, v, sched)
}

// countExecution counts an execution that ended, by its preemptions in DFS
// mode.
func (e *icb[S]) countExecution() {
	e.res.Executions++
	if e.dfs {
		for len(e.byBound) <= e.pre {
			e.byBound = append(e.byBound, 0)
		}
		e.byBound[e.pre]++
	}
}

// budgetSpent reports whether a limit or the context stops the search before
// the next transition (reporting progress on the way), and checks the memory
// budget now and then.
func (e *icb[S]) budgetSpent() bool {
	if !e.Quiet() && e.Spent() {
		return true
	}
	return e.res.Transitions&4095 == 0 && !e.memoryOK()
}

// memoryOK fails the search if what it keeps passes Limits.Memory: the
// frames, the queued items (the states they hold are counted by their Go
// size only), the schedule nodes, the cache, the terminal states by hash
// (a Go map's entry at 48 bytes, the most it takes) and, in sync-only mode,
// the schedules of the violations reported.
func (e *icb[S]) memoryOK() bool {
	n := int64(e.n)
	frameBytes := int64(unsafe.Sizeof(icbFrame[S]{})) + n*(int64(unsafe.Sizeof(ts.Step{}))+1+8)
	itemBytes := int64(unsafe.Sizeof(icbItem{}))
	originBytes := int64(unsafe.Sizeof(icbOrigin[S]{}))
	// The queues, nodes and cache may be an earlier search's (icbPool),
	// larger than this one's: they are counted by the room this search
	// would have grown them to, so that where a search stops for its
	// budget does not depend on what ran before it.
	used := int64(cap(e.stack))*frameBytes + int64(ownRoom(len(e.queue))+ownRoom(max(len(e.next), e.nextFloor)))*itemBytes +
		int64(cap(e.queueFrom)+cap(e.nextFrom))*originBytes +
		int64(ownRoom(len(e.nodes)))*int64(unsafe.Sizeof(schedNode{})) + int64(cap(e.nodeSteps)+cap(e.wideSteps))*int64(unsafe.Sizeof(ts.Step{})) + e.cache.ownBytes() + e.reserve + int64(len(e.terminals))*48 + e.reportedBytes
	if limit := e.opt.Limits.MaxMemory(); limit < 0 || used <= limit {
		return true // the message below is for a search that stops
	}
	return e.MemoryOK(used, fmt.Sprintf("%d frames, %d queued items, %d schedule nodes, %d cached items", len(e.stack), len(e.queue)-e.queueAt+len(e.next), len(e.nodes), e.cache.len()))
}

// coverDFS fills the coverage per bound of a cb-dfs search that ended on its
// own.
func (e *icb[S]) coverDFS() {
	maxBound := e.opt.Bound
	if maxBound == Unbounded {
		maxBound = len(e.byBound) - 1
		e.res.Bound = maxBound
	}
	// Figures are cumulative: bound c counts what has at most c
	// preemptions.
	terms := make([]int64, maxBound+1)
	for _, pre := range e.terminals {
		if pre <= maxBound {
			terms[pre]++
		}
	}
	var total, states int64
	for c := 0; c <= maxBound; c++ {
		if c < len(e.byBound) {
			total += e.byBound[c]
		}
		states += terms[c]
		e.res.Coverage = append(e.res.Coverage, ts.Coverage{Bound: c, Executions: total, TerminalStates: states})
	}
}

// fixedName names one object, as the system named it when a race on it
// was found.
type fixedName struct {
	obj  ts.Obj
	name string
}

func (n fixedName) ObjName(o ts.Obj) string {
	if o == n.obj {
		return n.name
	}
	return fmt.Sprintf("o%d", o)
}
