package cbound_test

import (
	"context"
	"errors"
	"testing"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/internal/heapcap"
	"github.com/weftlab/weft/ts"
)

// The CB computation of one state can memoize every one of its prefixes,
// and one Mark store every predecessor of a terminal state, without a
// transition between: the budget is checked inside both. (Five independent
// threads of 40 steps each: the first CB queries at depth 100 and more
// memoize millions of prefixes; before, the memo grew past any budget, to
// 11 GB on seven threads of 110 steps, until the query ended.)
func TestCBPORMemoryInsideAnOperation(t *testing.T) {
	sys := heapcap.Spread{N: 5, K: 40}
	for _, s := range cbporStrategies[heapcap.SpreadState]() {
		heapcap.Keeps(t, s.name, func(ctx context.Context, l ts.Limits) (ts.Result, error) {
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
		heapcap.Keeps(t, s.name, func(ctx context.Context, l ts.Limits) (ts.Result, error) {
			return s.f(ctx, sys, cbound.Options{Bound: 2, Options: ts.Options{Limits: l}})
		})
	}
}

// ICB's queue and cache, and cb-dfs's stack, keep to the budget too.
func TestICBMemory(t *testing.T) {
	heapcap.Keeps(t, "icb", func(ctx context.Context, l ts.Limits) (ts.Result, error) {
		return cbound.ICB(ctx, heapcap.Spread{N: 7, K: 110}, cbound.Options{Bound: 2, Options: ts.Options{Limits: l}})
	})
}

// ICB takes its queues and cache from the last search's (any state type's):
// where a search stops for its budget, and what it says it kept, do not
// depend on what ran before it.
func TestICBBudgetStopIgnoresThePool(t *testing.T) {
	sys := heapcap.Spread{N: 7, K: 110}
	opt := cbound.Options{Bound: 2, Options: ts.Options{Limits: ts.Limits{Memory: 1 << 20}}}
	run := func() (ts.Result, string) {
		res, err := cbound.ICB(context.Background(), sys, opt)
		if !errors.Is(err, ts.ErrMemory) {
			t.Fatalf("%v, want ErrMemory", err)
		}
		return res, err.Error()
	}
	res1, msg1 := run()
	// A larger search leaves larger buffers behind.
	if _, err := cbound.ICB(context.Background(), heapcap.Spread{N: 4, K: 12}, cbound.Options{Bound: 2}); err != nil {
		t.Fatal(err)
	}
	res2, msg2 := run()
	if res1.Transitions != res2.Transitions || res1.Executions != res2.Executions || msg1 != msg2 {
		t.Errorf("alone: %d transitions, %q; after a larger search: %d transitions, %q", res1.Transitions, msg1, res2.Transitions, msg2)
	}
}
