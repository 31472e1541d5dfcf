package symmetry_test

import (
	"context"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/symmetry"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// Issue 19: with value-dependent steps (a failed cas is a read), sym and
// sympor under the trivial symmetry, and DPOR without symmetry, reach
// exactly the terminal states and violations of ts.Explore.
func TestValueDependentTrivial(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		o := tstest.GenOptions{MinThreads: 2, MaxThreads: 3, CASReads: true}
		if rapid.Bool().Draw(t, "mod2") {
			o.Mod = 2
		}
		sys := trivialSym{tstest.Programs(o).Draw(t, "program")}
		for _, noSym := range []bool{false, true} {
			tstest.CheckReduction[tstest.State](t, sys, func(ctx context.Context, sys ts.TransitionSystem[tstest.State], o ts.Options) (ts.Result, error) {
				return symmetry.DPOR(ctx, sys, symmetry.Options{Options: o, NoSymmetry: noSym})
			}, tstest.ReductionOptions{Bound: ts.NoBound})
		}
		tstest.CheckReduction[tstest.State](t, sys, func(ctx context.Context, sys ts.TransitionSystem[tstest.State], o ts.Options) (ts.Result, error) {
			return symmetry.Explore(ctx, sys, symmetry.Options{Options: o})
		}, tstest.ReductionOptions{Bound: ts.NoBound, Stateful: true, Opaque: true})
	})
}
