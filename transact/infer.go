package transact

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/bits-and-blooms/bitset"

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
// whether anyone writes it, and which locks are held at every access. It
// gives the mover type of any step by the paper's rules (section 1):
//   - acquire is a right mover and release a left mover, except on a lock
//     that only one thread ever takes, where both are both movers;
//   - a read or write of an object that one thread only accesses, that no
//     thread writes, or that every thread accesses only while holding one
//     common lock, is a both mover;
//   - any other access, and an access to an object the pass never saw, is a
//     non-mover;
//   - a finished thread's end is a non-mover: the thread exited, completing
//     its transaction (see [Movers]).
//
// The rules assume what lock discipline means: a thread holds lock l from its
// Acquire of l to its Release of l, Acquire blocks while another thread holds
// l, and Step reports exactly the object a transition accesses (the
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

// Mover returns the mover type the discipline gives a step with status st.
func (d *Discipline) Mover(step ts.Step, st ts.Status) Mover {
	if st == ts.Finished {
		return NonMover
	}
	c := d.Class(step.Obj)
	switch step.Op {
	case ts.Acquire:
		if c == Private {
			return BothMover
		}
		return RightMover
	case ts.Release:
		if c == Private {
			return BothMover
		}
		return LeftMover
	}
	switch c {
	case Private, ReadOnly, Protected:
		return BothMover
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
	// Limits.Transitions caps the transitions of the pass: reaching it is
	// an error wrapping ErrInfer and ErrInferLimit, returned with the
	// Discipline so far (for its counts). The context given to Infer
	// cancels the pass.
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
// search, which needs ts.Hasher) and returns the lock discipline its
// transitions keep. The pass does not go on from a state whose Check fails,
// as no search does. A panic in user code stops the pass on that branch only:
// the search that follows reports it.
func Infer[S any](ctx context.Context, sys ts.TransitionSystem[S], opt InferOptions) (*Discipline, error) {
	if err := search.Context(ctx); err != nil {
		return nil, err
	}
	if opt.MaxStates < 0 {
		return nil, fmt.Errorf("%w: negative MaxStates %d", ts.ErrBadOptions, opt.MaxStates)
	}
	hasher, ok := sys.(ts.Hasher[S])
	if !ok {
		return nil, fmt.Errorf("%w: %w", ErrInfer, ts.ErrNoHash)
	}
	n, err := search.Threads(sys)
	if err != nil {
		return nil, err
	}
	max := opt.MaxStates
	if max == 0 {
		max = DefaultInferStates
	}
	p := &inferPass[S]{sys: sys, hasher: hasher, n: n, d: &Discipline{objs: make(map[ts.Obj]*objInfo)}, limits: opt.Limits, progress: opt.progress, progressEvery: opt.progressEvery,
		visited: make(map[uint64]struct{}), lockIdx: make(map[ts.Obj]uint)}
	p.checker, _ = sys.(ts.Checker[S])
	p.held = make([]*bitset.BitSet, n)
	for t := range p.held {
		p.held[t] = bitset.New(0)
	}
	if cbErr := search.Protect(func() { err = p.run(ctx, max) }); cbErr != nil {
		return nil, cbErr // the caller's Progress panicked
	}
	if err != nil {
		if errors.Is(err, ErrInferLimit) {
			return p.d, err // its work so far, for the caller's count
		}
		return nil, err
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
	next   ts.Tid
	status []ts.Status
	steps  []ts.Step
	// undo of the lock operation that reached this state
	undoT    ts.Tid
	undoIdx  uint // the lock's dense index
	undoOp   ts.Op
	undoHeld bool
}

type inferPass[S any] struct {
	sys           ts.TransitionSystem[S]
	hasher        ts.Hasher[S]
	checker       ts.Checker[S]
	n             int
	d             *Discipline
	visited       map[uint64]struct{}
	held          []*bitset.BitSet // locks each thread holds on the current path, by dense index
	limits        ts.Limits
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
	p.protect(func() { err = p.visit(p.sys.Init(), -1, ts.Step{}, max) })
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
		top := &p.stack[p.depth-1]
		t := top.next
		for int(t) < p.n && top.status[t] != ts.Enabled {
			t++
		}
		if int(t) >= p.n {
			p.pop()
			continue
		}
		top.next = t + 1
		step := top.steps[t]
		var child S
		if !p.protect(func() { child = p.sys.Apply(top.state, t) }) {
			continue
		}
		p.d.Transitions++
		p.record(t, step)
		p.protect(func() { err = p.visit(child, t, step, max) })
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
			ok = false
		}
	}()
	f()
	return true
}

// record notes that thread t took step.
func (p *inferPass[S]) record(t ts.Tid, step ts.Step) {
	info, ok := p.d.objs[step.Obj]
	if !ok {
		info = &objInfo{first: -1}
		p.d.objs[step.Obj] = info
	}
	if info.first < 0 {
		info.first = t
	} else if info.first != t {
		info.multi = true
	}
	switch step.Op {
	case ts.Acquire, ts.Release:
		info.lock = true
		return
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

// visit pushes a state reached by thread last's step, unless it was visited
// or violates Check, updating the locks held.
func (p *inferPass[S]) visit(s S, last ts.Tid, step ts.Step, max int) error {
	h := p.hasher.Hash(s)
	if _, seen := p.visited[h]; seen {
		return nil
	}
	if len(p.visited) >= max {
		return fmt.Errorf("%w: more than %d states; declare the movers (transact.Movers) or raise the limit", ErrInfer, max)
	}
	p.visited[h] = struct{}{}
	p.d.States++
	if p.checker != nil && p.checker.Check(s) != nil {
		return nil
	}
	if p.depth == len(p.stack) {
		p.stack = append(p.stack, inferFrame[S]{status: make([]ts.Status, p.n), steps: make([]ts.Step, p.n)})
	}
	f := &p.stack[p.depth]
	enabled, _, err := search.Look(p.sys, s, f.steps, f.status, &p.current)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInfer, err)
	}
	if enabled == 0 {
		return nil
	}
	f.state, f.next, f.undoT = s, 0, -1
	if last >= 0 && (step.Op == ts.Acquire || step.Op == ts.Release) {
		hs := p.held[last]
		i := p.lockIndex(step.Obj)
		f.undoT, f.undoIdx, f.undoOp, f.undoHeld = last, i, step.Op, hs.Test(i)
		hs.SetTo(i, step.Op == ts.Acquire)
	}
	p.depth++
	return nil
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
	if f.undoT >= 0 {
		p.held[f.undoT].SetTo(f.undoIdx, f.undoHeld)
	}
	var zero S
	f.state = zero
	p.depth--
}

// resolveMovers returns the movers of sys: its declarations when it
// implements Movers, and otherwise those of its inferred discipline, which it
// returns too.
func resolveMovers[S any](ctx context.Context, sys ts.TransitionSystem[S], maxStates int, opt ts.Options) (moverFunc[S], *Discipline, error) {
	if m, ok := sys.(Movers[S]); ok {
		return func(s S, t ts.Tid, _ ts.Step, _ ts.Status) Mover {
			mv := m.Mover(s, t)
			if !mv.Valid() {
				return NonMover
			}
			return mv
		}, nil, nil
	}
	io := InferOptions{MaxStates: maxStates, Limits: opt.Limits, progressEvery: opt.ProgressEvery}
	if opt.Progress != nil {
		io.progress = func(n int64) {
			search.Callback("Progress", func() { opt.Progress(ts.Result{Bound: ts.NoBound, Transitions: n}) })
		}
	}
	d, err := Infer(ctx, sys, io)
	if err != nil {
		return nil, d, err
	}
	return func(_ S, _ ts.Tid, step ts.Step, st ts.Status) Mover { return d.Mover(step, st) }, d, nil
}
