package transact

import (
	"context"
	"errors"
	"fmt"
	"unsafe"

	"github.com/weftlab/weft/internal/hashset"
	"github.com/weftlab/weft/internal/search"
	"github.com/weftlab/weft/ts"
)

// Explore is the transaction-based search of Levin, Palmer, Qadeer and
// Rajamani, "Sound transaction-based reduction without cycle detection"
// (SPIN 2005): a stateful depth-first search over the phase-instrumented
// system that runs one thread through its transaction and schedules the
// other threads only where the transaction ends, or where the proviso
// (Options.Proviso) forces them. The loop is Figure 6 of the paper, line by
// line (L0-L29), for all three provisos; they differ only in where they
// force all threads.
//
// Invariant (CPC, the paper's section 4): when a record q is about to be
// popped and its CPC bit is set, there is a path of left movers of q.tid
// from q.state to a state where all threads were scheduled (Xend).
//
// It needs ts.Hasher and handles cyclic state spaces, and takes the whole
// model: every outcome of a transition is explored and recorded in the
// schedule, Check and the invariant are checked at every state visited, a
// state where every waiting thread is Idle ends normally. Provided the
// movers (declared by the system through [Movers], or inferred from its lock
// discipline by an exhaustive pass, see [Infer]) satisfy the properties of
// [MoverError], it finds every assertion failure (a Check failure that a
// thread's own transition causes) and every invariant failure that
// ts.ExploreStateful finds, and reaches every terminal state with no thread
// Blocked that it reaches; the None proviso does not. Deadlocks it reports
// are real, but it may miss some: a thread paused in the right-mover part
// of its transaction never lets another thread run there. Result.States
// counts instrumented states (a state and the threads' phase bits);
// Result.Stats holds the counts named by the Stat constants.
func Explore[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options) (res ts.Result, err error) {
	// Deadlocks met are real and reported, but the reduction runs
	// transactions whole and does not promise to meet them all.
	res = ts.Result{Bound: ts.NoBound, Finds: search.Finds(&opt.Options).Without(ts.Deadlock)}
	if err := search.Context(ctx); err != nil {
		return res, err
	}
	if err := opt.validate(); err != nil {
		return res, err
	}
	if _, ok := sys.(ts.Hasher[S]); !ok {
		return res, fmt.Errorf("%w: %w", ts.ErrBadOptions, ts.ErrNoHash)
	}
	model, err := search.NewModel(sys)
	if err != nil {
		return res, err
	}
	// The inference pass counts too. Asked for on every return, the
	// figures also end a system's coroutines (package threads) when the
	// pass stops the search early.
	addSystemStats := search.SystemStats(sys)
	defer func() { addSystemStats(&res) }()
	mover, disc, err := resolveMovers(ctx, model, opt.InferStates, opt.Options)
	res.Stats = map[string]int64{}
	if disc != nil {
		// The pass's transitions count against Limits.Transitions too,
		// and are reported however the pass ended.
		res.Stats[StatInferStates] = disc.States
		res.Stats[StatInferTransitions] = disc.Transitions
		res.Transitions = disc.Transitions
	}
	if errors.Is(err, ErrInferLimit) {
		return res, nil // a limit: an incomplete result, nothing explored
	}
	if err != nil {
		return res, err
	}
	n := model.N
	e := &engine[S]{
		m: model, sys: sys, hasher: model.Hasher, mover: mover, ctx: ctx, opt: opt, res: &res,
		n: n, w: phaseWords(n), maxDepth: opt.Limits.MaxDepth(), current: -1,
		reported: make(map[uint64]struct{}),
	}
	e.Outcome = search.Outcome{Ctx: ctx, Opt: &e.opt.Options, Res: &res}
	err = e.run()
	defer e.table.Free()
	defer e.plain.Free()
	if err == nil {
		err = model.ThreadsAgain()
	}
	res.States = int64(len(e.records))
	res.Stats[StatEnds] = e.ends
	res.Stats[StatForced] = e.forced
	res.Stats[StatPlainStates] = int64(e.plain.Len())
	return res, err
}

// record is the part of the paper's TraversalInfo that the table shares with
// the stack: line L11 reads the CPC bit of a state explored before, and line
// L23 sets it on the record below. Update records (L25) are stack frames of
// the same state whose CPC bit is already set (they exist only when Xend is,
// and L8/L20 set CPC from Xend), so one record per state holds it.
type record struct {
	cpc     bool
	onStack bool // a frame of the state is on the stack (cycle detection)
}

// frame is a TraversalInfo on the search stack: a state, the thread tid
// explored from it, and the paper's fields.
type frame[S any] struct {
	state    S
	hash     uint64 // the system's hash of state
	rec      int32  // the state's record
	tid      ts.Tid
	numTids  int
	started  bool  // L7 and L8 were evaluated for tid
	m        Mover // tid's mover type at state, once started
	choice   int   // the next outcome of tid's transition to take (the paper's choice index)
	xend     bool
	lm, rm   bool // the mover type of the transition that reached state
	explored bool // some record of this state took a transition
}

type engine[S any] struct {
	m      *search.Model[S]
	sys    ts.TransitionSystem[S]
	hasher ts.Hasher[S]
	mover  moverFunc[S]
	ctx    context.Context
	opt    Options
	res    *ts.Result
	n, w   int

	maxDepth int
	table    hashset.Map // instrumented state key -> record
	records  []record
	plain    hashset.Set
	reported map[uint64]struct{} // plain hashes of terminal and violating states reported

	stack  []frame[S]
	depth  int
	phases []uint64    // phases[d*w:(d+1)*w] is the phase vector of stack[d]'s state
	steps  []ts.Step   // steps[d*n+t] is thread t's next step at stack[d]'s state (marked)
	status []ts.Status // likewise its status
	outs   []int       // and the number of outcomes of its transition
	// taken holds the moves taken from the states on the stack, for the
	// contract check: those from stack[d]'s state from takenAt[d] on (the
	// deeper states' moves above them are gone once the search is back).
	taken   []ts.Move
	takenAt []int
	sched   ts.Schedule // the path to the state on top (and the transition being taken)

	ends, forced int64

	current ts.Tid // thread whose user code is running, or -1
	pushing bool   // the running call belongs to the transition sched ends with
	search.Outcome
}

func (e *engine[S]) run() error {
	return e.Drive(e.root, e.loop, e.panicked)
}

// panicked turns a panic in user code into a violation (search.Outcome.Drive).
func (e *engine[S]) panicked(any) {
	sched := e.sched[:max(e.depth-1, 0)]
	if e.pushing {
		sched = e.sched[:min(e.depth, len(e.sched))]
	}
	t := e.current
	e.current, e.pushing = -1, false
	e.violation(&ts.Violation{Kind: ts.Panic, Thread: t}, sched, 0, false)
}

// slotChunk is how many stack slots slot adds at once.
const slotChunk = 32

// slot makes room for stack slot d.
func (e *engine[S]) slot(d int) {
	if len(e.stack) > d {
		return
	}
	k := max(slotChunk, d+1-len(e.stack))
	e.stack = append(e.stack, make([]frame[S], k)...)
	e.phases = append(e.phases, make([]uint64, k*e.w)...)
	e.steps = append(e.steps, make([]ts.Step, k*e.n)...)
	e.status = append(e.status, make([]ts.Status, k*e.n)...)
	e.outs = append(e.outs, make([]int, k*e.n)...)
	e.takenAt = append(e.takenAt, make([]int, k)...)
}

func (e *engine[S]) phaseVec(d int) []uint64 { return e.phases[d*e.w : (d+1)*e.w] }

// L0-L2: the initial state, explored by all threads (Xend and CPC set).
func (e *engine[S]) root() {
	e.sched = e.sched[:0]
	s := e.sys.Init()
	e.slot(0)
	clear(e.phaseVec(0))
	h := e.hasher.Hash(s)
	rec, ok := e.newState(s, h, 0, -1)
	if !ok {
		return
	}
	e.records[rec].cpc = true
	e.stack[0] = frame[S]{state: s, hash: h, rec: rec, tid: 0, numTids: 1, xend: true}
	e.taken, e.takenAt[0] = e.taken[:0], 0
	e.records[rec].onStack = true
	e.depth = 1
}

// loop is lines L3-L29 of Figure 6.
func (e *engine[S]) loop() {
	for e.depth > 0 && !e.Stop { // L3
		d := e.depth - 1
		q := &e.stack[d] // L4
		t := q.tid
		st := e.status[d*e.n+int(t)]
		p := getPhase(e.phaseVec(d), int(t))
		if !q.started {
			q.started = true
			m, ok := e.moverOf(q.state, t, e.steps[d*e.n+int(t)], st, d)
			if !ok {
				return
			}
			q.m = m
			// L7, evaluated whatever the thread's status: a next step that
			// is not a left mover, past the commit, ends the transaction.
			// So do an exit and an Idle wait, in either phase (the package
			// doc says why).
			if !q.xend && ends(p, m, st) {
				q.xend = true
				e.ends++
			}
			if q.xend { // L8
				e.records[q.rec].cpc = true
			}
		}
		if st == ts.Enabled && q.choice < e.outs[d*e.n+int(t)] { // L5
			c := q.choice
			q.choice++
			e.execute(d, ts.Move{Thread: t, Outcome: c}, q.m, p) // L6, L9-L16
			continue
		}
		e.finish(d) // L17-L28
	}
}

// moverOf asks the mover type of t's next step at stack slot d's state,
// turning a panic into an error: Mover is not replayable by ts.Replay.
func (e *engine[S]) moverOf(s S, t ts.Tid, step ts.Step, st ts.Status, d int) (m Mover, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			e.Fail(&ts.SystemError{Err: ts.ErrBadSystem, Thread: t, Schedule: e.sched[:d].Clone(),
				Detail: fmt.Sprintf("Mover panicked: %v", p)})
			ok = false
		}
	}()
	return e.mover(s, t, step, st), true
}

// execute takes move mv, of mover type m from phase p, from stack slot d
// (L6) and looks its successor up (L9-L15).
func (e *engine[S]) execute(d int, mv ts.Move, m Mover, p bool) {
	if e.Spent() || (e.res.Transitions&4095 == 0 && !e.memoryOK()) {
		return
	}
	t := mv.Thread
	e.stack[d].explored = true
	e.sched = append(e.sched[:d], mv)
	e.taken = append(e.taken, mv)
	e.current, e.pushing = t, true
	child := e.m.Apply(e.stack[d].state, mv)
	e.res.Transitions++
	if h := e.hasher.Hash(e.stack[d].state); h != e.stack[d].hash {
		e.Fail(&ts.SystemError{Err: ts.ErrMutated, Thread: t, Schedule: e.sched[:d].Clone(),
			Detail: fmt.Sprintf("the state before its transition (outcome %d) changed (hash %#x, now %#x)", mv.Outcome, e.stack[d].hash, h)})
		return
	}
	e.current = -1
	hc := e.hasher.Hash(child)
	e.slot(d + 1)
	pv := e.phaseVec(d + 1)
	copy(pv, e.phaseVec(d))
	setPhase(pv, int(t), nextPhase(p, m))
	key := stateKey(hc, pv)
	if v, seen := e.table.Get(key); seen { // L9
		r := int32(v)
		if e.records[r].cpc { // L11
			e.records[e.stack[d].rec].cpc = true
		}
		if e.opt.Proviso == Cycle {
			e.closesCycle(d, t, p, r)
		}
		e.res.Executions++
		e.current, e.pushing = -1, false
		return
	}
	if len(e.sched) > e.maxDepth {
		e.Fail(&ts.SystemError{Err: ts.ErrDepth, Thread: t, Schedule: e.sched.Clone(),
			Detail: fmt.Sprintf("an execution reached %d transitions; raise Limits.Depth", len(e.sched))})
		return
	}
	r, push := e.newState(child, hc, d+1, t) // L13
	e.current, e.pushing = -1, false
	if r < 0 && !e.Stop && e.opt.Proviso == Cycle && !getPhase(pv, int(t)) {
		// The dead-end rule for a thread gone wrong: the paper lets the
		// other threads run at the state where it went wrong, weft stops at
		// a violating state, so they run at the state before it.
		e.deadStep(d)
	}
	if !push {
		// A leaf: a terminal or violating state. Do what L17-L23 would do
		// for it: a terminal state's thread has no transition, so it gets
		// Xend (and so CPC) by the proviso's rule, which the record below
		// inherits; a violating state keeps CPC unset (the paper goes on
		// past a thread gone wrong, weft does not: unset forces more).
		if r >= 0 && e.leafXend(child, t, m, d+1) {
			e.records[r].cpc = true
			e.records[e.stack[d].rec].cpc = true
		}
		return
	}
	// L14: the successor is explored by the same thread first.
	e.stack[d+1] = frame[S]{state: child, hash: hc, rec: r, tid: t, numTids: 1, lm: m.Left(), rm: m.Right()}
	e.takenAt[d+1] = len(e.taken)
	e.records[r].onStack = true
	e.depth++
}

// newState stores a state not seen before under its instrumented key (whose
// phase vector is in slot d), reads every thread's step, checks it (Check
// and the invariant), and reports terminal states and violations. It
// returns the state's record and whether the state is to be explored.
func (e *engine[S]) newState(s S, h uint64, d int, last ts.Tid) (int32, bool) {
	r := int32(len(e.records))
	e.records = append(e.records, record{})
	e.table.Put(stateKey(h, e.phaseVec(d)), uint32(r))
	e.plain.Add(h)
	steps, status, outs := e.steps[d*e.n:(d+1)*e.n], e.status[d*e.n:(d+1)*e.n], e.outs[d*e.n:(d+1)*e.n]
	c, err := e.m.Look(s, steps, status, outs, &e.current)
	if err != nil {
		e.Fail(search.WithSchedule(err, e.sched[:d]))
		return r, false
	}
	e.current = -1
	if v := e.m.Check(s); v != nil {
		v.Thread = last
		e.violation(v, e.sched[:d], h, true)
		return -1, false
	}
	if c.Enabled > 0 {
		return r, true
	}
	if _, dup := e.reported[h]; dup {
		e.res.Executions++
		return r, false
	}
	e.reported[h] = struct{}{}
	search.Terminal(&e.Outcome, s, e.sched[:d])
	if search.Deadlock(c, &e.opt.Options) {
		e.violation(&ts.Violation{Kind: ts.Deadlock, Thread: last}, e.sched[:d], h, false)
		return r, false
	}
	e.res.Executions++
	return r, false
}

// leafXend reports whether a terminal state reached by thread t's step of
// mover type m, whose phase vector is in slot d, would get Xend when
// explored: by L7 for t's end (or its Idle wait), or by
// the proviso's rule for a record with no transition.
func (e *engine[S]) leafXend(s S, t ts.Tid, m Mover, d int) bool {
	st := e.status[d*e.n+int(t)]
	em, ok := e.moverOf(s, t, e.steps[d*e.n+int(t)], st, d)
	if !ok {
		return false
	}
	p := getPhase(e.phaseVec(d), int(t))
	if ends(p, em, st) {
		return true
	}
	if p {
		return false // every proviso's rule needs the post-commit phase
	}
	switch e.opt.Proviso {
	case CPC:
		return !(e.opt.Refine && m.Right())
	case Cycle:
		return true
	}
	return false
}

// ends reports whether a thread in phase p whose next step has mover type
// m and status st is outside any transaction: line L7 (past the commit, a
// next step that is not a left mover), and in either phase a thread that
// exited (finished, its end not declared a left mover: see Movers) or waits
// Idle. An exit is the paper's return, a global step that commits; weft
// takes no step for it, so the phase cannot say it. An Idle thread may wait
// for good, and the runs that end with it waiting are reached only if the
// others run there.
func ends(p bool, m Mover, st ts.Status) bool {
	return (!p || st == ts.Finished) && !m.Left() || st == ts.Idle
}

// finish is lines L17-L28: the record on top has no transition left; the
// proviso decides whether to force all threads here (L18-L20), the record is
// popped, its CPC bit goes to the record below (L21-L23), and if Xend is set
// the next thread explores the same state (L24-L27).
func (e *engine[S]) finish(d int) {
	q := &e.stack[d]
	p := getPhase(e.phaseVec(d), int(q.tid))
	if !q.xend {
		st := e.status[d*e.n+int(q.tid)]
		var why Reason
		switch e.opt.Proviso {
		case CPC:
			why = e.completes(q, p)
		case Cycle:
			why = deadEnd(p, st)
		}
		if why != 0 {
			q.xend = true
			e.force(d, why)
		}
	}
	if q.xend { // L20
		e.records[q.rec].cpc = true
	}
	cpc := e.records[q.rec].cpc
	e.depth--               // L21
	if e.depth > 0 && cpc { // L22-L23, guarding the empty stack
		e.records[e.stack[e.depth-1].rec].cpc = true
	}
	if q.xend && q.numTids < e.n { // L24-L26: Update(q)
		q.tid = (q.tid + 1) % ts.Tid(e.n)
		q.numTids++
		q.started, q.choice = false, 0
		e.depth++
		return
	}
	if !q.explored {
		e.res.Executions++ // the reduced search ends an execution here
	}
	// The search leaves the state for good: it must be what it was when
	// stored (an Apply that modified it shows in its hash after every
	// transition; a Next that is not a function of the state shows here).
	b := search.Baseline{Hash: q.hash, Hashed: true, Steps: e.steps[d*e.n : (d+1)*e.n],
		Status: e.status[d*e.n : (d+1)*e.n], Outs: e.outs[d*e.n : (d+1)*e.n]}
	if err := e.m.Unchanged(q.state, b, e.sched[:d], e.taken[e.takenAt[d]:], &e.current); err != nil {
		e.Fail(err)
		return
	}
	e.taken = e.taken[:e.takenAt[d]]
	e.records[q.rec].onStack = false
	var zero S
	q.state = zero
}

// memoryOK fails the search if what it keeps passes Limits.Memory: the
// table of states with their records, the plain hashes, the stack with its
// steps and phases (the states it holds are counted by their Go size only).
func (e *engine[S]) memoryOK() bool {
	used := e.table.Bytes() + int64(cap(e.records))*int64(unsafe.Sizeof(record{})) +
		e.plain.Bytes() + int64(len(e.reported))*40 + int64(cap(e.stack))*int64(unsafe.Sizeof(frame[S]{})) +
		int64(cap(e.steps))*int64(unsafe.Sizeof(ts.Step{})) + int64(cap(e.status)) + int64(cap(e.outs))*8 + int64(cap(e.phases))*8 + int64(cap(e.taken))*16
	return e.MemoryOK(used, fmt.Sprintf("%d states, %d frames", len(e.records), len(e.stack)))
}

// force reports that the proviso forces all threads at stack slot d.
func (e *engine[S]) force(d int, why Reason) {
	e.forced++
	if e.opt.OnForce != nil {
		q := &e.stack[d]
		f := Force{Reason: why, Thread: q.tid, State: q.state, Schedule: e.sched[:d]}
		search.Callback("OnForce", func() { e.opt.OnForce(f) })
	}
}

// completes is line L18 (CPC): a record popped in the post-commit phase with
// its CPC bit unset is forced; with Options.Refine (L19) only if the step
// that reached it was not a right mover.
func (e *engine[S]) completes(q *frame[S], p bool) Reason {
	if !p && !e.records[q.rec].cpc && !(e.opt.Refine && q.rm) {
		return Completion
	}
	return 0
}

// violation confirms a violation by replaying its schedule and records it.
// Check and invariant failures and deadlocks are reported once per state
// (by its hash h), as by ts.ExploreStateful, whatever the phases it was
// reached with.
func (e *engine[S]) violation(v *ts.Violation, sched ts.Schedule, h uint64, dedupe bool) {
	e.res.Executions++
	if dedupe {
		if _, dup := e.reported[h]; dup {
			return
		}
		e.reported[h] = struct{}{}
	}
	search.Confirm(&e.Outcome, e.sys, v, sched)
}
