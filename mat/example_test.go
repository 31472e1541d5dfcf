package mat_test

import (
	"context"
	"fmt"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/mat"
	"github.com/weftlab/weft/ts"
)

// The paper's Figure 1: GenMAT finds 5 MATs over real accesses and 8
// token-passing pairs between real accesses, against 32 for all pairs.
func ExampleAnalysis_Report() {
	sys := models.NewMATFig1(0)
	threads, err := mat.Unroll(sys, ts.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(mat.Analyze(threads).Report(sys))
	// Output:
	// thread a: 1a write y, 2a read x, 3a read z, 4a read y
	// thread b: 1b read x, 2b write z, 3b read x, 4b write y
	// MATs of a and b (b has priority): 5 over real accesses, 11 with end events
	//   (1a..3a, 1b..2b)
	//   (4a, 3b..4b)
	//   (4a, 1b..4b)
	//   (1a, 3b..4b)
	//   (2a..4a, 3b..4b)
	//   (⊣a, ⊣b)
	//   (⊣a, 3b..⊣b)
	//   (4a..⊣a, ⊣b)
	//   (⊣a, 1b..⊣b)
	//   (2a..⊣a, ⊣b)
	//   (1a..⊣a, ⊣b)
	// token-passing pairs (paper): 8 between real accesses (all pairs: 32), 15 with end events
	//   (1a, 3b) (3a, 1b) (4a, 1b) (4a, 3b) (⊣a, 1b) (⊣a, 3b) (⊣a, ⊣b) (2b, 1a)
	//   (4b, 1a) (4b, 2a) (4b, 4a) (⊣b, 1a) (⊣b, 2a) (⊣b, 4a) (⊣b, ⊣a)
	// allowed schedules (mat): 10 with end events, 5 with one end order
}

// Explore runs one execution per class of the real accesses.
func ExampleExplore() {
	sys := models.NewMATFig1(0)
	res, err := mat.Explore(context.Background(), sys, mat.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res)
	fmt.Println(res.Stats["mats"], "MATs,", res.Stats["tp"], "token-passing pairs, all pairs", res.Stats["all-pairs"])
	// Output:
	// no violation (deadlocks not looked for): 5 executions, 40 transitions
	// 5 MATs, 8 token-passing pairs, all pairs 32
}

// Hand-written sequences: two threads that conflict only at the end.
func ExampleGenMAT() {
	threads := [][]mat.Access{
		{mat.R(0), mat.W(1)},
		{mat.R(0), mat.W(1)},
	}
	for _, m := range mat.GenMAT(threads, 0, 1) {
		fmt.Println(m.Format(threads))
	}
	fmt.Println(mat.Count(mat.TPOf(threads, mat.GenMAT(threads, 0, 1)), false), "allowed schedules")
	// Output:
	// (1a..2a, 1b..2b)
	// (⊣a, ⊣b)
	// (⊣a, 1b..⊣b)
	// (1a..⊣a, ⊣b)
	// 4 allowed schedules
}
