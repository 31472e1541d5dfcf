package por

import (
	"context"

	"github.com/weftlab/weft/ts"
)

// WithCutBudget returns opt with ODPOR's budget of replays per reversal of
// a step that waits on several objects (cutBudget) set to n, so that a test
// can reach it.
func WithCutBudget(opt Options, n int) Options {
	opt.cutBudget = n
	return opt
}

// ODPORAllChains is ODPOR with every insertion reading the execution's
// chains (chainInitial), and with workers every commit's reading its index
// (seqIndex), which the random programs of the tests, whose sequences are
// short, would otherwise never reach.
func ODPORAllChains[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options) (ts.Result, error) {
	opt.chainMin = -1
	return ODPOR(ctx, sys, opt)
}
