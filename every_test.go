package weft_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/weftlab/weft"
	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/mat"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// everyStrategy is every strategy weft offers and a few compositions.
func everyStrategy() []weft.Strategy {
	return append(weft.Strategies(), tx(weft.DFS()), tx(weft.ODPOR()), tx(weft.ICB()), tx(weft.DFSStateful()))
}

// tx is weft.Transactions for a composition known to be sound.
func tx(s weft.Strategy) weft.Strategy {
	v, err := weft.Transactions(s)
	if err != nil {
		panic(err)
	}
	return v
}

// everyView is every strategy that runs on the transaction view, so run.
func everyView() []weft.Strategy {
	var out []weft.Strategy
	for _, s := range weft.Strategies() {
		if v, err := weft.Transactions(s); err == nil {
			out = append(out, v)
		}
	}
	return out
}

// Every strategy and sampler notices what ts.Explore notices of a broken
// contract (an Apply that modifies its argument, a Next that is not a
// function of the state, a thread count that changes), with Hash where it
// needs one and without elsewhere, or refuses the system for a stated
// reason; so does every composition with the transaction view, though the
// view reports one step per transaction and the inner search sees none of
// the original's.
func TestEveryStrategyNoticesBrokenContracts(t *testing.T) {
	for _, s := range slices.Concat(weft.Strategies(), weft.Samplers(), everyView()) {
		for _, b := range tstest.Breaches {
			_, err := weft.Run(context.Background(), tstest.Broken(b, s.Needs().Has(weft.NeedsHash)), s, ts.Options{})
			refused := errors.Is(err, ts.ErrUnsupported) || errors.Is(err, ts.ErrBadOptions) ||
				(b == tstest.NextNotAFunction && errors.Is(err, mat.ErrNotStraightLine))
			if !b.Noticed(err) && !refused {
				t.Errorf("%s, %v: %v", s, b, err)
			}
		}
	}
}

// panicky is two threads that write their own object three times, then
// read a shared one; where is the method that panics, in thread 1's third
// transition or at the state it reaches.
type panicky struct{ where string }

func (panicky) Init() [2]int { return [2]int{} }
func (panicky) Threads() int { return 2 }
func (p panicky) Next(s [2]int, t ts.Tid) (ts.Step, ts.Status) {
	if p.where == "Next" && t == 1 && s[1] == 2 {
		panic("Next")
	}
	switch {
	case s[t] < 3:
		return ts.Step{Obj: ts.Obj(t), Op: ts.Write}, ts.Enabled
	case s[t] == 3:
		return ts.Step{Obj: 2, Op: ts.Read}, ts.Enabled
	}
	return ts.Step{}, ts.Finished
}
func (p panicky) Apply(s [2]int, t ts.Tid) [2]int {
	if p.where == "Apply" && t == 1 && s[1] == 2 {
		panic("Apply")
	}
	s[t]++
	return s
}
func (p panicky) Check(s [2]int) error {
	if p.where == "Check" && s[1] == 3 {
		panic("Check")
	}
	return nil
}
func (p panicky) Hash(s [2]int) uint64 {
	if p.where == "Hash" && s[1] == 3 {
		panic("Hash")
	}
	return uint64(s[0])<<8 | uint64(s[1])
}

// A panic in the system's Apply, Next, Check or Hash never escapes Run: it
// is a Panic violation of the thread that panicked (for Check and Hash,
// which belong to a state, the thread that took the last step), with the
// schedule that reaches it, under every
// strategy and every composition with the transaction view. A strategy
// that does not need Hash may never call it.
func TestEveryStrategyReportsPanics(t *testing.T) {
	want := map[string]struct {
		thread ts.Tid
		ones   int // thread 1's moves up to the panic, its own included
	}{"Apply": {1, 3}, "Next": {1, 2}, "Check": {1, 3}, "Hash": {1, 3}}
	for _, s := range append(everyStrategy(), everyView()...) {
		for _, where := range []string{"Apply", "Next", "Check", "Hash"} {
			res, err, escaped := func() (res ts.Result, err error, escaped any) {
				defer func() { escaped = recover() }()
				res, err = weft.Run[[2]int](context.Background(), panicky{where}, s, ts.Options{})
				return res, err, nil
			}()
			v := res.Violation
			switch {
			case escaped != nil:
				t.Errorf("%s, %s panics: the panic escaped Run: %v", s, where, escaped)
			case errors.Is(err, ts.ErrUnsupported) || errors.Is(err, ts.ErrBadOptions):
			case where == "Hash" && !s.Needs().Has(weft.NeedsHash) && err == nil && v == nil:
			case err != nil || v == nil || v.Kind != ts.Panic:
				t.Errorf("%s, %s panics: %v, %v", s, where, res, err)
			default:
				ones := 0
				for _, mv := range v.Trace.Schedule() {
					if mv.Thread == 1 {
						ones++
					}
				}
				if v.Thread != want[where].thread || ones != want[where].ones {
					t.Errorf("%s, %s panics: thread %d, schedule %v; want thread %d and %d moves of thread 1",
						s, where, v.Thread, v.Trace.Schedule(), want[where].thread, want[where].ones)
				}
			}
		}
	}
}

// Every strategy refuses a nil context with ErrBadOptions, and reports a
// panic in OnViolation as the caller's.
func TestEveryStrategyNilContextAndCallbacks(t *testing.T) {
	sys := models.NewPhilosophers(2) // deadlocks
	for _, name := range everyStrategy() {
		//lint:ignore SA1012 the nil context is the point
		if _, err := weft.Run[models.PhilosophersState](nil, sys, name, ts.Options{}); !errors.Is(err, ts.ErrBadOptions) {
			t.Errorf("%s, nil context: %v", name, err)
		}
		opt := ts.Options{OnViolation: func(*ts.Violation) { panic("mine") }}
		res, err := weft.Run[models.PhilosophersState](context.Background(), sys, name, opt)
		var ce *ts.CallbackError
		if errors.As(err, &ce) || (err == nil && res.Violation == nil && !res.Finds.Has(ts.Deadlock)) || errors.Is(err, ts.ErrBadOptions) {
			continue // the callback's panic, deadlocks not looked for (and said so), or refused
		}
		t.Errorf("%s, OnViolation panics: %v, %v", name, res, err)
	}
}

// slowLastzero sleeps in every Apply.
type slowLastzero struct{ *models.Lastzero }

func (s slowLastzero) Apply(st models.LastzeroState, t ts.Tid) models.LastzeroState {
	time.Sleep(100 * time.Microsecond)
	return s.Lastzero.Apply(st, t)
}

// Every strategy sees cancellation within a fraction of a second even when
// Apply is slow (the bound leaves room for a loaded CI machine).
func TestEveryStrategyCancelsPromptly(t *testing.T) {
	for _, name := range everyStrategy() {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		start := time.Now()
		res, err := weft.Run[models.LastzeroState](ctx, slowLastzero{models.NewLastzero(8)}, name, ts.Options{})
		cancel()
		d := time.Since(start)
		// A fast strategy may finish near the deadline without seeing it; on
		// a loaded machine that end can fall just past it.
		if err == nil && (res.Complete || res.Violation != nil) && d < 300*time.Millisecond {
			continue
		}
		if errors.Is(err, ts.ErrUnsupported) || errors.Is(err, ts.ErrBadOptions) {
			continue
		}
		if !errors.Is(err, context.DeadlineExceeded) || d > 300*time.Millisecond {
			t.Errorf("%s: %v after %v", name, err, d)
		}
	}
}

// locked is two threads that each take lock L, write X and release L, with
// object ids as large as a system may use: a strategy's cost must follow
// the objects touched, not the size of their ids.
type locked struct{}

const bigLock, bigX = ts.Obj(1 << 30), ts.Obj(1<<30 + 1)

type lockedState struct {
	pc     [2]uint8
	holder int8 // -1: free
}

func (locked) Init() lockedState { return lockedState{holder: -1} }
func (locked) Threads() int      { return 2 }
func (locked) Next(s lockedState, t ts.Tid) (ts.Step, ts.Status) {
	switch s.pc[t] {
	case 0:
		if s.holder >= 0 {
			return ts.Step{Obj: bigLock, Op: ts.Acquire}, ts.Blocked
		}
		return ts.Step{Obj: bigLock, Op: ts.Acquire}, ts.Enabled
	case 1:
		return ts.Step{Obj: bigX, Op: ts.Write}, ts.Enabled
	case 2:
		return ts.Step{Obj: bigLock, Op: ts.Release}, ts.Enabled
	}
	return ts.Step{}, ts.Finished
}
func (locked) Apply(s lockedState, t ts.Tid) lockedState {
	switch s.pc[t] {
	case 0:
		s.holder = int8(t)
	case 2:
		s.holder = -1
	}
	s.pc[t]++
	return s
}
func (locked) Hash(s lockedState) uint64 {
	return uint64(s.pc[0])<<16 | uint64(s.pc[1])<<8 | uint64(uint8(s.holder))
}

func TestEveryStrategyLargeObjectIDs(t *testing.T) {
	for _, name := range everyStrategy() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		res, err := weft.Run[lockedState](ctx, locked{}, name, ts.Options{Limits: ts.Limits{Memory: 64 << 20}})
		cancel()
		if errors.Is(err, ts.ErrBadOptions) || errors.Is(err, ts.ErrUnsupported) {
			continue
		}
		if err != nil || !res.Complete || res.Violation != nil {
			t.Errorf("%s: %v, %v", name, res, err)
		}
	}
}

// many is a system of 4,096 threads of which two write one object each and
// the others finish at once: cost must follow the work, not the threads.
type many struct{}

func (many) Init() [2]bool { return [2]bool{} }
func (many) Threads() int  { return manyThreads }

var manyThreads = 4096

func (many) Next(s [2]bool, t ts.Tid) (ts.Step, ts.Status) {
	if t >= 2 || s[t] {
		return ts.Step{}, ts.Finished
	}
	return ts.Step{Obj: 0, Op: ts.Write}, ts.Enabled
}
func (many) Apply(s [2]bool, t ts.Tid) [2]bool { s[t] = true; return s }
func (many) Hash(s [2]bool) uint64 {
	var h uint64
	if s[0] {
		h |= 1
	}
	if s[1] {
		h |= 2
	}
	return h
}

func TestEveryStrategyManyIdleThreads(t *testing.T) {
	for _, name := range everyStrategy() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		start := time.Now()
		res, err := weft.Run[[2]bool](ctx, many{}, name, ts.Options{})
		cancel()
		if errors.Is(err, ts.ErrBadOptions) || errors.Is(err, ts.ErrUnsupported) {
			continue
		}
		if name == weft.SyncOnly() && res.Violation != nil && res.Violation.Kind == ts.DataRace {
			continue // the two writers race, and sync-only scheduling says so
		}
		if err != nil || !res.Complete || res.Executions < 1 {
			t.Errorf("%s: %v, %v after %v", name, res, err, time.Since(start))
		}
	}
}

// trivial declares the trivial symmetry of a system (every thread its own
// orbit), so that the symmetry strategies take it.
type trivial struct{ ts.TransitionSystem[[]int] }

func (trivial) Canonical(s []int) ([]int, []ts.Tid) { return s, []ts.Tid{0, 1} }
func (trivial) Signature(_ []int, t ts.Tid) uint64  { return uint64(t) }
func (w trivial) Hash(s []int) uint64 {
	if h, ok := w.TransitionSystem.(ts.Hasher[[]int]); ok {
		return h.Hash(s)
	}
	return 0
}

// The symmetry strategies notice a broken contract too.
func TestSymmetryNoticesBrokenContracts(t *testing.T) {
	for _, name := range []weft.Strategy{weft.Sym(), weft.SymPOR()} {
		for _, b := range tstest.Breaches {
			_, err := weft.Run[[]int](context.Background(), trivial{tstest.Broken(b, true)}, name, ts.Options{})
			if !b.Noticed(err) {
				t.Errorf("%s, %v: %v", name, b, err)
			}
		}
	}
}

// Every strategy reports progress, and a panic in Progress is the caller's.
func TestEveryStrategyReportsProgress(t *testing.T) {
	for _, name := range everyStrategy() {
		calls := 0
		opt := ts.Options{ProgressEvery: time.Millisecond, Progress: func(ts.Result) { calls++ },
			Limits: ts.Limits{Transitions: 100}}
		res, err := weft.Run[models.LastzeroState](context.Background(), slowLastzero{models.NewLastzero(4)}, name, opt)
		if errors.Is(err, ts.ErrBadOptions) || errors.Is(err, ts.ErrUnsupported) {
			continue
		}
		if err != nil || (calls == 0 && res.Transitions >= 50) {
			t.Errorf("%s: %d progress reports over %d transitions, %v", name, calls, res.Transitions, err)
		}
		opt.Progress = func(ts.Result) { panic("mine") }
		_, err = weft.Run[models.LastzeroState](context.Background(), slowLastzero{models.NewLastzero(4)}, name, opt)
		var ce *ts.CallbackError
		if !errors.As(err, &ce) || ce.Callback != "Progress" {
			t.Errorf("%s, Progress panics: %v", name, err)
		}
	}
}

// Every strategy keeps inside Limits.Memory: a budget too small for any
// search is an error wrapping ts.ErrMemory, not a search that goes on.
func TestEveryStrategyKeepsTheMemoryBudget(t *testing.T) {
	for _, name := range everyStrategy() {
		opt := ts.Options{Limits: ts.Limits{Memory: 64}}
		_, err := weft.Run[models.LastzeroState](context.Background(), models.NewLastzero(5), name, opt)
		if errors.Is(err, ts.ErrBadOptions) || errors.Is(err, ts.ErrUnsupported) || errors.Is(err, mat.ErrNotStraightLine) {
			continue
		}
		if !errors.Is(err, ts.ErrMemory) {
			t.Errorf("%s: %v, want ts.ErrMemory", name, err)
		}
	}
}

// Every strategy either splits its search over workers with the serial
// result, or refuses a worker count above 1 with ErrBadOptions: asking for
// workers never silently gets one.
func TestEveryStrategyWorkers(t *testing.T) {
	sys := models.NewLastzero(4)
	limits := ts.Limits{Transitions: 100_000}
	split := 0
	for _, s := range everyStrategy() {
		serial, err := weft.Run(context.Background(), sys, s, ts.Options{Limits: limits})
		if err != nil {
			continue // refuses the model; other tests say why
		}
		par, err := weft.Run(context.Background(), sys, s, ts.Options{Limits: limits, Workers: 2})
		if errors.Is(err, ts.ErrBadOptions) {
			continue
		}
		if err != nil || par.Executions != serial.Executions || par.Transitions != serial.Transitions || par.Violations != serial.Violations {
			t.Errorf("%v with 2 workers: %v, %v; serial %v", s, par, err, serial)
		}
		split++
	}
	if split < 3 {
		t.Errorf("%d strategies split their search, want at least 3", split)
	}
}
