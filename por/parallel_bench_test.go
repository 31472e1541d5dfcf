package por

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/weftlab/weft/internal/cputime"
	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/ts"
)

// BenchmarkParallel runs Sleep, DPOR and ODPOR with 1 (serial) and more
// workers on the models the parallel search is measured on, and on two
// whose units used to be too small or too costly. Compare the
// sub-benchmarks' times with benchstat; the transitions are the same.
// cpu-ms/op (Linux) is the CPU time of every goroutine a search: against
// workers-1's, what the split costs in work; idle-ms/op, how long its
// goroutines waited (the parallel-wait-* stats). two-serial runs two
// serial searches at once: against workers-1, what the machine gives two
// searches that share nothing, the ceiling of workers-2's speedup.
func BenchmarkParallel(b *testing.B) {
	lz, ix := models.NewLastzero(12), models.NewIndexer(16)
	cases := []struct {
		name string
		m    mode
		run  func(Options, mode) (ts.Result, error)
	}{
		{"lastzero-12/odpor", modeODPOR, func(o Options, m mode) (ts.Result, error) { return run(context.Background(), lz, o, m) }},
		{"indexer-16/odpor", modeODPOR, func(o Options, m mode) (ts.Result, error) { return run(context.Background(), ix, o, m) }},
		{"indexer-16/dpor", modeDPOR, func(o Options, m mode) (ts.Result, error) { return run(context.Background(), ix, o, m) }},
		{"lastzero-8/sleep", modeSleep, func(o Options, m mode) (ts.Result, error) {
			return run(context.Background(), models.NewLastzero(8), o, m)
		}},
		// Short executions (the split depth is capped by them) and many
		// violations (a unit traces only its first).
		{"casrot-10/odpor", modeODPOR, func(o Options, m mode) (ts.Result, error) {
			return run(context.Background(), models.NewCASRot(10), o, m)
		}},
		{"bluetooth-4/sleep", modeSleep, func(o Options, m mode) (ts.Result, error) {
			o.KeepGoing = true
			return run(context.Background(), models.NewBluetooth(4), o, m)
		}},
	}
	for _, c := range cases {
		// inline: split as with 2 workers, every unit explored in turn on
		// one goroutine, what a unit costs over the serial search.
		for _, w := range []int{1, 2, 4, -2} {
			name := fmt.Sprintf("%s/workers-%d", c.name, w)
			if w < 0 {
				name = c.name + "/inline"
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				var opt Options
				opt.Workers = max(w, -w)
				opt.inline = w < 0
				var trans, idle int64
				cpu0 := cputime.Process()
				for b.Loop() {
					res, err := c.run(opt, c.m)
					if err != nil {
						b.Fatal(err)
					}
					trans += res.Transitions
					for k, v := range res.Stats {
						if strings.HasPrefix(k, "parallel-wait-") {
							idle += v
						}
					}
					b.ReportMetric(float64(res.Stats["parallel-units"]), "units")
					b.ReportMetric(float64(res.Stats["parallel-misses"]), "misses")
				}
				b.ReportMetric(float64(trans)/b.Elapsed().Seconds(), "transitions/s")
				b.ReportMetric(float64(idle)/1e3/float64(b.N), "idle-ms/op")
				if cpu := cputime.Process() - cpu0; cpu > 0 {
					// All goroutines' CPU time: what the split costs in
					// work, whatever else the machine runs.
					b.ReportMetric(float64(cpu.Microseconds())/1e3/float64(b.N), "cpu-ms/op")
				}
			})
		}
		// Two serial searches at once, on goroutines of their own: what
		// the machine gives two searches that share nothing, the most
		// workers-2 could gain (its time against workers-1's).
		b.Run(c.name+"/two-serial", func(b *testing.B) {
			for b.Loop() {
				var wg sync.WaitGroup
				for range 2 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						if _, err := c.run(Options{}, c.m); err != nil {
							b.Error(err)
						}
					}()
				}
				wg.Wait()
			}
		})
	}
}
