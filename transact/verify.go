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

// MoverError reports a mover declaration that breaks one of the five
// properties the reduction relies on, at a reachable state.
type MoverError struct {
	// Property is the number of the property broken, 1 to 5. The first
	// four are those of section 3 of the paper, for every outcome of each
	// step; the fifth is what a normal end with a thread waiting Idle
	// needs:
	//  1. a right mover of t followed by a step of u can be swapped;
	//  2. a step of t that is a right mover after u's step, and enabled
	//     before it, is a right mover before it too;
	//  3. a step of u followed by a left mover of t can be swapped;
	//  4. a left mover of t enabled before u's step is enabled, and a left
	//     mover, after it;
	//  5. a right mover of t never makes u Idle: if u is Idle after it, u
	//     was Idle before it.
	// A violating state is a sink: where one order of two steps reaches
	// one, the other must reach the same violation (a left mover taken
	// first leaves a step that goes wrong enabled and going wrong, for 4).
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
// or the movers inferred from its lock discipline if it declares none) as
// the searches use them (a step that writes an object of the global
// invariant counts as a non-mover whatever is declared) against the five
// properties of MoverError.Property, exhaustively: at every reachable state,
// for every ordered pair of threads t ≠ u and every outcome of their steps.
// States are compared by Hash, which sys must implement. It returns nil
// when every property holds, a *MoverError for the first breach found
// (breadth first, so with a shortest schedule), or an error if the state
// space is larger than opt.MaxStates or user code panics.
//
// Declaring movers by hand is where a transaction-based search goes wrong:
// a racy access declared a both mover makes it skip interleavings that
// matter. Run VerifyMovers on a small instance of the system in a test.
// Movers of finished threads (how a thread's end counts) are not checked:
// they change where transactions end, never soundness. As in every search, a
// violating state (Check or the invariant fails) is a sink: a commutation
// diagram whose first step reaches one holds if the other order reaches the
// same violation (kind and message: the step goes wrong either way, and the
// same way), and is not checked further.
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
	m, err := search.NewModel(sys)
	if err != nil {
		return err
	}
	limit := opt.MaxStates
	if limit == 0 {
		limit = DefaultVerifyStates
	}
	mover, _, err := resolveMovers(ctx, m, limit, ts.Options{})
	if err != nil {
		return err
	}
	g := &graph[S]{m: m, hasher: hasher, n: m.N, mover: mover, index: make(map[uint64]int32)}
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
	m      *search.Model[S]
	hasher ts.Hasher[S]
	n      int
	mover  moverFunc[S]
	index  map[uint64]int32
	states []S
	parent []int32   // BFS parent, -1 for the initial state
	via    []ts.Move // the move from the parent
	bad    []bool    // Check or the invariant fails
	why    []string  // then the violation, kind and message
	steps  []ts.Step
	status []ts.Status
	movers []Mover
	succ   [][]int32 // succ[i*n+t]: t's successor of state i by each outcome, nil unless enabled
}

func (g *graph[S]) add(s S, parent int32, mv ts.Move) (int32, bool) {
	h := g.hasher.Hash(s)
	if i, ok := g.index[h]; ok {
		return i, false
	}
	i := int32(len(g.states))
	g.index[h] = i
	g.states = append(g.states, s)
	g.parent = append(g.parent, parent)
	g.via = append(g.via, mv)
	return i, true
}

// build explores every reachable state breadth first, every outcome of
// every transition. A violating state is a sink, as for every search: no
// thread moves from it.
func (g *graph[S]) build(ctx context.Context, limit int) error {
	g.add(g.m.Sys.Init(), -1, ts.Move{Thread: -1})
	cur := ts.Tid(-1)
	outs := make([]int, g.n)
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
		g.succ = append(g.succ, make([][]int32, g.n)...)
		if _, err := g.m.Look(s, g.steps[base:], g.status[base:], outs, &cur); err != nil {
			return search.WithSchedule(err, g.schedule(int32(i)))
		}
		v := g.m.Check(s)
		bad := v != nil
		g.bad = append(g.bad, bad)
		why := ""
		if bad {
			why = fmt.Sprintf("%v: %v", v.Kind, v.Err)
		}
		g.why = append(g.why, why)
		for t := range ts.Tid(g.n) {
			if bad || g.status[base+int(t)] != ts.Enabled {
				continue
			}
			g.movers[base+int(t)] = g.mover(s, t, g.steps[base+int(t)], ts.Enabled)
			succ := make([]int32, outs[t])
			for c := range outs[t] {
				mv := ts.Move{Thread: t, Outcome: c}
				j, fresh := g.add(g.m.Apply(s, mv), int32(i), mv)
				if fresh && len(g.states) > limit {
					return fmt.Errorf("%w: more than %d reachable states: verify movers on a smaller instance", ts.ErrBadOptions, limit)
				}
				succ[c] = j
			}
			g.succ[base+int(t)] = succ
		}
	}
	return nil
}

func (g *graph[S]) schedule(i int32) ts.Schedule {
	var s ts.Schedule
	for ; g.parent[i] >= 0; i = g.parent[i] {
		s = append(s, g.via[i])
	}
	slices.Reverse(s)
	return s
}

// next returns t's successors of state i (one per outcome, nil unless t is
// enabled) and t's mover there.
func (g *graph[S]) next(i int32, t ts.Tid) ([]int32, Mover) {
	k := int(i)*g.n + int(t)
	return g.succ[k], g.movers[k]
}

func (g *graph[S]) statusAt(i int32, t ts.Tid) ts.Status { return g.status[int(i)*g.n+int(t)] }

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

// pair checks the five properties for threads t (the mover) and u at state
// i, for every outcome a of t's step and b of u's. A diagram through a
// violating state holds when both orders go wrong the same way: the search
// stops there and reports it, whichever order it takes. One that goes
// wrong in one order only, or another way, does not: the reduction, which
// takes one order, would lose the runs or the violation of the other.
func (g *graph[S]) pair(i int32, t, u ts.Tid) error {
	sts, mt := g.next(i, t)
	sus, _ := g.next(i, u)
	fail := func(prop int, declared Mover, format string, args ...any) error {
		e := &MoverError{Property: prop, Thread: t, Other: u, Declared: declared,
			Step: unmarked(g.steps[int(i)*g.n+int(t)]), OtherStep: unmarked(g.steps[int(i)*g.n+int(u)]),
			Schedule: g.schedule(i), Detail: fmt.Sprintf(format, args...)}
		if nm, ok := g.m.Sys.(ts.ObjNamer); ok {
			e.names = nm
		}
		return e
	}
	desc := func(j int32, v ts.Tid, c int) string { return g.describe(j, v, c) }
	// 1. A right mover of t, then u's step: u's step first, then t's (a
	// right mover there too), reaches the same state. 5. If u is Idle
	// after t's right mover, it was Idle before it.
	if sts != nil && mt.Right() {
		for a, st := range sts {
			if g.bad[st] {
				continue
			}
			if g.statusAt(st, u) == ts.Idle && g.statusAt(i, u) != ts.Idle {
				return fail(5, mt, "%s makes thread %d Idle (it was %v)", desc(i, t, a), u, g.statusAt(i, u))
			}
			s2s, _ := g.next(st, u)
			for b, s2 := range s2s {
				if sus == nil {
					return fail(1, mt, "%s enables %s: thread %d can move only after it", desc(i, t, a), desc(st, u, b), u)
				}
				if b >= len(sus) {
					return fail(1, mt, "%s gives %s %d outcomes, %d before", desc(i, t, a), desc(st, u, b), len(s2s), len(sus))
				}
				if g.bad[sus[b]] {
					// u's step goes wrong first; it must after t's too,
					// the same way, or moving t's step right loses the
					// run that goes on, or the violation it shows.
					if !g.sameWrong(sus[b], s2) {
						return fail(1, mt, "%s goes wrong before %s (%s), not the same way after it (%s)",
							desc(i, u, b), desc(i, t, a), g.why[sus[b]], g.wrong(s2))
					}
					continue
				}
				s4s, m4 := g.next(sus[b], t)
				switch {
				case s4s == nil:
					return fail(1, mt, "%s disables %s", desc(i, u, b), desc(i, t, a))
				case !m4.Right():
					return fail(1, mt, "after %s, thread %d's step is declared a %v", desc(i, u, b), t, m4)
				case a >= len(s4s):
					return fail(1, mt, "%s changes the number of outcomes of %s", desc(i, u, b), desc(i, t, a))
				case s4s[a] != s2:
					return fail(1, mt, "%s then %s reaches another state than the other order", desc(i, t, a), desc(st, u, b))
				}
			}
		}
	}
	tBad := false // t's step reaches a violating state
	for _, st := range sts {
		tBad = tBad || g.bad[st]
	}
	for b, su := range sus {
		if g.bad[su] {
			// 4, for a step of u that goes wrong: a left mover of t
			// taken first leaves it enabled and going wrong (the search
			// completes t's transaction with its left movers before
			// others run, as Lipton's argument moves them left).
			if sts == nil || !mt.Left() {
				continue
			}
			for a, st := range sts {
				if g.bad[st] {
					continue
				}
				s3s, _ := g.next(st, u)
				if s3s == nil || b >= len(s3s) {
					return fail(4, mt, "%s goes wrong (%s), but %s disables it", desc(i, u, b), g.why[su], desc(i, t, a))
				}
				if !g.sameWrong(su, s3s[b]) {
					return fail(4, mt, "%s goes wrong (%s), but not the same way after %s (%s)", desc(i, u, b), g.why[su], desc(i, t, a), g.wrong(s3s[b]))
				}
			}
			continue
		}
		s1ts, m1t := g.next(su, t) // t after u's step
		// 2. Enabled before u's step and a right mover after it: a right
		// mover before it too.
		if s1ts != nil && m1t.Right() && sts != nil && !mt.Right() && !tBad {
			return fail(2, mt, "it is declared a %v after %s but a %v before", m1t, desc(i, u, b), mt)
		}
		// 3. u's step, then a left mover of t: t's step first (a left
		// mover), then u's, reaches the same state.
		if s1ts != nil && m1t.Left() {
			switch {
			case sts == nil:
				return fail(3, m1t, "%s enables %s, declared a %v", desc(i, u, b), desc(su, t, 0), m1t)
			case !mt.Left():
				return fail(3, m1t, "it is declared a %v after %s but a %v before", m1t, desc(i, u, b), mt)
			case len(sts) != len(s1ts):
				return fail(3, m1t, "%s changes the number of outcomes of %s", desc(i, u, b), desc(i, t, 0))
			}
			for a, st := range sts {
				if g.bad[st] {
					// t's step goes wrong first; it must after u's too,
					// the same way.
					if !g.sameWrong(st, s1ts[a]) {
						return fail(3, m1t, "%s goes wrong before %s (%s), not the same way after it (%s)",
							desc(i, t, a), desc(i, u, b), g.why[st], g.wrong(s1ts[a]))
					}
					continue
				}
				s3s, _ := g.next(st, u)
				switch {
				case s3s == nil:
					return fail(3, m1t, "%s disables %s", desc(i, t, a), desc(i, u, b))
				case b >= len(s3s):
					return fail(3, m1t, "%s changes the number of outcomes of %s", desc(i, t, a), desc(i, u, b))
				case s3s[b] != s1ts[a]:
					return fail(3, m1t, "%s then %s reaches another state than the other order", desc(i, u, b), desc(su, t, a))
				}
			}
		}
		// 4. A left mover of t stays enabled, and a left mover, after u's
		// step.
		if sts != nil && mt.Left() && !tBad {
			switch {
			case s1ts == nil:
				return fail(4, mt, "%s disables it", desc(i, u, b))
			case !m1t.Left():
				return fail(4, mt, "after %s it is declared a %v", desc(i, u, b), m1t)
			}
		}
	}
	return nil
}

// sameWrong reports whether states j and k are violating with the same
// violation (kind and message).
func (g *graph[S]) sameWrong(j, k int32) bool { return g.bad[j] && g.bad[k] && g.why[j] == g.why[k] }

// wrong says what is wrong at state j, if anything.
func (g *graph[S]) wrong(j int32) string {
	if !g.bad[j] {
		return "no violation"
	}
	return g.why[j]
}

// describe names thread v's step at state j, with outcome c when it has
// several, and with the system's description when it has one: "thread 1's
// write x (x := 1)", "thread 0's write x, outcome 1 of 2".
func (g *graph[S]) describe(j int32, v ts.Tid, c int) string {
	step := unmarked(g.steps[int(j)*g.n+int(v)])
	var names ts.ObjNamer
	if nm, ok := g.m.Sys.(ts.ObjNamer); ok {
		names = nm
	}
	s := fmt.Sprintf("thread %d's %s", v, step.Format(names))
	if k := len(g.succ[int(j)*g.n+int(v)]); k > 1 {
		s += fmt.Sprintf(", outcome %d of %d", c, k)
	}
	if d, ok := g.m.Sys.(ts.Describer[S]); ok {
		if text := strings.TrimSpace(d.Describe(g.states[j], v)); text != "" {
			s += " (" + text + ")"
		}
	}
	return s
}
