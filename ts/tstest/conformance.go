package tstest

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/weftlab/weft/ts"
)

// TB is the part of testing.TB that tstest uses. *testing.T, *testing.B,
// *testing.F and *rapid.T all satisfy it, so the helpers work inside
// rapid.Check as well as in plain tests.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
}

// Errors that CheckConformance reports besides those of package ts
// (ts.ErrMutated, ts.ErrNondeterministic, ts.ErrThreadRange, ts.ErrBadStep).
// Each comes inside a *ts.SystemError that names the thread and the schedule.
var (
	// ErrStepChanged: a thread's next step changed when another thread
	// moved. Only its status may change, and, on the objects a
	// ts.ValueDependent system declares, its operation between Write and
	// Read when the other thread wrote the object (ts.StepVariant);
	// partial-order reduction relies on it.
	ErrStepChanged = errors.New("a thread's next step changed when another thread moved")
	// ErrUnfinished: a Finished thread is not Finished in a successor.
	ErrUnfinished = errors.New("a finished thread is not finished in a successor")
	// ErrIndependence: two steps that ts.Dependent calls independent do not
	// commute: one changes the other's status, or the two orders reach
	// different states.
	ErrIndependence = errors.New("independent steps do not commute")
	// ErrFootprint: a transition changed an object its step does not write
	// (seen through ts.ObjHasher).
	ErrFootprint = errors.New("a transition changed an object its step does not write")
	// ErrInvariantReads: a global invariant's verdict changed across a
	// transition that writes none of the objects it declares it reads.
	ErrInvariantReads = errors.New("the invariant depends on more than the objects it declares")
	// ErrOutcome: a Chooser's ApplyOutcome(s, t, 0) differs from Apply(s, t).
	ErrOutcome = errors.New("outcome 0 is not what Apply does")
	// ErrPanic: user code panicked.
	ErrPanic = errors.New("user code panicked")
	// ErrUnnamedWait: a ts.Blocking system has a thread Blocked or Idle
	// whose step touches none of the objects it names and is neither an
	// await (a Sync read) nor a lock acquire.
	ErrUnnamedWait = errors.New("a step waits on no object ts.Blocking names")
)

// ConformanceOptions bound the work of [Conformance]. The zero value checks
// up to DefaultMaxStates states at any depth and reports up to
// DefaultMaxReports breaches.
type ConformanceOptions struct {
	// MaxStates caps the states checked, breadth first from the initial
	// state; 0 means DefaultMaxStates. States are told apart by Hash when the
	// system has one; otherwise every schedule is a new state.
	MaxStates int
	// MaxDepth caps the length of the schedules explored; 0 means no cap
	// but MaxStates.
	MaxDepth int
	// MaxReports caps the breaches reported; 0 means DefaultMaxReports.
	// Each kind of breach is reported once per thread, at the first
	// (shortest) schedule that shows it.
	MaxReports int
	// Equal, if set, decides whether two states are equal. The default
	// compares hashes when the system implements ts.Hasher, and uses
	// reflect.DeepEqual otherwise.
	Equal func(a, b any) bool
}

// Defaults of ConformanceOptions.
const (
	DefaultMaxStates  = 2000
	DefaultMaxReports = 10
)

// Conformance checks that sys keeps the ts.TransitionSystem contract on a
// bounded prefix of its state space, and reports every breach it finds with
// t.Errorf, naming the thread and the schedule that shows it. See
// [CheckConformance] for what it checks.
func Conformance[S any](t TB, sys ts.TransitionSystem[S], opt ConformanceOptions) {
	t.Helper()
	for _, err := range CheckConformance(sys, opt) {
		t.Errorf("%v", err)
	}
}

// CheckConformance is Conformance without a test: it returns the breaches it
// finds, each a *ts.SystemError wrapping one of ts.ErrMutated,
// ts.ErrNondeterministic, ts.ErrThreadRange, ts.ErrBadStep, ErrStepChanged,
// ErrUnfinished, ErrIndependence, ErrFootprint, ErrInvariantReads,
// ErrOutcome, ErrUnnamedWait or ErrPanic. It explores breadth first from the
// initial state, taking every outcome of every transition, and checks at
// each state s reached by a schedule:
//   - Threads is constant and in 1..ts.MaxThreads; Init is deterministic.
//   - Next, Apply, ApplyOutcome, Check, Invariant and Hash are
//     deterministic: two calls agree.
//   - Next returns a defined Status and, for a thread that has not finished,
//     a valid step (ts.Step.Validate); a ts.Chooser's Outcomes is at least 1
//     for an enabled thread, and its ApplyOutcome(s, t, 0) equals
//     Apply(s, t).
//   - Apply does not modify its argument: s is compared with the state
//     rebuilt by replaying its schedule from Init.
//   - A Finished thread is Finished in every successor, and another
//     thread's transition changes a thread's status at most, never its step
//     or (for a thread enabled before and after) its number of outcomes;
//     except that, for a ts.ValueDependent system, an operation on a
//     declared object may switch between Write and Read when the
//     transition writes that object (ts.StepVariant), and nothing else.
//     ValueDependentObjs is deterministic and names valid objects.
//   - For a thread u enabled at s and any thread t whose steps are
//     independent of u's, u's transition leaves t's status as it was (an
//     Idle or Blocked thread is woken only by a transition dependent with
//     its step); if t is enabled too, both orders reach equal states, for
//     every pair of outcomes.
//   - With ts.ObjHasher: a transition changes only objects its step
//     writes, among the objects named by the steps at s and the invariant.
//   - With ts.Invariant: a transition that writes none of the objects the
//     invariant reads leaves its verdict as it was.
//   - With ts.Blocking: BlockingObjs is deterministic and names valid
//     objects, and a Blocked or Idle thread's step touches one of them or
//     is an await (a Sync read) or a lock acquire.
//   - No user method (Describe and ObjName included) panics.
//
// As in a search, a state whose Check or Invariant fails is not explored
// further.
func CheckConformance[S any](sys ts.TransitionSystem[S], opt ConformanceOptions) []error {
	c := &conformance[S]{sys: sys, opt: opt, seen: make(map[string]bool)}
	if c.opt.MaxStates <= 0 {
		c.opt.MaxStates = DefaultMaxStates
	}
	if c.opt.MaxReports <= 0 {
		c.opt.MaxReports = DefaultMaxReports
	}
	c.checker, _ = sys.(ts.Checker[S])
	c.hasher, _ = sys.(ts.Hasher[S])
	c.describer, _ = sys.(ts.Describer[S])
	c.namer, _ = sys.(ts.ObjNamer)
	c.chooser, _ = sys.(ts.Chooser[S])
	c.invariant, _ = sys.(ts.Invariant[S])
	c.objHasher, _ = sys.(ts.ObjHasher[S])
	switch {
	case opt.Equal != nil:
		c.equal = func(a, b S) bool { return opt.Equal(a, b) }
	case c.hasher != nil:
		c.equal = func(a, b S) bool { return c.hasher.Hash(a) == c.hasher.Hash(b) }
	default:
		c.equal = func(a, b S) bool { return reflect.DeepEqual(a, b) }
	}
	c.run()
	return c.errs
}

type conformance[S any] struct {
	sys       ts.TransitionSystem[S]
	opt       ConformanceOptions
	checker   ts.Checker[S]
	hasher    ts.Hasher[S]
	describer ts.Describer[S]
	namer     ts.ObjNamer
	chooser   ts.Chooser[S]
	invariant ts.Invariant[S]
	objHasher ts.ObjHasher[S]
	inv       *ts.InvariantWrites
	invReads  []ts.Obj
	vd        map[ts.Obj]bool // the objects declared ts.ValueDependent
	blocking  map[ts.Obj]bool // the objects ts.Blocking names; nil: not one
	equal     func(a, b S) bool

	n    int
	errs []error
	seen map[string]bool // kinds of breach already reported, by error and thread
}

// node is a state to check and the schedule that reached it.
type node[S any] struct {
	s     S
	sched ts.Schedule
}

// child is a successor of the state being checked: the move and its state.
type child[S any] struct {
	m  ts.Move
	s  S
	ok bool // its Check and Invariant pass
}

func (c *conformance[S]) full() bool { return len(c.errs) >= c.opt.MaxReports }

// report records a breach unless one of its kind was reported for the same
// thread already.
func (c *conformance[S]) report(err error, t ts.Tid, sched ts.Schedule, format string, args ...any) {
	key := fmt.Sprintf("%v/%d", err, t)
	if c.seen[key] || c.full() {
		return
	}
	c.seen[key] = true
	c.errs = append(c.errs, &ts.SystemError{Err: err, Thread: t, Schedule: sched.Clone(), Detail: fmt.Sprintf(format, args...)})
}

// safe runs f and reports a panic in it as a breach; it reports whether f
// returned normally.
func (c *conformance[S]) safe(t ts.Tid, sched ts.Schedule, what string, f func()) (ok bool) {
	defer func() {
		if p := recover(); p != nil {
			c.report(ErrPanic, t, sched, "%s panicked: %v", what, p)
			ok = false
		}
	}()
	f()
	return true
}

func (c *conformance[S]) eq(a, b S, t ts.Tid, sched ts.Schedule) (eq, ok bool) {
	ok = c.safe(t, sched, "comparing states", func() { eq = c.equal(a, b) })
	return eq, ok
}

// apply takes move m at s: Apply for outcome 0, ApplyOutcome otherwise.
func (c *conformance[S]) apply(s S, m ts.Move) S {
	if m.Outcome == 0 {
		return c.sys.Apply(s, m.Thread)
	}
	return c.chooser.ApplyOutcome(s, m.Thread, m.Outcome)
}

// replay rebuilds the state a schedule reaches, without checks.
func (c *conformance[S]) replay(sched ts.Schedule) (s S, ok bool) {
	ok = c.safe(-1, sched, "replaying the schedule", func() {
		s = c.sys.Init()
		for _, m := range sched {
			s = c.apply(s, m)
		}
	})
	return s, ok
}

// verdict returns what Check and then Invariant say of s ("" when both
// pass); two calls must agree.
func (c *conformance[S]) verdict(s S, t ts.Tid, sched ts.Schedule) (v string, ok bool) {
	one := func() string {
		if c.checker != nil {
			if err := c.checker.Check(s); err != nil {
				return "check: " + err.Error()
			}
		}
		if c.invariant != nil {
			if err := c.invariant.Invariant(s); err != nil {
				return "invariant: " + err.Error()
			}
		}
		return ""
	}
	var v1, v2 string
	if !c.safe(t, sched, "Check or Invariant", func() { v1, v2 = one(), one() }) {
		return "panic", false
	}
	if v1 != v2 {
		c.report(ts.ErrNondeterministic, -1, sched, "two calls of Check and Invariant on one state said %q and %q", v1, v2)
	}
	return v1, true
}

// invVerdict returns what Invariant says of s ("" when it holds).
func (c *conformance[S]) invVerdict(s S, t ts.Tid, sched ts.Schedule) (v string, ok bool) {
	ok = c.safe(t, sched, "Invariant", func() {
		if err := c.invariant.Invariant(s); err != nil {
			v = err.Error()
		}
	})
	return v, ok
}

func (c *conformance[S]) threads(sched ts.Schedule) bool {
	var n int
	if !c.safe(-1, sched, "Threads", func() { n = c.sys.Threads() }) {
		return false
	}
	if c.n == 0 {
		if n < 1 || n > ts.MaxThreads {
			c.report(ts.ErrThreadRange, -1, sched, "Threads() = %d, want 1..%d", n, ts.MaxThreads)
			return false
		}
		c.n = n
	} else if n != c.n {
		c.report(ts.ErrNondeterministic, -1, sched, "Threads() = %d, was %d", n, c.n)
		return false
	}
	return true
}

func (c *conformance[S]) run() {
	if !c.threads(nil) {
		return
	}
	if c.invariant != nil {
		var r1, r2 []ts.Obj
		if !c.safe(-1, nil, "InvariantReads", func() { r1, r2 = c.invariant.InvariantReads(), c.invariant.InvariantReads() }) {
			return
		}
		if fmt.Sprint(r1) != fmt.Sprint(r2) {
			c.report(ts.ErrNondeterministic, -1, nil, "two calls of InvariantReads returned %v and %v", r1, r2)
		}
		for _, o := range r1 {
			if o < 0 || o == ts.InvariantObj {
				c.report(ts.ErrBadStep, -1, nil, "InvariantReads names object %d, want 0..%d", o, ts.InvariantObj-1)
				return
			}
		}
		c.invReads = r1
		c.inv = ts.NewInvariantWrites(r1)
	}
	var ok bool
	if vd, is := c.sys.(ts.ValueDependent); is {
		if c.vd, ok = c.declared("ValueDependentObjs", vd.ValueDependentObjs); !ok {
			return
		}
	}
	if b, is := c.sys.(ts.Blocking); is {
		if c.blocking, ok = c.declared("BlockingObjs", b.BlockingObjs); !ok {
			return
		}
	}
	var init1, init2 S
	if !c.safe(-1, nil, "Init", func() { init1, init2 = c.sys.Init(), c.sys.Init() }) {
		return
	}
	if eq, ok := c.eq(init1, init2, -1, nil); ok && !eq {
		c.report(ts.ErrNondeterministic, -1, nil, "two calls of Init returned different states")
	}
	var visited map[uint64]bool
	if c.hasher != nil {
		visited = make(map[uint64]bool)
	}
	queue := []node[S]{{s: init1}}
	states := 0
	for len(queue) > 0 && states < c.opt.MaxStates && !c.full() {
		nd := queue[0]
		queue = queue[1:]
		if visited != nil {
			var h1, h2 uint64
			if !c.safe(-1, nd.sched, "Hash", func() { h1, h2 = c.hasher.Hash(nd.s), c.hasher.Hash(nd.s) }) {
				continue
			}
			if h1 != h2 {
				c.report(ts.ErrNondeterministic, -1, nd.sched, "two calls of Hash on one state returned %#x and %#x", h1, h2)
			}
			if visited[h1] {
				continue
			}
			visited[h1] = true
		}
		states++
		children := c.state(nd)
		if c.opt.MaxDepth > 0 && len(nd.sched) >= c.opt.MaxDepth {
			continue
		}
		queue = append(queue, children...)
	}
}

// state checks one state and returns its successors worth exploring.
func (c *conformance[S]) state(nd node[S]) []node[S] {
	s, sched := nd.s, nd.sched
	if !c.threads(sched) {
		return nil
	}
	fresh, ok := c.replay(sched)
	if !ok {
		return nil
	}
	if eq, ok := c.eq(s, fresh, -1, sched); !ok {
		return nil
	} else if !eq {
		c.report(ts.ErrNondeterministic, -1, sched,
			"the state reached by the search differs from the one replaying its schedule rebuilds")
		s = fresh
	}
	if v, ok := c.verdict(s, -1, sched); v != "" || !ok {
		return nil
	}
	steps := make([]ts.Step, c.n)
	status := make([]ts.Status, c.n)
	outs := make([]int, c.n)
	enabled := false
	for t := range ts.Tid(c.n) {
		var st1, st2 ts.Step
		var ss1, ss2 ts.Status
		if !c.safe(t, sched, "Next", func() { st1, ss1 = c.sys.Next(s, t); st2, ss2 = c.sys.Next(s, t) }) {
			return nil
		}
		if !sameAnswer(st1, ss1, st2, ss2) {
			c.report(ts.ErrNondeterministic, t, sched, "two calls of Next on one state returned %v %v and %v %v", st1, ss1, st2, ss2)
		}
		switch {
		case !ss1.Valid():
			c.report(ts.ErrBadStep, t, sched, "Next returned status %v", ss1)
			return nil
		case ss1 != ts.Finished && st1.Validate() != nil:
			c.report(ts.ErrBadStep, t, sched, "Next returned step %v: %v", st1, st1.Validate())
			return nil
		}
		steps[t], status[t] = c.inv.Mark(st1), ss1
		if ss1 == ts.Finished {
			continue
		}
		if ss1.Waiting() && c.blocking != nil && !c.namedWait(st1) {
			c.report(ErrUnnamedWait, t, sched, "it is %v at step %v", ss1, st1)
		}
		outs[t] = 1
		if c.chooser != nil {
			var o1, o2 int
			if !c.safe(t, sched, "Outcomes", func() { o1, o2 = c.chooser.Outcomes(s, t), c.chooser.Outcomes(s, t) }) {
				return nil
			}
			if o1 != o2 {
				c.report(ts.ErrNondeterministic, t, sched, "two calls of Outcomes on one state returned %d and %d", o1, o2)
			}
			if o1 < 1 {
				c.report(ts.ErrBadStep, t, sched, "Outcomes returned %d, want at least 1", o1)
				return nil
			}
			outs[t] = o1
		}
		enabled = enabled || ss1 == ts.Enabled
		if c.describer != nil {
			c.safe(t, sched, "Describe", func() { c.describer.Describe(s, t) })
		}
		if c.namer != nil {
			for i := range st1.NumAccesses() {
				c.safe(t, sched, "ObjName", func() { c.namer.ObjName(st1.At(i).Obj) })
			}
		}
	}
	if !enabled {
		return nil
	}

	// Successors: Apply is deterministic and leaves its argument alone.
	byThread := make([][]child[S], c.n)
	var next []node[S]
	for t := range ts.Tid(c.n) {
		if status[t] != ts.Enabled {
			continue
		}
		for o := range outs[t] {
			m := ts.Move{Thread: t, Outcome: o}
			var c1, c2 S
			if !c.safe(t, sched, "Apply", func() { c1 = c.apply(s, m) }) {
				continue
			}
			if eq, ok := c.eq(s, fresh, t, sched); !ok {
				return nil
			} else if !eq {
				c.report(ts.ErrMutated, t, sched, "the state before the thread's transition changed")
				if s, ok = c.replay(sched); !ok {
					return nil
				}
			}
			if !c.safe(t, sched, "Apply", func() { c2 = c.apply(s, m) }) {
				continue
			}
			if eq, ok := c.eq(c1, c2, t, sched); !ok {
				return nil
			} else if !eq {
				c.report(ts.ErrNondeterministic, t, sched, "two calls of Apply on one state returned different states")
			}
			if eq, ok := c.eq(s, fresh, t, sched); ok && !eq {
				c.report(ts.ErrMutated, t, sched, "the state before the thread's transition changed")
				if s, ok = c.replay(sched); !ok {
					return nil
				}
			}
			if o == 0 && c.chooser != nil {
				var c3 S
				if c.safe(t, sched, "ApplyOutcome", func() { c3 = c.chooser.ApplyOutcome(s, t, 0) }) {
					if eq, ok := c.eq(c1, c3, t, sched); ok && !eq {
						c.report(ErrOutcome, t, sched, "ApplyOutcome(s, %d, 0) and Apply(s, %d) reach different states", t, t)
					}
				}
			}
			childSched := append(sched.Clone(), m)
			next = append(next, node[S]{s: c1, sched: childSched})
			v, ok := c.verdict(c1, t, childSched)
			byThread[t] = append(byThread[t], child[S]{m: m, s: c1, ok: ok && v == ""})
			c.footprint(s, c1, steps, m, sched)
			c.invariantReads(s, c1, steps[t], m, sched)
		}
	}

	// Other threads' steps survive each transition; independent ones keep
	// their status too.
	for u := range ts.Tid(c.n) {
		for _, ch := range byThread[u] {
			if !ch.ok {
				continue
			}
			cs := append(sched.Clone(), ch.m)
			for t := range ts.Tid(c.n) {
				if t == u {
					continue
				}
				var step ts.Step
				var st ts.Status
				k := 1
				if !c.safe(t, cs, "Next", func() {
					step, st = c.sys.Next(ch.s, t)
					if c.chooser != nil && st != ts.Finished && status[t] != ts.Finished {
						k = c.chooser.Outcomes(ch.s, t)
					}
				}) {
					continue
				}
				step = c.inv.Mark(step)
				if st != ts.Finished && status[t] != ts.Finished && k != outs[t] {
					c.report(ErrStepChanged, t, sched, "its transition had %d outcomes, and %d after thread %d moved", outs[t], k, u)
				}
				switch {
				case status[t] == ts.Finished && st != ts.Finished:
					c.report(ErrUnfinished, t, sched, "finished, then %v with step %v after thread %d moved", st, step, u)
				case status[t] != ts.Finished && st == ts.Finished:
					c.report(ErrStepChanged, t, sched, "step %v (%v) became finished after thread %d moved", steps[t], status[t], u)
				case status[t] != ts.Finished && !step.Equal(steps[t]) && !c.variant(steps[t], step, steps[u]):
					c.report(ErrStepChanged, t, sched, "step %v became %v after thread %d moved%s", steps[t], step, u, c.variantHint(steps[t], step))
				case status[t] != ts.Finished && st != status[t] && !ts.Dependent(steps[t], steps[u]):
					c.report(ErrIndependence, t, sched,
						"its step %v is independent of thread %d's step %v, but it went from %v to %v when thread %d moved",
						steps[t], u, steps[u], status[t], st, u)
				}
			}
		}
	}

	// Independent steps commute.
	for t := range ts.Tid(c.n) {
		for u := t + 1; int(u) < c.n; u++ {
			if status[t] != ts.Enabled || status[u] != ts.Enabled || ts.Dependent(steps[t], steps[u]) {
				continue
			}
			for _, a := range byThread[t] {
				for _, b := range byThread[u] {
					if a.ok && b.ok {
						c.diamond(sched, a, b, steps, outs)
					}
				}
			}
		}
	}
	return next
}

func sameAnswer(a ts.Step, as ts.Status, b ts.Step, bs ts.Status) bool {
	return as == bs && (as == ts.Finished || a.Equal(b))
}

// diamond checks that the independent moves a and b at the state reached by
// sched commute.
func (c *conformance[S]) diamond(sched ts.Schedule, a, b child[S], steps []ts.Step, outs []int) {
	var after [2]S
	for i, p := range [2][2]child[S]{{a, b}, {b, a}} {
		first, second := p[0], p[1]
		cs := append(sched.Clone(), first.m)
		t := second.m.Thread
		var st ts.Status
		if !c.safe(t, cs, "Next", func() { _, st = c.sys.Next(first.s, t) }) {
			return
		}
		if st != ts.Enabled {
			return // reported as a status change
		}
		if !c.safe(t, cs, "Apply", func() { after[i] = c.apply(first.s, second.m) }) {
			return
		}
	}
	if eq, ok := c.eq(after[0], after[1], a.m.Thread, sched); ok && !eq {
		out := func(m ts.Move) string {
			if outs[m.Thread] > 1 {
				return fmt.Sprintf(" (outcome %d)", m.Outcome)
			}
			return ""
		}
		c.report(ErrIndependence, a.m.Thread, sched,
			"its step %v%s and thread %d's step %v%s are independent, but the two orders reach different states",
			steps[a.m.Thread], out(a.m), b.m.Thread, steps[b.m.Thread], out(b.m))
	}
}

// footprint checks, with ts.ObjHasher, that move m from s to c1 changed no
// object its step does not write, among the objects the steps at s name and
// the invariant reads.
func (c *conformance[S]) footprint(s, c1 S, steps []ts.Step, m ts.Move, sched ts.Schedule) {
	if c.objHasher == nil {
		return
	}
	own := steps[m.Thread]
	check := func(o ts.Obj) {
		if op, ok := own.OpOn(o); ok && op != ts.Read {
			return
		}
		var h0, h1 uint64
		if !c.safe(m.Thread, sched, "ObjHash", func() { h0, h1 = c.objHasher.ObjHash(s, o), c.objHasher.ObjHash(c1, o) }) {
			return
		}
		if h0 != h1 {
			c.report(ErrFootprint, m.Thread, sched, "its step %v (outcome %d) changed object %d", own, m.Outcome, o)
		}
	}
	for _, st := range steps {
		for i := range st.NumAccesses() {
			if o := st.At(i).Obj; o != ts.InvariantObj {
				check(o)
			}
		}
	}
	for _, o := range c.invReads {
		check(o)
	}
}

// invariantReads checks that a move whose step writes none of the objects
// the invariant reads leaves the invariant's verdict as it was.
func (c *conformance[S]) invariantReads(s, c1 S, step ts.Step, m ts.Move, sched ts.Schedule) {
	if c.invariant == nil {
		return
	}
	if _, writes := step.OpOn(ts.InvariantObj); writes {
		return
	}
	v0, ok0 := c.invVerdict(s, m.Thread, sched)
	v1, ok1 := c.invVerdict(c1, m.Thread, sched)
	if ok0 && ok1 && v0 != v1 {
		c.report(ErrInvariantReads, m.Thread, sched,
			"its step %v writes none of %v, yet the invariant said %q before it and %q after", step, c.invReads, v0, v1)
	}
}

// variant reports whether a thread's step a may become b when another
// thread takes step w: b is a ts.StepVariant of a on the declared
// value-dependent objects, and w writes every object whose operation
// changed (so that the write is what changed it, and the two steps are
// dependent).
func (c *conformance[S]) variant(a, b, w ts.Step) bool {
	if len(c.vd) == 0 || !ts.StepVariant(a, b, func(o ts.Obj) bool { return c.vd[o] }) {
		return false
	}
	for i := range a.NumAccesses() {
		x := a.At(i)
		if x.Obj == ts.InvariantObj {
			continue
		}
		if op, _ := b.OpOn(x.Obj); op == x.Op {
			continue
		}
		if op, ok := w.OpOn(x.Obj); !ok || op == ts.Read {
			return false
		}
	}
	return true
}

// variantHint says why a change between Write and Read was not accepted.
func (c *conformance[S]) variantHint(a, b ts.Step) string {
	if !ts.StepVariant(a, b, func(ts.Obj) bool { return true }) {
		return ""
	}
	if len(c.vd) == 0 || !ts.StepVariant(a, b, func(o ts.Obj) bool { return c.vd[o] }) {
		return " (a switch between write and read is allowed only on objects declared by ts.ValueDependent)"
	}
	return " (a switch between write and read must come from a write of the object by the thread that moved)"
}

// namedWait reports whether a waiting step st may wait as ts.Blocking
// says: it touches an object named, or is an await or a lock acquire.
func (c *conformance[S]) namedWait(st ts.Step) bool {
	for a := range st.NumAccesses() {
		acc := st.At(a)
		if c.blocking[acc.Obj] || acc.Op == ts.Acquire || (acc.Op == ts.Read && acc.Sync) {
			return true
		}
	}
	return false
}

// declared calls f, the system's method name that names objects, twice,
// and returns the objects as a set (never nil), or false where the check
// cannot go on (a panic, an object out of range).
func (c *conformance[S]) declared(name string, f func() []ts.Obj) (map[ts.Obj]bool, bool) {
	var o1, o2 []ts.Obj
	if !c.safe(-1, nil, name, func() { o1, o2 = f(), f() }) {
		return nil, false
	}
	if fmt.Sprint(o1) != fmt.Sprint(o2) {
		c.report(ts.ErrNondeterministic, -1, nil, "two calls of %s returned %v and %v", name, o1, o2)
	}
	set := make(map[ts.Obj]bool, len(o1))
	for _, o := range o1 {
		if o < 0 || o == ts.InvariantObj {
			c.report(ts.ErrBadStep, -1, nil, "%s names object %d, want 0..%d", name, o, ts.InvariantObj-1)
			return nil, false
		}
		set[o] = true
	}
	return set, true
}
