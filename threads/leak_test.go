package threads_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/weftlab/weft"
	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/mat"
	"github.com/weftlab/weft/threads"
	"github.com/weftlab/weft/transact"
	"github.com/weftlab/weft/ts"
)

// No call leaves a coroutine running, however it returns: a refusal (mat
// refuses a program that spawns), a limit reached (during the transaction
// strategies' inference pass too), an error, a violation or a full search;
// the caller never has to Close.
func TestNoGoroutineAfterAnyReturn(t *testing.T) {
	cases := []struct {
		name string
		opt  ts.Options
	}{
		{"no limits", ts.Options{}},
		{"1 transition", ts.Options{Limits: ts.Limits{Transitions: 1}}},
		{"1 execution", ts.Options{Limits: ts.Limits{Executions: 1}}},
		{"depth 2", ts.Options{Limits: ts.Limits{Depth: 2}}},
		{"memory 1 byte", ts.Options{Limits: ts.Limits{Memory: 1}}},
	}
	strategies := weft.Strategies()
	for _, name := range []string{"odpor", "dfs-stateful"} {
		s, _ := weft.Lookup(name)
		if v, err := weft.Transactions(s); err == nil {
			strategies = append(strategies, v)
		}
	}
	for _, s := range strategies {
		for _, c := range cases {
			for _, locked := range []bool{true, false} {
				before := runtime.NumGoroutine()
				_, err := weft.Run(context.Background(), counter(locked).MustSystem(), s, c.opt)
				if after := settled(before); after > before {
					t.Errorf("%v, %s: %d goroutines before, %d after (%v)", s, c.name, before, after, err)
				}
			}
		}
	}
	ctx := context.Background()
	calls := []struct {
		name string
		call func(*threads.System) error
	}{
		{"mat.Explore", func(sys *threads.System) error { _, err := mat.Explore(ctx, sys, mat.Options{}); return err }},
		{"transact.Explore, 1 inferred state", func(sys *threads.System) error {
			_, err := transact.Explore(ctx, sys, transact.Options{InferStates: 1})
			return err
		}},
		{"cbound.Minimize", func(sys *threads.System) error {
			_, _, err := cbound.Minimize(sys, ts.Schedule{{Thread: 0}})
			return err
		}},
	}
	for _, c := range calls {
		before := runtime.NumGoroutine()
		err := c.call(counter(true).MustSystem())
		if after := settled(before); after > before {
			t.Errorf("%s: %d goroutines before, %d after (%v)", c.name, before, after, err)
		}
	}
}
