package estimate_test

import (
	"context"
	"fmt"

	"github.com/weftlab/weft/estimate"
	"github.com/weftlab/weft/ts/tstest"
)

// Size tells how big a search will be before it runs: three threads, two
// writing x and one writing y, have 3! = 6 interleavings (the tree plain
// depth-first search explores) but 2 Mazurkiewicz traces (the sleep-set
// tree, which dpor and odpor follow).
func ExampleSize() {
	p := &tstest.Program{
		Vars: []tstest.Var{{Name: "x"}, {Name: "y"}},
		Code: [][]tstest.Instr{{tstest.Store(0, 1)}, {tstest.Store(0, 2)}, {tstest.Store(1, 1)}},
	}
	for _, tree := range []estimate.Tree{estimate.DFS, estimate.Sleep} {
		e, err := estimate.Size(context.Background(), p, estimate.Options{Tree: tree, Seed: 1})
		fmt.Println(e, err)
	}
	// Output:
	// 6 executions, 15 transitions (dfs tree, counted exactly by one probe) <nil>
	// 2 executions, 9 transitions (sleep-set tree, counted exactly by one probe) <nil>
}
