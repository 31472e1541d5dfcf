// Package heapcap runs a search under a watch on the process's heap, for
// the tests that check that a strategy keeps to Limits.Memory: the search
// is cancelled as soon as the heap grows past a ceiling, so that a
// strategy that does not keep to its budget fails its test at once instead
// of taking the machine's memory.
package heapcap

import (
	"context"
	"runtime"
	"sync"
	"time"
)

// Outcome is what Run saw.
type Outcome struct {
	// Peak is the largest growth of the heap (runtime.MemStats.HeapAlloc,
	// garbage not yet collected included) over what it was when the
	// search started, sampled every millisecond.
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
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := int64(ms.HeapAlloc)
	var (
		mu   sync.Mutex
		out  Outcome
		done = make(chan struct{})
		wg   sync.WaitGroup
	)
	sample := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		grown := int64(ms.HeapAlloc) - base
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
