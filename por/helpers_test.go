package por_test

import (
	"context"

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

type strategy[S any] func(context.Context, ts.TransitionSystem[S], por.Options) (ts.Result, error)

// adapt fixes a strategy's options to the tstest.Explorer shape.
func adapt[S any](f strategy[S]) tstest.Explorer[S] {
	return func(ctx context.Context, sys ts.TransitionSystem[S], o ts.Options) (ts.Result, error) {
		return f(ctx, sys, por.Options{Options: o})
	}
}

type named[S any] struct {
	name string
	f    strategy[S]
}

func strategies[S any]() []named[S] {
	return []named[S]{
		{"sleep", por.Sleep[S]},
		{"dpor", por.DPOR[S]},
		{"odpor", por.ODPORAllChains[S]}, // the default takes the scans on such short sequences (odpor_test.go tests them)
		{"sdpor", por.SDPOR[S]},
	}
}

// unchecked hides a system's Check, for the optimality tests: under
// KeepGoing, ODPOR is optimal only while no check fails.
type unchecked[S any] struct{ ts.TransitionSystem[S] }
