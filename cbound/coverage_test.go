package cbound_test

import (
	"context"
	"slices"
	"testing"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/ts/tstest"
)

// Coverage has an entry for every bound 0..c, each counting only what has
// at most that many preemptions, whichever strategy: also where no
// preemption is possible (ICB stopped at bound 0 when no work was left for
// bound 1), and for terminal states that cb-dfs first reached with more
// preemptions than a bound (it counted every one at every bound).
func TestCoveragePerBound(t *testing.T) {
	progs := map[string]*tstest.Program{
		"two loads": {Vars: []tstest.Var{{Name: "x"}}, Mod: 4,
			Code: [][]tstest.Instr{{tstest.Load(0, 0)}, {tstest.Load(0, 0)}}},
		// One terminal state without preemption, two with one.
		"load between stores": {Vars: []tstest.Var{{Name: "x"}}, Mod: 4,
			Code: [][]tstest.Instr{
				{tstest.Load(0, 0)},
				{tstest.Store(0, 1), tstest.Load(0, 0), tstest.Store(0, 0)},
			}},
	}
	for name, p := range progs {
		for c := 1; c <= 3; c++ {
			var want []int64 // terminal states by bound, from the first strategy
			for _, s := range everyBounded {
				res, err := s.f(context.Background(), p, cbound.Options{Bound: c})
				if err != nil || !res.Complete {
					t.Fatalf("%s, %s, bound %d: %v, %v", name, s.name, c, res, err)
				}
				if len(res.Coverage) != c+1 || res.Bound != c {
					t.Errorf("%s, %s, bound %d: Result.Bound %d, Coverage %v; want bounds 0..%d", name, s.name, c, res.Bound, res.Coverage, c)
					continue
				}
				var got []int64
				for b, cov := range res.Coverage {
					if cov.Bound != b {
						t.Errorf("%s, %s, bound %d: Coverage %v", name, s.name, c, res.Coverage)
					}
					got = append(got, cov.TerminalStates)
				}
				if want == nil {
					want = got
				} else if !slices.Equal(got, want) {
					t.Errorf("%s, %s, bound %d: terminal states by bound %v, %s %v", name, s.name, c, got, everyBounded[0].name, want)
				}
			}
		}
	}
}
