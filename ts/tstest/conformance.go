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
	// moved. Only its status may change; partial-order reduction relies on it.
	ErrStepChanged = errors.New("a thread's next step changed when another thread moved")
	// ErrUnfinished: a Finished thread is not Finished in a successor.
	ErrUnfinished = errors.New("a finished thread is not finished in a successor")
	// ErrIndependence: two steps that ts.Dependent calls independent do not
	// commute: one disables the other, or the two orders reach different
	// states.
	ErrIndependence = errors.New("independent steps do not commute")
	// ErrPanic: user code panicked.
	ErrPanic = errors.New("user code panicked")
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
// ErrUnfinished, ErrIndependence or ErrPanic. It explores breadth first from
// the initial state and checks at each state s reached by a schedule:
//   - Threads is constant and in 1..ts.MaxThreads; Init is deterministic.
//   - Next, Apply, Check and Hash are deterministic: two calls agree.
//   - Next returns a defined Status, and a defined Op and an Obj >= 0 for a
//     thread that has not finished.
//   - Apply does not modify its argument: s is compared with the state
//     rebuilt by replaying its schedule from Init.
//   - A Finished thread is Finished in every successor, and another
//     thread's transition changes a thread's status at most, never its step.
//   - For threads t and u enabled at s whose steps are independent, each is
//     still enabled after the other moves, and both orders reach equal states.
//   - No user method (Describe and ObjName included) panics.
//
// As in a search, a state whose Check fails is not explored further.
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

// replay rebuilds the state a schedule reaches, without checks.
func (c *conformance[S]) replay(sched ts.Schedule) (s S, ok bool) {
	ok = c.safe(-1, sched, "replaying the schedule", func() {
		s = c.sys.Init()
		for _, t := range sched {
			s = c.sys.Apply(s, t)
		}
	})
	return s, ok
}

// violates calls Check and reports whether it fails; two calls must agree.
func (c *conformance[S]) violates(s S, t ts.Tid, sched ts.Schedule) (bad, ok bool) {
	if c.checker == nil {
		return false, true
	}
	var e1, e2 error
	if !c.safe(t, sched, "Check", func() { e1, e2 = c.checker.Check(s), c.checker.Check(s) }) {
		return true, false
	}
	if (e1 == nil) != (e2 == nil) || (e1 != nil && e1.Error() != e2.Error()) {
		c.report(ts.ErrNondeterministic, -1, sched, "two calls of Check on one state returned %v and %v", e1, e2)
	}
	return e1 != nil, true
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
	if bad, ok := c.violates(s, -1, sched); bad || !ok {
		return nil
	}
	steps := make([]ts.Step, c.n)
	status := make([]ts.Status, c.n)
	enabled := false
	for t := range ts.Tid(c.n) {
		var st1, st2 ts.Step
		var ss1, ss2 ts.Status
		if !c.safe(t, sched, "Next", func() { st1, ss1 = c.sys.Next(s, t); st2, ss2 = c.sys.Next(s, t) }) {
			return nil
		}
		if st1 != st2 || ss1 != ss2 {
			c.report(ts.ErrNondeterministic, t, sched, "two calls of Next on one state returned %v %v and %v %v", st1, ss1, st2, ss2)
		}
		if ss1 > ts.Finished || (ss1 != ts.Finished && (!st1.Op.Valid() || st1.Obj < 0)) {
			c.report(ts.ErrBadStep, t, sched, "Next returned step %v with status %v", st1, ss1)
			return nil
		}
		steps[t], status[t] = st1, ss1
		if ss1 == ts.Finished {
			continue
		}
		enabled = enabled || ss1 == ts.Enabled
		if c.describer != nil {
			c.safe(t, sched, "Describe", func() { c.describer.Describe(s, t) })
		}
		if c.namer != nil {
			c.safe(t, sched, "ObjName", func() { c.namer.ObjName(st1.Obj) })
		}
	}
	if !enabled {
		return nil
	}

	// Successors: Apply is deterministic and leaves its argument alone.
	children := make([]S, c.n)
	okChild := make([]bool, c.n) // child exists and its Check passes
	var next []node[S]
	for t := range ts.Tid(c.n) {
		if status[t] != ts.Enabled {
			continue
		}
		var c1, c2 S
		if !c.safe(t, sched, "Apply", func() { c1 = c.sys.Apply(s, t) }) {
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
		if !c.safe(t, sched, "Apply", func() { c2 = c.sys.Apply(s, t) }) {
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
		childSched := append(sched.Clone(), t)
		children[t] = c1
		next = append(next, node[S]{s: c1, sched: childSched})
		bad, ok := c.violates(c1, t, childSched)
		okChild[t] = ok && !bad
	}

	// Other threads' steps survive each transition.
	for u := range ts.Tid(c.n) {
		if !okChild[u] {
			continue
		}
		cs := append(sched.Clone(), u)
		for t := range ts.Tid(c.n) {
			if t == u {
				continue
			}
			var step ts.Step
			var st ts.Status
			if !c.safe(t, cs, "Next", func() { step, st = c.sys.Next(children[u], t) }) {
				continue
			}
			switch {
			case status[t] == ts.Finished && st != ts.Finished:
				c.report(ErrUnfinished, t, sched, "finished, then %v with step %v after thread %d moved", st, step, u)
			case status[t] != ts.Finished && st == ts.Finished:
				c.report(ErrStepChanged, t, sched, "step %v (%v) became finished after thread %d moved", steps[t], status[t], u)
			case status[t] != ts.Finished && step != steps[t]:
				c.report(ErrStepChanged, t, sched, "step %v became %v after thread %d moved", steps[t], step, u)
			}
		}
	}

	// Independent steps commute.
	for t := range ts.Tid(c.n) {
		for u := t + 1; int(u) < c.n; u++ {
			if !okChild[t] || !okChild[u] || ts.Dependent(steps[t], steps[u]) {
				continue
			}
			c.diamond(sched, t, u, steps, children)
		}
	}
	return next
}

// diamond checks that the independent transitions of t and u at the state
// reached by sched commute.
func (c *conformance[S]) diamond(sched ts.Schedule, t, u ts.Tid, steps []ts.Step, children []S) {
	var after [2]S
	for i, p := range [2][2]ts.Tid{{t, u}, {u, t}} {
		first, second := p[0], p[1]
		cs := append(sched.Clone(), first)
		var st ts.Status
		if !c.safe(second, cs, "Next", func() { _, st = c.sys.Next(children[first], second) }) {
			return
		}
		if st != ts.Enabled {
			c.report(ErrIndependence, second, sched,
				"its step %v is independent of thread %d's step %v, but it is %v after thread %d moves",
				steps[second], first, steps[first], st, first)
			return
		}
		if !c.safe(second, cs, "Apply", func() { after[i] = c.sys.Apply(children[first], second) }) {
			return
		}
	}
	if eq, ok := c.eq(after[0], after[1], t, sched); ok && !eq {
		c.report(ErrIndependence, t, sched,
			"its step %v and thread %d's step %v are independent, but the two orders reach different states",
			steps[t], u, steps[u])
	}
}
