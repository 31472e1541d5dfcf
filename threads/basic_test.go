package threads_test

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/weftlab/weft"
	"github.com/weftlab/weft/threads"
	"github.com/weftlab/weft/ts"
)

func run(t *testing.T, p *threads.Program, s weft.Strategy) ts.Result {
	t.Helper()
	sys, err := p.System()
	if err != nil {
		t.Fatal(err)
	}
	res, err := weft.Run(context.Background(), sys, s, ts.Options{Limits: ts.Limits{Transitions: 2_000_000}})
	if err != nil {
		t.Fatalf("%v: %v", s, err)
	}
	return res
}

// counter: two threads increment a shared counter under a mutex, or not.
func counter(locked bool) *threads.Program {
	return threads.New(func(t *threads.T) {
		mu := threads.NewMutex(t, "mu")
		n := threads.NewVar(t, "n", 0)
		wg := threads.NewWaitGroup(t, "wg")
		inc := func(t *threads.T) {
			if locked {
				mu.Lock(t)
				defer mu.Unlock(t)
			}
			n.Store(t, n.Load(t)+1)
		}
		wg.Add(t, 2)
		for range 2 {
			t.Go(func(t *threads.T) { defer wg.Done(t); inc(t) })
		}
		wg.Wait(t)
		mu.Lock(t)
		got := n.Load(t)
		mu.Unlock(t)
		t.Assert(got == 2, "n = %d, want 2", got)
	})
}

func TestCounter(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, s := range []weft.Strategy{weft.DFS(), weft.Sleep(), weft.DPOR(), weft.ODPOR(), weft.ICB(), weft.SyncOnly()} {
		res := run(t, counter(true), s)
		if res.Violation != nil {
			t.Errorf("%v: locked counter: %v", s, res)
		}
		res = run(t, counter(false), s)
		if res.Violation == nil {
			t.Errorf("%v: unlocked counter: no violation: %v", s, res)
		} else {
			t.Logf("%v: %v: %v", s, res.Violation.Kind, res.Violation.Err)
		}
	}
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("goroutines: %d before, %d after", before, after)
	}
}

func TestDeadlockNames(t *testing.T) {
	p := threads.New(func(t *threads.T) {
		a := threads.NewMutex(t, "a")
		b := threads.NewMutex(t, "b")
		t.Go(func(t *threads.T) { t.Name("ba"); b.Lock(t); a.Lock(t); a.Unlock(t); b.Unlock(t) })
		a.Lock(t)
		b.Lock(t)
		b.Unlock(t)
		a.Unlock(t)
	})
	res := run(t, p, weft.ODPOR())
	if res.Violation == nil || res.Violation.Kind != ts.Deadlock {
		t.Fatalf("want a deadlock, got %v", res)
	}
	txt := res.Violation.Trace.String()
	for _, w := range []string{"lock a", "lock b", "ba", "main"} {
		if !strings.Contains(txt, w) {
			t.Errorf("trace lacks %q:\n%s", w, txt)
		}
	}
	t.Log(res.Violation.Err, "\n", txt)
}
