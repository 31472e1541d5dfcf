package por_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/weftlab/weft/internal/heapcap"
	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
)

// Every strategy keeps to Limits.Memory, with Workers 2 too: a parallel
// search counts what all its explorers keep and what it hands between
// them. ODPOR on lastzero-14 with two workers took 120 MB under a budget
// of 2 MB: its coordinator checked the budget only at multiples of 4096
// transitions, which a unit's result jumps past, and counted neither the
// workers' explorers nor the wakeup sequences of the results it kept.
func TestKeepsMemoryBudget(t *testing.T) {
	type strategy struct {
		name string
		f    func(context.Context, ts.TransitionSystem[models.LastzeroState], por.Options) (ts.Result, error)
	}
	for _, s := range []strategy{{"odpor", por.ODPOR[models.LastzeroState]}, {"sdpor", por.SDPOR[models.LastzeroState]}} {
		heapcap.Keeps(t, s.name, func(ctx context.Context, l ts.Limits) (ts.Result, error) {
			return s.f(ctx, models.NewLastzero(14), por.Options{Options: ts.Options{Limits: l}})
		})
	}
	for _, s := range []strategy{{"odpor", por.ODPOR[models.LastzeroState]}, {"dpor", por.DPOR[models.LastzeroState]}, {"sleep", por.Sleep[models.LastzeroState]}} {
		heapcap.Keeps(t, s.name+", 2 workers", func(ctx context.Context, l ts.Limits) (ts.Result, error) {
			// DPOR and sleep sets keep little on lastzero: a deep
			// execution of many threads fills their frames.
			if s.name != "odpor" {
				return spreadSearch(ctx, s.name, l)
			}
			return s.f(ctx, models.NewLastzero(14), por.Options{Options: ts.Options{Limits: l, Workers: 2}})
		})
	}
}

func spreadSearch(ctx context.Context, name string, l ts.Limits) (ts.Result, error) {
	sys := heapcap.Spread{N: 20, K: 255, Shared: true}
	opt := por.Options{Options: ts.Options{Limits: l, Workers: 2}}
	if name == "dpor" {
		return por.DPOR(ctx, sys, opt)
	}
	return por.Sleep(ctx, sys, opt)
}

// SDPOR's visited table and the operations it keeps per state are counted
// as they are allocated (the table by its slots, a slice by its room), and
// the search refuses before either grows past the budget: the live heap plus
// the mapped memory stays within it. Counted at 24 bytes a Go map entry and
// by the slice's length, the heap reached 9.5 MB under a budget of 8 MB, 28
// MB under 16; checked only every 4,096 transitions, with the frames'
// moves uncounted, 8.2 MB under 8.
func TestSDPORMemoryCountsWhatItKeeps(t *testing.T) {
	const budget = 8 << 20
	var err error
	peak := heapcap.Growth(func(sample func()) {
		_, err = por.SDPOR(context.Background(), heapcap.Spread{N: 7, K: 110, Shared: true}, por.Options{Options: ts.Options{Limits: ts.Limits{Memory: budget},
			ProgressEvery: 20 * time.Millisecond, Progress: func(ts.Result) { sample() }}})
	})
	if !errors.Is(err, ts.ErrMemory) {
		t.Fatalf("%v, want ErrMemory", err)
	}
	if peak > budget {
		t.Errorf("the live heap grew by %.1f MB under a budget of %d MB", float64(peak)/(1<<20), budget>>20)
	}
	t.Logf("the live heap grew by at most %.1f MB", float64(peak)/(1<<20))
}
