package cbound

import (
	"context"
	"fmt"
	"slices"

	"github.com/weftlab/weft/hb"
	"github.com/weftlab/weft/internal/search"
	"github.com/weftlab/weft/ts"
)

// ICB implements iterative context bounding: Algorithm 1 of Musuvathi and
// Qadeer, "Iterative context bounding for systematic testing of multithreaded
// programs" (PLDI 2007).
//
// A work item is a state and the thread to run there. Running the same
// thread on is free; switching away from a thread that is still enabled is a
// preemption, and the item it makes goes to the next iteration's queue;
// switching away from a blocked or finished thread is free. So iteration c
// explores exactly the executions with c preemptions, every execution with c
// preemptions comes before any with c+1, and the first violation found has
// the fewest preemptions of any.
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
// Result.Coverage holds, per bound 0..c, the executions explored with at most
// that many preemptions, the distinct terminal states (by hash, when the
// system has one) and the distinct (state, thread) items cached.
func ICB[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options) (ts.Result, error) {
	return runICB(ctx, sys, opt, false)
}

// DFS is the baseline the cbpor paper calls cb-dfs: a stateless depth-first
// search of every execution with at most Options.Bound preemptions, with no
// partial-order reduction and no cache (a cache keyed by state would be
// unsound here: DFS may meet a state first by a path with more preemptions).
// It explores the same executions as ICB, in depth-first order, so the first
// violation it finds need not have the fewest preemptions. Coverage holds the
// executions with at most c preemptions for each c.
func DFS[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options) (ts.Result, error) {
	opt.NoCache = true
	return runICB(ctx, sys, opt, true)
}

func runICB[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options, dfs bool) (ts.Result, error) {
	res := ts.Result{Bound: opt.Bound}
	if err := opt.validate(); err != nil {
		return res, err
	}
	opt = opt.resolved()
	res.Bound = opt.Bound
	e := &icb[S]{sys: sys, ctx: ctx, opt: opt, res: &res, maxDepth: opt.Limits.MaxDepth(), current: -1, dfs: dfs}
	e.Outcome = search.Outcome{Ctx: ctx, Opt: &e.opt.Options, Res: &res}
	e.checker, _ = sys.(ts.Checker[S])
	e.hasher, _ = sys.(ts.Hasher[S])
	n, err := search.Threads(sys)
	if err != nil {
		return res, err
	}
	e.n = n
	if opt.SyncOnly {
		e.det = hb.NewDetector(n)
	}
	if e.hasher != nil {
		e.terminals = make(map[uint64]struct{})
		if !opt.NoCache && !opt.SyncOnly {
			e.cache = make(map[cacheKey]struct{})
		}
	}
	err = e.run()
	res.States = int64(len(e.cache))
	return res, err
}

// cacheKey is a visited work item: a state and the thread that moved last.
type cacheKey struct {
	hash uint64
	last ts.Tid
}

// schedNode is a link of a schedule shared by queued items: the thread of the
// last transition and the node of the prefix before it.
type schedNode struct {
	parent int32
	t      ts.Tid
	step   ts.Step
}

const (
	noNode    int32 = -1 // the empty schedule
	unsetNode int32 = -2 // not materialized yet
)

// icbItem is a preemption waiting for the next iteration: at state (reached
// by the schedule of node), run thread t.
type icbItem[S any] struct {
	state S
	hash  uint64
	node  int32
	t     ts.Tid
}

type icbFrame[S any] struct {
	state   S
	hash    uint64
	steps   []ts.Step
	status  []ts.Status
	last    ts.Tid  // the thread that moved into this state, or -1
	next    ts.Tid  // the next free choice to try
	tried   bool    // a child has been taken
	pathLen int     // transitions from the initial state
	node    int32   // schedule node of the path here, or unsetNode
	in      ts.Step // the step of the transition that reached this state
	pre     int     // preemptions on the path here (DFS mode)
}

type icb[S any] struct {
	sys      ts.TransitionSystem[S]
	checker  ts.Checker[S]
	hasher   ts.Hasher[S]
	ctx      context.Context
	opt      Options
	res      *ts.Result
	n        int
	maxDepth int

	c           int // the current iteration's bound
	queue, next []icbItem[S]
	nodes       []schedNode
	cache       map[cacheKey]struct{}
	terminals   map[uint64]struct{}

	stack    []icbFrame[S]
	depth    int
	sched    ts.Schedule // the path to the state being visited or on top
	steps    []ts.Step   // the step of each transition of sched
	baseNode int32       // schedule node of the running item's state

	det *hb.Detector // SyncOnly: the race detector, reused

	dfs     bool    // cb-dfs: preemptions are children, not queued items
	pre     int     // DFS mode: preemptions of the transition being taken
	byBound []int64 // DFS mode: executions by preemption count

	current ts.Tid // thread whose user code is running, or -1
	pushing bool   // the running call belongs to the transition sched ends with
	search.Outcome
}

func (e *icb[S]) run() error {
	if e.dfs {
		e.Drive(e.root, e.loop, e.panicked)
		if !e.Stop {
			e.coverDFS()
		}
		return e.Err
	}
	return e.Drive(e.root, e.iterate, e.panicked)
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
		if len(e.queue) > 0 {
			it := e.queue[0]
			e.queue = e.queue[1:]
			e.runItem(&it)
			continue
		}
		cov := ts.Coverage{Bound: e.c, Executions: e.res.Executions, TerminalStates: int64(len(e.terminals)), States: int64(len(e.cache))}
		e.res.Coverage = append(e.res.Coverage, cov)
		if len(e.next) == 0 || e.c == e.opt.Bound {
			if e.opt.Bound == Unbounded {
				e.res.Bound = e.c
			}
			return // Drive marks the search complete
		}
		e.queue, e.next = e.next, e.queue[:0]
		e.c++
	}
}

// panicked turns a panic in user code into a violation (search.Outcome.Drive).
func (e *icb[S]) panicked(any) {
	sched := e.sched
	if !e.pushing && len(sched) > 0 && e.depth > 0 {
		sched = sched[:e.stack[e.depth-1].pathLen]
	}
	t := e.current
	e.current, e.pushing = -1, false
	e.violation(&ts.Violation{Kind: ts.Panic, Thread: t}, sched)
}

func (e *icb[S]) root() {
	e.sched, e.steps, e.baseNode, e.depth, e.pre = e.sched[:0], e.steps[:0], noNode, 0, 0
	e.visit(e.sys.Init(), -1, ts.Step{})
	if e.depth > 0 {
		e.stack[0].node = noNode
	}
}

// runItem starts the search of a preemption: the item's thread moves at the
// item's state.
func (e *icb[S]) runItem(it *icbItem[S]) {
	e.sched, e.steps = e.sched[:0], e.steps[:0]
	for n := it.node; n != noNode; n = e.nodes[n].parent {
		e.sched = append(e.sched, ts.Move{Thread: e.nodes[n].t})
		e.steps = append(e.steps, e.nodes[n].step)
	}
	slices.Reverse(e.sched)
	slices.Reverse(e.steps)
	e.baseNode, e.depth = it.node, 0
	if e.Spent() {
		return
	}
	e.current, e.pushing = it.t, true
	step, _ := e.sys.Next(it.state, it.t)
	e.sched = append(e.sched, ts.Move{Thread: it.t})
	e.steps = append(e.steps, step)
	child := e.sys.Apply(it.state, it.t)
	e.res.Transitions++
	if !e.unchanged(it.state, it.hash, it.t) {
		return
	}
	e.visit(child, it.t, step)
	e.current, e.pushing = -1, false
}

// loop is the depth-first search of one item: free choices branch, the
// running thread goes on, preemptions are queued for the next iteration.
func (e *icb[S]) loop() {
	for e.depth > 0 && !e.Stop {
		top := &e.stack[e.depth-1]
		t := ts.Tid(-1)
		e.pre = top.pre
		if top.last >= 0 && top.status[top.last] == ts.Enabled {
			if !top.tried {
				top.tried = true
				t = top.last
				if !e.dfs {
					e.queuePreemptions(top)
				}
			} else if e.dfs && e.mayPreempt(top) {
				for int(top.next) < e.n && (top.next == top.last || top.status[top.next] != ts.Enabled) {
					top.next++
				}
				if int(top.next) < e.n {
					t = top.next
					top.next++
					e.pre = top.pre + 1
				}
			}
		} else {
			for int(top.next) < e.n && top.status[top.next] != ts.Enabled {
				top.next++
			}
			if int(top.next) < e.n {
				t = top.next
				top.next++
			}
		}
		if t < 0 {
			e.depth--
			continue
		}
		if e.Spent() {
			return
		}
		e.sched = append(e.sched[:top.pathLen], ts.Move{Thread: t})
		e.steps = append(e.steps[:top.pathLen], top.steps[t])
		e.current, e.pushing = t, true
		child := e.sys.Apply(top.state, t)
		e.res.Transitions++
		if !e.unchanged(top.state, top.hash, t) {
			return
		}
		e.visit(child, t, top.steps[t])
		e.current, e.pushing = -1, false
	}
}

// queuePreemptions queues, for the next iteration, every other enabled
// thread taking over from top's running thread.
func (e *icb[S]) queuePreemptions(top *icbFrame[S]) {
	if !e.mayPreempt(top) {
		return
	}
	node := unsetNode
	for u := range ts.Tid(e.n) {
		if u == top.last || top.status[u] != ts.Enabled {
			continue
		}
		if node == unsetNode {
			node = e.nodeOf(e.depth - 1)
		}
		e.next = append(e.next, icbItem[S]{state: top.state, hash: top.hash, node: node, t: u})
	}
}

// mayPreempt reports whether another thread may preempt top's running
// thread within the bound.
func (e *icb[S]) mayPreempt(top *icbFrame[S]) bool {
	pre := e.c
	if e.dfs {
		pre = top.pre
	}
	if e.opt.Bound != Unbounded && pre >= e.opt.Bound {
		return false
	}
	return !e.opt.SyncOnly || top.steps[top.last].IsSync() // no scheduling point before a data access
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
	e.nodes = append(e.nodes, schedNode{parent: parent, t: f.last, step: f.in})
	f.node = int32(len(e.nodes) - 1)
	return f.node
}

// visit processes a state reached by thread last: the end of an execution,
// or a frame pushed for the loop.
func (e *icb[S]) visit(s S, last ts.Tid, in ts.Step) {
	pathLen := len(e.sched)
	if pathLen > e.maxDepth {
		e.Fail(&ts.SystemError{Err: ts.ErrDepth, Thread: last, Schedule: e.sched.Clone(),
			Detail: fmt.Sprintf("an execution reached %d transitions; raise Limits.Depth if the system does terminate", pathLen)})
		return
	}
	var h uint64
	if e.hasher != nil {
		e.current = -1
		h = e.hasher.Hash(s)
		if e.cache != nil {
			k := cacheKey{h, last}
			if _, seen := e.cache[k]; seen {
				return
			}
			e.cache[k] = struct{}{}
		}
	}
	if e.depth == len(e.stack) {
		e.stack = append(e.stack, icbFrame[S]{steps: make([]ts.Step, e.n), status: make([]ts.Status, e.n)})
	}
	f := &e.stack[e.depth]
	enabled, blocked, err := search.Look(e.sys, s, f.steps, f.status, &e.current)
	if err != nil {
		e.Fail(search.WithSchedule(err, e.sched))
		return
	}
	terminal := enabled == 0
	if terminal {
		if e.terminals != nil {
			e.terminals[h] = struct{}{}
		}
	}
	e.current = -1
	var failed error
	if e.checker != nil {
		failed = e.checker.Check(s)
	}
	if e.opt.SyncOnly && (terminal || failed != nil) {
		// Every execution is checked for races where it ends; a race is
		// reported first, as it may be the cause of what follows.
		if e.raced() && e.Stop {
			e.countExecution()
			return
		}
	}
	if failed != nil {
		e.violation(&ts.Violation{Kind: ts.CheckFailure, Err: failed, Thread: last}, e.sched)
		return
	}
	if terminal && e.opt.OnTerminal != nil {
		e.opt.OnTerminal(s, e.sched)
	}
	if terminal {
		if blocked > 0 {
			e.violation(&ts.Violation{Kind: ts.Deadlock, Thread: last}, e.sched)
			return
		}
		e.countExecution()
		return
	}
	f.pre = e.pre
	f.state, f.hash, f.last, f.next, f.tried, f.pathLen, f.node, f.in = s, h, last, 0, false, pathLen, unsetNode, in
	e.depth++
}

// unchanged reports whether Apply left the state it was given alone, as far
// as its hash can tell.
func (e *icb[S]) unchanged(s S, h uint64, t ts.Tid) bool {
	if e.hasher == nil {
		return true
	}
	if h2 := e.hasher.Hash(s); h2 != h {
		e.Fail(&ts.SystemError{Err: ts.ErrMutated, Thread: t, Schedule: e.sched[:len(e.sched)-1].Clone(),
			Detail: fmt.Sprintf("the state before its transition changed (hash %#x, now %#x)", h, h2)})
		return false
	}
	return true
}

// violation counts the execution a violation ends, confirms the violation by
// replaying its schedule and records it.
func (e *icb[S]) violation(v *ts.Violation, sched ts.Schedule) {
	e.countExecution()
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

// coverDFS fills the coverage per bound of a cb-dfs search that ended on its
// own.
func (e *icb[S]) coverDFS() {
	maxBound := e.opt.Bound
	if maxBound == Unbounded {
		maxBound = len(e.byBound) - 1
		e.res.Bound = maxBound
	}
	var total int64
	for c := 0; c <= maxBound; c++ {
		if c < len(e.byBound) {
			total += e.byBound[c]
		}
		e.res.Coverage = append(e.res.Coverage, ts.Coverage{Bound: c, Executions: total, TerminalStates: int64(len(e.terminals))})
	}
}
