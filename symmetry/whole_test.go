package symmetry_test

import (
	"context"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/symmetry"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// trivialSym declares the trivial symmetry of a program of the whole model
// (every thread its own orbit: the identity as canonical form, the thread
// id as signature), so that the symmetry strategies take it; every method
// of the program (outcomes, the invariant, Hash) is forwarded.
type trivialSym struct{ *tstest.Program }

func (p trivialSym) Canonical(s tstest.State) (tstest.State, []ts.Tid) {
	return s, identity(p.Threads())
}

func (p trivialSym) Signature(_ tstest.State, t ts.Tid) uint64 { return uint64(t) }

// On random programs of the whole model (steps of several objects,
// outcomes, idle threads, invariants, with and without IgnoreDeadlocks),
// sympor under the trivial symmetry, and DPOR without symmetry, reach
// exactly the terminal states and violations of ts.Explore, with schedules
// (outcomes included) that replay; Verify accepts the trivial symmetry.
// Before sympor took the whole model it refused these programs.
func TestSymporWholeModelTrivial(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{MaxThreads: 3}).Draw(t, "program")
		ignore := rapid.Bool().Draw(t, "ignoreDeadlocks")
		sys := trivialSym{p}
		var execs [2]int64
		for i, noSym := range []bool{false, true} {
			rep := tstest.CheckReduction[tstest.State](t, sys, func(ctx context.Context, sys ts.TransitionSystem[tstest.State], o ts.Options) (ts.Result, error) {
				return symmetry.DPOR(ctx, sys, symmetry.Options{Options: o, NoSymmetry: noSym})
			}, tstest.ReductionOptions{Bound: ts.NoBound, IgnoreDeadlocks: ignore})
			r := rep.Reduction.Result
			if r.Stats["pruned"] != 0 {
				t.Errorf("nosym=%v: %d branches pruned under the trivial symmetry", noSym, r.Stats["pruned"])
			}
			if r.Executions > rep.Reference.Result.Executions {
				t.Errorf("nosym=%v: %d executions, ts.Explore %d", noSym, r.Executions, rep.Reference.Result.Executions)
			}
			execs[i] = r.Executions
		}
		if execs[0] != execs[1] {
			t.Errorf("sympor under the trivial symmetry explores %d executions, dpor %d", execs[0], execs[1])
		}
		if err := symmetry.Verify[tstest.State](sys, symmetry.VerifyOptions{MaxStates: 300}); err != nil {
			t.Errorf("Verify rejects the trivial symmetry: %v", err)
		}
	})
}

// On random programs of the whole model whose threads come in groups of
// identical threads (coin flips of two outcomes, copies that read one
// variable and write another, idle waits, acquires of two locks at once,
// half of them with an invariant over two variables, with and without
// IgnoreDeadlocks), sym, sympor and DPOR without symmetry reach every
// terminal state and every violation of ts.Explore up to a permutation of
// the threads within groups, and nothing else; every schedule they report
// (outcomes included) replays on the original system; Verify accepts the
// declared and discovered symmetry, which the whole model's features keep.
func TestSymmetricWholeModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := gwshape(t)
		base := ts.Options{IgnoreDeadlocks: rapid.Bool().Draw(t, "ignoreDeadlocks")}
		ref := collect[gstate](t, p, base, func(o ts.Options) (ts.Result, error) { return ts.Explore[gstate](context.Background(), p, o) })
		sym := collect[gstate](t, p, base, withOpts[gstate](p, symmetry.Explore[gstate], symmetry.Options{}))
		sameOrbits(t, "sym", ref, sym)
		plain := collect[gstate](t, p, base, withOpts[gstate](p, symmetry.DPOR[gstate], symmetry.Options{NoSymmetry: true}))
		sameOrbits(t, "dpor", ref, plain)
		sp := collect[gstate](t, p, base, withOpts[gstate](p, symmetry.DPOR[gstate], symmetry.Options{}))
		sameOrbits(t, "sympor", ref, sp)
		if sp.res.Executions > plain.res.Executions {
			t.Errorf("sympor explores %d executions, dpor %d", sp.res.Executions, plain.res.Executions)
		}
		if err := symmetry.Verify[gstate](p, symmetry.VerifyOptions{MaxStates: 300}); err != nil {
			t.Fatalf("Verify: %v", err)
		}
	})
}

// gwshape draws a random symmetric program of the whole model small enough
// for ts.Explore: up to 3 threads of up to 3 visible steps, 4 of up to 2,
// or 5 of 1.
func gwshape(t *rapid.T) *gprog {
	switch rapid.IntRange(0, 2).Draw(t, "shape") {
	case 0:
		return gwholes(3, 3).Draw(t, "program")
	case 1:
		return gwholes(4, 2).Draw(t, "program")
	}
	return gwholes(5, 1).Draw(t, "program")
}
