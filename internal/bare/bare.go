// Package bare is the yardstick of weft's speed benchmarks: a loop that takes
// a given number of transitions of a system doing only what any search of it
// must do per transition, so that a benchmark can report a strategy's time
// over the loop's for the same number of transitions, measured in the same
// run ("x-bare"). The ratio is the engine's own cost: it does not depend on
// the machine, or on how costly the model is, the way transitions per second
// do.
//
// The loop, at each state: Next for every thread, Outcomes for every enabled
// thread (when the system is a ts.Chooser), Check and Invariant, then Apply
// (or ApplyOutcome) of one enabled move, picked by a fixed pseudo-random
// sequence. A state where no thread is enabled, or whose check fails, ends
// the walk: it starts again from Init. It hashes nothing and keeps nothing.
package bare

import (
	"context"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/weftlab/weft/ts"
)

// Walker takes the bare loop's transitions of one system. Make one with New
// and reuse it: it allocates only when made.
type Walker[S any] struct {
	sys       ts.TransitionSystem[S]
	checker   ts.Checker[S]
	invariant ts.Invariant[S]
	chooser   ts.Chooser[S]
	n         int
	moves     []ts.Move
	x         uint64 // xorshift state
	sink      int    // keeps the compiler from dropping the calls' results
}

// New returns a Walker of sys.
func New[S any](sys ts.TransitionSystem[S]) *Walker[S] {
	w := &Walker[S]{sys: sys, n: sys.Threads(), x: 0x9e3779b97f4a7c15}
	w.checker, _ = sys.(ts.Checker[S])
	w.invariant, _ = sys.(ts.Invariant[S])
	w.chooser, _ = sys.(ts.Chooser[S])
	w.moves = make([]ts.Move, 0, 4*w.n)
	return w
}

// Walk takes n transitions (none if the initial state has no enabled
// thread). The pseudo-random sequence goes on from the previous Walk.
func (w *Walker[S]) Walk(n int64) {
	s := w.sys.Init()
	for i := int64(0); i < n; {
		w.moves = w.moves[:0]
		for t := range ts.Tid(w.n) {
			step, st := w.sys.Next(s, t)
			w.sink += step.NumAccesses()
			if st != ts.Enabled {
				continue
			}
			k := 1
			if w.chooser != nil {
				k = w.chooser.Outcomes(s, t)
			}
			for c := range k {
				w.moves = append(w.moves, ts.Move{Thread: t, Outcome: c})
			}
		}
		failed := w.checker != nil && w.checker.Check(s) != nil ||
			w.invariant != nil && w.invariant.Invariant(s) != nil
		if failed || len(w.moves) == 0 {
			if i == 0 && len(w.moves) == 0 {
				return // nothing to walk
			}
			s = w.sys.Init()
			continue
		}
		w.x ^= w.x << 13
		w.x ^= w.x >> 7
		w.x ^= w.x << 17
		m := w.moves[w.x%uint64(len(w.moves))]
		if m.Outcome == 0 {
			s = w.sys.Apply(s, m.Thread)
		} else {
			s = w.chooser.ApplyOutcome(s, m.Thread, m.Outcome)
		}
		i++
	}
}

// Search is a search of a system under test, as a benchmark runs it.
type Search func(ctx context.Context) (ts.Result, error)

// Ratio runs, in each iteration of b, the search and then the bare loop of
// sys for as many transitions as the search took, and reports:
//
//   - x-bare: the search's total time over the loop's;
//   - transitions/s: the search's;
//   - allocs/transition: the search's heap allocations per transition
//     (those of the whole search, setup included: on a large search, what it
//     allocates per transition in steady state);
//   - transitions/op: the size of one search.
//
// Times are the CPU time of the benchmark's OS thread, to which Ratio locks
// itself (on Linux; wall time elsewhere): time the thread is descheduled, a
// shared machine's other work, is not counted on either side. So the
// garbage collector's background work, on other threads, is not counted
// either; its assists to the search's allocations are. A search that
// returns an error fails the benchmark.
func Ratio[S any](b *testing.B, sys ts.TransitionSystem[S], search Search) {
	b.Helper()
	w := New(sys)
	var searchTime, bareTime time.Duration
	var trans int64
	var mallocs uint64
	// runtime/metrics rather than runtime.ReadMemStats, which stops the
	// world: its aftermath would fall on the small searches' time.
	samples := []metrics.Sample{{Name: "/gc/heap/allocs:objects"}, {Name: "/gc/heap/tiny/allocs:objects"}}
	allocs := func() uint64 {
		metrics.Read(samples)
		return samples[0].Value.Uint64() + samples[1].Value.Uint64()
	}
	ctx := context.Background()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for b.Loop() {
		m0 := allocs()
		t0 := threadTime()
		res, err := search(ctx)
		t1 := threadTime()
		if err != nil {
			b.Fatal(err)
		}
		mallocs += allocs() - m0
		t2 := threadTime()
		w.Walk(res.Transitions)
		bareTime += threadTime() - t2
		searchTime += t1 - t0
		trans += res.Transitions
	}
	if trans == 0 {
		b.Fatal("the search took no transition")
	}
	b.ReportMetric(float64(searchTime)/float64(bareTime), "x-bare")
	b.ReportMetric(float64(trans)/searchTime.Seconds(), "transitions/s")
	b.ReportMetric(float64(mallocs)/float64(trans), "allocs/transition")
	b.ReportMetric(float64(trans)/float64(b.N), "transitions/op")
}

// wallTime is the wall clock's reading.
func wallTime() time.Duration { return time.Duration(time.Now().UnixNano()) }
