package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// sink keeps what the test allocates reachable until it drops it.
var sink [][]byte

// The command's collector settings: no collection while the heap stays
// small (a short search pays none), then GOGC back to 100 with the 64 MB
// ballast once the heap has first reached 64 MB.
func TestBallastAfterFirstCollection(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	ballast.Store(nil)
	runtime.GC()
	ballastAfterFirstCollection()
	if got := debug.SetGCPercent(1600); got != 1600 {
		t.Fatalf("GOGC %d before the first collection, want 1600", got)
	}
	start := gcCycles()
	for range 24 { // 24 MB live: a collection would have come at 8 MB with GOGC 100
		sink = append(sink, make([]byte, 1<<20))
	}
	if n := gcCycles() - start; n != 0 {
		t.Fatalf("%d collections with 24 MB of heap, want none", n)
	}
	if ballast.Load() != nil {
		t.Fatal("the ballast is there before the first collection")
	}
	sink = nil
	deadline := time.Now().Add(10 * time.Second)
	for ballast.Load() == nil {
		if time.Now().After(deadline) {
			t.Fatalf("no ballast after %d collections", gcCycles()-start)
		}
		sink = append(sink[:0], make([]byte, 8<<20)) // garbage, 8 MB at a time
		time.Sleep(time.Millisecond)
	}
	if b := *ballast.Load(); len(b) != 64<<20 {
		t.Errorf("ballast of %d bytes, want 64 MB", len(b))
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC %d after the first collection, want 100", got)
	}
}
