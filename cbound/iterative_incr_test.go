package cbound

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// iterativeFinds runs IterativePOR (incremental, or as before with redo) at
// bound c with KeepGoing and returns its result, the terminal HB classes it
// reached (tstest.TraceKey of each terminal schedule, with the number of
// times each was reached) and its violations (kind, message and the HB
// class of the trace).
func iterativeFinds(t *rapid.T, p *tstest.Program, c int, ignore, redo bool) (ts.Result, map[string]int, map[string]bool) {
	terms, viols := map[string]int{}, map[string]bool{}
	key := func(sched ts.Schedule) string {
		k, err := tstest.TraceKey(p, sched)
		if err != nil {
			t.Fatalf("TraceKey: %v", err)
		}
		return k
	}
	opt := Options{Bound: AtMost(c), redo: redo, Options: ts.Options{KeepGoing: true, IgnoreDeadlocks: ignore,
		OnTerminal: func(_ any, sched ts.Schedule) { terms[key(sched)]++ },
		OnViolation: func(v *ts.Violation) {
			viols[fmt.Sprintf("%v|%v|%s", v.Kind, v.Err, key(v.Trace.Schedule()))] = true
		}}}
	res, err := IterativePOR(context.Background(), p, opt)
	if err != nil {
		t.Fatalf("IterativePOR (redo %v) at bound %d: %v", redo, c, err)
	}
	return res, terms, viols
}

// The incremental IterativePOR finds, at every bound, the terminal HB
// classes, terminal states and violations that searching each bound afresh
// (as it did before) finds, on random programs of the whole model; it
// reaches each terminal HB class once over all bounds, where the old search
// reached each once a bound from its own up; and its first violation is
// the old one's, up to which of a bound's violations comes first.
func TestIterativePORIncrementalSameAsRedo(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{MaxThreads: 3}).Draw(t, "program")
		ignore := rapid.Bool().Draw(t, "ignoreDeadlocks")
		for c := 0; c <= 3; c++ {
			old, oldTerms, oldViols := iterativeFinds(t, p, c, ignore, true)
			res, terms, viols := iterativeFinds(t, p, c, ignore, false)
			if !old.Complete || !res.Complete {
				t.Fatalf("bound %d: incomplete: redo %v, incremental %v", c, old, res)
			}
			if !maps.Equal(maps.Collect(mapsKeysTrue(oldTerms)), maps.Collect(mapsKeysTrue(terms))) {
				t.Fatalf("bound %d: terminal HB classes differ:\nredo        %v\nincremental %v", c, slices.Sorted(maps.Keys(oldTerms)), slices.Sorted(maps.Keys(terms)))
			}
			for k, n := range terms {
				if n != 1 {
					t.Fatalf("bound %d: the terminal HB class %s is reached %d times", c, k, n)
				}
			}
			if !maps.Equal(oldViols, viols) || old.Violations != res.Violations {
				t.Fatalf("bound %d: violations differ:\nredo        %d %v\nincremental %d %v", c, old.Violations, slices.Sorted(maps.Keys(oldViols)), res.Violations, slices.Sorted(maps.Keys(viols)))
			}
			if (old.Violation == nil) != (res.Violation == nil) ||
				old.Violation != nil && old.Violation.Trace.Preemptions != res.Violation.Trace.Preemptions {
				t.Fatalf("bound %d: first violation: redo %v, incremental %v", c, old.Violation, res.Violation)
			}
			if !slices.Equal(old.Coverage, res.Coverage) {
				t.Fatalf("bound %d: coverage: redo %v, incremental %v", c, old.Coverage, res.Coverage)
			}
			var sum int64
			for _, cv := range old.Coverage {
				sum += cv.Executions
			}
			if top := res.Coverage[c].Executions; old.Executions < sum || res.Executions != top {
				t.Fatalf("bound %d: executions: redo %d (coverage sums to %d), incremental %d (coverage %d)", c, old.Executions, sum, res.Executions, top)
			}
			if res.Stats["search.stuck"] != 0 {
				t.Fatalf("bound %d: the search stopped %d times with nothing to explore and nothing stored", c, res.Stats["search.stuck"])
			}
		}
	})
}

func mapsKeysTrue(m map[string]int) func(func(string, bool) bool) {
	return func(yield func(string, bool) bool) {
		for k := range m {
			if !yield(k, true) {
				return
			}
		}
	}
}
