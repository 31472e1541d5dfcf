package gobugs_test

import (
	"context"
	"fmt"

	"github.com/weftlab/weft"
	"github.com/weftlab/weft/threads/gobugs"
	"github.com/weftlab/weft/ts"
)

// Each kernel's bug is found by its strategy, and its fix is clean.
func ExampleKernels() {
	for _, k := range gobugs.Kernels()[:3] {
		buggy, _ := weft.Run(context.Background(), k.Buggy().MustSystem(), k.Strategy, ts.Options{})
		fixed, _ := weft.Run(context.Background(), k.Fixed().MustSystem(), k.Strategy, ts.Options{})
		fmt.Printf("%s: %v; fixed: %v\n", k.Name, buggy.Violation.Kind, fixed.Violation == nil && fixed.Complete)
	}
	// Output:
	// leak-unbuffered-timeout: deadlock; fixed: true
	// lock-order-inversion: deadlock; fixed: true
	// missing-unlock-early-return: deadlock; fixed: true
}
