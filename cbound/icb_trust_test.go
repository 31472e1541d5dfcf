package cbound_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// icbStrategies are ICB's modes and cb-dfs, each with a bound of 2.
func icbStrategies[S any]() map[string]func(context.Context, ts.TransitionSystem[S], ts.Options) (ts.Result, error) {
	with := func(f func(context.Context, ts.TransitionSystem[S], cbound.Options) (ts.Result, error), o cbound.Options) func(context.Context, ts.TransitionSystem[S], ts.Options) (ts.Result, error) {
		return func(ctx context.Context, sys ts.TransitionSystem[S], opt ts.Options) (ts.Result, error) {
			o.Options = opt
			return f(ctx, sys, o)
		}
	}
	return map[string]func(context.Context, ts.TransitionSystem[S], ts.Options) (ts.Result, error){
		"icb":           with(cbound.ICB[S], cbound.Options{}),
		"icb-nocache":   with(cbound.ICB[S], cbound.Options{NoCache: true}),
		"icb-sync-only": with(cbound.ICB[S], cbound.Options{SyncOnly: true}),
		"cb-dfs":        with(cbound.DFS[S], cbound.Options{}),
	}
}

// Every mode notices what ts.Explore notices of a broken contract, without
// Hash: an Apply that modifies its argument, a Next that is not a function
// of the state, a thread count that changes.
func TestICBContractBreaches(t *testing.T) {
	for name, f := range icbStrategies[[]int]() {
		for _, b := range tstest.Breaches {
			if _, err := f(context.Background(), tstest.Broken(b, false), ts.Options{}); !b.Noticed(err) {
				t.Errorf("%s, %v: %v", name, b, err)
			}
		}
	}
}

// A panic in the caller's own callbacks is an error naming the callback, not
// a violation of the system; a nil context is bad options.
func TestICBCallbacksAndContext(t *testing.T) {
	p := models.NewPhilosophers(2)
	for name, f := range icbStrategies[models.PhilosophersState]() {
		for _, c := range []struct {
			name string
			opt  ts.Options
		}{
			{"OnTerminal", ts.Options{KeepGoing: true, OnTerminal: func(any, ts.Schedule) { panic("mine") }}},
			{"OnViolation", ts.Options{OnViolation: func(*ts.Violation) { panic("mine") }}},
			{"Progress", ts.Options{ProgressEvery: time.Nanosecond, Progress: func(ts.Result) { panic("mine") }}},
		} {
			_, err := f(context.Background(), slowPhil{p}, c.opt)
			var ce *ts.CallbackError
			if !errors.As(err, &ce) || ce.Callback != c.name || errors.Is(err, ts.ErrBadSystem) {
				t.Errorf("%s, %s: %v", name, c.name, err)
			}
		}
		if _, err := f(nil, p, ts.Options{}); !errors.Is(err, ts.ErrBadOptions) { //nolint:staticcheck // the nil context is the point
			t.Errorf("%s, nil context: %v", name, err)
		}
	}
}

// slowPhil makes every Apply take a while, so that progress is due.
type slowPhil struct{ *models.Philosophers }

func (s slowPhil) Apply(st models.PhilosophersState, t ts.Tid) models.PhilosophersState {
	time.Sleep(500 * time.Microsecond)
	return s.Philosophers.Apply(st, t)
}

// slowApply sleeps 100 µs in every Apply: cancellation must still be seen
// within a fraction of a second.
type slowApply struct{ *models.Lastzero }

func (s slowApply) Apply(st models.LastzeroState, t ts.Tid) models.LastzeroState {
	time.Sleep(100 * time.Microsecond)
	return s.Lastzero.Apply(st, t)
}

// firstSlow is slowApply whose first transition takes 50 ms.
type firstSlow struct {
	slowApply
	done *bool
}

func (s firstSlow) Apply(st models.LastzeroState, t ts.Tid) models.LastzeroState {
	if !*s.done {
		*s.done = true
		time.Sleep(50 * time.Millisecond)
	}
	return s.slowApply.Apply(st, t)
}

func TestICBCancellationIsPrompt(t *testing.T) {
	for name, f := range icbStrategies[models.LastzeroState]() {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		start := time.Now()
		res, err := f(ctx, slowApply{models.NewLastzero(8)}, ts.Options{})
		cancel()
		d := time.Since(start)
		if err == nil && (res.Complete || res.Violation != nil) && d < 300*time.Millisecond {
			continue // done before the deadline (sync-only finds a race at once)
		}
		if !errors.Is(err, context.DeadlineExceeded) || d > 300*time.Millisecond {
			t.Errorf("%s: %v after %v", name, err, d)
		}
	}
}

func TestICBMemoryBudgetAndProgress(t *testing.T) {
	for name, f := range icbStrategies[models.LastzeroState]() {
		_, err := f(context.Background(), models.NewLastzero(6), ts.Options{Limits: ts.Limits{Memory: 64}})
		if !errors.Is(err, ts.ErrMemory) {
			t.Errorf("%s: %v, want ErrMemory", name, err)
		}
		calls := 0
		// The first transition outlasts the interval many times over: a
		// sync-only search ends after 9 transitions, which a loaded
		// machine can run before the progress timer's goroutine does.
		_, err = f(context.Background(), firstSlow{slowApply{models.NewLastzero(4)}, new(bool)}, ts.Options{
			ProgressEvery: time.Millisecond, Progress: func(ts.Result) { calls++ },
			Limits: ts.Limits{Transitions: 100}})
		if err != nil || calls == 0 {
			t.Errorf("%s: %d progress reports, %v", name, calls, err)
		}
	}
}

// Coverage counts as terminal states only the states OnTerminal is called
// with: a state where a check fails is a violation, not a terminal state.
func TestICBTerminalStatesExcludeViolations(t *testing.T) {
	// T0: r0=x; assert r0==0. T1: x=1. Two terminal states: T1 first (T0
	// fails: a violation), T0 first (both done).
	p := &tstest.Program{
		Vars: []tstest.Var{{Name: "x"}},
		Code: [][]tstest.Instr{{tstest.Load(0, 0), tstest.AssertEq(0, 0)}, {tstest.Store(0, 1)}},
	}
	terminals := 0
	res, err := cbound.ICB(context.Background(), p, cbound.Options{Bound: cbound.Unbounded,
		Options: ts.Options{KeepGoing: true, OnTerminal: func(any, ts.Schedule) { terminals++ }}})
	if err != nil || res.Violations != 1 {
		t.Fatalf("%v, %v", res, err)
	}
	if got := res.Coverage[len(res.Coverage)-1].TerminalStates; got != int64(terminals) || got != 1 {
		t.Errorf("Coverage counts %d terminal states, OnTerminal saw %d, want 1", got, terminals)
	}
}

// Idle threads end an execution normally; IgnoreDeadlocks makes every end
// normal and the result says deadlocks were not looked for.
func TestICBIdleAndIgnoredDeadlocks(t *testing.T) {
	server := &tstest.Program{
		Vars: []tstest.Var{{Name: "req", Sync: true}},
		Code: [][]tstest.Instr{{tstest.Store(0, 1)}, {tstest.Wait(0, 1), tstest.Wait(0, 2)}},
	}
	blocked := &tstest.Program{
		Vars: []tstest.Var{{Name: "req", Sync: true}},
		Code: [][]tstest.Instr{{tstest.Store(0, 1)}, {tstest.Await(0, 1), tstest.Await(0, 2)}},
	}
	for name, f := range icbStrategies[tstest.State]() {
		res, err := f(context.Background(), server, ts.Options{})
		if err != nil || res.Violation != nil || !res.Complete || !res.Finds.Has(ts.Deadlock) {
			t.Errorf("%s, idle server: %v, %v", name, res, err)
		}
		res, err = f(context.Background(), blocked, ts.Options{})
		if err != nil || res.Violation == nil || res.Violation.Kind != ts.Deadlock {
			t.Errorf("%s, blocked server: %v, %v", name, res, err)
		}
		res, err = f(context.Background(), blocked, ts.Options{IgnoreDeadlocks: true})
		if err != nil || res.Violation != nil || res.Finds.Has(ts.Deadlock) {
			t.Errorf("%s, ignored deadlocks: %v, %v", name, res, err)
		}
	}
}
