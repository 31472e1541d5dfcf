package por

import (
	"context"
	"fmt"
	"testing"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/ts"
)

func BenchmarkPar(b *testing.B) {
	for _, c := range []struct {
		name string
		run  func(Options) (ts.Result, error)
	}{
		{"lz12", func(o Options) (ts.Result, error) { return ODPOR(context.Background(), models.NewLastzero(12), o) }},
		{"ix16", func(o Options) (ts.Result, error) { return ODPOR(context.Background(), models.NewIndexer(16), o) }},
	} {
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/w%d", c.name, w), func(b *testing.B) {
				for b.Loop() {
					var opt Options
					opt.Workers = w
					res, _ := c.run(opt)
					b.ReportMetric(float64(res.Stats["parallel-restarts"]), "restarts")
					b.ReportMetric(float64(res.Stats["parallel-misses"]), "misses")
					b.ReportMetric(float64(res.Stats["parallel-inline-transitions"]), "inline")
					b.ReportMetric(float64(res.Stats["parallel-wasted-transitions"]), "wasted")
					b.ReportMetric(float64(res.Stats["parallel-units"]), "units")
				}
			})
		}
	}
}
