package gobugs_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/weftlab/weft"
	"github.com/weftlab/weft/threads/gobugs"
	"github.com/weftlab/weft/ts"
)

func TestKernels(t *testing.T) {
	before := runtime.NumGoroutine()
	ks := gobugs.Kernels()
	if len(ks) < 15 {
		t.Fatalf("%d kernels, want at least 15", len(ks))
	}
	for _, k := range ks {
		t.Run(k.Name, func(t *testing.T) {
			sys := k.Buggy().MustSystem()
			res, err := weft.Run(context.Background(), sys, k.Strategy, ts.Options{})
			if err != nil {
				t.Fatal(err)
			}
			v := res.Violation
			if v == nil || v.Kind != k.Kind {
				t.Fatalf("buggy: want a %v, got %v", k.Kind, res)
			}
			t.Logf("%v: %v\n%s", v.Kind, v.Err, v.Trace.Format(sys))
			// Every stateless strategy finds it (a race through sync-only
			// only: the others do not report races).
			if v.Kind != ts.DataRace {
				for _, s := range []weft.Strategy{weft.DFS(), weft.Sleep(), weft.DPOR(), weft.ICB()} {
					res, err := weft.Run(context.Background(), k.Buggy().MustSystem(), s, ts.Options{})
					if err != nil || res.Violation == nil || res.Violation.Kind != k.Kind {
						t.Errorf("%v: want a %v, got %v, %v", s, k.Kind, res, err)
					}
				}
			}
			// The trace replays: to the same violation, or for a race to
			// the execution where it shows.
			if v.Kind == ts.DataRace {
				rsys := k.Buggy().MustSystem()
				if _, err := ts.Replay(rsys, v.Trace.Schedule()); err != nil {
					t.Errorf("replay of %v: %v", v.Trace.Schedule(), err)
				}
				rsys.Close()
			} else {
				rsys := k.Buggy().MustSystem()
				run, err := ts.Replay(rsys, v.Trace.Schedule())
				rsys.Close() // a replay is not a search: it leaves the coroutines to the caller
				if err != nil || run.Violation == nil || run.Violation.Kind != k.Kind {
					t.Errorf("replay of %v: %v, %v", v.Trace.Schedule(), run.Violation, err)
				}
			}
			fixed := k.Fixed().MustSystem()
			for _, s := range []weft.Strategy{k.Strategy, weft.DFS()} {
				res, err = weft.Run(context.Background(), fixed, s, ts.Options{})
				if err != nil || res.Violation != nil || !res.Complete {
					t.Errorf("fixed, %v: %v, %v", s, res, err)
				}
			}
		})
	}
	// A coroutine a search has closed may still be on its way out when the
	// search returns (a check right away failed under load).
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("goroutines: %d before the searches, %d after", before, after)
	}
}
