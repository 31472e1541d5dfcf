package cbound

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/internal/offheap"
	"github.com/weftlab/weft/ts"
)

// bare takes n transitions of sys the way the yardstick does: at each
// state every thread's Next, Check, and one enabled thread's Apply (picked by
// a xorshift), starting again from Init at an end.
func bare[S any](sys ts.TransitionSystem[S], n int64) {
	threads := sys.Threads()
	checker, _ := sys.(ts.Checker[S])
	en := make([]ts.Tid, 0, threads)
	x := uint64(0x2545f4914f6cdd1d)
	s := sys.Init()
	for i := int64(0); i < n; {
		en = en[:0]
		for t := range ts.Tid(threads) {
			if _, st := sys.Next(s, t); st == ts.Enabled {
				en = append(en, t)
			}
		}
		if len(en) == 0 || checker != nil && checker.Check(s) != nil {
			s = sys.Init()
			continue
		}
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		s = sys.Apply(s, en[x%uint64(len(en))])
		i++
	}
}

// benchSpeed runs a cb-por strategy on sys at bound c and, in the same
// iteration, the bare loop for the transitions the search took (replays
// included), and reports: the ratio of their times (x-bare), transitions/s,
// the replayed transitions over those taken (replayed/taken), and the bytes
// the search keeps per stored HB state: live heap measured by
// runtime.MemStats after a GC at the search's last terminal state, plus the
// memory mapped outside the heap (offheap.Mapped: the HB table's and the
// memo's arrays past 2 MB), minus both before it (live-B/state).
func benchSpeed[S any](b *testing.B, sys ts.TransitionSystem[S], c int, f benchStrategy[S]) {
	b.ReportAllocs()
	opt := Options{Bound: AtMost(c), Options: ts.Options{KeepGoing: true}}
	// Untimed: count the terminal states, then measure the live heap at
	// the last one.
	first, err := f(context.Background(), sys, opt)
	if err != nil {
		b.Fatal(err)
	}
	var ms runtime.MemStats
	var live int64
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := int64(ms.HeapAlloc) + offheap.Mapped()
	var terms int64
	o := opt
	o.OnTerminal = func(any, ts.Schedule) {
		if terms++; terms == first.Executions {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			live = max(0, int64(ms.HeapAlloc)+offheap.Mapped()-before)
		}
	}
	_, err = f(context.Background(), sys, o)
	if err != nil {
		b.Fatal(err)
	}
	var search, bareT time.Duration
	var trans, replayed int64
	var res ts.Result
	for b.Loop() {
		t0 := time.Now()
		res, err = f(context.Background(), sys, opt)
		t1 := time.Now()
		if err != nil {
			b.Fatal(err)
		}
		bare(sys, res.Transitions)
		bareT += time.Since(t1)
		search += t1.Sub(t0)
		trans += res.Transitions
		replayed += res.Stats["enabled.replay_transitions"]
	}
	taken := trans - replayed
	b.ReportMetric(float64(search)/float64(bareT), "x-bare")
	b.ReportMetric(float64(trans)/search.Seconds(), "transitions/s")
	b.ReportMetric(float64(replayed)/float64(max(taken, 1)), "replayed/taken")
	b.ReportMetric(float64(res.Executions), "executions")
	if res.States > 0 {
		b.ReportMetric(float64(res.Stats["hb.table_bytes"])/float64(res.States), "table-B/state")
		if live > 0 {
			b.ReportMetric(float64(live)/float64(res.States), "live-B/state")
		}
	}
}

// BenchmarkCBPORSpeed is issue 13's yardstick for cb-por1, cb-por2 and
// icb-por at bound 2 on lastzero-N (and two bundled models): each one's time
// over a bare loop of as many transitions, in the same run; icb-por-redo is
// icb-por searching each bound afresh, as it did before its search became
// incremental, for comparison. Run it with
//
//	go test ./cbound -run '^$' -bench CBPORSpeed -benchtime 3x
func BenchmarkCBPORSpeed(b *testing.B) {
	algs := []struct {
		name string
		f    benchStrategy[models.LastzeroState]
	}{{"cb-por1", HBSearch[models.LastzeroState]}, {"cb-por2", POR[models.LastzeroState]}, {"icb-por", IterativePOR[models.LastzeroState]},
		{"icb-por-redo", iterativeRedoBench[models.LastzeroState]}}
	for _, n := range []int{7, 8, 9} {
		for _, a := range algs {
			b.Run(fmt.Sprintf("lastzero-%d/%s", n, a.name), func(b *testing.B) { benchSpeed(b, models.NewLastzero(n), 2, a.f) })
		}
	}
	b.Run("philosophers-4/cb-por2", func(b *testing.B) {
		benchSpeed(b, models.NewPhilosophers(4), 2, POR[models.PhilosophersState])
	})
	b.Run("wsq-1/cb-por2", func(b *testing.B) { benchSpeed(b, models.NewWSQ(1), 2, POR[models.WSQState]) })
	b.Run("bluetooth-2/cb-por2", func(b *testing.B) {
		benchSpeed(b, models.NewBluetooth(2), 2, POR[models.BluetoothState])
	})
}

// iterativeRedoBench is IterativePOR searching each bound afresh
// (Options.redo).
func iterativeRedoBench[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options) (ts.Result, error) {
	opt.redo = true
	return IterativePOR(ctx, sys, opt)
}

// cb-por1, cb-por2 and icb-por give back the memory they mapped (the HB
// table's and the memo's arrays past 2 MB) when they return, not when the
// collector runs.
func TestCBPORUnmapsAtTheEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("searches of 280,000 stored states")
	}
	sys := models.NewLastzero(9)
	for _, s := range []struct {
		name string
		f    benchStrategy[models.LastzeroState]
	}{{"cb-por1", HBSearch[models.LastzeroState]}, {"cb-por2", POR[models.LastzeroState]}, {"icb-por", IterativePOR[models.LastzeroState]}} {
		before := offheap.Mapped()
		res, err := s.f(context.Background(), sys, Options{Bound: 2, Options: ts.Options{KeepGoing: true}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Stats["hb.table_offheap_bytes"] == 0 {
			t.Errorf("%s: no table memory mapped; the test no longer checks what it says", s.name)
		}
		if after := offheap.Mapped(); after > before {
			t.Errorf("%s: %d bytes still mapped after the search, %d before", s.name, after, before)
		}
	}
}
