package transact

import (
	"context"
	"fmt"
	"math"
	"runtime/debug"
	"strings"

	"github.com/bits-and-blooms/bitset"

	"github.com/weftlab/weft/internal/search"
	"github.com/weftlab/weft/ts"
)

// TransactionObj is the object that every step of a View reports: a write,
// marked Sync, of one object that stands for the shared state as a whole.
const TransactionObj ts.Obj = math.MaxInt32 - 1

// View is a system transformer: the system whose transitions are whole
// transactions of another. Any explorer runs on it coarsened; ts.Explore and
// ts.ExploreStateful, for instance, then interleave transactions rather than
// steps. Its states are the original system's; its schedules name one
// thread per transaction (Expand turns one into the original's schedule).
//
// Thread t's transaction at s runs t alone from s with its phase starting
// false, and stops after the first step that leaves it at
//   - a state whose Check or invariant fails, when it is the first step;
//     otherwise the transaction stops before that step, which is the next
//     transaction of the thread (no search goes on from a violating state,
//     so the other threads must have their turn before it, as a thread gone
//     wrong in the paper lets them run after it);
//   - a state where t is not enabled (blocked, idle, finished);
//   - a state where t, past its commit (phase false), has a next step that is
//     not a left mover: the transaction ended;
//   - a state where t's next transition has several outcomes: each outcome
//     is a choice of the environment, and a choice begins a transaction of
//     its own, whose outcomes are the view's (see below);
//   - a state on a cycle of t's own steps (a loop that never ends the
//     transaction), found by Brent's algorithm: stopping anywhere on the
//     cycle lets the other threads in, which answers the ignoring problem as
//     cycle detection does.
//
// Every transaction is an execution of the original, so what a search of the
// view reaches is reachable; by Lipton's theorem (Theorem 1 of the paper)
// every assertion failure of the original is reached by some sequence of
// transactions, and the view schedules every thread at every one of its
// states. Starting each transaction with phase false, and ending it before a
// choice, cuts a transaction earlier than the instrumented search would,
// never later: more scheduling points, never fewer.
//
// # Outcomes, idle threads and invariants
//
// The view is a ts.Chooser: the outcomes of thread t's transaction at s are
// those of t's next transition there (its first step), and outcome c takes
// that step with outcome c and then the steps of one outcome that follow.
// Schedules of the view record the outcome; Expand keeps it. A thread's
// status in the view is its status in the original, Idle included, so a
// search of the view ends normally where the original does.
//
// The view is a ts.Invariant when the original is one: the same invariant,
// whose read set is TransactionObj (every transaction writes it). It is
// checked at every state of the view, that is at transaction boundaries
// only; that is enough, because a step that writes an object the invariant
// reads is a non-mover (the movers say so whatever they declare), so a
// transaction makes at most one such step, its commit: the invariant's
// objects hold their values at the start from the start up to the commit,
// and their values at the end from the commit to the end. A transaction
// whose step makes the invariant fail stops before it, as for Check.
//
// # Steps and footprints
//
// The ts model has one Step per transition; a transaction makes many
// accesses. The View reports every transition as a write of TransactionObj,
// marked Sync, so that an explorer that judges dependence by Step (sleep
// sets, DPOR) sees every pair of transactions as dependent: sound, and no
// reduction. The real footprint is in Footprint: the objects the transaction
// reads and writes, as bitsets (Acquire and Release count as writes), and
// Conflict tells two footprints apart. An explorer that knows View may use
// them instead of Steps; note that a transaction's footprint, unlike a step,
// can change when another thread moves (the transaction reads another value
// and branches elsewhere), so it must be computed at the state where it is
// compared. Race detectors see only synchronization accesses and report
// nothing on a View.
//
// # Contract checks
//
// A search of the view sees one step per transaction, none of the
// original's, so the view checks what it hides: a transaction asks the
// original's Next twice where it starts, and panics with a *ts.SystemError
// wrapping ts.ErrNondeterministic when the answers differ (every strategy
// returns such a panic as its error; the view cannot name the schedule).
// Threads asks the original at every call.
//
// A View is safe for concurrent use if the system is.
type View[S any] struct {
	sys       ts.TransitionSystem[S]
	m         *search.Model[S]
	mover     moverFunc[S]
	hasher    ts.Hasher[S]
	describer ts.Describer[S]
	namer     ts.ObjNamer
	invReads  []ts.Obj // the original invariant's read set
	n         int
	// Discipline is the lock discipline the movers were inferred from, or
	// nil when the system declares them.
	Discipline *Discipline
}

// ViewOptions configure NewView.
type ViewOptions struct {
	// InferStates caps the inference pass for a system that does not
	// declare its movers; 0 means DefaultInferStates.
	InferStates int
}

// NewView returns the transaction view of sys, which must implement
// ts.Hasher. Its movers are sys's declarations ([Movers]) or, when it has
// none, inferred by [Infer], which explores sys exhaustively first.
func NewView[S any](ctx context.Context, sys ts.TransitionSystem[S], opt ViewOptions) (*View[S], error) {
	if err := search.Context(ctx); err != nil {
		return nil, err
	}
	if opt.InferStates < 0 {
		return nil, fmt.Errorf("%w: negative InferStates %d", ts.ErrBadOptions, opt.InferStates)
	}
	hasher, ok := sys.(ts.Hasher[S])
	if !ok {
		return nil, fmt.Errorf("%w: %w", ts.ErrBadOptions, ts.ErrNoHash)
	}
	m, err := search.NewModel(sys)
	if err != nil {
		return nil, err
	}
	mover, disc, err := resolveMovers(ctx, m, opt.InferStates, ts.Options{})
	if err != nil {
		return nil, err
	}
	v := &View[S]{sys: sys, m: m, mover: mover, hasher: hasher, n: m.N, Discipline: disc}
	v.describer, _ = sys.(ts.Describer[S])
	v.namer, _ = sys.(ts.ObjNamer)
	if m.Inv != nil {
		v.invReads = append([]ts.Obj(nil), m.Invariant.InvariantReads()...)
	}
	return v, nil
}

// Init returns the original system's initial state.
func (v *View[S]) Init() S { return v.sys.Init() }

// Threads returns the original system's thread count, asked again at every
// call: a search of the view then sees a count that changes, as a search of
// the original would.
func (v *View[S]) Threads() int { return v.sys.Threads() }

// Next reports thread t's status in the original system and, as its step, a
// write of TransactionObj (see the type's notes on footprints).
func (v *View[S]) Next(s S, t ts.Tid) (ts.Step, ts.Status) {
	_, st := v.sys.Next(s, t)
	return ts.Step{Obj: TransactionObj, Op: ts.Write, Sync: true}, st
}

// Apply runs thread t's transaction from s, with outcome 0.
func (v *View[S]) Apply(s S, t ts.Tid) S { return v.run(s, t, 0, nil) }

// Outcomes returns the number of outcomes of thread t's transaction at s:
// those of its first step.
func (v *View[S]) Outcomes(s S, t ts.Tid) int { return v.m.Outcomes(s, t) }

// ApplyOutcome runs thread t's transaction from s with outcome c of its
// first step.
func (v *View[S]) ApplyOutcome(s S, t ts.Tid, c int) S { return v.run(s, t, c, nil) }

// run runs thread t's transaction from s, its first step with outcome c,
// calling visit (if not nil) before each step with the state it starts
// from, the step (marked when it writes what the invariant reads) and its
// outcome.
//
// A Next that is not a function of the state panics with a
// *ts.SystemError wrapping ts.ErrNondeterministic, which every strategy
// returns as its error: the view reports one step for every transaction,
// so a search of it cannot see the original's steps change.
func (v *View[S]) run(s S, t ts.Tid, c int, visit func(x S, step ts.Step, out int)) S {
	x := s
	step, st := v.m.Next(x, t)
	// Asked twice where the transaction starts, the one state every
	// transaction of t from s shares: a single extra call per transaction.
	if again, st2 := v.m.Next(x, t); st2 != st || st != ts.Finished && !again.Equal(step) {
		panic(&ts.SystemError{Err: ts.ErrNondeterministic, Thread: t,
			Detail: fmt.Sprintf("two calls of Next on the state where a transaction starts (hash %#x) returned %v %v and %v %v; "+
				"the transaction view does not know the schedule that reached it", v.hasher.Hash(x), step, st, again, st2)})
	}
	m := v.mover(x, t, step, st)
	p := false
	saved, power, lam := v.hasher.Hash(x), 1, 0
	prev := saved
	k := 0 // steps taken
	for {
		p = nextPhase(p, m)
		y := v.m.Apply(x, ts.Move{Thread: t, Outcome: c})
		if v.m.Check(y) != nil {
			if k > 0 {
				return x // let the others run before the step that fails
			}
			if visit != nil {
				visit(x, step, c)
			}
			return y
		}
		if visit != nil {
			visit(x, step, c)
		}
		x = y
		k++
		step, st = v.m.Next(x, t)
		if st != ts.Enabled {
			return x
		}
		m = v.mover(x, t, step, st)
		if !p && !m.Left() {
			return x
		}
		if v.m.Outcomes(x, t) > 1 {
			return x // a choice begins a transaction of its own
		}
		c = 0
		h := v.hasher.Hash(x)
		if h == saved || h == prev {
			return x // back on a state of this transaction: a cycle
		}
		prev = h
		if lam++; lam == power {
			saved, power, lam = h, power*2, 0
		}
	}
}

// Footprint clears reads and writes and fills them with the objects thread
// t's transaction from s reads and writes, with any outcome (Acquire and
// Release count as writes). A transaction that writes an object the
// invariant reads writes, in its footprint, every object the invariant
// reads: so two such transactions conflict, as the invariant needs (see
// the type's notes). t must be enabled at s. It allocates nothing once the
// sets are large enough.
func (v *View[S]) Footprint(s S, t ts.Tid, reads, writes *bitset.BitSet) {
	reads.ClearAll()
	writes.ClearAll()
	visit := func(_ S, step ts.Step, _ int) {
		for i := range step.NumAccesses() {
			a := step.At(i)
			switch {
			case a.Obj == ts.InvariantObj:
				for _, o := range v.invReads {
					writes.Set(uint(o))
				}
			case a.Op == ts.Read:
				reads.Set(uint(a.Obj))
			default:
				writes.Set(uint(a.Obj))
			}
		}
	}
	for c := range v.m.Outcomes(s, t) {
		v.run(s, t, c, visit)
	}
}

// Conflict reports whether two footprints conflict: one writes an object the
// other reads or writes. Transactions that do not conflict commute.
func Conflict(reads1, writes1, reads2, writes2 *bitset.BitSet) bool {
	return writes1.IntersectionCardinality(writes2) > 0 ||
		writes1.IntersectionCardinality(reads2) > 0 ||
		writes2.IntersectionCardinality(reads1) > 0
}

// Len returns the number of steps of thread t's transaction from s, with
// outcome 0.
func (v *View[S]) Len(s S, t ts.Tid) int {
	k := 0
	v.run(s, t, 0, func(S, ts.Step, int) { k++ })
	return k
}

// Expand returns the original system's schedule of a schedule of the view:
// each transaction's thread repeated once per step, its first step with the
// transaction's outcome.
//
// Expand reruns the transactions, so user code may panic in it. It then
// returns the schedule up to and including the move during which the panic
// came (the move whose Next, Apply or Check panicked, or the move after a
// state whose Hash did), whose replay on the original system
// (ts.ReplayWith) reports the panic as a violation, and a *ts.PanicError.
// A *ts.SystemError that the system panics with (a wrapper's report, or the
// view's own: see run) is returned as the error, with the schedule up to
// where it showed.
func (v *View[S]) Expand(sched ts.Schedule) (out ts.Schedule, err error) {
	var pending ts.Move // the move being taken: its own calls may panic
	defer func() {
		if p := recover(); p != nil {
			if se, ok := p.(*ts.SystemError); ok {
				if se.Schedule == nil {
					se.Schedule = out.Clone()
				}
				out, err = nil, se
				return
			}
			out = append(out, pending)
			err = &ts.PanicError{Value: p, Stack: string(debug.Stack())}
		}
	}()
	s := v.sys.Init()
	for i, mv := range sched {
		t := mv.Thread
		pending = ts.Move{Thread: t, Outcome: mv.Outcome}
		if t < 0 || int(t) >= v.n {
			return nil, &ts.SystemError{Err: ts.ErrThreadRange, Thread: t, Schedule: sched.Clone(),
				Detail: fmt.Sprintf("step %d moves thread %d of %d", i, t, v.n)}
		}
		if _, st := v.sys.Next(s, t); st != ts.Enabled {
			return nil, &ts.SystemError{Err: ts.ErrNotEnabled, Thread: t, Schedule: sched.Clone(),
				Detail: fmt.Sprintf("step %d: thread is %v", i, st)}
		}
		if outs := v.m.Outcomes(s, t); mv.Outcome < 0 || mv.Outcome >= outs {
			return nil, &ts.SystemError{Err: ts.ErrNotEnabled, Thread: t, Schedule: sched.Clone(),
				Detail: fmt.Sprintf("step %d: outcome %d of a transaction with %d", i, mv.Outcome, outs)}
		}
		s = v.run(s, t, mv.Outcome, func(_ S, _ ts.Step, c int) {
			out = append(out, ts.Move{Thread: t, Outcome: c})
			pending = ts.Move{Thread: t}
		})
	}
	return out, nil
}

// Check is the original system's Check.
func (v *View[S]) Check(s S) error {
	if v.m.Checker == nil {
		return nil
	}
	return v.m.Checker.Check(s)
}

// Invariant is the original system's global invariant, or nil when it has
// none.
func (v *View[S]) Invariant(s S) error {
	if v.m.Invariant == nil {
		return nil
	}
	return v.m.Invariant.Invariant(s)
}

// InvariantReads returns TransactionObj, which every transaction writes,
// when the original system has an invariant that reads anything, and nil
// otherwise.
func (v *View[S]) InvariantReads() []ts.Obj {
	if len(v.invReads) == 0 {
		return nil
	}
	return []ts.Obj{TransactionObj}
}

// Hash is the original system's Hash.
func (v *View[S]) Hash(s S) uint64 { return v.hasher.Hash(s) }

// Describe lists the steps of thread t's transaction from s, separated by
// "; ", with the original system's descriptions where it has them; for a
// transaction whose outcomes take different steps, those of each outcome,
// "[0] ...; ... [1] ...".
func (v *View[S]) Describe(s S, t ts.Tid) string {
	if _, st := v.sys.Next(s, t); st != ts.Enabled {
		if v.describer != nil {
			return v.describer.Describe(s, t)
		}
		return ""
	}
	outs := v.m.Outcomes(s, t)
	all := make([]string, outs)
	same := true
	for c := range outs {
		all[c] = v.describe(s, t, c)
		same = same && all[c] == all[0]
	}
	if same {
		return all[0]
	}
	for c := range all {
		all[c] = fmt.Sprintf("[%d] %s", c, all[c])
	}
	return strings.Join(all, " ")
}

// describe lists the steps of thread t's transaction from s with outcome c.
func (v *View[S]) describe(s S, t ts.Tid, c int) string {
	const most = 8
	var parts []string
	k := 0
	v.run(s, t, c, func(x S, step ts.Step, _ int) {
		k++
		if k > most {
			return
		}
		d := ""
		if v.describer != nil {
			d = v.describer.Describe(x, t)
		}
		if d == "" {
			d = unmarked(step).Format(v)
		}
		parts = append(parts, d)
	})
	if k > most {
		parts = append(parts, fmt.Sprintf("… (%d steps)", k))
	}
	return strings.Join(parts, "; ")
}

// unmarked is step without the invariant's mark.
func unmarked(step ts.Step) ts.Step {
	if n := len(step.Also); n > 0 && step.Also[n-1].Obj == ts.InvariantObj {
		step.Also = step.Also[:n-1]
		if len(step.Also) == 0 {
			step.Also = nil
		}
	}
	return step
}

// ObjName names TransactionObj "transaction" and the other objects as the
// original system does.
func (v *View[S]) ObjName(o ts.Obj) string {
	if o == TransactionObj {
		return "transaction"
	}
	if v.namer == nil {
		return ""
	}
	return v.namer.ObjName(o)
}
