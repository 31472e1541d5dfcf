package watch

import (
	"context"
	"runtime"
	"testing"
	"time"
)

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	w := Start(ctx, false, 0)
	defer w.Stop()
	if w.Cancelled() {
		t.Fatal("cancelled before cancel")
	}
	cancel()
	deadline := time.Now().Add(time.Second)
	for !w.Cancelled() {
		if time.Now().After(deadline) {
			t.Fatal("cancellation not seen within a second")
		}
		runtime.Gosched()
	}
	// A context done before Start is seen at once.
	w2 := Start(ctx, false, 0)
	defer w2.Stop()
	if !w2.Cancelled() {
		t.Error("a done context is not seen at once")
	}
}

func TestProgress(t *testing.T) {
	w := Start(context.Background(), true, time.Nanosecond)
	defer w.Stop()
	start := time.Now()
	seen := 0
	for seen < 3 {
		if w.ProgressDue() {
			seen++
		}
		if time.Since(start) > 5*time.Second {
			t.Fatalf("only %d progress reports in 5 s", seen)
		}
		runtime.Gosched()
	}
	// Reports are at least MinProgressEvery apart.
	if d := time.Since(start); d < 2*MinProgressEvery {
		t.Errorf("3 reports in %v, want at least %v", d, 2*MinProgressEvery)
	}
	var zero Watch
	if zero.Cancelled() || zero.ProgressDue() {
		t.Error("the zero Watch fires")
	}
}

func TestNoGoroutineLeft(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 100 {
		ctx, cancel := context.WithCancel(context.Background())
		w := Start(ctx, true, time.Millisecond)
		w.Stop()
		cancel()
	}
	time.Sleep(20 * time.Millisecond)
	if after := runtime.NumGoroutine(); after > before+2 {
		t.Errorf("%d goroutines before, %d after 100 stopped watches", before, after)
	}
}

// A zero interval is the documented default of one second, not the
// minimum: a search without ProgressEvery reports once a second.
func TestDefaultProgressEvery(t *testing.T) {
	w := Start(context.Background(), true, 0)
	defer w.Stop()
	if w.every != DefaultProgressEvery {
		t.Errorf("interval %v, want %v", w.every, DefaultProgressEvery)
	}
}

// Quiet answers for Cancelled between the calls that ask the context, and
// counts as they do: PollEvery-1 quiet calls, then one that Cancelled must
// answer, whatever the two calls interleave; a cancelled context is never
// quiet.
func TestQuiet(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	w := Start(ctx, false, 0)
	defer w.Stop()
	for round := range 3 {
		quiet := 0
		for w.Quiet() {
			quiet++
		}
		if quiet != PollEvery-1 {
			t.Fatalf("round %d: %d quiet calls, want %d", round, quiet, PollEvery-1)
		}
		if w.Cancelled() {
			t.Fatal("cancelled before cancel")
		}
	}
	cancel()
	deadline := time.Now().Add(time.Second)
	for !w.Flag() {
		if time.Now().After(deadline) {
			t.Fatal("cancellation not seen within a second")
		}
		runtime.Gosched()
	}
	if w.Quiet() {
		t.Error("quiet after the context was cancelled")
	}
}
