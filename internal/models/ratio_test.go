package models_test

import (
	"context"

	"runtime"
	"testing"
	"time"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
)

// bareLoop takes n transitions of sys doing only what any search of it must
// do at least: at each state, Next for every thread and Check, then Apply of
// one enabled thread, picked by a fixed pseudo-random sequence; a state where
// no thread is enabled (or Check fails) starts again from Init. It is the
// yardstick of the engine's own cost: a search's time over the bare loop's
// for the same number of transitions.
func bareLoop[S any](sys ts.TransitionSystem[S], n int64) {
	threads := sys.Threads()
	checker, _ := sys.(ts.Checker[S])
	enabled := make([]ts.Tid, 0, threads)
	x := uint64(0x9e3779b97f4a7c15)
	s := sys.Init()
	for i := int64(0); i < n; {
		enabled = enabled[:0]
		for t := range ts.Tid(threads) {
			if _, st := sys.Next(s, t); st == ts.Enabled {
				enabled = append(enabled, t)
			}
		}
		if checker != nil && checker.Check(s) != nil || len(enabled) == 0 {
			s = sys.Init()
			continue
		}
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		s = sys.Apply(s, enabled[x%uint64(len(enabled))])
		i++
	}
}

type strategy[S any] struct {
	name string
	run  func(context.Context, ts.TransitionSystem[S], ts.Options) (ts.Result, error)
}

func strategies[S any]() []strategy[S] {
	bounded := func(f func(context.Context, ts.TransitionSystem[S], cbound.Options) (ts.Result, error)) func(context.Context, ts.TransitionSystem[S], ts.Options) (ts.Result, error) {
		return func(ctx context.Context, sys ts.TransitionSystem[S], o ts.Options) (ts.Result, error) {
			return f(ctx, sys, cbound.Options{Options: o, Bound: 2})
		}
	}
	unbounded := func(f func(context.Context, ts.TransitionSystem[S], por.Options) (ts.Result, error)) func(context.Context, ts.TransitionSystem[S], ts.Options) (ts.Result, error) {
		return func(ctx context.Context, sys ts.TransitionSystem[S], o ts.Options) (ts.Result, error) {
			return f(ctx, sys, por.Options{Options: o})
		}
	}
	return []strategy[S]{
		{"dfs", ts.Explore[S]},
		{"sleep", unbounded(por.Sleep[S])},
		{"dpor", unbounded(por.DPOR[S])},
		{"odpor", unbounded(por.ODPOR[S])},
		{"icb-2", bounded(cbound.ICB[S])},
		{"cb-por2-2", bounded(cbound.POR[S])},
	}
}

// benchRatio runs each strategy on sys and, in the same iteration, the bare
// loop for as many transitions, and reports the ratio of their times
// ("x-bare"), the strategy's transitions per second, and its allocations
// per transition.
func benchRatio[S any](b *testing.B, sys ts.TransitionSystem[S], names ...string) {
	for _, st := range strategies[S]() {
		if len(names) > 0 && !contains(names, st.name) {
			continue
		}
		b.Run(st.name, func(b *testing.B) {
			var search, bare time.Duration
			var trans int64
			var ms runtime.MemStats
			var mallocs uint64
			for b.Loop() {
				runtime.ReadMemStats(&ms)
				m0 := ms.Mallocs
				t0 := time.Now()
				res, err := st.run(context.Background(), sys, ts.Options{KeepGoing: true})
				t1 := time.Now()
				if err != nil {
					b.Skipf("%s: %v", st.name, err)
				}
				runtime.ReadMemStats(&ms)
				mallocs += ms.Mallocs - m0
				bareLoop(sys, res.Transitions)
				bare += time.Since(t1)
				search += t1.Sub(t0)
				trans += res.Transitions
			}
			b.ReportMetric(float64(search)/float64(bare), "x-bare")
			b.ReportMetric(float64(trans)/search.Seconds(), "transitions/s")
			b.ReportMetric(float64(mallocs)/float64(trans), "allocs/transition")
		})
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// BenchmarkVsBareLoop is the speed issue's yardstick: each strategy's time
// over a bare loop's on the same model for the same number of transitions,
// measured in the same run. Run it with
//
//	go test ./internal/models -run '^$' -bench VsBareLoop -benchtime 3x
func BenchmarkVsBareLoop(b *testing.B) {
	for _, m := range []struct {
		name string
		run  func(b *testing.B)
	}{
		{"lastzero-4", func(b *testing.B) { benchRatio(b, models.NewLastzero(4)) }},
		{"philosophers-4", func(b *testing.B) { benchRatio(b, models.NewPhilosophers(4)) }},
		{"wsq-1", func(b *testing.B) { benchRatio(b, models.NewWSQ(1)) }},
		{"bluetooth-2", func(b *testing.B) { benchRatio(b, models.NewBluetooth(2)) }},
		{"lastzero-7", func(b *testing.B) { benchRatio(b, models.NewLastzero(7), "odpor", "dpor", "icb-2", "cb-por2-2") }},
	} {
		b.Run(m.name, m.run)
	}
}

// The yardstick itself: the bare loop takes the transitions it is asked to.
func TestBareLoop(t *testing.T) {
	n := 0
	counting := countApply{models.NewPhilosophers(3), &n}
	bareLoop[models.PhilosophersState](counting, 1000)
	if n != 1000 {
		t.Fatalf("%d transitions, want 1000", n)
	}
}

type countApply struct {
	*models.Philosophers
	n *int
}

func (c countApply) Apply(s models.PhilosophersState, t ts.Tid) models.PhilosophersState {
	*c.n++
	return c.Philosophers.Apply(s, t)
}
