package estimate_test

import (
	"context"
	"testing"

	"github.com/weftlab/weft/estimate"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
	"pgregory.net/rapid"
)

// On random whole-model programs, an estimate that says it is exact is the
// count of the search whose tree it estimates (ts.Explore for DFS,
// por.Sleep for Sleep, both under KeepGoing), executions and transitions.
func TestExactIsTheSearchOnRandomPrograms(t *testing.T) {
	ctx := context.Background()
	keep := ts.Options{KeepGoing: true}
	exact := 0
	rapid.Check(t, func(rt *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{MaxThreads: 3}).Draw(rt, "program")
		for _, tree := range []estimate.Tree{estimate.DFS, estimate.Sleep} {
			var res ts.Result
			var err error
			if tree == estimate.DFS {
				res, err = ts.Explore(ctx, p, keep)
			} else {
				res, err = por.Sleep(ctx, p, por.Options{Options: keep})
			}
			if err != nil {
				rt.Fatalf("%v: %v", tree, err)
			}
			e, err := estimate.Size(ctx, p, estimate.Options{Tree: tree, Seed: 1})
			if err != nil {
				rt.Fatalf("%v: %v", tree, err)
			}
			if !e.Exact {
				continue
			}
			exact++
			if e.Executions != float64(res.Executions) || e.Transitions != float64(res.Transitions) {
				rt.Fatalf("%v: estimate %v; the search: %d executions, %d transitions", tree, e, res.Executions, res.Transitions)
			}
		}
	})
	if exact == 0 {
		t.Error("no estimate was exact: the property checked nothing")
	}
	t.Logf("%d exact estimates checked", exact)
}
