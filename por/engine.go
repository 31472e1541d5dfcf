package por

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/bits-and-blooms/bitset"

	"github.com/weftlab/weft/hb"
	"github.com/weftlab/weft/internal/flat"
	"github.com/weftlab/weft/internal/hashset"
	"github.com/weftlab/weft/internal/search"
	"github.com/weftlab/weft/ts"
)

// The four strategies share one depth-first engine: a stack of frames (the
// states of the current execution) and, between frame i and frame i+1, the
// event i (the move taken: a thread and the outcome of its transition), with
// its vector clock and the locks its thread held. What differs is which
// moves a frame explores (mode) and what the engine does at each state it
// reaches.
//
// A step may touch several objects: every per-object structure (the chains
// of events per object behind the vector clocks, the race scans, the locks
// held) takes each access of a step. A transition may have several outcomes:
// Sleep, DPOR and SDPOR explore all outcomes of a thread they take, one
// after the other, and a thread in a sleep or backtrack set stands for all of
// them; ODPOR plans single events (a thread and an outcome), since two
// outcomes are two Mazurkiewicz traces.

type mode uint8

const (
	modeSleep mode = iota
	modeDPOR
	modeODPOR
	modeSDPOR
)

// event is one transition of the current execution.
type event struct {
	t          ts.Tid
	out        int // the outcome taken
	step       ts.Step
	n          uint32  // the thread's n-th event, from 1
	clock      hb.VC   // happens-before clock: clock[u] events of u happen before or are this one
	prev       []int32 // prev[i]: the previous event on the object of the step's i-th access, or -1
	prevThread int32   // the thread's previous event, or -1
	id         uint64  // DPOR: a number no other event of the search has had (see backtrackAll)
	held       []ts.Obj
	done       bool       // ODPOR: the event races with nothing (races skips it)
	memo       []raceMemo // ODPOR: what the replays of its races found
	cands      []cand     // ODPOR: its races, once candsKnown
	candsKnown bool
}

// prevOn returns the previous event on object o, which x touches.
func (x *event) prevOn(o ts.Obj) int32 {
	if x.step.Obj == o {
		return x.prev[0]
	}
	for i, a := range x.step.Also {
		if a.Obj == o {
			return x.prev[i+1]
		}
	}
	panic("por: event does not touch the object")
}

// frame is a state of the current execution.
type frame[S any] struct {
	state  S
	hash   uint64
	hashed bool // hash holds the state's hash, the baseline of the contract check
	multi  bool // the state has two moves or more: the contract is checked at pop
	steps  []ts.Step
	status []ts.Status
	outs   []int    // each unfinished thread's number of outcomes
	count  []uint32 // events of each thread before this state
	// sleep holds the threads asleep here with every outcome and, as the
	// search goes on, those explored from here (the two play the same
	// part). ODPOR keeps single outcomes of threads with several in
	// psleep.
	sleep  bitset.BitSet
	psleep []wev
	bt     bitset.BitSet // DPOR, SDPOR: the backtrack set
	last   ts.Tid        // the thread whose transition reached this state, or -1
	run    ts.Tid        // Sleep, DPOR, SDPOR: the thread whose outcomes are being taken, or -1
	first  ts.Tid        // Sleep: the thread visit found to take first (pickThread's answer then), or -1
	out    int           // its next outcome
	root   int32         // ODPOR: the wakeup tree's root node
	cur    int32         // ODPOR: the child being explored, or -1
	tried  bool          // ODPOR: a branch has been taken from here
	taken  []ts.Move     // the moves taken from here, for the contract check
	after  bool          // steps, status and outs are LookAfter's from the frame below
}

type explorer[S any] struct {
	m        *search.Model[S]
	sys      ts.TransitionSystem[S]
	ctx      context.Context
	opt      Options
	res      *ts.Result
	mode     mode
	n        int
	maxDepth int
	flat     bool // states hold no references: Apply cannot modify them (package flat)
	typed    bool // flat is known (an explorer from the pool knows it from its last search)

	stack []frame[S]
	depth int
	// frames and events count the frames and event slots this search has
	// used, by chunks: what the memory budget counts.
	frames, events int
	ev             []event // ev[i] leads from stack[i] to stack[i+1]; len(ev) == depth-1 between steps
	evStore        []event // backing store of ev, whose slots keep their clocks
	sched          ts.Schedule
	thrLast        []int32
	objLast        lastTable
	held           [][]ts.Obj
	zero           hb.VC

	nextSleep  bitset.BitSet // the sleep set of the state being visited (visit takes it: emptied by take before use)
	nextPsleep []wev         // ODPOR: its single outcomes asleep
	nextRoot   int32         // ODPOR: the wakeup subtree of the state being visited

	// ODPOR
	wt       wtree
	raceFrom int       // the first event whose races have not been analysed
	race     raceState // the race being reversed
	seqBuf   []wev     // reused wakeup sequences
	insBuf   []wev     // insert's copy of the sequence it adds
	seqPos   []int32   // the execution's events of seqBuf (notdepAt)
	// notdepAt's memos by event, how many events they hold, and seqBuf's
	// and seqPos' own buffers while they are lent a memo's.
	notdeps      []notdepMemo
	notdepEvents int64
	ownSeq       []wev
	seqPosOwn    []int32
	// ODPOR: the descents of races' reversals, by event (descent.go), and
	// the record for the reversal being inserted, if any.
	descents    [][]descMemo
	descent     *descMemo
	descentOK   bool // descent's levels can be taken (its caller checked)
	memoDescent bool // insertReversal: a race's reversal, its descents recorded
	// insertMarking's sequence is notdepAt's (seqPos its events') up to
	// the execution's event seqEnd, plus one event: its weak-initial tests
	// may read the execution's chains (chainInitial).
	seqChains bool
	seqEnd    int32
	seqLeft   seqRef // the sequence's notdep part (chainInitial)
	chains    bool   // insertMarking reads the chains (see insertAwake)
	// seqIdx, if not nil, indexes insertMarking's whole sequence, which is
	// not the execution's (a coordinator's commit): its tests read it.
	seqIdx *seqIndex
	// The execution's events insertMarking took from such a sequence:
	// takenAt[k] == takenEpoch, the insertion's number.
	takenAt    []uint32
	takenEpoch uint32
	logRace    bool // insertAt in a worker: log the race with the sequence
	// A coordinator's descent records, for the reversals a unit's log
	// names the race of, and which record each log entry used (commit);
	// a worker's memory of what it logged, by race event, and the unit's
	// number (descent.go).
	commitDescs []descMemo
	recOf       []int32
	logKeys     [][]logKey
	logGen      uint64
	// logLast and logLastGen are, per coordinator's frame, the last
	// sequence a worker logged for it and the log's logGen then
	// (logShared); commitSeqs the coordinator's (commitSeqAt).
	logLast    [][]wev
	logLastGen []uint64
	logLastIDs []logIDs
	commitSeqs []commitSeq
	sleepKnown bool // insertAt: the sleep set does not reject the sequence (known)
	// Scratch of a parallel search: the units' encoded inputs, the walk of
	// a subtree to encode, the ids of a subtree's decoded nodes.
	keyBuf           []byte
	walkBuf, treeIDs []int32
	insPath          []int32 // the nodes insert descended through
	planPath         []wev   // planned's scratch: insPath's events
	// src maps a predictor's copies of the coordinator's unit roots to
	// the originals, with their versions (see the top of parallel.go).
	src map[int32]srcRef
	// lazy holds a predictor's unit roots whose subtrees clone did not
	// copy, with the subtree's encoding (see materialize); arena holds
	// those clone wrote.
	lazy      map[int32]lazyTree
	arena     []byte
	recording bool // a coordinator taking a result: record plans
	plans     []plan
	// A parallel search's recycled memory (see wevPool): where a worker
	// copies the sequences it logs, and a coordinator its plans.
	pool        *wevPool
	logChunks   [][]lev
	logAlso     [][]ts.Access // the Also of the steps of logChunks' events
	planChunks  [][]lev
	planSched   ts.Schedule // the coordinator's schedule, copied once a commit
	remap       []int32     // clone's map of the coordinator's nodes to a predictor's
	cands       []cand
	cut         cutState // reversals that leave out several events (cut.go)
	reinsert    [][]wev
	replaySched ts.Schedule // feasibility replays
	replays     int64
	infeasible  int64 // wakeup-tree branches found not enabled
	// waitingSleepers counts the wakeup sequences that a sleeping thread
	// whose step may wait did not reject, being only a weak initial of
	// them; waitingSleeper is set where weakInitialAt finds one.
	waitingSleepers int64
	waitingSleeper  bool
	blockedObjs     map[ts.Obj]struct{} // objects of steps seen waiting
	strict          bool                // a check has failed: weak initials by initials only
	// blockedIn marks small objects put in blockedObjs by blockObj, so that
	// the check on every state where a thread waits costs no hashing.
	blockedIn bitset.BitSet

	// SDPOR
	// visited holds, by hash, the state's status (bits 0-1: 1 on the stack,
	// 2 explored, 3 explored and failing) and its operations in the graph
	// (the rest: see opGraph.stateOps).
	visited *hashset.Map // nil: not SDPOR
	reserve int64        // bytes a table is about to grow by, counted while memoryOK decides
	graph   opGraph

	init        bitset.BitSet // initials, reused
	ruled       []ruled       // DPOR, SDPOR: per thread, see backtrackAll
	ids         uint64        // the events' ids so far
	firstN      []uint32      // per thread, its first event's number in a notdep sequence
	pendingStep ts.Step       // the step backtrackAt is reversing
	initSelf    bool          // initials: p is one by its pending step
	initUsed    bool          // ruleAt: the rule read the initials (e.init)
	aboveKnown  bool          // a unit's worker knows the sleep and backtrack sets of its prefix (setAbove)

	sleepBlocked int64
	backtracks   int64
	revisits     int64

	current ts.Tid
	pushing bool

	// Parallel search (parallel.go).
	role  role
	base  int // a unit's worker: the frames below base are the coordinator's
	split int // coordinator, predictor: a move into frame split or deeper is a unit
	// alone: a coordinator below the depth where units start finishes the
	// subtree it is in before it hands out units (see splitHere, resume).
	alone bool
	// coordinator, predictor: the frames on the stack whose subtree the
	// search explores itself instead of as a unit (a unit too large, or
	// handed back), and where units start below each.
	expanded []expansion
	gen      int64   // predictor: its generation (parallel.gen)
	log      []logOp // a unit's worker: what it does to the coordinator's frames, in order
	// A unit's worker: once it has explored handBackFrom transitions (0:
	// never), it hands back what is left of the unit at the next branch
	// (leaveRest) if handBackAlways or a goroutine is hungry; rest is what
	// it left.
	handBackFrom   int64
	handBackAlways bool
	hungry         *atomic.Int32
	rest           *unitRest
	resuming       bool          // the coordinator is moving into a unit's root to go on from its rest (resume)
	par            *parallel[S]  // coordinator, predictor
	inE            bitset.BitSet // DPOR: the threads of E at a backtrack point, reused

	// A coordinator's wevPool memory, kept from one parallel search to the
	// next of the explorer pool.
	spareChunks [][]lev
	spareLogs   [][]logOp

	// memCheck is the transition count at which the memory budget is
	// checked next. mem, in a parallel search, is where every explorer of
	// the search adds what it keeps (memPub, its share there): the budget
	// is the whole search's.
	memCheck int64
	mem      *memAcct
	memPub   int64

	search.Outcome
}

// cand is a race candidate of ODPOR's analysis: an event and the object on
// which it races.
type cand struct {
	j int32
	o ts.Obj
}

func run[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options, m mode) (ts.Result, error) {
	res := ts.Result{Bound: ts.NoBound, Finds: search.Finds(&opt.Options)}
	if err := search.Context(ctx); err != nil {
		return res, err
	}
	if err := opt.validate(); err != nil {
		return res, err
	}
	model, err := search.NewModel(sys)
	if err != nil {
		return res, err
	}
	if m == modeSDPOR && model.Hasher == nil {
		return res, fmt.Errorf("%w: %w", ts.ErrBadOptions, ts.ErrNoHash)
	}
	if opt.Workers > 1 || opt.Runner != nil {
		if m == modeSDPOR {
			if opt.Runner != nil {
				return res, fmt.Errorf("%w: sdpor explores on one goroutine (its table of visited states is shared by the whole search); it takes no Runner", ts.ErrBadOptions)
			}
			return res, fmt.Errorf("%w: sdpor explores on one goroutine (its table of visited states is shared by the whole search); Workers must be 0 or 1, not %d", ts.ErrBadOptions, opt.Workers)
		}
		return runParallel(ctx, sys, model, opt, m, &res)
	}
	e := pooled[S](false)
	e.start(ctx, sys, model, opt, m, &res)
	addSystemStats := search.SystemStats(sys)
	err = e.Drive(e.root, e.loop, e.panicked)
	e.finish(err == nil)
	addSystemStats(&res)
	err = e.Err
	release(e)
	return res, err
}

// explorers keeps the explorers of finished searches, pools per state type
// (keyed by a nil *S), so that the next search takes over their frames,
// events, clocks, wakeup-tree pool and scratch buffers: a search of a few
// hundred transitions otherwise spends much of its time growing them (and
// the garbage collector, collecting them).
var explorers sync.Map

// explorerPools are a state type's pools: one for the explorers of whole
// searches (serial searches, a parallel search's coordinator and
// predictor), whose wakeup trees hold the whole top of the search, and one
// for those of units, whose trees are a unit's. Taken from one pool, a
// coordinator got a unit's explorer as often as not and grew its tree
// again: 270,000 nodes a search of indexer-16, 2.5% of a parallel search's
// CPU time.
type explorerPools struct{ search, unit sync.Pool }

// pooled returns an explorer from the pool of units' explorers (unit) or
// of whole searches', or a new one.
func pooled[S any](unit bool) *explorer[S] {
	var key any = (*S)(nil)
	v, ok := explorers.Load(key)
	if !ok {
		v, _ = explorers.LoadOrStore(key, new(explorerPools))
	}
	p := &v.(*explorerPools).search
	if unit {
		p = &v.(*explorerPools).unit
	}
	if e, ok := p.Get().(*explorer[S]); ok {
		return e
	}
	return new(explorer[S])
}

// release hands e, whose search is over, back to its pool (a unit's
// explorer, a worker, to the units' pool), without what belongs to the
// caller: the states, the system, the context and options.
func release[S any](e *explorer[S]) {
	var zero S
	for i := range e.stack {
		e.stack[i].state = zero
	}
	unit := e.role == roleWorker
	old := *e
	*e = explorer[S]{}
	e.keep(&old)
	v, _ := explorers.Load(any((*S)(nil)))
	if unit {
		v.(*explorerPools).unit.Put(e)
	} else {
		v.(*explorerPools).search.Put(e)
	}
}

// newExplorer returns an explorer of sys in mode m that fills res, from
// the pool of units' explorers (unit) or of whole searches' (release it
// when done).
func newExplorer[S any](ctx context.Context, sys ts.TransitionSystem[S], model *search.Model[S], opt Options, m mode, res *ts.Result, unit bool) *explorer[S] {
	e := pooled[S](unit)
	e.start(ctx, sys, model, opt, m, res)
	return e
}

// start makes e, new or released (release), ready for a search of sys in
// mode m that fills res.
func (e *explorer[S]) start(ctx context.Context, sys ts.TransitionSystem[S], model *search.Model[S], opt Options, m mode, res *ts.Result) {
	old := *e
	*e = explorer[S]{m: model, sys: sys, ctx: ctx, opt: opt, res: res, mode: m, maxDepth: opt.Limits.MaxDepth(), current: -1}
	e.Outcome = search.Outcome{Ctx: ctx, Opt: &e.opt.Options, Res: res}
	e.Mutated = e.mutated
	n := model.N
	e.n = n
	e.keep(&old)
	if !old.typed {
		e.flat = flat.Is[S]()
	}
	e.typed = true
	if e.zero == nil {
		e.zero = hb.NewVC(n)
		e.thrLast = make([]int32, n)
		e.firstN = make([]uint32, n)
		e.held = make([][]ts.Obj, n)
	}
	for i := range e.thrLast {
		e.thrLast[i] = -1
	}
	if e.blockedObjs == nil {
		e.blockedObjs = make(map[ts.Obj]struct{})
	}
	if m == modeODPOR {
		// Objects of steps that can wait, named up front (see
		// ts.Blocking): as if seen waiting from the start.
		for _, o := range model.Blocking {
			e.blockObj(o)
		}
	}
	if m == modeSDPOR {
		e.visited = e.graph.init()
		e.States = func() int64 { return int64(e.visited.Len()) }
	}
}

// keep moves into e, set up for a search of e.n threads (or, with n zero,
// released), the buffers of old, an explorer of the same state type whose
// search is over: emptied, and those sized by the thread count only if it
// is the same.
func (e *explorer[S]) keep(old *explorer[S]) {
	e.flat, e.typed = old.flat, old.typed
	if e.n == 0 || e.n == old.n {
		e.n = old.n
		e.stack, e.evStore, e.ev = old.stack, old.evStore, old.evStore[:0]
		e.zero, e.thrLast, e.firstN, e.held = old.zero, old.thrLast, old.firstN, old.held
		for t := range e.held {
			e.held[t] = e.held[t][:0]
		}
	}
	e.sched = old.sched[:0]
	e.objLast, e.blockedObjs = old.objLast, old.blockedObjs
	e.objLast.reset()
	clear(e.blockedObjs)
	e.blockedIn = old.blockedIn
	e.blockedIn.ClearAll()
	e.nextSleep, e.nextPsleep = old.nextSleep, old.nextPsleep[:0]
	e.nextSleep.ClearAll()
	clear(old.wt.also)
	e.wt = wtree{nodes: old.wt.nodes[:0], mem: old.wt.mem, spare: old.wt.spare[:0], also: old.wt.also[:0], alsoSpare: old.wt.alsoSpare[:0]}
	e.seqBuf, e.insBuf, e.insPath, e.planPath = old.seqBuf[:0], old.insBuf[:0], old.insPath[:0], old.planPath[:0]
	e.src, e.lazy, e.arena = old.src, old.lazy, old.arena[:0]
	clear(e.src)
	clear(e.lazy)
	e.keyBuf, e.walkBuf, e.treeIDs, e.remap = old.keyBuf[:0], old.walkBuf[:0], old.treeIDs[:0], old.remap
	e.cands, e.reinsert, e.replaySched = old.cands[:0], old.reinsert[:0], old.replaySched[:0]
	e.init, e.inE = old.init, old.inE
	e.spareChunks, e.spareLogs = old.spareChunks, old.spareLogs
	// SDPOR's graph, emptied by its init.
	e.graph = old.graph
	e.ids = old.ids // ids stay unique across the pool's searches
	// ODPOR's descent records are for events by id: those of old's
	// searches are never used again.
	e.descents, e.seqPos = old.descents, old.seqPos[:0]
	e.takenAt, e.takenEpoch = old.takenAt, old.takenEpoch     // epochs only grow
	e.notdeps, e.notdepEvents = old.notdeps, old.notdepEvents // by id too
	e.logKeys, e.logGen = old.logKeys, old.logGen             // by id too
	e.commitDescs, e.recOf = old.commitDescs[:0], old.recOf   // recOf is all -1 between commits
	// Stale under a new logGen; commit empties commitSeqs first.
	e.logLast, e.logLastGen, e.logLastIDs, e.commitSeqs = old.logLast, old.logLastGen, old.logLastIDs, old.commitSeqs
	if len(old.ruled) == e.n {
		e.ruled = old.ruled
		resetRuled(e.ruled)
	}
}

// finish fills the result's figures once the search is over, checking the
// system's thread count again when it ended without an error.
func (e *explorer[S]) finish(ok bool) {
	res := e.res
	if e.visited != nil {
		res.States = int64(e.visited.Len())
	}
	if ok {
		if err := e.m.ThreadsAgain(); err != nil {
			e.Err = err
		}
	}
	res.Stats = map[string]int64{"sleep-blocked": e.sleepBlocked}
	switch e.mode {
	case modeDPOR, modeSDPOR:
		res.Stats["backtrack-points"] = e.backtracks
	case modeODPOR:
		res.Stats["wakeup-insertions"] = e.backtracks
		res.Stats["feasibility-replays"] = e.replays
		res.Stats["infeasible-branches"] = e.infeasible
		res.Stats["waiting-sleepers"] = e.waitingSleepers
	}
	if e.mode == modeSDPOR {
		res.Stats["revisits"] = e.revisits
		res.Stats["graph-ops"] = int64(len(e.graph.ops))
	}
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
	e.nextPsleep = e.nextPsleep[:0]
	e.nextRoot = -1
	if e.mode == modeODPOR {
		e.nextRoot = e.wt.alloc(wev{t: -1})
	}
	e.visit(e.sys.Init(), -1)
}

// loop is the depth-first search.
func (e *explorer[S]) loop() {
	for e.depth > e.base && !e.Stop {
		if e.role == rolePredictor && !e.par.replanAll(e) {
			e.Stop = true
			return
		}
		if e.role == roleCoordinator && e.split == 0 && e.par.splitHere(e.depth, e.res.Transitions) {
			// Time to split (parallel.go): from here, where the loop picks
			// the top frame's next move, as a predictor will.
			e.split = e.par.split
			e.alone = e.depth > e.split
			e.par.restart(e)
		}
		top := &e.stack[e.depth-1]
		if e.handBackFrom > 0 && top.cur >= 0 && e.res.Transitions >= e.handBackFrom &&
			(e.handBackAlways || e.hungry.Load() > 0) && e.leaveRest(top) {
			return // the unit's worker hands back what is left (parallel.go)
		}
		mv, ok := e.pick(top)
		if !ok {
			e.pop()
			continue
		}
		if e.budgetSpent() {
			return
		}
		e.take(top, mv)
	}
}

// pick returns the next move to explore from frame f, if any.
func (e *explorer[S]) pick(f *frame[S]) (ts.Move, bool) {
	if e.mode == modeODPOR {
		return e.pickWakeup(f)
	}
	if f.run >= 0 && f.out < f.outs[f.run] {
		mv := ts.Move{Thread: f.run, Outcome: f.out}
		f.out++
		return mv, true
	}
	t := f.first
	if t >= 0 {
		f.first = -1 // the sleep set has not changed since visit found it
	} else {
		t = e.pickThread(f)
	}
	if t < 0 {
		return ts.Move{}, false
	}
	f.run, f.out = t, 1
	return ts.Move{Thread: t}, true
}

// pickThread returns the next thread Sleep, DPOR or SDPOR explores from f,
// or -1.
func (e *explorer[S]) pickThread(f *frame[S]) ts.Tid {
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
	}
	return -1
}

// take explores move mv from the top frame.
func (e *explorer[S]) take(top *frame[S], mv ts.Move) {
	k := e.depth - 1
	t := mv.Thread
	// The child's sleep set: the threads (and, for ODPOR, single outcomes)
	// asleep or explored here whose steps are independent of t's.
	clearSet(&e.nextSleep)
	e.nextPsleep = e.nextPsleep[:0]
	if e.mode != modeSDPOR {
		for u, ok := top.sleep.NextSet(0); ok; u, ok = top.sleep.NextSet(u + 1) {
			if ts.Tid(u) != t && !ts.Dependent(top.steps[u], top.steps[t]) {
				e.nextSleep.Set(u)
			}
		}
		for _, x := range top.psleep {
			if x.t != t && !ts.Dependent(x.step, top.steps[t]) {
				e.nextPsleep = append(e.nextPsleep, x)
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
	top.taken = append(top.taken, mv)
	e.sched = append(e.sched[:k], mv)
	if e.split > 0 && k+1 >= e.unitDepth() && (!e.alone || k+1 == e.unitDepth()) {
		e.alone = false
		e.delegate(mv) // the subtree below mv is a unit (parallel.go)
		return
	}
	e.move(top, mv)
}

// move takes move mv from the top frame, whose sleep set and wakeup subtree
// for the child are set, and visits the state it reaches.
func (e *explorer[S]) move(top *frame[S], mv ts.Move) {
	t := mv.Thread
	e.pushEvent(t, mv.Outcome, top.steps[t])
	e.current, e.pushing = t, true
	var child S
	if mv.Outcome == 0 {
		child = e.sys.Apply(top.state, t)
	} else {
		child = e.m.Chooser.ApplyOutcome(top.state, t, mv.Outcome)
	}
	e.res.Transitions++
	if !e.visit(child, t) {
		e.popEvent()
	}
	e.current, e.pushing = -1, false
}

// baseline is what the contract check compares frame i's state with.
func (e *explorer[S]) baseline(i int) search.Baseline {
	f := &e.stack[i]
	b := search.Baseline{Hash: f.hash, Hashed: f.hashed, Flat: e.flat, Steps: f.steps, Status: f.status, Outs: f.outs}
	if f.after {
		p := &e.stack[i-1]
		b.PrevSteps, b.PrevStatus, b.Mover = p.steps, p.status, f.last
	}
	return b
}

// pop removes the top frame and the event that reached it, after checking
// the contract where the state had several moves.
func (e *explorer[S]) pop() {
	f := &e.stack[e.depth-1]
	if f.multi {
		// Checked wherever the search could have taken another move, as
		// ts.Explore does, also where the reduction took only one.
		if err := e.m.Unchanged(f.state, e.baseline(e.depth-1), e.sched[:e.depth-1], f.taken, &e.current); err != nil {
			e.Fail(err)
			return
		}
	}
	e.depth--
	if n := len(e.expanded); n > 0 && int(e.expanded[n-1].at) == e.depth {
		e.expanded = e.expanded[:n-1]
	}
	if e.visited != nil {
		if v, _ := e.visited.Get(f.hash); v&3 == 1 {
			e.visited.Put(f.hash, v&^3|2)
		}
	}
	if e.mode == modeODPOR && e.depth == 0 {
		e.wt.free(f.root)
	}
	if e.depth > 0 {
		e.popEvent()
	}
}

// mutated runs the contract check of pop on every frame of the stack that
// had several moves, deepest first, and returns the first error, or nil:
// for search.Outcome.Explain, when a violation does not replay.
func (e *explorer[S]) mutated() error {
	for i := e.depth - 1; i >= 0; i-- {
		if f := &e.stack[i]; f.multi {
			if err := e.m.Unchanged(f.state, e.baseline(i), e.sched[:i], f.taken, &e.current); err != nil {
				return err
			}
		}
	}
	return nil
}

// chunk is how many frames or events the engine allocates at once: their
// slices come from shared arrays, so that a search allocates a few times per
// chunk of depth, never per transition.
const chunk = 32

// growStack adds a chunk of frames to the stack.
func (e *explorer[S]) growStack() {
	n := e.n
	steps := make([]ts.Step, chunk*n)
	status := make([]ts.Status, chunk*n)
	outs := make([]int, chunk*n)
	count := make([]uint32, chunk*n)
	taken := make([]ts.Move, chunk*(n+1))
	// The sleep and backtrack sets' words too, in one array: allocated one
	// by one as the sets grew, they were scattered among other small
	// objects, and in a parallel search's workers setting a bit took three
	// times as long as in the serial search (CPU profiles).
	w := (n + 63) / 64
	words := make([]uint64, 2*chunk*w)
	for i := range chunk {
		sleep, bt := words[2*i*w:(2*i+1)*w:(2*i+1)*w], words[(2*i+1)*w:(2*i+2)*w:(2*i+2)*w]
		e.stack = append(e.stack, frame[S]{steps: steps[i*n : (i+1)*n : (i+1)*n], status: status[i*n : (i+1)*n : (i+1)*n],
			outs: outs[i*n : (i+1)*n : (i+1)*n], count: count[i*n : (i+1)*n : (i+1)*n], taken: taken[i*(n+1) : i*(n+1) : (i+1)*(n+1)],
			sleep: *bitset.From(sleep), bt: *bitset.From(bt)})
	}
}

// growEvents adds a chunk of event slots to the store.
func (e *explorer[S]) growEvents() {
	n := e.n
	clocks := make([]uint32, chunk*n)
	prevs := make([]int32, chunk*2)
	for i := range chunk {
		e.evStore = append(e.evStore, event{clock: hb.VC(clocks[i*n : (i+1)*n : (i+1)*n]), prev: prevs[2*i : 2*i : 2*i+2]})
	}
}

// pushEvent appends thread t's transition with step st and outcome out to
// the execution, computing its clock: program order, and per object it
// touches the dependent accesses before it (a read follows the last write; a
// write follows the last write and every read since).
func (e *explorer[S]) pushEvent(t ts.Tid, out int, st ts.Step) {
	i := len(e.ev)
	for i >= e.events {
		e.events += chunk // counted as frames are (visit)
	}
	for len(e.evStore) < e.events {
		e.growEvents()
	}
	e.ev = e.evStore[:i+1]
	x := &e.ev[i]
	x.t, x.out, x.step = t, out, st
	x.done, x.memo = false, x.memo[:0]
	x.cands, x.candsKnown = x.cands[:0], false
	if e.mode == modeSleep {
		return // sleep sets need no happens-before
	}
	e.ids++
	x.id = e.ids
	x.prevThread = e.thrLast[t]
	if p := x.prevThread; p >= 0 {
		x.n = e.ev[p].n + 1
		x.clock.CopyFrom(e.ev[p].clock)
	} else {
		x.n = 1
		x.clock.CopyFrom(e.zero)
	}
	x.clock[t] = x.n
	x.prev = x.prev[:0]
	x.held = append(x.held[:0], e.held[t]...)
	for a := range st.NumAccesses() {
		acc := st.At(a)
		prev := e.objLast.get(acc.Obj)
		x.prev = append(x.prev, prev)
		for j := prev; j >= 0; j = e.ev[j].prevOn(acc.Obj) {
			y := &e.ev[j]
			op, _ := y.step.OpOn(acc.Obj)
			if op != ts.Read || acc.Op != ts.Read {
				x.clock.Join(y.clock)
			}
			if op != ts.Read {
				break // everything earlier on the object happens before y
			}
		}
		e.objLast.set(acc.Obj, int32(i))
		switch acc.Op {
		case ts.Acquire:
			e.held[t] = append(e.held[t], acc.Obj)
		case ts.Release:
			e.held[t] = removeLock(e.held[t], acc.Obj)
		}
	}
	e.thrLast[t] = int32(i)
}

// popEvent removes the last event of the execution.
func (e *explorer[S]) popEvent() {
	i := len(e.ev) - 1
	if e.mode == modeSleep {
		e.ev = e.ev[:i]
		return
	}
	x := &e.ev[i]
	for a := range x.step.NumAccesses() {
		e.objLast.set(x.step.At(a).Obj, x.prev[a])
	}
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

// acquires reports whether step st acquires lock l.
func acquires(st ts.Step, l ts.Obj) bool {
	op, ok := st.OpOn(l)
	return ok && op == ts.Acquire
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
func (e *explorer[S]) coEnabled(j int32, st *ts.Step, hp []ts.Obj) bool {
	x := &e.ev[j]
	for _, l := range x.held {
		if slices.Contains(hp, l) || acquires(*st, l) {
			return false
		}
	}
	for a := range x.step.NumAccesses() {
		if acc := x.step.At(a); acc.Op == ts.Acquire && slices.Contains(hp, acc.Obj) {
			return false
		}
	}
	return true
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
	if e.depth >= e.frames {
		// A chunk of frames more than this search has used: the stack may
		// have them already (an explorer from the pool), but the memory
		// budget counts what the search uses, whatever the pool holds.
		for e.depth >= e.frames {
			e.frames += chunk
		}
		for len(e.stack) < e.frames {
			e.growStack()
		}
		if !e.memoryOK() {
			return false
		}
	}
	f := &e.stack[e.depth]
	var h uint64
	hashed := false
	if e.visited != nil {
		// An explored state's next steps are in the graph: a revisit
		// needs no Next.
		e.current = -1
		h, hashed = e.m.Hasher.Hash(s), true
		if v, _ := e.visited.Get(h); v&3 == 2 && e.graph.stateOps(v) != nil {
			e.revisit(f, e.graph.stateOps(v))
			e.res.Executions++
			return false
		}
	}
	var c search.Counts
	var err error
	if f.after = e.depth > 0; f.after {
		p := &e.stack[e.depth-1]
		c, err = e.m.LookAfter(s, last, p.steps, p.status, p.outs, f.steps, f.status, f.outs, &e.current)
	} else {
		c, err = e.m.Look(s, f.steps, f.status, f.outs, &e.current)
	}
	if err != nil {
		e.Fail(search.WithSchedule(err, e.sched[:k]))
		return false
	}
	if e.mode == modeODPOR && c.Blocked+c.Idle > 0 {
		e.seeBlocked(f)
	}
	if e.m.Hasher != nil && !hashed && c.Moves > 1 && !e.flat {
		// SDPOR's visited table needs every state's hash (above); the
		// stateless strategies take one only where they may come back to the state,
		// as the baseline of the contract check, and not for a state that
		// holds no references, which Apply cannot modify (package flat).
		e.current = -1
		h, hashed = e.m.Hasher.Hash(s), true
	}
	if e.visited != nil {
		seen, _ := e.visited.Get(h)
		switch seen & 3 {
		case 1:
			e.Fail(&ts.SystemError{Err: ErrCyclic, Thread: last, Schedule: e.sched[:k].Clone(),
				Detail: fmt.Sprintf("the state reached by this schedule (hash %#x) is on the search stack", h)})
			return false
		case 2, 3:
			if seen&3 == 3 {
				e.failureRaces(f)
			}
			e.revisit(f, nil)
			e.res.Executions++
			return false
		}
		g := e.visited.Growth()
		if e.mode == modeSDPOR {
			g += e.graph.stateGrowth(e.n)
		}
		if g > 0 {
			// Refuse before the table or the stored operations grow
			// past the budget.
			e.reserve = g
			ok := e.memoryOK()
			e.reserve = 0
			if !ok {
				return false
			}
		}
		e.visited.Put(h, 2) // 1 once its frame is pushed
	}
	e.current = -1
	failed := e.m.Check(s)
	ends := failed != nil || c.Enabled == 0
	if failed != nil {
		e.strict = true // see ODPOR's documentation
	}
	switch e.mode {
	case modeDPOR, modeSDPOR:
		e.backtrackAll(f)
		if e.mode == modeSDPOR {
			e.visited.Put(h, 2|e.graph.keepOps(recordEdges(e, f)))
		}
	case modeODPOR:
		if !e.resuming { // the worker analysed them when it moved here
			e.pending(f, ends, c.Blocked+c.Idle > 0)
		}
	}
	if failed != nil {
		e.failureRaces(f)
		if e.visited != nil {
			*e.visited.Ref(h) |= 3
		}
		e.endExecution()
		failed.Thread = last
		e.violation(failed, e.sched[:k])
		return false
	}
	if c.Enabled == 0 {
		e.endExecution()
		search.Terminal(&e.Outcome, s, e.sched[:k])
		if search.Deadlock(c, &e.opt.Options) {
			e.violation(&ts.Violation{Kind: ts.Deadlock, Thread: last}, e.sched[:k])
			return false
		}
		e.res.Executions++
		return false
	}
	f.state, f.hash, f.hashed, f.last, f.multi = s, h, hashed, last, c.Moves > 1
	f.run, f.out, f.first = -1, 0, -1
	f.taken = f.taken[:0]
	f.psleep = f.psleep[:0]
	clearSet(&f.bt)
	if e.mode == modeSDPOR {
		clearSet(&f.sleep)
	} else {
		// The frame takes the sleep set take computed, and hands its old
		// words to take to fill next time: no copy.
		f.sleep, e.nextSleep = e.nextSleep, f.sleep
		if len(e.nextPsleep) > 0 {
			f.psleep = append(f.psleep, e.nextPsleep...)
		}
	}
	if e.mode == modeDPOR || e.mode == modeSDPOR { // for markE
		if k > 0 {
			prev := &e.stack[e.depth-1]
			copy(f.count, prev.count)
			f.count[last]++
		} else {
			clear(f.count)
		}
	}
	switch e.mode {
	case modeSleep, modeDPOR, modeSDPOR:
		first := e.freeChoice(f)
		if first < 0 {
			// Every enabled thread is asleep: what follows was explored from
			// an equivalent execution.
			e.sleepBlocked++
			e.endExecution()
			return false
		}
		if e.mode == modeSleep {
			f.first = first // pickThread's answer too: the same order, no single outcome asleep
		} else {
			f.bt.Set(uint(first))
		}
	case modeODPOR:
		f.root, f.cur, f.tried = e.nextRoot, -1, false
		if e.resuming {
			break // resume gives the frame the rest of its wakeup tree
		}
		if e.wt.nodes[f.root].first < 0 {
			if t := e.freeChoice(f); t >= 0 {
				e.addOutcomes(f, f.root, t)
			}
		}
		if e.wt.nodes[f.root].first < 0 {
			e.sleepBlocked++
			e.endExecution()
			return false
		}
	}
	if e.visited != nil {
		v := e.visited.Ref(h)
		*v = *v&^3 | 1
	}
	e.depth++
	return true
}

// clearSet empties b: ClearAll, without the call to clear memory that its
// loop compiles to, for the usual set of one word (64 threads or fewer).
func clearSet(b *bitset.BitSet) {
	if w := b.Words(); len(w) == 1 {
		w[0] = 0
		return
	}
	b.ClearAll()
}

// freeChoice returns the thread a frame explores when nothing is planned:
// the one that moved last if it can go on, else the first enabled thread
// with an outcome not asleep, or -1.
func (e *explorer[S]) freeChoice(f *frame[S]) ts.Tid {
	if l := f.last; l >= 0 && f.status[l] == ts.Enabled && e.awake(f, l) {
		return l
	}
	for t := range ts.Tid(e.n) {
		if f.status[t] == ts.Enabled && e.awake(f, t) {
			return t
		}
	}
	return -1
}

// awake reports whether some outcome of thread t is not asleep at f.
func (e *explorer[S]) awake(f *frame[S], t ts.Tid) bool {
	if f.sleep.Test(uint(t)) {
		return false
	}
	if len(f.psleep) == 0 {
		return true // no single outcome asleep (and every thread has one at least)
	}
	for c := range f.outs[t] {
		if !e.asleep(f, t, c) {
			return true
		}
	}
	return false
}

// asleep reports whether thread t's outcome c is asleep at f.
func (e *explorer[S]) asleep(f *frame[S], t ts.Tid, c int) bool {
	if f.sleep.Test(uint(t)) {
		return true
	}
	for _, x := range f.psleep {
		if x.t == t && x.out == c {
			return true
		}
	}
	return false
}

// failureRaces handles the end of an execution at a failed check. The
// transition that failed stops every other thread, as if it disabled their
// next steps, and so it is dependent with each of them: the other threads
// must also be tried before it, or a failure of theirs that the failing
// thread would mask could be missed.
func (e *explorer[S]) failureRaces(f *frame[S]) {
	k := int32(len(e.ev)) - 1
	if k < 0 || e.mode == modeSleep {
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
				e.rootChildAt(k, p)
			} else {
				for q := range ts.Tid(e.n) {
					if pre.status[q] == ts.Enabled {
						e.rootChildAt(k, q)
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
// the next transition (reporting progress on the way), and checks the memory
// budget now and then.
func (e *explorer[S]) budgetSpent() bool {
	if !e.Quiet() && e.Spent() {
		return true
	}
	if e.res.Transitions < e.memCheck {
		return false
	}
	// Every 4096 transitions: a parallel coordinator's count moves on by
	// a unit's transitions at once, past multiples of 4096.
	e.memCheck = (e.res.Transitions/4096 + 1) * 4096
	return !e.memoryOK()
}

// memoryOK fails the search if what it keeps passes Limits.Memory: frames,
// events with their clocks, the wakeup-tree pool, SDPOR's table and graph;
// in a parallel search, what every explorer of the search keeps (each adds
// its own when it checks) and what the search hands between them (units,
// results, wakeup sequences).
func (e *explorer[S]) memoryOK() bool {
	limit := e.opt.Limits.MaxMemory()
	if limit < 0 {
		return true
	}
	used := e.memoryUsed()
	what := ""
	if a := e.mem; a != nil {
		if e.role == roleCoordinator && e.par != nil {
			a.machinery.Store(e.par.machineryBytes())
		}
		a.explorers.Add(used - e.memPub)
		e.memPub = used
		used = a.explorers.Load() + a.machinery.Load()
		if used <= limit {
			return true
		}
		what = fmt.Sprintf("; the parallel search: %d bytes by its explorers' count, %d in the units and results handed between them", a.explorers.Load(), a.machinery.Load())
	} else if used <= limit {
		return true // without the message's cost
	}
	return e.MemoryOK(used, fmt.Sprintf("%d frames, %d events, %d wakeup nodes, %d states%s", e.frames, e.events, len(e.wt.nodes), e.visited.Len(), what))
}

// mapEntryBytes is what a Go map takes per entry of a small key and
// value, at most (measured with Go 1.26: 24 to 32 bytes, the most just
// after it grows).
const mapEntryBytes = 40

// memoryUsed estimates what the explorer keeps: its frames and events by
// the chunks it used, the wakeup-tree pool by its nodes, the sequences it
// logged or planned (a parallel search's), SDPOR's visited table and
// graph.
func (e *explorer[S]) memoryUsed() int64 {
	n := int64(e.n)
	// Per frame, its slices (steps, status, outs, count, taken, the two
	// sets' words), and per event its clock and links; the frames and
	// events themselves by their slices' room, which grows by doubling.
	frameBytes := n*(int64(unsafe.Sizeof(ts.Step{}))+1+8+4) + (n+1)*int64(unsafe.Sizeof(ts.Move{})) + 2*8*((n+63)/64)
	eventBytes := 4*n + 8
	used := int64(e.frames)*frameBytes + int64(cap(e.stack))*int64(unsafe.Sizeof(frame[S]{})) +
		int64(e.events)*eventBytes + int64(cap(e.evStore))*int64(unsafe.Sizeof(event{})) +
		int64(len(e.wt.nodes))*int64(unsafe.Sizeof(wnode{})) + int64(len(e.wt.spare)+len(e.wt.alsoSpare))*4 +
		chunkEvents(e.logChunks)*int64(unsafe.Sizeof(lev{})) + int64(cap(e.logAlso))*int64(unsafe.Sizeof([]ts.Access{})) +
		chunkEvents(e.planChunks)*int64(unsafe.Sizeof(lev{})) + int64(cap(e.log))*int64(unsafe.Sizeof(logOp{})) +
		e.visited.Bytes() + e.reserve + e.graph.bytes()
	// The other accesses of the nodes' steps of several objects: an
	// estimate of two each (walking them costs a check too much).
	used += int64(len(e.wt.also))*int64(unsafe.Sizeof([]ts.Access{})+2*unsafe.Sizeof(ts.Access{})) + int64(cap(e.remap))*4
	for _, w := range e.logLast {
		used += int64(cap(w)) * int64(unsafe.Sizeof(wev{}))
	}
	for _, l := range e.logLastIDs {
		used += int64(cap(l.pos))*4 + int64(cap(l.ids))*8
	}
	for _, c := range e.commitSeqs {
		used += int64(cap(c.w))*int64(unsafe.Sizeof(wev{})) + c.ix.memoryUsed()
	}
	for _, w := range e.reinsert {
		used += int64(unsafe.Sizeof(w)) + int64(cap(w))*int64(unsafe.Sizeof(wev{}))
	}
	// ODPOR's descent records: a few per event of the execution; a
	// worker's memory of what it logged; a coordinator's records.
	for _, list := range e.descents {
		used += int64(unsafe.Sizeof(list)) + int64(cap(list))*int64(unsafe.Sizeof(descMemo{}))
		for i := range list {
			used += int64(cap(list[i].removed)+cap(list[i].path)) * 4
		}
	}
	for i := range e.notdeps {
		m := &e.notdeps[i]
		used += int64(unsafe.Sizeof(*m)) + int64(cap(m.seq))*int64(unsafe.Sizeof(wev{})) + int64(cap(m.pos))*4 + int64(cap(m.ids))*8
	}
	for _, list := range e.logKeys {
		used += int64(unsafe.Sizeof(list)) + int64(cap(list))*int64(unsafe.Sizeof(logKey{}))
		for i := range list {
			used += int64(cap(list[i].pos))*4 + int64(cap(list[i].ids))*8
		}
	}
	for i := range e.commitDescs {
		used += int64(unsafe.Sizeof(descMemo{})) + int64(cap(e.commitDescs[i].removed)+cap(e.commitDescs[i].path))*4
	}
	used += int64(cap(e.recOf)) * 4
	return used
}
