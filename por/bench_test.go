package por_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
)

// model is a bundled model at a size, with the boxed runs of every
// strategy.
type model struct {
	name string
	run  map[string]func(context.Context, ts.Options) (ts.Result, error)
}

func modelOf[S any](name string, sys ts.TransitionSystem[S]) model {
	m := model{name: name, run: map[string]func(context.Context, ts.Options) (ts.Result, error){
		"dfs": func(ctx context.Context, o ts.Options) (ts.Result, error) { return ts.Explore(ctx, sys, o) },
	}}
	for _, s := range strategies[S]() {
		m.run[s.name] = func(ctx context.Context, o ts.Options) (ts.Result, error) {
			return s.f(ctx, sys, por.Options{Options: o})
		}
	}
	return m
}

var order = []string{"dfs", "sleep", "dpor", "odpor", "sdpor"}

func benchModels() []model {
	return []model{
		modelOf("indexer-3", models.NewIndexer(3)),
		modelOf("indexer-12", models.NewIndexer(12)),
		modelOf("indexer-14", models.NewIndexer(14)),
		modelOf("filesystem-2", models.NewFilesystem(2)),
		modelOf("filesystem-14", models.NewFilesystem(14)),
		modelOf("filesystem-16", models.NewFilesystem(16)),
		modelOf("lastzero-3", models.NewLastzero(3)),
		modelOf("lastzero-5", models.NewLastzero(5)),
		modelOf("lastzero-8", models.NewLastzero(8)),
		modelOf("inspect-example1-30", models.NewInspectExample1(30)),
		modelOf("philosophers-3", models.NewPhilosophers(3)),
		modelOf("philosophers-5", models.NewPhilosophers(5)),
		modelOf("pfscan-3", models.NewPFScan(3)),
		modelOf("wsq-2", models.NewWSQ(2)),
	}
}

// TestTable logs the executions (transitions) of every strategy on the
// benchmark models, each cut at one second ("-" where it did not finish).
func TestTable(t *testing.T) {
	if testing.Short() {
		t.Skip("the table takes a while")
	}
	t.Logf("%-20s %22s %22s %22s %22s %22s", "model", order[0], order[1], order[2], order[3], order[4])
	for _, m := range benchModels() {
		row := fmt.Sprintf("%-20s", m.name)
		for _, name := range order {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			res, err := m.run[name](ctx, ts.Options{KeepGoing: true})
			cancel()
			cell := "-"
			if err == nil && res.Complete {
				cell = fmt.Sprintf("%d (%d)", res.Executions, res.Transitions)
			}
			row += fmt.Sprintf(" %22s", cell)
		}
		t.Log(row)
	}
}

// slow lists the runs that take more than a second (see TestTable).
var slow = map[string]bool{
	"indexer-12/sleep": true, "indexer-14/sleep": true, "indexer-14/sdpor": true,
	"filesystem-14/sleep": true, "filesystem-14/sdpor": true, "filesystem-16/sleep": true, "filesystem-16/sdpor": true,
}

// BenchmarkStrategies runs every strategy on the benchmark models, reporting
// executions, transitions, transitions/s and allocations per transition.
func BenchmarkStrategies(b *testing.B) {
	for _, m := range benchModels() {
		for _, name := range order[1:] {
			if slow[m.name+"/"+name] {
				continue // minutes per run
			}
			b.Run(m.name+"/"+name, func(b *testing.B) {
				b.ReportAllocs()
				var res ts.Result
				var err error
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				mallocs := ms.Mallocs
				start := time.Now()
				for b.Loop() {
					res, err = m.run[name](context.Background(), ts.Options{KeepGoing: true})
					if err != nil {
						b.Fatal(err)
					}
				}
				el := time.Since(start).Seconds()
				runtime.ReadMemStats(&ms)
				b.ReportMetric(float64(ms.Mallocs-mallocs)/float64(b.N)/float64(max(res.Transitions, 1)), "allocs/transition")
				b.ReportMetric(float64(res.Executions), "executions")
				b.ReportMetric(float64(res.Transitions), "transitions")
				b.ReportMetric(float64(res.Transitions)*float64(b.N)/el, "transitions/s")
			})
		}
	}
}

// The stateless strategies allocate nothing per transition once their stacks
// and pools have grown: on models whose states are values, the allocations of
// a run stay within a small constant while the transitions grow from ten-
// to a thousandfold (lastzero, philosophers with locks, the queues with awaits,
// where ODPOR replays sequences to check that they are feasible).
func TestAllocsPerTransition(t *testing.T) {
	if auditRace {
		// sync.Pool drops what it is given at random under the race
		// detector, so a search often starts with empty buffers.
		t.Skip("allocations are not a search's own under the race detector")
	}
	pairs := []struct{ small, large model }{
		{modelOf("lastzero-3", models.NewLastzero(3)), modelOf("lastzero-8", models.NewLastzero(8))},
		{modelOf("philosophers-3", models.NewPhilosophers(3)), modelOf("philosophers-7", models.NewPhilosophers(7))},
		{modelOf("wsq-bug1", models.NewWSQBug1(1)), modelOf("wsq-2", models.NewWSQ(2))},
	}
	ctx := context.Background()
	for _, p := range pairs {
		for _, name := range []string{"sleep", "dpor", "odpor"} {
			var small, large ts.Result
			a := leastAllocs(func() { small, _ = p.small.run[name](ctx, ts.Options{KeepGoing: true}) })
			b := leastAllocs(func() { large, _ = p.large.run[name](ctx, ts.Options{KeepGoing: true}) })
			t.Logf("%s: %s %.0f allocs for %d transitions, %s %.0f for %d", name, p.small.name, a, small.Transitions, p.large.name, b, large.Transitions)
			if large.Transitions < 5*small.Transitions {
				t.Fatalf("%s: %s is not much larger than %s", name, p.large.name, p.small.name)
			}
			// The slack is for violations, whose traces are longer on the
			// larger models (philosophers' deadlock: 31 and 53), and for a
			// collection that empties the pool of explorers; odpor once
			// copied a sequence each time it appended a reversal's last
			// event to a frame's memo: 134 allocations on lastzero-8
			// against 10 on lastzero-3.
			if b > 2*a+30 {
				t.Errorf("%s: %s allocates %.0f times for %d transitions (%s: %.0f for %d)", name, p.large.name, b, large.Transitions, p.small.name, a, small.Transitions)
			}
		}
	}
}

// leastAllocs is the least of three testing.AllocsPerRun(3, f): a search
// takes its buffers from the last one's, unless a collection has emptied
// the pool that keeps them (under load, as in CI, one often does).
func leastAllocs(f func()) float64 {
	least := testing.AllocsPerRun(3, f)
	for range 2 {
		least = min(least, testing.AllocsPerRun(3, f))
	}
	return least
}
