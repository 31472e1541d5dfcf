package sim

import (
	"fmt"

	"github.com/weftlab/weft/ts"
)

// Simulator is a concurrent system whose state lives inside it and changes
// in place. Its methods act on the current state.
//
// Next and Outcomes follow the contract of [ts.TransitionSystem] and
// [ts.Chooser]: a thread's next step and its number of outcomes depend only
// on the thread's own transitions, and steps tell the truth about which
// objects a transition touches. The simulator must be deterministic: from
// Reset, the same moves lead to the same answers. The adapter checks this
// whenever it replays.
type Simulator interface {
	// Threads returns the number of threads; it does not change.
	Threads() int
	// Reset returns the simulator to its initial state.
	Reset()
	// Next returns thread t's next step at the current state and its status.
	Next(t ts.Tid) (ts.Step, ts.Status)
	// Step takes outcome c of thread t's next transition in place. It is
	// called only for an enabled thread, with 0 <= c < Outcomes(t).
	Step(t ts.Tid, c int)
}

// Forker is implemented by simulators that can make a copy of themselves
// at their initial state, independent of the original, so that a search can
// explore with several workers (ts.Options.Workers), each with its own
// copy. The copy must behave exactly as the original.
type Forker interface {
	Fork() Simulator
}

// Chooser is implemented by simulators whose transitions have several
// outcomes (a message lost, a timer firing). Without it every transition
// has one.
type Chooser interface {
	Outcomes(t ts.Tid) int
}

// Checker is implemented by simulators with assertions: see [ts.Checker].
type Checker interface {
	Check() error
}

// Invariant is implemented by simulators with a global invariant over
// declared objects: see [ts.Invariant].
type Invariant interface {
	Invariant() error
	InvariantReads() []ts.Obj
}

// Hasher is implemented by simulators that can fingerprint their current
// state, which lets stateful strategies store it: see [ts.Hasher]. Use
// [NewHashed] for such a simulator.
type Hasher interface {
	Hash() uint64
}

// Snapshotter is implemented by simulators that can save their state and
// return to it. Restore is given only values Snapshot returned, possibly
// several times each. With it the adapter returns to a saved state instead
// of replaying from Reset.
type Snapshotter interface {
	Snapshot() any
	Restore(snapshot any)
}

// Describer is implemented by simulators that can say in words what thread
// t's next transition does; traces use it. The adapter moves the simulator
// to the state described, so it is called only when a trace is built.
type Describer interface {
	Describe(t ts.Tid) string
}

// Options tune the adapter. The zero value is a sensible default.
type Options struct {
	// CheckpointEvery is, for a Snapshotter, how far apart snapshots are
	// along an execution: a snapshot is taken at a state with more than one
	// move when the nearest one above it is at least this many transitions
	// up. 0 means 1: every state the search may come back to.
	CheckpointEvery int
}

// Stats count the adapter's work since it was made.
type Stats struct {
	Steps     int64 // transitions taken for the search
	Replayed  int64 // transitions taken again to return to a state
	Resets    int64 // returns to the initial state (Reset, then replay)
	Restores  int64 // returns to a snapshot (Restore, then replay)
	Snapshots int64 // snapshots taken
}

// Map returns the figures under the names Result.Stats uses.
func (s Stats) Map() map[string]int64 {
	return map[string]int64{
		"sim.steps": s.Steps, "sim.replayed": s.Replayed, "sim.resets": s.Resets,
		"sim.restores": s.Restores, "sim.snapshots": s.Snapshots,
	}
}

// State is a state of a simulator as a search sees it: a place in the tree
// of executions from the initial state. It is a small value; the zero State
// is not a state of any system.
type State struct{ n *node }

// Depth returns the number of transitions from the initial state to s.
func (s State) Depth() int { return int(s.n.depth) }

// Schedule returns the moves from the initial state to s.
func (s State) Schedule() ts.Schedule { return s.n.schedule() }

// node is a state the search has reached, with the simulator's answers
// there, found once while the simulator stood on it.
type node struct {
	parent *node
	move   ts.Move // from parent
	depth  int32
	// since is the number of transitions up to the nearest snapshot above
	// (or to the root).
	since int32
	// ans holds each thread's answers, in one allocation per state.
	ans    []answer
	check  error
	inv    error
	hash   uint64
	moves  int
	snap   any
	hasSnp bool
}

// answer is what the simulator said of one thread at a state.
type answer struct {
	step   ts.Step
	status ts.Status
	outs   int32 // 1 without a Chooser
}

func (n *node) schedule() ts.Schedule {
	s := make(ts.Schedule, n.depth)
	for m := n; m.parent != nil; m = m.parent {
		s[m.depth-1] = m.move
	}
	return s
}

// System is a [Simulator] as a [ts.TransitionSystem]. It is not safe for
// concurrent use; several searches may use it one after the other.
type System struct {
	sim   Simulator
	ch    Chooser
	ck    Checker
	inv   Invariant
	h     Hasher
	snap  Snapshotter
	desc  Describer
	names ts.ObjNamer
	tn    ts.ThreadNamer
	vd    ts.ValueDependent
	n     int
	every int32
	opt   Options

	root  *node
	cur   *node // where the simulator stands; nil: unknown (after a panic)
	stats Stats
	path  []*node
}

// New returns the transition system of sim. Its states are [State] values;
// it implements [ts.Chooser], [ts.Checker], [ts.Invariant] and
// [ts.Describer] whether or not sim does (with one outcome, no assertion,
// no invariant and the step's text by default), [ts.ObjNamer] and
// [ts.ThreadNamer] (with the simulator's names, if any),
// [ts.ValueDependent] (the simulator's declared objects, if any: none
// otherwise), and [ts.StatsReporter]. For stateful strategies, use [NewHashed].
//
// A simulator whose answers differ when a state is reached again makes the
// search stop with an error wrapping [ts.ErrNondeterministic] that names
// the transition where the replay went another way.
func New(sim Simulator, opt Options) (*System, error) {
	if sim == nil {
		return nil, fmt.Errorf("%w: sim.New: nil simulator", ts.ErrBadOptions)
	}
	if opt.CheckpointEvery < 0 {
		return nil, fmt.Errorf("%w: sim.New: negative CheckpointEvery %d", ts.ErrBadOptions, opt.CheckpointEvery)
	}
	s := &System{sim: sim, every: int32(max(opt.CheckpointEvery, 1)), opt: opt}
	s.ch, _ = sim.(Chooser)
	s.ck, _ = sim.(Checker)
	s.inv, _ = sim.(Invariant)
	s.h, _ = sim.(Hasher)
	s.snap, _ = sim.(Snapshotter)
	s.desc, _ = sim.(Describer)
	s.names, _ = sim.(ts.ObjNamer)
	s.tn, _ = sim.(ts.ThreadNamer)
	s.vd, _ = sim.(ts.ValueDependent)
	n, err := threads(sim)
	if err != nil {
		return nil, err
	}
	s.n = n
	return s, nil
}

func threads(sim Simulator) (n int, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &ts.SystemError{Err: ts.ErrBadSystem, Thread: -1, Detail: fmt.Sprintf("sim: Threads panicked: %v", p)}
		}
	}()
	n = sim.Threads()
	if n < 1 || n > ts.MaxThreads {
		return 0, &ts.SystemError{Err: ts.ErrThreadRange, Thread: -1, Detail: fmt.Sprintf("sim: Threads() = %d, want 1..%d", n, ts.MaxThreads)}
	}
	return n, nil
}

// Hashed is a [System] whose simulator fingerprints its states: it also
// implements [ts.Hasher], for stateful strategies.
type Hashed struct{ *System }

// NewHashed is [New] for a simulator that implements [Hasher].
func NewHashed(sim interface {
	Simulator
	Hasher
}, opt Options) (Hashed, error) {
	s, err := New(sim, opt)
	return Hashed{s}, err
}

// Fork implements [ts.Forker] for a search with several workers: a System
// over a copy of the simulator, which must implement [Forker].
func (s *System) Fork() (ts.TransitionSystem[State], error) {
	return s.fork()
}

func (s *System) fork() (*System, error) {
	f, ok := s.sim.(Forker)
	if !ok {
		return nil, fmt.Errorf("%w: sim: a search with several workers needs a copy of the simulator for each: implement sim.Forker (Fork() Simulator)", ts.ErrBadOptions)
	}
	c := f.Fork()
	if c == nil {
		return nil, fmt.Errorf("%w: sim: the simulator's Fork returned nil", ts.ErrBadSystem)
	}
	return New(c, s.opt)
}

// Fork implements [ts.Forker], keeping the fingerprints.
func (h Hashed) Fork() (ts.TransitionSystem[State], error) {
	s, err := h.System.fork()
	if err != nil {
		return nil, err
	}
	return Hashed{s}, nil
}

// Hash returns the fingerprint the simulator gave at s.
func (h Hashed) Hash(s State) uint64 { return s.n.hash }

// MoveTo brings the simulator to st, so that a callback of the search
// (OnTerminal, OnViolation) or a test can read the simulator there. The
// search's next transition moves it again.
func (s *System) MoveTo(st State) { s.goTo(st.n) }

// Stats returns the adapter's figures since it was made.
func (s *System) Stats() Stats { return s.stats }

// SearchStats implements [ts.StatsReporter].
func (s *System) SearchStats() map[string]int64 { return s.stats.Map() }

// Threads implements [ts.TransitionSystem].
func (s *System) Threads() int { return s.n }

// Init implements [ts.TransitionSystem]. The initial state is found once,
// from Reset.
func (s *System) Init() State {
	if s.root == nil {
		s.cur = nil
		s.sim.Reset()
		s.stats.Resets++
		r := &node{}
		s.fill(r)
		s.root, s.cur = r, r
	}
	return State{s.root}
}

// Next implements [ts.TransitionSystem] from the answers found at s.
func (s *System) Next(st State, t ts.Tid) (ts.Step, ts.Status) {
	a := &st.n.ans[t]
	return a.step, a.status
}

// Outcomes implements [ts.Chooser].
func (s *System) Outcomes(st State, t ts.Tid) int {
	return int(st.n.ans[t].outs)
}

// Check implements [ts.Checker].
func (s *System) Check(st State) error { return st.n.check }

// Invariant implements [ts.Invariant].
func (s *System) Invariant(st State) error { return st.n.inv }

// InvariantReads implements [ts.Invariant].
func (s *System) InvariantReads() []ts.Obj {
	if s.inv == nil {
		return nil
	}
	return s.inv.InvariantReads()
}

// Describe implements [ts.Describer]: the simulator's words, or the step's.
func (s *System) Describe(st State, t ts.Tid) string {
	if s.desc == nil {
		return st.n.ans[t].step.Format(s.names)
	}
	s.goTo(st.n)
	return s.desc.Describe(t)
}

// ValueDependentObjs implements [ts.ValueDependent] with the simulator's
// declaration, if it makes one (nil otherwise: the plain contract).
func (s *System) ValueDependentObjs() []ts.Obj {
	if s.vd == nil {
		return nil
	}
	return s.vd.ValueDependentObjs()
}

// ObjName implements [ts.ObjNamer] with the simulator's names, if any.
func (s *System) ObjName(o ts.Obj) string {
	if s.names == nil {
		return fmt.Sprintf("o%d", o)
	}
	return s.names.ObjName(o)
}

// ThreadName implements [ts.ThreadNamer] with the simulator's names, if
// any ("" otherwise: no name).
func (s *System) ThreadName(t ts.Tid) string {
	if s.tn == nil {
		return ""
	}
	return s.tn.ThreadName(t)
}

// Apply implements [ts.TransitionSystem].
func (s *System) Apply(st State, t ts.Tid) State { return s.ApplyOutcome(st, t, 0) }

// ApplyOutcome implements [ts.Chooser]: the simulator is brought to st (by
// nothing when it stands there, by a Restore or Reset and a replay
// otherwise) and takes the transition in place.
func (s *System) ApplyOutcome(st State, t ts.Tid, c int) State {
	p := st.n
	s.goTo(p)
	if s.snap != nil && !p.hasSnp && p.moves > 1 && p.since >= s.every {
		p.snap, p.hasSnp = s.snap.Snapshot(), true
		s.stats.Snapshots++
	}
	s.cur = nil // until Step and the answers at the new state return
	s.sim.Step(t, c)
	s.stats.Steps++
	n := &node{parent: p, move: ts.Move{Thread: t, Outcome: c}, depth: p.depth + 1, since: p.since + 1}
	if p.hasSnp {
		n.since = 1
	}
	s.fill(n)
	s.cur = n
	return State{n}
}

// fill records the simulator's answers at n, where it stands.
func (s *System) fill(n *node) {
	n.ans = make([]answer, s.n)
	for t := range s.n {
		step, st := s.sim.Next(ts.Tid(t))
		if len(step.Also) > 0 { // the simulator may reuse its slice
			step.Also = append([]ts.Access(nil), step.Also...)
		}
		outs := 1
		if s.ch != nil {
			outs = s.ch.Outcomes(ts.Tid(t))
		}
		n.ans[t] = answer{step: step, status: st, outs: int32(outs)}
		if st == ts.Enabled {
			n.moves += outs
		}
	}
	if s.ck != nil {
		n.check = s.ck.Check()
	}
	if s.inv != nil {
		n.inv = s.inv.Invariant()
	}
	if s.h != nil {
		n.hash = s.h.Hash()
	}
}

// goTo brings the simulator to n: from where it stands if that is above n,
// else from the nearest snapshot above n, else from Reset; then it replays
// the moves down to n, checking at each that the simulator answers as it
// did the first time.
func (s *System) goTo(n *node) {
	if s.cur == n {
		return
	}
	s.path = s.path[:0]
	base := n
	for ; base != s.cur && !base.hasSnp && base.parent != nil; base = base.parent {
		s.path = append(s.path, base)
	}
	cur := s.cur
	s.cur = nil
	switch {
	case base == cur:
	case base.hasSnp:
		s.snap.Restore(base.snap)
		s.stats.Restores++
	default: // the root
		s.sim.Reset()
		s.stats.Resets++
	}
	for i := len(s.path) - 1; i >= 0; i-- {
		m := s.path[i]
		t := m.move.Thread
		step, st := s.sim.Next(t)
		if want := m.parent.ans[t].step; !step.Equal(want) || st != ts.Enabled {
			s.diverged(m, fmt.Sprintf("thread %d's next step is %v (%v), was %v (enabled)", t, step, st, want))
		}
		s.sim.Step(t, m.move.Outcome)
		s.stats.Replayed++
	}
	if s.h != nil {
		if h := s.h.Hash(); h != n.hash {
			s.diverged(n, fmt.Sprintf("the state's hash is %#x, was %#x", h, n.hash))
		}
	}
	if len(s.path) > 0 || base != cur {
		for t := range s.n {
			step, st := s.sim.Next(ts.Tid(t))
			if a := n.ans[t]; !step.Equal(a.step) || st != a.status {
				s.diverged(n, fmt.Sprintf("thread %d's next step is %v (%v), was %v (%v)", t, step, st, a.step, a.status))
			}
		}
	}
	s.cur = n
}

// diverged stops the search: the simulator is not deterministic. The panic
// value is a *ts.SystemError, which every strategy reports as its error.
func (s *System) diverged(at *node, what string) {
	panic(&ts.SystemError{Err: ts.ErrNondeterministic, Thread: at.move.Thread, Schedule: at.schedule(),
		Detail: fmt.Sprintf("sim: replayed from the simulator's initial state or a snapshot, after %d moves %s", at.depth, what)})
}
