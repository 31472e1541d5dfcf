package weft_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/weftlab/weft"
	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/random"
	"github.com/weftlab/weft/ts"
)

// The samplers run through weft.Run with their parameters, are found by
// name, refuse what they do not take, and find a bug that replays.
func TestSamplersThroughRun(t *testing.T) {
	for _, s := range weft.Samplers() {
		got, err := weft.Lookup(s.Name())
		if err != nil || got != s || !s.IsSampler() || !s.Whole() || s.Runs() != weft.DefaultRuns {
			t.Errorf("Lookup(%s) = %v, %v", s.Name(), got, err)
		}
		if _, err := s.WithBound(1); !errors.Is(err, ts.ErrBadOptions) {
			t.Errorf("%s.WithBound: %v", s, err)
		}
		if _, err := weft.Transactions(s); !errors.Is(err, ts.ErrBadOptions) {
			t.Errorf("tx:%s: %v", s, err)
		}
		if _, err := s.WithRuns(-1); !errors.Is(err, ts.ErrBadOptions) {
			t.Errorf("%s.WithRuns(-1): %v", s, err)
		}
		s, _ = s.WithRuns(500)
		s, _ = s.WithSeed(9)
		sys := models.NewLostUpdate(0)
		res, err := weft.Run(context.Background(), sys, s, ts.Options{})
		if err != nil || res.Violation == nil {
			t.Fatalf("%s: %v, %v", s, res, err)
		}
		if run, err := ts.Replay(sys, res.Violation.Trace.Schedule()); err != nil || run.Violation == nil {
			t.Errorf("%s: the violation does not replay: %v", s, err)
		}
		if g, ok := random.GuaranteeOf(res); !ok || g.Strategy != s.Name() {
			t.Errorf("%s: guarantee %+v", s, g)
		}
		// No runs: the context's deadline is the budget.
		s, _ = s.WithRuns(0)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		_, err = weft.Run(ctx, models.NewPhilosophers(3), s, ts.Options{IgnoreDeadlocks: true})
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s with a deadline: %v", s, err)
		}
		if _, err := weft.Run(context.Background(), sys, s, ts.Options{}); !errors.Is(err, ts.ErrBadOptions) {
			t.Errorf("%s with no budget: %v", s, err)
		}
	}
	if _, err := weft.Random().WithDepth(2); !errors.Is(err, ts.ErrBadOptions) {
		t.Errorf("random.WithDepth: %v", err)
	}
	if _, err := weft.PCT().WithDepth(0); !errors.Is(err, ts.ErrBadOptions) {
		t.Errorf("pct.WithDepth(0): %v", err)
	}
	if _, err := weft.ODPOR().WithSeed(1); !errors.Is(err, ts.ErrBadOptions) {
		t.Errorf("odpor.WithSeed: %v", err)
	}
}

// The samplers see cancellation promptly even when Apply is slow, and a
// panic in a callback is the caller's.
func TestSamplersCancelPromptlyAndCallbacks(t *testing.T) {
	for _, s := range weft.Samplers() {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(20*time.Millisecond, cancel)
		start := time.Now()
		_, err := weft.Run(ctx, slowLastzero{models.NewLastzero(4)}, s, ts.Options{})
		if !errors.Is(err, context.Canceled) || time.Since(start) > 2*time.Second {
			t.Errorf("%s: %v after %v", s, err, time.Since(start))
		}
		cancel()
		opt := ts.Options{OnViolation: func(*ts.Violation) { panic("mine") }}
		_, err = weft.Run(context.Background(), models.NewPhilosophers(2), s, opt)
		var ce *ts.CallbackError
		if !errors.As(err, &ce) {
			t.Errorf("%s, OnViolation panics: %v", s, err)
		}
	}
}
