package cbound_test

import (
	"context"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// Issue 13: the enabled statuses cb-por reads off the stack at prefixes it
// never drove the system to are those a replay finds. On random programs of
// the whole model (locks, awaits, outcomes, idle threads, invariants), with
// every derived status also replayed and compared (a difference stops the
// search with ts.ErrNondeterministic), cb-por1, cb-por2 and icb-por finish
// without error at bounds 0..3 and count what they count without the audit.
func TestDerivedStatusesAreReplayed(t *testing.T) {
	gen := wholePrograms
	gen.MaxThreads = 4
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(gen).Draw(t, "program")
		c := rapid.IntRange(0, 3).Draw(t, "bound")
		for name, f := range map[string]strategy[tstest.State]{"cb-por1": cbound.HBSearch[tstest.State],
			"cb-por2": cbound.POR[tstest.State], "icb-por": cbound.IterativePOR[tstest.State]} {
			opt := cbound.Options{Bound: cbound.AtMost(c), Options: ts.Options{KeepGoing: true}}
			plain, err := f(context.Background(), p, opt)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			audited, err := f(context.Background(), p, cbound.Eager(opt))
			if err != nil {
				t.Fatalf("%s, every derived status replayed: %v", name, err)
			}
			if plain.Executions != audited.Executions || plain.States != audited.States || plain.Violations != audited.Violations {
				t.Fatalf("%s: %v; audited %v", name, plain, audited)
			}
			if name == "cb-por2" && plain.Stats["search.stuck"] != 0 {
				t.Fatalf("%s: stuck %d times", name, plain.Stats["search.stuck"])
			}
		}
	})
}
