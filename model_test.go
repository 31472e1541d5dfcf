package weft_test

import (
	"context"
	"errors"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft"
	"github.com/weftlab/weft/mat"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// No strategy gives a silent wrong answer on the whole model (steps of
// several objects, outcomes, idle threads, invariants, compare-and-swaps
// that fail as reads): on random programs,
// each either refuses the program up front with an error wrapping
// ts.ErrUnsupported (or ts.ErrBadOptions, for what it needs and the program
// lacks) or reaches exactly the terminal states and violations of the
// reference search (within the bound, for the bounded ones). The
// unsound transaction reduction, which misses bugs by design, is left out,
// and so is sync-only scheduling, which preserves terminal states only for
// race-free programs (cbound's tests check what it promises).
func TestEveryStrategyOnTheWholeModel(t *testing.T) {
	supported := map[string]int{}
	rapid.Check(t, func(rt *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{MaxThreads: 3, CASReads: true}).Draw(rt, "program")
		deadlocks := blocks(p)
		for _, s := range wholeModelStrategies() {
			if s == weft.Unsound() || s == weft.SyncOnly() {
				continue
			}
			bound := s.Bound()
			explore := func(ctx context.Context, sys ts.TransitionSystem[tstest.State], o ts.Options) (ts.Result, error) {
				return weft.Run(ctx, sys, s, o)
			}
			var sys ts.TransitionSystem[tstest.State] = p
			if s == weft.Sym() || s == weft.SymPOR() {
				sys = symProgram{p} // the trivial symmetry: checks what Orbits and sympor forward
			}
			probe, err := explore(context.Background(), sys, ts.Options{KeepGoing: true})
			if errors.Is(err, ts.ErrUnsupported) || errors.Is(err, ts.ErrBadOptions) || errors.Is(err, mat.ErrNotStraightLine) {
				continue // refused up front, with the reason
			}
			if !probe.Finds.Has(ts.Deadlock) && deadlocks {
				continue // a strategy that says it does not promise deadlocks
			}
			stateful := s.Needs().Has(weft.NeedsHash)
			opaque := s == weft.CPC() || s == weft.Cycle() || s == weft.Sym()
			// mat stops each class's representative at its first failure,
			// and promises a violation, not each one (its package doc).
			some := s == weft.MAT()
			rep := tstest.CheckReduction(rt, sys, explore, tstest.ReductionOptions{Bound: bound, Stateful: stateful, Opaque: opaque, SomeViolation: some})
			if len(rep.Errors) > 0 {
				rt.Fatalf("%s: %d discrepancies", s, len(rep.Errors))
			}
			supported[s.Name()]++
		}
	})
	t.Logf("programs accepted and checked, by strategy: %v", supported)
}

// wholeModelStrategies is every strategy and the compositions with the
// transaction view that the whole-model property checks.
func wholeModelStrategies() []weft.Strategy {
	return append(weft.Strategies(), tx(weft.DFS()), tx(weft.ODPOR()), tx(weft.DFSStateful()))
}

// symProgram declares the trivial symmetry of a program (every thread its
// own orbit).
type symProgram struct{ *tstest.Program }

func (p symProgram) Canonical(s tstest.State) (tstest.State, []ts.Tid) {
	perm := make([]ts.Tid, p.Threads())
	for t := range perm {
		perm[t] = ts.Tid(t)
	}
	return s, perm
}

// Signature gives every thread a signature of its own: no two threads are
// interchangeable, so sympor must match the reference exactly.
func (p symProgram) Signature(_ tstest.State, t ts.Tid) uint64 { return uint64(t) + 1 }

// blocks reports whether some execution of p ends with a thread blocked.
func blocks(p *tstest.Program) bool {
	found := false
	_, _ = ts.Explore(context.Background(), p, ts.Options{KeepGoing: true, OnViolation: func(v *ts.Violation) {
		found = found || v.Kind == ts.Deadlock
	}})
	return found
}

// Any explorer on the transaction view reaches the terminal states and
// failed checks of the reference on programs of the basic model (what the
// composition is documented for; the whole-model test covers the rest), with schedules of the
// system itself; deadlocks are not promised, so programs that deadlock are
// left out, as they are for cpc.
func TestTransactionViewOnTheBasicModel(t *testing.T) {
	checked := map[string]int{}
	rapid.Check(t, func(rt *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{MaxThreads: 3}.Core()).Draw(rt, "program")
		if blocks(p) {
			return
		}
		for _, s := range []weft.Strategy{tx(weft.DFS()), tx(weft.ODPOR()), tx(weft.DFSStateful()), tx(weft.Sleep())} {
			explore := func(ctx context.Context, sys ts.TransitionSystem[tstest.State], o ts.Options) (ts.Result, error) {
				return weft.Run(ctx, sys, s, o)
			}
			rep := tstest.CheckReduction(rt, p, explore, tstest.ReductionOptions{Bound: ts.NoBound, Stateful: true})
			if len(rep.Errors) > 0 {
				rt.Fatalf("%s: %d discrepancies", s, len(rep.Errors))
			}
			checked[s.Name()]++
		}
	})
	t.Logf("programs checked, by strategy: %v", checked)
}
