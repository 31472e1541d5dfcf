package ts_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/weftlab/weft/internal/heapcap"
	"github.com/weftlab/weft/ts"
)

// ExploreStateful's visited table is counted as Go allocates it (40 bytes
// an entry, the most a map takes just after it grows): the live heap stays
// within the budget. At 24 bytes an entry it grew by 9.4 MB under a budget
// of 8 MB, 36.5 MB under 32.
func TestExploreStatefulMemoryCountsWhatItKeeps(t *testing.T) {
	const budget = 8 << 20
	var err error
	peak := heapcap.Growth(func(sample func()) {
		_, err = ts.ExploreStateful[heapcap.SpreadState](context.Background(), heapcap.Spread{N: 7, K: 110}, ts.Options{Limits: ts.Limits{Memory: budget},
			ProgressEvery: 10 * time.Millisecond, Progress: func(ts.Result) { sample() }})
	})
	if !errors.Is(err, ts.ErrMemory) {
		t.Fatalf("%v, want ErrMemory", err)
	}
	if peak > budget {
		t.Errorf("the live heap grew by %.1f MB under a budget of %d MB", float64(peak)/(1<<20), budget>>20)
	}
	t.Logf("the live heap grew by at most %.1f MB", float64(peak)/(1<<20))
}
