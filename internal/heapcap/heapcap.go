// Package heapcap runs a search under a watch on the process's heap (and
// on the memory mapped outside it for the searches' largest slices,
// offheap.Mapped), for
// the tests that check that a strategy keeps to Limits.Memory: the search
// is cancelled as soon as the heap grows past a ceiling, so that a
// strategy that does not keep to its budget fails its test at once instead
// of taking the machine's memory. Keeps is that test; Spread is a system
// whose search keeps much for little work.
package heapcap

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"time"

	"github.com/weftlab/weft/internal/offheap"
	"github.com/weftlab/weft/ts"
)

// Outcome is what Run saw.
type Outcome struct {
	// Peak is the largest growth of the heap (runtime.MemStats.HeapAlloc,
	// garbage not yet collected included), plus the memory the search's
	// largest slices take outside it (offheap.Mapped), over what they were
	// when the search started, sampled every millisecond.
	Peak int64
	// Capped says that the heap passed the ceiling and the search's
	// context was cancelled.
	Capped bool
	// Took is how long the search ran.
	Took time.Duration
}

// Run calls search with a context derived from ctx that is cancelled when
// the heap grows by more than ceiling bytes, and returns what it saw. The
// heap is collected first, so that the growth is the search's.
func Run(ctx context.Context, ceiling int64, search func(ctx context.Context)) Outcome {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	runtime.GC()
	base := kept()
	var (
		mu   sync.Mutex
		out  Outcome
		done = make(chan struct{})
		wg   sync.WaitGroup
	)
	sample := func() {
		grown := kept() - base
		mu.Lock()
		defer mu.Unlock()
		out.Peak = max(out.Peak, grown)
		if grown > ceiling && !out.Capped {
			out.Capped = true
			cancel()
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				sample()
			}
		}
	}()
	start := time.Now()
	search(ctx)
	took := time.Since(start)
	close(done)
	wg.Wait()
	sample()
	mu.Lock()
	defer mu.Unlock()
	out.Took = took
	return out
}

// TB is the part of testing.TB that Keeps uses.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Logf(format string, args ...any)
}

// Budget is the Limits.Memory of the tests that use Keeps, and Ceiling the
// growth of the heap (garbage not yet collected included) past which a
// search is taken not to keep it.
const (
	Budget  = 4 << 20
	Ceiling = 4 * Budget
)

// Keeps runs search under a memory budget of Budget bytes and fails t,
// naming the search name, unless the search stops with an error wrapping
// ts.ErrMemory, quickly (within 5 seconds), and without the heap growing
// by more than Ceiling bytes on the way.
func Keeps(t TB, name string, search func(ctx context.Context, limits ts.Limits) (ts.Result, error)) {
	t.Helper()
	var res ts.Result
	var err error
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out := Run(ctx, Ceiling, func(ctx context.Context) {
		res, err = search(ctx, ts.Limits{Memory: Budget})
	})
	switch {
	case out.Capped:
		t.Errorf("%s: the heap grew past %d MB under a budget of %d MB (%v, %v)", name, Ceiling>>20, Budget>>20, res, err)
	case !errors.Is(err, ts.ErrMemory):
		t.Errorf("%s: %v, %v after %v; want an error wrapping ts.ErrMemory", name, res, err, out.Took)
	case out.Took > 5*time.Second:
		t.Errorf("%s: ErrMemory after %v", name, out.Took)
	}
	t.Logf("%s: %v after %v, heap grew by at most %.1f MB", name, err, out.Took.Round(time.Millisecond), float64(out.Peak)/(1<<20))
}

// Growth calls search with sample, a function that collects garbage and
// notes the live heap and the mapped memory (kept), for search to call as
// it goes (a Progress callback), and returns the most they grew above what
// they were before search.
func Growth(search func(sample func())) uint64 {
	for range 3 { // and the pool of an earlier search with it
		runtime.GC()
	}
	base := kept()
	var peak int64
	search(func() {
		runtime.GC()
		peak = max(peak, kept()-base)
	})
	return uint64(peak)
}

// kept is the heap's size (runtime.MemStats.HeapAlloc) plus the memory
// mapped outside it for the searches' largest slices (offheap.Mapped),
// which the heap's figures do not see.
func kept() int64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc) + offheap.Mapped()
}
