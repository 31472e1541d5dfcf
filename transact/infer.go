package transact

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unsafe"

	"github.com/bits-and-blooms/bitset"

	"github.com/weftlab/weft/internal/hashset"
	"github.com/weftlab/weft/internal/search"
	"github.com/weftlab/weft/internal/watch"
	"github.com/weftlab/weft/ts"
)

// DefaultInferStates is the number of states the inference pass explores
// before it gives up, when Options.InferStates (or InferOptions.MaxStates)
// is zero.
const DefaultInferStates = 1 << 20

// ErrInfer is wrapped by the error Infer returns when it cannot explore the
// whole state space (too many states, or a system that breaks its contract):
// movers inferred from part of the accesses would be unsound.
var ErrInfer = errors.New("transact: cannot infer movers")

// Class is what the inference pass found about an object: how the threads
// access it.
type Class uint8

const (
	// Unused: no reachable transition accesses the object.
	Unused Class = iota
	// Lock: the object is acquired and released.
	Lock
	// Private: one thread only accesses the object (a thread-local object,
	// or a lock no other thread takes).
	Private
	// ReadOnly: several threads access the object, none writes it.
	ReadOnly
	// Protected: every access holds one common lock (Guard names one).
	Protected
	// Racy: none of the above; an access to it is a non-mover.
	Racy
)

var classNames = [...]string{Unused: "unused", Lock: "lock", Private: "private", ReadOnly: "read-only", Protected: "protected", Racy: "racy"}

func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("Class(%d)", uint8(c))
}

// Discipline is the lock discipline of a system, as an exhaustive pass over
// its reachable states observed it: for each object, which threads access it,
// whether anyone writes it, which locks are held at every access, and
// whether a thread was seen waiting Idle for it. It gives the mover type of
// any step by the paper's rules (section 1), applied to each access of the
// step:
//   - acquire is a right mover and release a left mover, except on a lock
//     that only one thread ever takes, where both are both movers;
//   - a read or write of an object that one thread only accesses, that no
//     thread writes, or that every thread accesses only while holding one
//     common lock, is a both mover;
//   - any other access, and an access to an object the pass never saw, is a
//     non-mover;
//   - an access that writes (Write, Acquire, Release) an object some thread
//     was seen waiting Idle for is not a right mover (a right mover becomes
//     a non-mover, a both mover a left mover): a right mover must never make
//     another thread Idle (mover property 5, see [MoverError]), or a normal
//     end with that thread waiting could be missed.
//
// A step of several objects is a right mover only if each of its accesses
// is one, and a left mover only if each is one: a both mover only if every
// access is, and an acquire that also touches a racy object, or releases
// another lock, is a non-mover. Each access counts as made with the locks
// the thread held before the step, so a lock the step itself acquires
// protects none of its other accesses. Every access commutes as its class
// says with any access of another thread to the same object (none, for a
// held lock or a protected object; reads only, for a read-only one), and
// accesses to other objects commute by the independence contract, so the
// step commutes as the weakest of its accesses.
//
// A finished thread's end is a non-mover: the thread exited, completing its
// transaction (see [Movers]). Steps that write an object of the system's
// global invariant are non-movers whatever the discipline says (see the
// package documentation); Mover itself does not know the invariant.
//
// The rules assume what lock discipline means: a thread holds lock l from its
// Acquire of l to its Release of l, Acquire blocks while another thread holds
// l, and Step reports exactly the objects a transition accesses (the
// TransitionSystem contract). Locks held are tracked per thread along each
// path of the pass, so the lock a thread holds must be a function of the
// state, as it is when the state records lock owners. Check the inferred
// movers with [VerifyMovers] on a small instance if in doubt.
type Discipline struct {
	// objs is keyed by object id; a map, so that cost follows the objects a
	// system touches, not how large its ids are.
	objs map[ts.Obj]*objInfo
	// States and Transitions count the pass's work.
	States, Transitions int64
}

type objInfo struct {
	class   Class
	guard   ts.Obj // a lock held at every access, for Protected
	first   ts.Tid // the first thread seen accessing it, -1 before
	multi   bool   // more than one thread accesses it
	written bool
	lock    bool           // acquired or released
	data    bool           // read or written
	idle    bool           // a thread was seen Idle with a step that touches it
	held    *bitset.BitSet // locks held at every data access so far, by dense lock index
}

// Class returns what the pass found about object o.
func (d *Discipline) Class(o ts.Obj) Class {
	info, ok := d.objs[o]
	if !ok {
		return Unused
	}
	return info.class
}

// Guard returns a lock held at every access of a Protected object.
func (d *Discipline) Guard(o ts.Obj) (ts.Obj, bool) {
	if d.Class(o) != Protected {
		return 0, false
	}
	return d.objs[o].guard, true
}

// IdleWaited reports whether the pass saw a thread wait Idle with a step
// that touches object o.
func (d *Discipline) IdleWaited(o ts.Obj) bool {
	info, ok := d.objs[o]
	return ok && info.idle
}

// Mover returns the mover type the discipline gives a step with status st.
func (d *Discipline) Mover(step ts.Step, st ts.Status) Mover {
	if st == ts.Finished {
		return NonMover
	}
	if step.Single() {
		return d.access(step.Obj, step.Op)
	}
	right, left := true, true
	for i := range step.NumAccesses() {
		a := step.At(i)
		m := d.access(a.Obj, a.Op)
		right, left = right && m.Right(), left && m.Left()
	}
	return moverOf(right, left)
}

// access is the mover type of one access.
func (d *Discipline) access(o ts.Obj, op ts.Op) Mover {
	info := d.objs[o]
	c := Unused
	if info != nil {
		c = info.class
	}
	m := NonMover
	switch {
	case op == ts.Acquire:
		m = RightMover
		if c == Private {
			m = BothMover
		}
	case op == ts.Release:
		m = LeftMover
		if c == Private {
			m = BothMover
		}
	case c == Private || c == ReadOnly || c == Protected:
		m = BothMover
	}
	if info != nil && info.idle && op != ts.Read {
		// Never a right mover: it could make an Idle waiter wait.
		m = moverOf(false, m.Left())
	}
	return m
}

// moverOf is the mover type that is a right mover iff right and a left
// mover iff left.
func moverOf(right, left bool) Mover {
	switch {
	case right && left:
		return BothMover
	case right:
		return RightMover
	case left:
		return LeftMover
	}
	return NonMover
}

// String lists the objects the pass saw with their class, "o0 protected by
// o2", one a line, naming objects with the system's ObjName when Infer was
// given a system that has one.
func (d *Discipline) String() string { return d.Format(nil) }

// Format is String with objects named by names when it is not nil.
func (d *Discipline) Format(names ts.ObjNamer) string {
	name := func(o ts.Obj) string {
		if names != nil {
			if s := names.ObjName(o); s != "" {
				return s
			}
		}
		return fmt.Sprintf("o%d", o)
	}
	var lines []string
	for o, info := range d.objs {
		if info.class == Unused {
			continue
		}
		l := fmt.Sprintf("%s: %v", name(o), info.class)
		if info.class == Protected {
			l += " by " + name(info.guard)
		}
		if info.idle {
			l += ", waited for Idle"
		}
		lines = append(lines, l)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// InferOptions bound the inference pass.
type InferOptions struct {
	// MaxStates caps the states explored; 0 means DefaultInferStates. A
	// system with more is an error wrapping ErrInfer.
	MaxStates int
	// Limits bound the pass as they bound a search. Transitions caps its
	// transitions: reaching it is an error wrapping ErrInfer and
	// ErrInferLimit. Depth caps the length of a path of the pass (zero
	// means ts.DefaultMaxDepth): a longer one is an execution that does not
	// terminate, an error wrapping ErrInfer and a *ts.SystemError of
	// ts.ErrDepth with its thread and schedule. Memory caps what the pass
	// keeps (its visited set and stack), an error wrapping ErrInfer and
	// ts.ErrMemory past it. Executions does not apply: the pass counts
	// states, not executions. The context given to Infer cancels the pass.
	Limits ts.Limits

	// progress, if set, is called with the pass's transitions every
	// progressEvery (Explore reports the pass as its own progress).
	progress      func(transitions int64)
	progressEvery time.Duration
}

// ErrInferLimit is wrapped by the error of an inference pass stopped at
// InferOptions.Limits; Explore turns it into an incomplete result.
var ErrInferLimit = errors.New("transact: the inference pass reached its transition limit")

// Infer explores every reachable state of sys once (a stateful depth-first
// search, which needs ts.Hasher, taking every outcome of every transition)
// and returns the lock discipline its transitions keep. The pass does not go
// on from a state whose Check or Invariant fails, as no search does. A panic
// in user code stops the pass on that branch only: the search that follows
// reports it. An error from the pass itself (a limit, a state too many, a
// broken system, cancellation) comes with the Discipline so far, for its
// counts only: its classes are not computed.
func Infer[S any](ctx context.Context, sys ts.TransitionSystem[S], opt InferOptions) (*Discipline, error) {
	if err := search.Context(ctx); err != nil {
		return nil, err
	}
	if opt.MaxStates < 0 {
		return nil, fmt.Errorf("%w: negative MaxStates %d", ts.ErrBadOptions, opt.MaxStates)
	}
	if _, ok := sys.(ts.Hasher[S]); !ok {
		return nil, fmt.Errorf("%w: %w", ErrInfer, ts.ErrNoHash)
	}
	m, err := search.NewModel(sys)
	if err != nil {
		return nil, err
	}
	return infer(ctx, m, opt)
}

func infer[S any](ctx context.Context, m *search.Model[S], opt InferOptions) (*Discipline, error) {
	max := opt.MaxStates
	if max == 0 {
		max = DefaultInferStates
	}
	p := &inferPass[S]{m: m, n: m.N, d: &Discipline{objs: make(map[ts.Obj]*objInfo)}, limits: opt.Limits, progress: opt.progress, progressEvery: opt.progressEvery,
		maxDepth: opt.Limits.MaxDepth(), lockIdx: make(map[ts.Obj]uint)}
	defer p.visited.Free()
	p.held = make([]*bitset.BitSet, m.N)
	for t := range p.held {
		p.held[t] = bitset.New(0)
	}
	var err error
	if cbErr := search.Protect(func() { err = p.run(ctx, max) }); cbErr != nil {
		return nil, cbErr // the caller's Progress panicked
	}
	if err != nil {
		return p.d, err
	}
	for _, info := range p.d.objs {
		info.classify(p.locks)
	}
	return p.d, nil
}

// classify decides the object's class; locks maps dense lock indices back
// to lock objects.
func (info *objInfo) classify(locks []ts.Obj) {
	switch {
	case !info.lock && !info.data:
		info.class = Unused
	case !info.multi:
		info.class = Private
	case info.lock:
		info.class = Lock
	case !info.written:
		info.class = ReadOnly
	case info.held != nil && info.held.Any():
		info.class = Protected
		g, _ := info.held.NextSet(0)
		info.guard = locks[g]
	default:
		info.class = Racy
	}
}

type inferFrame[S any] struct {
	state  S
	next   ts.Tid // the thread whose move is next
	out    int    // and its outcome
	status []ts.Status
	steps  []ts.Step
	outs   []int
	undo   int // len(undo) before the lock operations of the step that reached the state
}

// lockUndo restores a thread's bit of a lock when the pass backtracks.
type lockUndo struct {
	t   ts.Tid
	idx uint // the lock's dense index
	was bool
}

type inferPass[S any] struct {
	m             *search.Model[S]
	n             int
	d             *Discipline
	visited       hashset.Set
	held          []*bitset.BitSet // locks each thread holds on the current path, by dense index
	undo          []lockUndo
	limits        ts.Limits
	maxDepth      int
	progress      func(int64)
	progressEvery time.Duration
	lockIdx       map[ts.Obj]uint // a lock's dense index
	locks         []ts.Obj        // the lock of each dense index
	stack         []inferFrame[S]
	depth         int
	current       ts.Tid
}

func (p *inferPass[S]) run(ctx context.Context, max int) error {
	p.current = -1
	var err error
	p.protect(func() { err = p.visit(p.m.Sys.Init(), -1, ts.Step{}, max) })
	if err != nil {
		return err
	}
	w := watch.Start(ctx, p.progress != nil, p.progressEvery)
	defer w.Stop()
	for p.depth > 0 {
		if w.Cancelled() {
			return search.Cancelled(ctx)
		}
		if p.progress != nil && w.ProgressDue() {
			p.progress(p.d.Transitions)
		}
		if p.limits.Transitions > 0 && p.d.Transitions >= p.limits.Transitions {
			return fmt.Errorf("%w: %w (%d); declare the movers (transact.Movers) or raise the limit", ErrInfer, ErrInferLimit, p.limits.Transitions)
		}
		if p.d.Transitions&4095 == 0 {
			if err := p.memoryOK(); err != nil {
				return err
			}
		}
		top := &p.stack[p.depth-1]
		for int(top.next) < p.n && (top.status[top.next] != ts.Enabled || top.out >= top.outs[top.next]) {
			top.next++
			top.out = 0
		}
		if int(top.next) >= p.n {
			p.pop()
			continue
		}
		mv := ts.Move{Thread: top.next, Outcome: top.out}
		top.out++
		step := top.steps[mv.Thread]
		var child S
		if !p.protect(func() { child = p.m.Apply(top.state, mv) }) {
			continue
		}
		p.d.Transitions++
		p.record(mv.Thread, step)
		p.protect(func() { err = p.visit(child, mv.Thread, step, max) })
		if err != nil {
			return err
		}
	}
	return nil
}

// protect runs f and reports whether it returned normally; a panic in user
// code only cuts the branch.
func (p *inferPass[S]) protect(f func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			switch r.(type) {
			case *ts.CallbackError, *ts.SystemError:
				panic(r) // the caller's, or a broken system: not a branch to cut
			}
			ok = false
		}
	}()
	f()
	return true
}

// info returns object o's record, made on first use.
func (p *inferPass[S]) info(o ts.Obj) *objInfo {
	info, ok := p.d.objs[o]
	if !ok {
		info = &objInfo{first: -1}
		p.d.objs[o] = info
	}
	return info
}

// record notes that thread t took step, every access of it made with the
// locks t held before the step. The invariant's mark is not an object.
func (p *inferPass[S]) record(t ts.Tid, step ts.Step) {
	for i := range step.NumAccesses() {
		a := step.At(i)
		if a.Obj == ts.InvariantObj {
			continue
		}
		info := p.info(a.Obj)
		if info.first < 0 {
			info.first = t
		} else if info.first != t {
			info.multi = true
		}
		switch a.Op {
		case ts.Acquire, ts.Release:
			info.lock = true
			continue
		case ts.Write:
			info.written = true
		}
		info.data = true
		if info.held == nil {
			info.held = p.held[t].Clone()
		} else {
			info.held.InPlaceIntersection(p.held[t])
		}
	}
}

// visit pushes a state reached by thread last's step, unless it was visited
// or violates Check or the invariant, updating the locks held. It notes the
// objects of every Idle thread's step, at terminal states too. A path longer
// than the depth limit is an execution that may never end: the pass could
// not finish, and the search after it would never run to report it.
func (p *inferPass[S]) visit(s S, last ts.Tid, step ts.Step, max int) error {
	if last >= 0 && p.depth > p.maxDepth {
		return fmt.Errorf("%w: %w", ErrInfer, &ts.SystemError{Err: ts.ErrDepth, Thread: last, Schedule: p.schedule(),
			Detail: fmt.Sprintf("an execution reached %d transitions; raise Limits.Depth if the system does terminate", p.depth)})
	}
	h := p.m.Hasher.Hash(s)
	if p.visited.Has(h) {
		return nil
	}
	if p.visited.Len() >= max {
		return fmt.Errorf("%w: more than %d states; declare the movers (transact.Movers) or raise the limit", ErrInfer, max)
	}
	p.visited.Add(h)
	p.d.States++
	if p.m.Check(s) != nil {
		return nil
	}
	if p.depth == len(p.stack) {
		p.stack = append(p.stack, inferFrame[S]{status: make([]ts.Status, p.n), steps: make([]ts.Step, p.n), outs: make([]int, p.n)})
	}
	f := &p.stack[p.depth]
	c, err := p.m.Look(s, f.steps, f.status, f.outs, &p.current)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInfer, search.WithSchedule(err, p.schedule()))
	}
	if c.Idle > 0 {
		for u, st := range f.status {
			if st != ts.Idle {
				continue
			}
			for i := range f.steps[u].NumAccesses() {
				if o := f.steps[u].At(i).Obj; o != ts.InvariantObj {
					p.info(o).idle = true
				}
			}
		}
	}
	if c.Enabled == 0 {
		return nil
	}
	f.state, f.next, f.out, f.undo = s, 0, 0, len(p.undo)
	if last >= 0 {
		for i := range step.NumAccesses() {
			a := step.At(i)
			if a.Op != ts.Acquire && a.Op != ts.Release {
				continue
			}
			hs := p.held[last]
			idx := p.lockIndex(a.Obj)
			p.undo = append(p.undo, lockUndo{t: last, idx: idx, was: hs.Test(idx)})
			hs.SetTo(idx, a.Op == ts.Acquire)
		}
	}
	p.depth++
	return nil
}

// schedule returns the moves of the path to the state being visited: each
// frame on the stack took its thread's move at the outcome before out.
func (p *inferPass[S]) schedule() ts.Schedule {
	sched := make(ts.Schedule, p.depth)
	for i := range sched {
		f := &p.stack[i]
		sched[i] = ts.Move{Thread: f.next, Outcome: f.out - 1}
	}
	return sched
}

// memoryOK returns an error wrapping ts.ErrMemory when what the pass keeps
// passes Limits.Memory: the visited set, the stack with its steps (states
// by their Go size only) and the lock bookkeeping.
func (p *inferPass[S]) memoryOK() error {
	limit := p.limits.MaxMemory()
	if limit < 0 {
		return nil
	}
	perFrame := int64(unsafe.Sizeof(inferFrame[S]{})) + int64(p.n)*(int64(unsafe.Sizeof(ts.Step{}))+1+8)
	used := p.visited.Bytes() + int64(cap(p.stack))*perFrame + int64(cap(p.undo))*int64(unsafe.Sizeof(lockUndo{}))
	if used <= limit {
		return nil
	}
	return fmt.Errorf("%w: %w: %d bytes kept (%d states, %d frames), budget %d bytes (ts.Limits.Memory)",
		ErrInfer, ts.ErrMemory, used, p.visited.Len(), len(p.stack), limit)
}

// lockIndex returns lock o's dense index, giving it the next one if new.
func (p *inferPass[S]) lockIndex(o ts.Obj) uint {
	i, ok := p.lockIdx[o]
	if !ok {
		i = uint(len(p.locks))
		p.lockIdx[o] = i
		p.locks = append(p.locks, o)
	}
	return i
}

func (p *inferPass[S]) pop() {
	f := &p.stack[p.depth-1]
	for i := len(p.undo) - 1; i >= f.undo; i-- {
		u := p.undo[i]
		p.held[u.t].SetTo(u.idx, u.was)
	}
	p.undo = p.undo[:f.undo]
	var zero S
	f.state = zero
	p.depth--
}

// resolveMovers returns the movers of the system m: its declarations when
// it implements Movers, and otherwise those of its inferred discipline,
// which it returns too. Either way, with a global invariant, a step that
// writes an object the invariant reads (marked by m as a write of
// ts.InvariantObj) is a non-mover.
func resolveMovers[S any](ctx context.Context, m *search.Model[S], maxStates int, opt ts.Options) (moverFunc[S], *Discipline, error) {
	var base moverFunc[S]
	var d *Discipline
	if mv, ok := m.Sys.(Movers[S]); ok {
		base = func(s S, t ts.Tid, _ ts.Step, _ ts.Status) Mover {
			m := mv.Mover(s, t)
			if !m.Valid() {
				return NonMover
			}
			return m
		}
	} else {
		io := InferOptions{MaxStates: maxStates, Limits: opt.Limits, progressEvery: opt.ProgressEvery}
		if opt.Progress != nil {
			io.progress = func(n int64) {
				search.Callback("Progress", func() { opt.Progress(ts.Result{Bound: ts.NoBound, Transitions: n}) })
			}
		}
		var err error
		if d, err = infer(ctx, m, io); err != nil {
			return nil, d, err
		}
		base = func(_ S, _ ts.Tid, step ts.Step, st ts.Status) Mover { return d.Mover(step, st) }
	}
	if m.Inv == nil {
		return base, d, nil
	}
	return func(s S, t ts.Tid, step ts.Step, st ts.Status) Mover {
		if st != ts.Finished && writesInvariant(step) {
			return NonMover
		}
		return base(s, t, step, st)
	}, d, nil
}

// writesInvariant reports whether a step, as search.Model marks it, writes
// an object the global invariant reads.
func writesInvariant(step ts.Step) bool {
	for _, a := range step.Also {
		if a.Obj == ts.InvariantObj {
			return true
		}
	}
	return false
}
