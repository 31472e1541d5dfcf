package transact

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/weftlab/weft/internal/search"
	"github.com/weftlab/weft/ts"
)

// ErrMover is wrapped by the *MoverError that VerifyMovers returns.
var ErrMover = errors.New("transact: a mover declaration does not hold")

// DefaultVerifyStates is the number of states VerifyMovers explores when
// VerifyOptions.MaxStates is zero.
const DefaultVerifyStates = 100_000

// VerifyOptions bound VerifyMovers.
type VerifyOptions struct {
	// MaxStates caps the reachable states; 0 means DefaultVerifyStates. A
	// larger system is an error: the check must be exhaustive to mean
	// anything.
	MaxStates int
}

// MoverError reports a mover declaration that breaks one of the four
// properties of section 3 of the paper, at a reachable state.
type MoverError struct {
	// Property is the number of the property broken, 1 to 4:
	//  1. a right mover of t followed by a step of u can be swapped;
	//  2. a step of t that is a right mover after u's step, and enabled
	//     before it, is a right mover before it too;
	//  3. a step of u followed by a left mover of t can be swapped;
	//  4. a left mover of t enabled before u's step is enabled, and a left
	//     mover, after it.
	Property int
	// Thread is the thread whose declaration is wrong, Other the thread
	// whose step shows it.
	Thread, Other ts.Tid
	// Declared is Thread's declared mover type at the state where the
	// property is checked (the state Schedule reaches, or its successor by
	// Other's step for properties 2 and 3).
	Declared Mover
	// Step is Thread's step, OtherStep Other's.
	Step, OtherStep ts.Step
	// Schedule reaches the state from the initial one.
	Schedule ts.Schedule
	// Detail says what was seen, with the steps described where the system
	// can.
	Detail string
	names  ts.ObjNamer
}

func (e *MoverError) Error() string {
	return fmt.Sprintf("transact: thread %d's %v, declared a %v, breaks mover property %d against thread %d's %v at schedule %v: %s",
		e.Thread, e.Step.Format(e.names), e.Declared, e.Property, e.Other, e.OtherStep.Format(e.names), e.Schedule, e.Detail)
}

// Unwrap returns ErrMover.
func (e *MoverError) Unwrap() error { return ErrMover }

// VerifyMovers checks the movers of sys (its declarations, through [Movers],
// or the movers inferred from its lock discipline if it declares none)
// against the four properties of section 3 of the paper, exhaustively: at
// every reachable state, for every ordered pair of threads t ≠ u (see
// MoverError.Property). States are compared by Hash, which sys must
// implement. It returns nil when every property holds, a *MoverError for the
// first breach found (breadth first, so with a shortest schedule), or an
// error if the state space is larger than opt.MaxStates or user code
// panics.
//
// Declaring movers by hand is where a transaction-based search goes wrong:
// a racy access declared a both mover makes it skip interleavings that
// matter. Run VerifyMovers on a small instance of the system in a test.
// Movers of finished threads (how a thread's end counts) are not checked:
// they change where transactions end, never soundness. As in every search, a
// violating state is a sink, and a commutation diagram whose first step
// reaches one is not checked: the search reports the violation there.
func VerifyMovers[S any](ctx context.Context, sys ts.TransitionSystem[S], opt VerifyOptions) (err error) {
	if err := search.Context(ctx); err != nil {
		return err
	}
	if opt.MaxStates < 0 {
		return fmt.Errorf("%w: negative MaxStates %d", ts.ErrBadOptions, opt.MaxStates)
	}
	hasher, ok := sys.(ts.Hasher[S])
	if !ok {
		return fmt.Errorf("%w: %w", ts.ErrBadOptions, ts.ErrNoHash)
	}
	n, err := search.Threads(sys)
	if err != nil {
		return err
	}
	limit := opt.MaxStates
	if limit == 0 {
		limit = DefaultVerifyStates
	}
	mover, _, err := resolveMovers(ctx, sys, limit, ts.Options{})
	if err != nil {
		return err
	}
	g := &graph[S]{sys: sys, hasher: hasher, n: n, mover: mover, index: make(map[uint64]int32)}
	g.checker, _ = sys.(ts.Checker[S])
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: user code panicked while verifying movers: %v", ts.ErrBadSystem, p)
		}
	}()
	if err := g.build(ctx, limit); err != nil {
		return err
	}
	return g.verify()
}

// graph is the reachable state graph of a system with its movers.
type graph[S any] struct {
	sys     ts.TransitionSystem[S]
	hasher  ts.Hasher[S]
	checker ts.Checker[S]
	n       int
	mover   moverFunc[S]
	index   map[uint64]int32
	states  []S
	parent  []int32  // BFS parent, -1 for the initial state
	via     []ts.Tid // thread of the transition from the parent
	bad     []bool   // Check fails
	steps   []ts.Step
	status  []ts.Status
	movers  []Mover
	succ    []int32 // succ[i*n+t]: t's successor of state i, or -1
}

func (g *graph[S]) add(s S, parent int32, t ts.Tid) (int32, bool) {
	h := g.hasher.Hash(s)
	if i, ok := g.index[h]; ok {
		return i, false
	}
	i := int32(len(g.states))
	g.index[h] = i
	g.states = append(g.states, s)
	g.parent = append(g.parent, parent)
	g.via = append(g.via, t)
	return i, true
}

// build explores every reachable state breadth first. A violating state is a
// sink, as for every search: no thread moves from it.
func (g *graph[S]) build(ctx context.Context, limit int) error {
	g.add(g.sys.Init(), -1, -1)
	cur := ts.Tid(-1)
	for i := 0; i < len(g.states); i++ {
		if i&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("weft: search cancelled: %w", err)
			}
		}
		s := g.states[i]
		base := len(g.steps)
		g.steps = append(g.steps, make([]ts.Step, g.n)...)
		g.status = append(g.status, make([]ts.Status, g.n)...)
		g.movers = append(g.movers, make([]Mover, g.n)...)
		g.succ = append(g.succ, make([]int32, g.n)...)
		if _, _, err := search.Look(g.sys, s, g.steps[base:], g.status[base:], &cur); err != nil {
			return search.WithSchedule(err, g.schedule(int32(i)))
		}
		bad := g.checker != nil && g.checker.Check(s) != nil
		g.bad = append(g.bad, bad)
		for t := range ts.Tid(g.n) {
			g.succ[base+int(t)] = -1
			if bad || g.status[base+int(t)] != ts.Enabled {
				continue
			}
			g.movers[base+int(t)] = g.mover(s, t, g.steps[base+int(t)], ts.Enabled)
			j, fresh := g.add(g.sys.Apply(s, t), int32(i), t)
			if fresh && len(g.states) > limit {
				return fmt.Errorf("%w: more than %d reachable states: verify movers on a smaller instance", ts.ErrBadOptions, limit)
			}
			g.succ[base+int(t)] = j
		}
	}
	return nil
}

func (g *graph[S]) schedule(i int32) ts.Schedule {
	var s ts.Schedule
	for ; g.parent[i] >= 0; i = g.parent[i] {
		s = append(s, ts.Move{Thread: g.via[i]})
	}
	slices.Reverse(s)
	return s
}

// next returns t's successor of state i and t's mover there, or -1.
func (g *graph[S]) next(i int32, t ts.Tid) (int32, Mover) {
	k := int(i)*g.n + int(t)
	return g.succ[k], g.movers[k]
}

func (g *graph[S]) verify() error {
	for i := range int32(len(g.states)) {
		if g.bad[i] {
			continue // no search goes on from a violating state
		}
		for t := range ts.Tid(g.n) {
			for u := range ts.Tid(g.n) {
				if u == t {
					continue
				}
				if err := g.pair(i, t, u); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// pair checks the four properties for threads t (the mover) and u at state i.
func (g *graph[S]) pair(i int32, t, u ts.Tid) error {
	st, mt := g.next(i, t)
	su, _ := g.next(i, u)
	// A diagram through a violating state is not checked: the search
	// stops there and reports it, whichever order it takes.
	if st >= 0 && g.bad[st] || su >= 0 && g.bad[su] {
		return nil
	}
	fail := func(prop int, declared Mover, format string, args ...any) error {
		e := &MoverError{Property: prop, Thread: t, Other: u, Declared: declared,
			Step: g.steps[int(i)*g.n+int(t)], OtherStep: g.steps[int(i)*g.n+int(u)],
			Schedule: g.schedule(i), Detail: fmt.Sprintf(format, args...)}
		if nm, ok := g.sys.(ts.ObjNamer); ok {
			e.names = nm
		}
		return e
	}
	desc := func(j int32, v ts.Tid) string { return g.describe(j, v) }
	// 1. A right mover of t, then u's step: u's step first, then t's (a
	// right mover there too), reaches the same state.
	if st >= 0 && mt.Right() {
		if s2, _ := g.next(st, u); s2 >= 0 {
			if su < 0 {
				return fail(1, mt, "%s enables %s: thread %d can move only after it", desc(i, t), desc(st, u), u)
			}
			s4, m4 := g.next(su, t)
			switch {
			case s4 < 0:
				return fail(1, mt, "%s disables %s", desc(i, u), desc(i, t))
			case !m4.Right():
				return fail(1, mt, "after %s, thread %d's step is declared a %v", desc(i, u), t, m4)
			case s4 != s2:
				return fail(1, mt, "%s then %s reaches another state than the other order", desc(i, t), desc(st, u))
			}
		}
	}
	if su < 0 {
		return nil
	}
	s1t, m1t := g.next(su, t) // t after u's step
	// 2. Enabled before u's step and a right mover after it: a right mover
	// before it too.
	if s1t >= 0 && m1t.Right() && st >= 0 && !mt.Right() {
		return fail(2, mt, "it is declared a %v after %s but a %v before", m1t, desc(i, u), mt)
	}
	// 3. u's step, then a left mover of t: t's step first (a left mover),
	// then u's, reaches the same state.
	if s1t >= 0 && m1t.Left() {
		switch {
		case st < 0:
			return fail(3, m1t, "%s enables %s, declared a %v", desc(i, u), desc(su, t), m1t)
		case !mt.Left():
			return fail(3, m1t, "it is declared a %v after %s but a %v before", m1t, desc(i, u), mt)
		}
		s3 := g.succ[int(st)*g.n+int(u)]
		if s3 < 0 {
			return fail(3, m1t, "%s disables %s", desc(i, t), desc(i, u))
		}
		if s3 != s1t {
			return fail(3, m1t, "%s then %s reaches another state than the other order", desc(i, u), desc(su, t))
		}
	}
	// 4. A left mover of t stays enabled, and a left mover, after u's step.
	if st >= 0 && mt.Left() {
		switch {
		case s1t < 0:
			return fail(4, mt, "%s disables it", desc(i, u))
		case !m1t.Left():
			return fail(4, mt, "after %s it is declared a %v", desc(i, u), m1t)
		}
	}
	return nil
}

// describe names thread v's step at state j, with the system's description
// when it has one: "thread 1's write x (x := 1)".
func (g *graph[S]) describe(j int32, v ts.Tid) string {
	step := g.steps[int(j)*g.n+int(v)]
	var names ts.ObjNamer
	if nm, ok := g.sys.(ts.ObjNamer); ok {
		names = nm
	}
	s := fmt.Sprintf("thread %d's %s", v, step.Format(names))
	if d, ok := g.sys.(ts.Describer[S]); ok {
		if text := strings.TrimSpace(d.Describe(g.states[j], v)); text != "" {
			s += " (" + text + ")"
		}
	}
	return s
}
