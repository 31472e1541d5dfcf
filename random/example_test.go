package random_test

import (
	"context"
	"fmt"

	"github.com/weftlab/weft/random"
	"github.com/weftlab/weft/threads"
)

// PCT finds a lost update (a bug of depth 2: one thread's read must come
// between the other's read and write) and states what each run promised.
func ExamplePCT() {
	p := threads.New(func(t *threads.T) {
		n := threads.NewVar(t, "n", 0)
		wg := threads.NewWaitGroup(t, "wg")
		wg.Add(t, 1)
		t.Go(func(t *threads.T) {
			n.Store(t, n.Load(t)+1)
			wg.Done(t)
		})
		n.Store(t, n.Load(t)+1)
		wg.Wait(t)
		got := n.Load(t)
		t.Assert(got == 2, "lost update: n = %d", got)
	})
	res, err := random.PCT(context.Background(), p.MustSystem(), random.Options{Runs: 1000, Seed: 1, Depth: 2})
	fmt.Println(res.Violation.Err, err)
	if g, ok := random.GuaranteeOf(res); ok {
		fmt.Println(g)
	}
	// Output:
	// thread 0 (main): lost update: n = 1 <nil>
	// pct: a run whose change points were drawn over k = 10 steps finds a bug of depth 2 within those steps with probability at least 1/(n*k^(d-1)) = 1/(8*10^1) = 0.0125 (outcomes chosen uniformly: times the chance of the outcomes the bug needs); 24 of 25 runs were: at least 0.261
}
