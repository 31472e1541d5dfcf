package symmetry

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"unsafe"

	"github.com/bits-and-blooms/bitset"

	"github.com/weftlab/weft/internal/search"
	"github.com/weftlab/weft/ts"
)

// DPOR is dynamic partial-order reduction with discovered symmetry (strategy
// name "sympor"): Figure 7.6 of Yu Yang's thesis (Utah, 2009), SymPOR, with
// line 11 corrected. The system implements [Signer]; with
// Options.NoSymmetry it need not, and DPOR is the plain reduction below.
//
// The base is Flanagan and Godefroid's DPOR (POPL 2005) without sleep sets,
// with happens-before tracked by vector clocks and their backtrack rule: at
// every state, for every thread p that has not finished (blocked and idle
// threads included), let i be the latest transition that is dependent with
// p's next step, by another thread, may be co-enabled with it, and does not
// happen before p; at the state before i add one thread of E = {q enabled
// there | q = p, or q has a later transition that happens before p}, or
// every enabled thread if E is empty (nothing is added when a thread of E
// was already explored or scheduled there). A transition into a state whose
// check or invariant fails ends the execution, so it is treated as
// dependent with every other thread's next step: those threads may fail
// too, first, in another order.
//
// It takes the whole model. Steps of several objects are dependent as
// ts.Dependent says (they share an object one of them writes; lock
// operations conflict), and every lock a step acquires or releases counts
// for co-enabledness. A thread taken at a state is taken with every outcome
// of its transition, one after the other (a thread in a backtrack set
// stands for all of its outcomes; two outcomes are two different
// transitions, and the schedule records the one taken). A global invariant
// is checked at every state; every step that writes an object it reads
// also writes ts.InvariantObj, so all such steps are dependent. Idle
// threads end an execution normally; with IgnoreDeadlocks so does every
// thread that waits.
//
// Symmetry: a frame explores the threads of its backtrack set one by one,
// marking each done; a thread t is skipped, with all its outcomes, when a
// thread t' ≠ t already done at this state has the same signature (Theorem
// 7.4 of the thesis: the transitions of t and t' are symmetric there, so
// the subtree of t is the image of the subtree of t'). The thesis's line 11
// tests every t' in s.done after adding t to it, so it compares t with
// itself and would skip every transition; we exclude t.
//
// Every schedule DPOR reports is a schedule of real thread ids and
// outcomes: it explores the system's own states and skips branches, so
// violations replay on the system as they are (each is confirmed by
// ts.Confirm before it is reported).
//
// What it preserves: with NoSymmetry, every terminal state (deadlocks
// included) and every failed check and invariant of ts.Explore. With
// symmetry, the same up to a renaming of threads (Theorem 7.5), under the
// conditions the package documentation states (signatures that [Verify]
// accepts with [Permuter]; for those it accepts only under
// VerifyOptions.Observational, terminal states up to what the system
// shows), which the property tests check on random programs with groups of
// identical threads. DPOR trusts the signatures: one that claims an
// exchange that is not a symmetry makes it skip states it must reach, and
// nothing in the search shows it. Run Verify on the system (or on small
// instances of it) first. The thesis's proof of Theorem 7.5 argues from the
// automorphism alone and does not account for the backtrack points that
// the skipped subtree would have added at earlier states; see the package
// documentation for what that means.
//
// Result.Executions counts the executions explored to their end;
// Result.Stats["pruned"] the branches skipped as symmetric and
// Stats["backtracks"] the threads added to backtrack sets.
func DPOR[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options) (ts.Result, error) {
	res := ts.Result{Bound: ts.NoBound, Finds: search.Finds(&opt.Options)}
	if err := search.Context(ctx); err != nil {
		return res, err
	}
	if err := opt.validate(); err != nil {
		return res, err
	}
	var signer Signer[S]
	if !opt.NoSymmetry {
		signer, _ = sys.(Signer[S])
		if signer == nil {
			return res, fmt.Errorf("%w: %w", ts.ErrBadOptions, ErrNoSymmetry)
		}
	}
	m, err := search.NewModel(sys)
	if err != nil {
		return res, err
	}
	e := &dpor[S]{m: m, sys: sys, signer: signer, opt: opt, res: &res, n: m.N, maxDepth: opt.Limits.MaxDepth(), current: -1}
	e.Outcome = search.Outcome{Ctx: ctx, Opt: &e.opt.Options, Res: &res}
	e.last = make([]int32, e.n)
	for i := range e.last {
		e.last[i] = -1
	}
	e.zero = make([]uint32, e.n)
	e.held = make([][]ts.Obj, e.n)
	addSystemStats := search.SystemStats(sys)
	err = e.run()
	if err == nil {
		err = m.ThreadsAgain()
	}
	res.Stats = map[string]int64{"pruned": e.pruned, "backtracks": e.backtracks}
	addSystemStats(&res)
	return res, err
}

// dporFrame is a state of the current execution.
type dporFrame[S any] struct {
	state  S
	hash   uint64
	hashed bool // hash is the state's: the baseline of the contract check
	steps  []ts.Step
	status []ts.Status
	outs   []int         // each unfinished thread's number of outcomes
	sig    []uint64      // signatures of the threads taken (or skipped) here
	multi  bool          // two moves or more: the contract is checked at pop
	run    ts.Tid        // the thread whose outcomes are being taken, or -1
	out    int           // its next outcome
	taken  []ts.Move     // the moves taken from here, for the contract check
	bt     bitset.BitSet // the backtrack set
	done   bitset.BitSet // threads taken or skipped here
	last   ts.Tid        // the thread whose transition reached this state, or -1
	after  bool          // steps, status and outs are LookAfter's from the frame below
}

// dporEvent is a transition of the current execution.
type dporEvent struct {
	t     ts.Tid
	step  ts.Step
	clock []uint32 // clock[u]: position+1 of u's latest event that happens before this one (or is it)
	prev  int32    // the thread's previous event, or -1
	held  []ts.Obj // locks the thread held before this step (a multiset)
}

type dpor[S any] struct {
	m        *search.Model[S]
	sys      ts.TransitionSystem[S]
	signer   Signer[S]
	opt      Options
	res      *ts.Result
	n        int
	maxDepth int

	stack []dporFrame[S] // stack[k] is the state after k events
	depth int            // frames in use
	ev    []dporEvent    // ev[k] leads from stack[k] to stack[k+1]
	store []dporEvent    // backing array of ev, whose slots keep their clocks
	sched ts.Schedule    // sched[k] is ev[k]'s move (thread and outcome)
	last  []int32        // each thread's latest event, or -1
	held  [][]ts.Obj     // locks each thread holds now
	zero  []uint32

	pruned, backtracks int64

	current  ts.Tid // thread whose user code runs, or -1
	pushing  bool   // the running call belongs to the transition last pushed
	sigPanic bool   // the running call is Signature
	search.Outcome
}

func (e *dpor[S]) run() error {
	return e.Drive(func() { e.visit(e.sys.Init(), -1) }, e.loop, e.panicked)
}

// panicked turns a panic in user code into a violation (search.Outcome.Drive,
// which calls it on the panicking stack).
func (e *dpor[S]) panicked(p any) {
	sched := e.sched[:len(e.ev)]
	if !e.pushing && len(sched) > 0 && e.depth > 0 {
		sched = sched[:e.depth-1]
	}
	t, sig := e.current, e.sigPanic
	e.current, e.pushing, e.sigPanic = -1, false, false
	if sig {
		// Replay does not call Signature: the panic cannot be
		// confirmed by replaying, so the violation is built here, with
		// the thread that took the last step, as a replay would name it.
		if t < 0 && len(sched) > 0 {
			t = sched[len(sched)-1].Thread
		}
		v := &ts.Violation{Kind: ts.Panic, Thread: t, Err: &ts.PanicError{Value: p, Stack: string(debug.Stack())}}
		if run, err := ts.Replay(e.sys, sched.Clone()); err == nil {
			v.Trace = run.Trace
		}
		e.res.Executions++
		e.Record(v)
	} else {
		e.violation(&ts.Violation{Kind: ts.Panic, Thread: t}, sched)
	}
}

// loop is the depth-first search.
func (e *dpor[S]) loop() {
	for e.depth > 0 && !e.Stop {
		for len(e.ev) > e.depth-1 {
			e.popEvent() // after a panic in the transition being taken
		}
		top := &e.stack[e.depth-1]
		var mv ts.Move
		if top.run >= 0 && top.out < top.outs[top.run] {
			// The next outcome of the thread being taken.
			mv = ts.Move{Thread: top.run, Outcome: top.out}
			top.out++
		} else {
			t, ok := e.pick(top)
			if !ok {
				if top.multi && !e.unchanged(top) {
					return
				}
				e.depth--
				if e.depth > 0 {
					e.popEvent()
				}
				continue
			}
			top.done.Set(uint(t))
			top.run = -1
			if e.signer != nil && e.symmetricDone(top, t) {
				e.pruned++
				continue
			}
			top.run, top.out = t, 1
			mv = ts.Move{Thread: t}
		}
		if e.Spent() || (e.res.Transitions&4095 == 0 && !e.memoryOK()) {
			return
		}
		t := mv.Thread
		top.taken = append(top.taken, mv)
		e.pushEvent(mv, top.steps[t])
		e.current, e.pushing = t, true
		child := e.m.Apply(top.state, mv)
		e.res.Transitions++
		if top.hashed {
			e.current = -1
			if h := e.m.Hasher.Hash(top.state); h != top.hash {
				e.Fail(&ts.SystemError{Err: ts.ErrMutated, Thread: t, Schedule: e.sched[:len(e.ev)-1].Clone(),
					Detail: fmt.Sprintf("the state before its transition (outcome %d) changed (hash %#x, now %#x)", mv.Outcome, top.hash, h)})
				return
			}
		}
		if e.visit(child, t) {
			e.current, e.pushing = -1, false
			continue
		}
		e.current, e.pushing = -1, false
		e.popEvent()
	}
}

// unchanged checks, where the search leaves a state with two moves or more
// (whether or not it took them), that the state is what it was: its hash,
// or every thread's step, status and number of outcomes. An Apply that
// modified its argument, or a Next that is not a function of the state,
// stops the search.
func (e *dpor[S]) unchanged(f *dporFrame[S]) bool {
	b := search.Baseline{Hash: f.hash, Hashed: f.hashed, Steps: f.steps, Status: f.status, Outs: f.outs}
	if f.after {
		p := &e.stack[e.depth-2] // f is the top frame
		b.PrevSteps, b.PrevStatus, b.Mover = p.steps, p.status, f.last
	}
	if err := e.m.Unchanged(f.state, b, e.sched[:e.depth-1], f.taken, &e.current); err != nil {
		e.Fail(err)
		return false
	}
	return true
}

// pick returns the lowest thread of top's backtrack set not done yet.
func (e *dpor[S]) pick(top *dporFrame[S]) (ts.Tid, bool) {
	for u, ok := top.bt.NextSet(0); ok; u, ok = top.bt.NextSet(u + 1) {
		if !top.done.Test(u) {
			return ts.Tid(u), true
		}
	}
	return -1, false
}

// symmetricDone reports whether a thread other than t done at top has t's
// signature: line 11 of the thesis's Figure 7.6, without t itself.
func (e *dpor[S]) symmetricDone(top *dporFrame[S], t ts.Tid) bool {
	e.current, e.sigPanic = t, true
	sig := e.signer.Signature(top.state, t)
	e.current, e.sigPanic = -1, false
	top.sig[t] = sig
	for u, ok := top.done.NextSet(0); ok; u, ok = top.done.NextSet(u + 1) {
		if ts.Tid(u) != t && top.sig[u] == sig {
			return true
		}
	}
	return false
}

// pushEvent appends the event of move mv, whose thread takes step, with its
// clock and the locks its thread holds after it.
func (e *dpor[S]) pushEvent(mv ts.Move, step ts.Step) {
	t := mv.Thread
	k := len(e.ev)
	if k == len(e.store) {
		e.store = append(e.store, dporEvent{clock: make([]uint32, e.n)})
	}
	e.ev = e.store[:k+1]
	x := &e.ev[k]
	x.t, x.step, x.prev = t, step, e.last[t]
	copy(x.clock, e.clockOf(t))
	for j := range k {
		y := &e.ev[j]
		if y.t != t && ts.Dependent(y.step, step) {
			for u, c := range y.clock {
				x.clock[u] = max(x.clock[u], c)
			}
		}
	}
	x.clock[t] = uint32(k + 1)
	e.last[t] = int32(k)
	x.held = append(x.held[:0], e.held[t]...)
	for a := range step.NumAccesses() {
		switch acc := step.At(a); acc.Op {
		case ts.Acquire:
			e.held[t] = append(e.held[t], acc.Obj)
		case ts.Release:
			e.held[t] = removeLock(e.held[t], acc.Obj)
		}
	}
	e.sched = append(e.sched[:k], mv)
}

func (e *dpor[S]) popEvent() {
	k := len(e.ev) - 1
	x := &e.ev[k]
	e.last[x.t] = x.prev
	e.held[x.t] = append(e.held[x.t][:0], x.held...)
	e.ev = e.ev[:k]
}

// clockOf returns thread t's clock: its latest event's, or zero.
func (e *dpor[S]) clockOf(t ts.Tid) []uint32 {
	if i := e.last[t]; i >= 0 {
		return e.ev[i].clock
	}
	return e.zero
}

// visit processes the state s reached by the events e.ev (last took the last
// of them): it checks it, analyses its races, and ends the execution there or
// pushes it. It reports whether s was pushed.
func (e *dpor[S]) visit(s S, last ts.Tid) bool {
	k := len(e.ev)
	path := e.sched[:k]
	if k > e.maxDepth {
		e.Fail(&ts.SystemError{Err: ts.ErrDepth, Thread: last, Schedule: path.Clone(),
			Detail: fmt.Sprintf("an execution reached %d transitions; raise Limits.Depth if the system does terminate", k)})
		return false
	}
	if e.depth == len(e.stack) {
		e.growStack()
		if !e.memoryOK() {
			return false
		}
	}
	f := &e.stack[e.depth]
	var c search.Counts
	var err error
	// The answers of threads independent of the move are kept, as in
	// package por (search.Model.LookAfter).
	if f.last, f.after = last, e.depth > 0; f.after {
		p := &e.stack[e.depth-1]
		c, err = e.m.LookAfter(s, last, p.steps, p.status, p.outs, f.steps, f.status, f.outs, &e.current)
	} else {
		c, err = e.m.Look(s, f.steps, f.status, f.outs, &e.current)
	}
	if err != nil {
		e.Fail(search.WithSchedule(err, path))
		return false
	}
	var h uint64
	hashed := false
	if e.m.Hasher != nil && c.Moves > 1 {
		// The baseline of the contract check, where the search comes back.
		e.current = -1
		h, hashed = e.m.Hasher.Hash(s), true
	}
	e.current = -1
	failed := e.m.Check(s)
	e.analyse(f, failed != nil)
	if failed != nil {
		failed.Thread = last
		e.violation(failed, path)
		return false
	}
	if c.Enabled == 0 {
		search.Terminal(&e.Outcome, s, path)
		if search.Deadlock(c, &e.opt.Options) {
			e.violation(&ts.Violation{Kind: ts.Deadlock, Thread: last}, path)
			return false
		}
		e.res.Executions++
		return false
	}
	f.state, f.hash, f.hashed, f.multi = s, h, hashed, c.Moves > 1
	f.run, f.out = -1, 0
	f.taken = f.taken[:0]
	f.bt.ClearAll()
	f.done.ClearAll()
	for t := range ts.Tid(e.n) {
		if f.status[t] == ts.Enabled {
			f.bt.Set(uint(t))
			break
		}
	}
	e.depth++
	return true
}

// analyse applies the backtrack rule at the state f (after the events e.ev)
// for every thread that has not finished. When the state fails its check or
// invariant, the transition into it counts as dependent with every other
// thread.
func (e *dpor[S]) analyse(f *dporFrame[S], failing bool) {
	k := len(e.ev)
	for p := range ts.Tid(e.n) {
		if f.status[p] == ts.Finished {
			continue
		}
		cp := e.clockOf(p)
		for i := k - 1; i >= 0; i-- {
			x := &e.ev[i]
			if x.t == p {
				continue
			}
			if !(failing && i == k-1) && (!ts.Dependent(x.step, f.steps[p]) || !coEnabled(x, f.steps[p], e.held[p])) {
				continue
			}
			if cp[x.t] >= uint32(i+1) {
				continue // i happens before p
			}
			e.backtrackAt(i, p, cp)
			break
		}
	}
}

// backtrackAt adds to the backtrack set of the state before event i a thread
// that lets p (whose clock is cp) go before event i.
func (e *dpor[S]) backtrackAt(i int, p ts.Tid, cp []uint32) {
	f := &e.stack[i]
	pick := ts.Tid(-1)
	for q := range ts.Tid(e.n) {
		if f.status[q] != ts.Enabled || (q != p && cp[q] < uint32(i+2)) {
			continue // not in E
		}
		if f.bt.Test(uint(q)) || f.done.Test(uint(q)) {
			return
		}
		if pick < 0 || q == p {
			pick = q
		}
	}
	if pick >= 0 {
		f.bt.Set(uint(pick))
		e.backtracks++
		return
	}
	for q := range ts.Tid(e.n) {
		if f.status[q] == ts.Enabled && !f.bt.Test(uint(q)) {
			f.bt.Set(uint(q))
			e.backtracks++
		}
	}
}

// violation confirms a violation by replaying its schedule and records it.
func (e *dpor[S]) violation(v *ts.Violation, sched ts.Schedule) {
	e.res.Executions++
	search.Confirm(&e.Outcome, e.sys, v, sched)
}

// chunk is how many frames the search allocates at once: their slices come
// from shared arrays, so that a search allocates a few times per chunk of
// depth.
const chunk = 32

// growStack adds a chunk of frames to the stack.
func (e *dpor[S]) growStack() {
	n := e.n
	steps := make([]ts.Step, chunk*n)
	status := make([]ts.Status, chunk*n)
	outs := make([]int, chunk*n)
	sig := make([]uint64, chunk*n)
	taken := make([]ts.Move, chunk*(n+1))
	for i := range chunk {
		e.stack = append(e.stack, dporFrame[S]{steps: steps[i*n : (i+1)*n : (i+1)*n], status: status[i*n : (i+1)*n : (i+1)*n],
			outs: outs[i*n : (i+1)*n : (i+1)*n], sig: sig[i*n : (i+1)*n : (i+1)*n], taken: taken[i*(n+1) : i*(n+1) : (i+1)*(n+1)]})
	}
}

// memoryOK fails the search if what it keeps passes Limits.Memory: its
// frames and its events with their clocks.
func (e *dpor[S]) memoryOK() bool {
	n := int64(e.n)
	frameBytes := int64(unsafe.Sizeof(dporFrame[S]{})) + n*(int64(unsafe.Sizeof(ts.Step{}))+1+8+8+int64(unsafe.Sizeof(ts.Move{})))
	eventBytes := int64(unsafe.Sizeof(dporEvent{})) + 4*n
	used := int64(cap(e.stack))*frameBytes + int64(cap(e.store))*eventBytes
	return e.MemoryOK(used, fmt.Sprintf("%d frames, %d events", len(e.stack), len(e.store)))
}

// coEnabled reports whether event x and a step st of a thread that holds the
// locks hp may be enabled at one state. Two steps made while their threads
// hold a common lock never are, nor is an acquire of a lock with a step made
// while another thread holds it (any access of a step of several objects
// counts). It relies on ts.Acquire and ts.Release behaving as a mutex.
func coEnabled(x *dporEvent, st ts.Step, hp []ts.Obj) bool {
	for _, l := range x.held {
		if slices.Contains(hp, l) {
			return false
		}
		if op, ok := st.OpOn(l); ok && op == ts.Acquire {
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

func removeLock(held []ts.Obj, l ts.Obj) []ts.Obj {
	for i := len(held) - 1; i >= 0; i-- {
		if held[i] == l {
			return append(held[:i], held[i+1:]...)
		}
	}
	return held
}
