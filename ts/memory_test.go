package ts_test

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/weftlab/weft/internal/heapcap"
	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/internal/offheap"
	"github.com/weftlab/weft/ts"
)

// ExploreStateful's visited table is counted by its slots, and the search
// refuses before the table doubles past the budget: the live heap plus the
// mapped memory stays within it. (When the table was a Go map counted at 24
// bytes an entry, the heap grew by 9.4 MB under a budget of 8 MB, 36.5 MB
// under 32; counted by slots but checked only every 1,024 states, 8.4 MB
// under 8.)
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

// ExploreStateful's table of visited states moves past 2 MB to mapped
// memory, and the search gives it back when it returns.
func TestStatefulUnmapsAtTheEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("a search of 372,346 states")
	}
	before := offheap.Mapped()
	peak := before
	opt := ts.Options{KeepGoing: true, Progress: func(ts.Result) { peak = max(peak, offheap.Mapped()) }, ProgressEvery: time.Millisecond}
	res, err := ts.ExploreStateful(context.Background(), models.NewLastzero(9), opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.States != 372346 || res.Transitions != 1765394 {
		t.Errorf("%d states, %d transitions; want 372,346 and 1,765,394", res.States, res.Transitions)
	}
	if runtime.GOOS == "linux" && peak-before < 2<<20 {
		t.Errorf("at most %d bytes mapped during the search; want its table", peak-before)
	}
	if after := offheap.Mapped(); after > before {
		t.Errorf("%d bytes still mapped after the search, %d before", after, before)
	}
}
