package por_test

import (
	"context"

	"github.com/weftlab/weft/hb"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// fataler is what the helpers need of a test: *testing.T and *rapid.T.
type fataler interface {
	Helper()
	Fatal(args ...any)
}

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
		{"odpor", por.ODPOR[S]},
		{"sdpor", por.SDPOR[S]},
	}
}

// hbKey returns the happens-before state of a schedule of sys, as a string
// key (the hb.State's listing, which is canonical).
func hbKey[S any](sys ts.TransitionSystem[S], sched ts.Schedule) string {
	s := sys.Init()
	st := hb.New(sys.Threads())
	for _, t := range sched {
		step, _ := sys.Next(s, t)
		st.Add(t, step)
		s = sys.Apply(s, t)
	}
	return st.String()
}

// classes runs ts.Explore with KeepGoing and returns the distinct
// happens-before states of its complete executions (terminal or violating).
func classes[S any](t fataler, sys ts.TransitionSystem[S]) map[string]int {
	t.Helper()
	seen := map[string]int{}
	_, err := ts.Explore(context.Background(), sys, ts.Options{KeepGoing: true,
		OnTerminal: func(_ any, s ts.Schedule) { seen[hbKey(sys, s)]++ },
		OnViolation: func(v *ts.Violation) {
			if v.Kind != ts.Deadlock { // a deadlocked state is terminal too, and reported to OnTerminal
				seen[hbKey(sys, v.Trace.Schedule())]++
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return seen
}

// explored runs a strategy with KeepGoing and returns the happens-before
// states of the executions it reported, with their multiplicity.
func explored[S any](t fataler, sys ts.TransitionSystem[S], f strategy[S]) (map[string]int, ts.Result) {
	t.Helper()
	seen := map[string]int{}
	res, err := f(context.Background(), sys, por.Options{Options: ts.Options{KeepGoing: true,
		OnTerminal: func(_ any, s ts.Schedule) { seen[hbKey(sys, s)]++ },
		OnViolation: func(v *ts.Violation) {
			if v.Kind != ts.Deadlock {
				seen[hbKey(sys, v.Trace.Schedule())]++
			}
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return seen, res
}

// unchecked hides a system's Check, for the optimality tests: under
// KeepGoing, ODPOR is optimal only while no check fails.
type unchecked[S any] struct{ ts.TransitionSystem[S] }
