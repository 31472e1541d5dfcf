package threads_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/weftlab/weft"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/sim"
	"github.com/weftlab/weft/threads"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/wefttest"
)

// TestEveryStrategy runs every weft strategy on a clean and a buggy
// program: each refuses up front, or finds nothing on the clean one and the
// bug on the buggy one; no goroutine outlives the searches.
func TestEveryStrategy(t *testing.T) {
	before := runtime.NumGoroutine()
	ran := 0
	for _, s := range weft.Strategies() {
		sys := counter(true).MustSystem()
		res, err := weft.Run(context.Background(), sys, s, ts.Options{Limits: ts.Limits{Transitions: 1_000_000}})
		if errors.Is(err, ts.ErrUnsupported) || errors.Is(err, ts.ErrBadOptions) {
			t.Logf("%v refuses: %v", s, err)
			continue
		}
		if err != nil || res.Violation != nil {
			t.Errorf("%v, clean: %v, %v", s, res, err)
			continue
		}
		ran++
		res, err = weft.Run(context.Background(), counter(false).MustSystem(), s, ts.Options{Limits: ts.Limits{Transitions: 1_000_000}})
		if err != nil || res.Violation == nil {
			t.Errorf("%v, buggy: %v, %v", s, res, err)
		}
	}
	if ran < 6 {
		t.Errorf("only %d strategies ran", ran)
	}
	if after := settled(before); after > before {
		t.Errorf("goroutines: %d before the searches, %d after", before, after)
	}
}

// TestWefttest runs a program through the test entry point.
func TestWefttest(t *testing.T) {
	sys := boundedBuffer().MustSystem()
	res := wefttest.Check(t, sys, wefttest.Options{RequireComplete: true})
	if res.Executions == 0 {
		t.Errorf("no execution: %v", res)
	}
}

// TestMapOrder: a thread whose steps follow a map's iteration order is
// not deterministic; the replay that shows it names the step.
func TestMapOrder(t *testing.T) {
	p := threads.New(func(t *threads.T) {
		vars := map[int]*threads.Var[int]{}
		for i := range 8 {
			vars[i] = threads.NewVar(t, "", i)
		}
		t.Go(func(t *threads.T) { vars[0].Store(t, 1) })
		for _, v := range vars {
			v.Load(t)
		}
	})
	_, err := weft.Run(context.Background(), p.MustSystem(), weft.DFS(), ts.Options{})
	var se *ts.SystemError
	if !errors.As(err, &se) || !errors.Is(err, ts.ErrNondeterministic) || len(se.Schedule) == 0 {
		t.Fatalf("want ErrNondeterministic with a schedule, got %v", err)
	}
	t.Log(err)
}

// TestClock: code that reads a clock (here a counter that advances with
// every call, as time does) diverges on replay.
func TestClock(t *testing.T) {
	clock := 0
	now := func() int { clock++; return clock }
	p := threads.New(func(t *threads.T) {
		a := threads.NewVar(t, "a", 0)
		b := threads.NewVar(t, "b", 0)
		t.Go(func(t *threads.T) { a.Store(t, 1) })
		a.Load(t)
		if now()%2 == 0 {
			b.Store(t, 1)
		} else {
			a.Store(t, 2)
		}
	})
	_, err := weft.Run(context.Background(), p.MustSystem(), weft.ODPOR(), ts.Options{})
	if !errors.Is(err, ts.ErrNondeterministic) || !strings.Contains(err.Error(), "next step") {
		t.Fatalf("want ErrNondeterministic naming the step, got %v", err)
	}
	t.Log(err)
}

// TestSpin: a thread that waits for a flag no one sets, by loading it in a
// loop, is reported as spinning, by name.
func TestSpin(t *testing.T) {
	p := threads.New(func(t *threads.T) {
		flag := threads.NewAtomic(t, "flag", false)
		t.Go(func(t *threads.T) {
			t.Name("waiter")
			for !flag.Load(t) {
			}
		})
	})
	p.SpinLimit = 100
	res, err := weft.Run(context.Background(), p.MustSystem(), weft.ODPOR(), ts.Options{})
	if err != nil || res.Violation == nil || !strings.Contains(res.Violation.Err.Error(), "waiter") ||
		!strings.Contains(res.Violation.Err.Error(), "spin") {
		t.Fatalf("want a spin violation naming the waiter, got %v, %v", res, err)
	}
	t.Log(res.Violation.Err)
}

// TestMisuse: bad programs get clear errors.
func TestMisuse(t *testing.T) {
	if _, err := (&threads.Program{}).System(); !errors.Is(err, ts.ErrBadOptions) {
		t.Errorf("no threads: %v", err)
	}
	if _, err := (&threads.Program{Threads: []func(*threads.T){nil}}).System(); !errors.Is(err, ts.ErrBadOptions) {
		t.Errorf("nil thread: %v", err)
	}
	// An object made outside the execution that uses it.
	var leaked *threads.Mutex
	p := threads.New(func(t *threads.T) {
		if leaked == nil {
			leaked = threads.NewMutex(t, "leaked")
		}
		leaked.Lock(t)
		leaked.Unlock(t)
		t.Go(func(t *threads.T) {})
	})
	weft.Run(context.Background(), p.MustSystem(), weft.DFS(), ts.Options{})
	res, err := weft.Run(context.Background(), p.MustSystem(), weft.DFS(), ts.Options{})
	if err != nil || res.Violation == nil || !strings.Contains(res.Violation.Err.Error(), "outside this execution") {
		t.Errorf("stale object: %v, %v", res, err)
	}
	// Too many threads.
	p = threads.New(func(t *threads.T) {
		for range 3 {
			t.Go(func(*threads.T) {})
		}
	})
	p.MaxThreads = 2
	res, err = weft.Run(context.Background(), p.MustSystem(), weft.DFS(), ts.Options{})
	if err != nil || res.Violation == nil || !strings.Contains(res.Violation.Err.Error(), "MaxThreads") {
		t.Errorf("too many threads: %v, %v", res, err)
	}
}

// TestSpinDefault: with the default limit, two spinning threads are
// reported as a spin, before the search's depth limit.
func TestSpinDefault(t *testing.T) {
	p := threads.New(func(t *threads.T) {
		flag := threads.NewAtomic(t, "flag", false)
		for range 2 {
			t.Go(func(t *threads.T) {
				for !flag.Load(t) {
				}
			})
		}
	})
	for _, s := range []weft.Strategy{weft.DFS(), weft.ODPOR(), weft.ICB()} {
		res, err := weft.Run(context.Background(), p.MustSystem(), s, ts.Options{})
		if err != nil || res.Violation == nil || !strings.Contains(res.Violation.Err.Error(), "spin") {
			t.Fatalf("%v: want a spin violation, got %v, %v", s, res, err)
		}
	}
}

// TestSamplers: the random searches find the Treiber stack's ABA bug on a
// program, the violation replays, and no goroutine outlives them.
func TestSamplers(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, s := range weft.Samplers() {
		s, err := s.WithRuns(20_000)
		if err != nil {
			t.Fatal(err)
		}
		sys := treiber(true).MustSystem()
		res, err := weft.Run(context.Background(), sys, s, ts.Options{})
		if err != nil || res.Violation == nil {
			t.Errorf("%v: %v, %v", s, res, err)
			continue
		}
		run, err := ts.Replay(sys, res.Violation.Trace.Schedule())
		sys.Close()
		if err != nil || run.Violation == nil || run.Violation.Err.Error() != res.Violation.Err.Error() {
			t.Errorf("%v: the violation does not replay: %v, %v", s, run.Violation, err)
		}
		t.Logf("%v: %v", s, res)
	}
	if after := settled(before); after > before {
		t.Errorf("goroutines: %d before the searches, %d after", before, after)
	}
}

// TestParallel: a search with several workers gives each its own System
// (ts.Forker) and finds exactly what the serial search finds; no goroutine
// outlives it.
func TestParallel(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, clean := range []bool{true, false} {
		for _, o := range []struct {
			name string
			run  func(ts.TransitionSystem[sim.State], por.Options) (ts.Result, error)
		}{
			{"odpor", func(s ts.TransitionSystem[sim.State], o por.Options) (ts.Result, error) {
				return por.ODPOR(context.Background(), s, o)
			}},
			{"dpor", func(s ts.TransitionSystem[sim.State], o por.Options) (ts.Result, error) {
				return por.DPOR(context.Background(), s, o)
			}},
		} {
			var opt por.Options
			opt.KeepGoing = true
			want, err := o.run(boundedBuffer().MustSystem(), opt)
			if clean {
				want, err = o.run(counter(true).MustSystem(), opt)
			}
			if err != nil {
				t.Fatal(err)
			}
			opt.Workers, opt.SplitDepth, opt.SplitAfter = 3, 3, -1
			sys := boundedBuffer().MustSystem()
			if clean {
				sys = counter(true).MustSystem()
			}
			got, err := o.run(sys, opt)
			if err != nil {
				t.Fatal(err)
			}
			if got.Stats["parallel-units"] == 0 {
				t.Errorf("%s: no unit", o.name)
			}
			if got.Executions != want.Executions || got.Transitions != want.Transitions || got.Violations != want.Violations {
				t.Errorf("%s with 3 workers: %v; serial %v", o.name, got, want)
			}
		}
	}
	if after := settled(before); after > before {
		t.Errorf("goroutines: %d before the searches, %d after", before, after)
	}
}

// settled returns the goroutine count once it is at most before, or after
// two seconds: a coroutine a search has closed may still be on its way out
// when the search returns (a check right away failed under load).
func settled(before int) int {
	runtime.GC()
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	return runtime.NumGoroutine()
}
