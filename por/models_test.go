package por_test

import (
	"testing"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

func TestModelsReduction(t *testing.T) {
	for n := 1; n <= 4; n++ {
		sys := models.NewLastzero(n)
		for _, s := range strategies[models.LastzeroState]() {
			rep := tstest.CheckReduction(t, sys, adapt(s.f), tstest.ReductionOptions{Bound: ts.NoBound, Stateful: s.name == "sdpor"})
			t.Logf("lastzero-%d %s: %d executions, %d terminals (reference %d)", n, s.name, rep.Reduction.Result.Executions, len(rep.Reduction.Terminals), len(rep.Reference.Terminals))
		}
	}
}
