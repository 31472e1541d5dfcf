package weft_test

import (
	"context"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// The README's "Testing your own reduction" snippets, word for word but for
// myExplore, which is ODPOR here: they must pass as shown (run them longer
// with -rapid.checks=3000).

func myExplore[S any](ctx context.Context, sys ts.TransitionSystem[S], opt ts.Options) (ts.Result, error) {
	return por.ODPOR(ctx, sys, por.Options{Options: opt})
}

func TestMyReduction(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{MaxThreads: 3}).Draw(t, "program")
		tstest.CheckReduction(t, p, myExplore[tstest.State], tstest.ReductionOptions{Bound: ts.NoBound})
	})
}

func TestMyReductionIsOptimal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{NoAsserts: true}).Draw(t, "program")
		tstest.CheckOptimal(t, p, myExplore[tstest.State], tstest.ReductionOptions{Bound: ts.NoBound})
	})
}
