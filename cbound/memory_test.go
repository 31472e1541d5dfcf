package cbound_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/internal/heapcap"
	"github.com/weftlab/weft/ts"
)

// memoryBudget is the Limits.Memory of the tests below, and memoryCeiling
// the growth of the heap (garbage included) past which a search is taken
// not to keep it.
const (
	memoryBudget  = 4 << 20
	memoryCeiling = 4 * memoryBudget
)

// keepsBudget runs search on sys under a budget of memoryBudget bytes and
// fails the test unless it stops with ts.ErrMemory within the ceiling and
// quickly.
func keepsBudget(t *testing.T, name string, search func(ctx context.Context, limits ts.Limits) (ts.Result, error)) {
	t.Helper()
	var res ts.Result
	var err error
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out := heapcap.Run(ctx, memoryCeiling, func(ctx context.Context) {
		res, err = search(ctx, ts.Limits{Memory: memoryBudget})
	})
	switch {
	case out.Capped:
		t.Errorf("%s: the heap grew past %d MB under a budget of %d MB (%v, %v)", name, memoryCeiling>>20, memoryBudget>>20, res, err)
	case !errors.Is(err, ts.ErrMemory):
		t.Errorf("%s: %v, %v; want an error wrapping ts.ErrMemory", name, res, err)
	case out.Took > 5*time.Second:
		t.Errorf("%s: ErrMemory after %v", name, out.Took)
	}
	t.Logf("%s: %v after %v, heap grew by at most %.1f MB", name, err, out.Took.Round(time.Millisecond), float64(out.Peak)/(1<<20))
}

// The CB computation of one state can memoize every one of its prefixes,
// and one Mark store every predecessor of a terminal state, without a
// transition between: the budget is checked inside both. (Five independent
// threads of 40 steps each: the first CB queries at depth 100 and more
// memoize millions of prefixes; before, the memo grew past any budget, to
// 11 GB on seven threads of 110 steps, until the query ended.)
func TestCBPORMemoryInsideAnOperation(t *testing.T) {
	sys := heapcap.Spread{N: 5, K: 40}
	for _, s := range cbporStrategies[heapcap.SpreadState]() {
		keepsBudget(t, s.name, func(ctx context.Context, l ts.Limits) (ts.Result, error) {
			return s.f(ctx, sys, cbound.Options{Bound: 2, Options: ts.Options{Limits: l}})
		})
	}
}

// At the one terminal state of n independent one-step threads, the CB of
// the state memoizes each of its 2^n prefixes, and Mark then stores every
// one of them, all without a transition (20 threads: a million states and
// more).
func TestCBPORMemoryAtATerminalState(t *testing.T) {
	sys := heapcap.Spread{N: 20, K: 1}
	for _, s := range cbporStrategies[heapcap.SpreadState]()[1:] {
		keepsBudget(t, s.name, func(ctx context.Context, l ts.Limits) (ts.Result, error) {
			return s.f(ctx, sys, cbound.Options{Bound: 2, Options: ts.Options{Limits: l}})
		})
	}
}

// ICB's queue and cache, and cb-dfs's stack, keep to the budget too.
func TestICBMemory(t *testing.T) {
	keepsBudget(t, "icb", func(ctx context.Context, l ts.Limits) (ts.Result, error) {
		return cbound.ICB(ctx, heapcap.Spread{N: 7, K: 110}, cbound.Options{Bound: 2, Options: ts.Options{Limits: l}})
	})
}
