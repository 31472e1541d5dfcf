package cbound_test

import (
	"context"
	"errors"
	"reflect"
	"runtime"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// cbporStrategies are cb-por1, cb-por2 and icb-por (IterativePOR).
func cbporStrategies[S any]() []struct {
	name string
	f    func(context.Context, ts.TransitionSystem[S], cbound.Options) (ts.Result, error)
} {
	return []struct {
		name string
		f    func(context.Context, ts.TransitionSystem[S], cbound.Options) (ts.Result, error)
	}{{"cb-por1", cbound.HBSearch[S]}, {"cb-por2", cbound.POR[S]}, {"icb-por", cbound.IterativePOR[S]}}
}

// cbporSlice is a two-thread system over a slice of counters; its knobs
// break the contract in ways that only show when the search comes back to a
// state: an Apply that increments in place, a Next on a counter shared by
// every call, a thread count that drifts.
type cbporSlice struct {
	mutate, drift bool
	calls         *int
}

func (s cbporSlice) Init() []int { return []int{0, 0} }
func (s cbporSlice) Threads() int {
	if s.drift {
		*s.calls++
		if *s.calls > 1 {
			return 3
		}
	}
	return 2
}
func (s cbporSlice) Next(st []int, t ts.Tid) (ts.Step, ts.Status) {
	if int(t) >= len(st) || st[t] >= 2 {
		return ts.Step{}, ts.Finished
	}
	step := ts.Step{Obj: ts.Obj(t), Op: ts.Write}
	if s.calls != nil && !s.drift {
		*s.calls++
		step.Obj = ts.Obj(*s.calls % 2)
	}
	return step, ts.Enabled
}
func (s cbporSlice) Apply(st []int, t ts.Tid) []int {
	if s.mutate {
		st[t]++
		return st
	}
	c := append([]int(nil), st...)
	c[t]++
	return c
}

type cbporHashedSlice struct{ cbporSlice }

func (cbporHashedSlice) Hash(st []int) uint64 { return uint64(st[0])*31 + uint64(st[1]) + 7 }

// Issue 11 #2: cb-por notices what ts.Explore notices, with and without
// Hash: an Apply that modifies its argument, a Next that is not a function
// of the state, a thread count that changes.
func TestCBPORContractBreaches(t *testing.T) {
	for _, s := range cbporStrategies[[]int]() {
		for _, hashed := range []bool{false, true} {
			mk := func(ss cbporSlice) ts.TransitionSystem[[]int] {
				if hashed {
					return cbporHashedSlice{ss}
				}
				return ss
			}
			if _, err := s.f(context.Background(), mk(cbporSlice{mutate: true}), cbound.Options{}); !errors.Is(err, ts.ErrMutated) {
				t.Errorf("%s (hash %v), in-place Apply: %v", s.name, hashed, err)
			}
			calls := 0
			if _, err := s.f(context.Background(), mk(cbporSlice{calls: &calls}), cbound.Options{}); !errors.Is(err, ts.ErrNondeterministic) {
				t.Errorf("%s (hash %v), Next on a global counter: %v", s.name, hashed, err)
			}
			calls = 0
			if _, err := s.f(context.Background(), mk(cbporSlice{drift: true, calls: &calls}), cbound.Options{}); !errors.Is(err, ts.ErrNondeterministic) {
				t.Errorf("%s (hash %v), drifting Threads: %v", s.name, hashed, err)
			}
		}
	}
}

// threeWriters is 3 threads x 3 writes of one variable.
func threeWriters() *tstest.Program {
	w := []tstest.Instr{tstest.Store(0, 1), tstest.Store(0, 2), tstest.Store(0, 3)}
	return &tstest.Program{Vars: []tstest.Var{{Name: "x"}}, Code: [][]tstest.Instr{w, w, w}}
}

// Issue 11 #4: IterativePOR keeps its limits across bounds: every
// transition limit, those that run out exactly at the end of a bound
// included, stops it with a partial result and no error.
func TestCBPORIterativeLimits(t *testing.T) {
	p := threeWriters()
	full, err := cbound.IterativePOR(context.Background(), p, cbound.Options{Bound: 2})
	if err != nil || !full.Complete {
		t.Fatal(full, err)
	}
	b0, err := cbound.POR(context.Background(), p, cbound.Options{Bound: cbound.NoPreemption})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []int64{1, b0.Transitions, b0.Transitions + 1, 45, full.Transitions - 1, full.Transitions} {
		res, err := cbound.IterativePOR(context.Background(), p, cbound.Options{Bound: 2, Options: ts.Options{Limits: ts.Limits{Transitions: l}}})
		if err != nil || res.Transitions > l || res.Complete != (l >= full.Transitions) {
			t.Errorf("Transitions=%d: %v, %v (full run: %d transitions)", l, res, err, full.Transitions)
		}
	}
	for _, l := range []int64{1, b0.Executions, full.Executions - 1} {
		res, err := cbound.IterativePOR(context.Background(), p, cbound.Options{Bound: 2, Options: ts.Options{Limits: ts.Limits{Executions: l}}})
		if err != nil || res.Executions > l || res.Complete {
			t.Errorf("Executions=%d: %v, %v", l, res, err)
		}
	}
}

// Issue 11 #4: under KeepGoing IterativePOR searches every bound, reports
// each violation once (as POR at the top bound counts them) and the first
// with the fewest preemptions, and is complete.
func TestCBPORIterativeKeepGoing(t *testing.T) {
	// T0: x := 1; x := 0. T1: r0 := x; assert r0 == 0. T1 fails only
	// with a preemption (it reads x between T0's writes).
	check := func(t interface {
		Fatalf(string, ...any)
	}, p *tstest.Program, c int) {
		fewest := -1
		if _, err := ts.Explore(context.Background(), p, ts.Options{KeepGoing: true, OnViolation: func(v *ts.Violation) {
			if fewest < 0 || v.Trace.Preemptions < fewest {
				fewest = v.Trace.Preemptions
			}
		}}); err != nil {
			t.Fatalf("%v", err)
		}
		kinds := func(m map[string]bool) func(*ts.Violation) {
			return func(v *ts.Violation) { m[v.Kind.String()+": "+v.Err.Error()] = true }
		}
		want, got := map[string]bool{}, map[string]bool{}
		top, err := cbound.POR(context.Background(), p, cbound.Options{Bound: cbound.AtMost(c), Options: ts.Options{KeepGoing: true, OnViolation: kinds(want)}})
		if err != nil {
			t.Fatalf("%v", err)
		}
		handed := 0
		res, err := cbound.IterativePOR(context.Background(), p, cbound.Options{Bound: cbound.AtMost(c), Options: ts.Options{KeepGoing: true,
			OnViolation: func(v *ts.Violation) { handed++; kinds(got)(v) }}})
		if err != nil || !res.Complete || int64(handed) != res.Violations || len(res.Coverage) != c+1 {
			t.Fatalf("IterativePOR: %v, %v, %d handed to OnViolation, coverage %v", res, err, handed, res.Coverage)
		}
		for k := range want {
			if !got[k] {
				t.Fatalf("POR at bound %d finds %s, IterativePOR does not", c, k)
			}
		}
		if res.Violations > top.Violations || (res.Violations > 0) != (top.Violations > 0) {
			t.Fatalf("IterativePOR counts %d violations, POR at bound %d %d", res.Violations, c, top.Violations)
		}
		if fewest >= 0 && fewest <= c && (res.Violation == nil || res.Violation.Trace.Preemptions != fewest) {
			t.Fatalf("first violation %v, the fewest preemptions is %d", res.Violation, fewest)
		}
	}
	p := &tstest.Program{Vars: []tstest.Var{{Name: "x"}},
		Code: [][]tstest.Instr{{tstest.Store(0, 1), tstest.Store(0, 0)}, {tstest.Load(0, 0), tstest.AssertEq(0, 0)}}}
	check(t, p, 2)
	// T1's assertion r0 != 0 fails at bound 0 (T1 first); r0 != 1 only
	// with a preemption (T1 between T0's writes).
	q := &tstest.Program{Vars: []tstest.Var{{Name: "x"}},
		Code: [][]tstest.Instr{{tstest.Store(0, 1), tstest.Store(0, 2)}, {tstest.Load(0, 0), tstest.AssertNe(0, 0), tstest.AssertNe(0, 1)}}}
	check(t, q, 2)
	rapid.Check(t, func(t *rapid.T) {
		check(t, tstest.Programs(tstest.GenOptions{MaxThreads: 3}.Core()).Draw(t, "program"), rapid.IntRange(0, 3).Draw(t, "bound"))
	})
}

// slowLastzero sleeps in every Apply.
type slowLastzero struct{ *models.Lastzero }

func (s slowLastzero) Apply(st models.LastzeroState, t ts.Tid) models.LastzeroState {
	time.Sleep(100 * time.Microsecond)
	return s.Lastzero.Apply(st, t)
}

// Issue 11 #5: cancellation is seen within 100 ms whatever Apply costs,
// replays included.
func TestCBPORCancellationIsPrompt(t *testing.T) {
	for _, s := range cbporStrategies[models.LastzeroState]() {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		start := time.Now()
		_, err := s.f(ctx, slowLastzero{models.NewLastzero(8)}, cbound.Options{Bound: 3})
		cancel()
		if d := time.Since(start); !errors.Is(err, context.DeadlineExceeded) || d > 300*time.Millisecond {
			t.Errorf("%s: %v after %v", s.name, err, d)
		}
	}
}

// panicHash panics in Hash at every state but the initial one.
type panicHash struct{ *models.Lastzero }

func (p panicHash) Hash(s models.LastzeroState) uint64 {
	if p.Lastzero.Hash(s) != p.Lastzero.Hash(p.Init()) {
		panic("hash boom")
	}
	return p.Lastzero.Hash(s)
}

// Issue 11 #7: a panic in a callback is an error naming it; a panic in Hash
// is a panic of the system, with a schedule that replays; a nil context is
// bad options.
func TestCBPORCallbacksAndContext(t *testing.T) {
	sys := models.NewPhilosophers(2)
	for _, s := range cbporStrategies[models.PhilosophersState]() {
		for _, c := range []struct {
			name string
			opt  ts.Options
		}{
			{"OnTerminal", ts.Options{KeepGoing: true, OnTerminal: func(any, ts.Schedule) { panic("mine") }}},
			{"OnViolation", ts.Options{OnViolation: func(*ts.Violation) { panic("mine") }}},
		} {
			o := c.opt
			_, err := s.f(context.Background(), sys, cbound.Options{Bound: 2, Options: o})
			var ce *ts.CallbackError
			if !errors.As(err, &ce) || ce.Callback != c.name || errors.Is(err, ts.ErrBadSystem) {
				t.Errorf("%s, %s: %v", s.name, c.name, err)
			}
		}
		if _, err := s.f(nil, sys, cbound.Options{}); !errors.Is(err, ts.ErrBadOptions) {
			t.Errorf("%s, nil context: %v", s.name, err)
		}
	}
	for _, s := range cbporStrategies[models.LastzeroState]() {
		o := ts.Options{KeepGoing: true, ProgressEvery: time.Millisecond, Progress: func(ts.Result) { panic("mine") }}
		_, err := s.f(context.Background(), slowLastzero{models.NewLastzero(3)}, cbound.Options{Bound: 2, Options: o})
		var ce *ts.CallbackError
		if !errors.As(err, &ce) || ce.Callback != "Progress" || errors.Is(err, ts.ErrBadSystem) {
			t.Errorf("%s, Progress: %v", s.name, err)
		}
		res, err := s.f(context.Background(), panicHash{models.NewLastzero(2)}, cbound.Options{Bound: 2})
		if err != nil || res.Violation == nil || res.Violation.Kind != ts.Panic {
			t.Errorf("%s, panicking Hash: %v, %v", s.name, res, err)
			continue
		}
		if v := res.Violation; v != nil {
			if _, err := ts.Confirm[models.LastzeroState](panicHash{models.NewLastzero(2)}, v, v.Trace.Schedule()); err != nil {
				t.Errorf("%s, panicking Hash: the schedule does not replay: %v", s.name, err)
			}
		}
	}
}

// Issue 11 #8: Progress is called.
func TestCBPORProgress(t *testing.T) {
	for _, s := range cbporStrategies[models.LastzeroState]() {
		calls := 0
		_, err := s.f(context.Background(), slowLastzero{models.NewLastzero(3)}, cbound.Options{Bound: 2, Options: ts.Options{
			ProgressEvery: time.Millisecond, Progress: func(ts.Result) { calls++ },
		}})
		if err != nil || calls == 0 {
			t.Errorf("%s: %d progress reports, %v", s.name, calls, err)
		}
	}
}

// Issue 11 #10: a memory budget is kept, with ErrMemory.
func TestCBPORMemoryBudget(t *testing.T) {
	for _, s := range cbporStrategies[models.LastzeroState]() {
		_, err := s.f(context.Background(), models.NewLastzero(6), cbound.Options{Bound: 2, Options: ts.Options{Limits: ts.Limits{Memory: 4096}}})
		if !errors.Is(err, ts.ErrMemory) {
			t.Errorf("%s: %v, want ErrMemory", s.name, err)
		}
	}
}

// longRun is two threads: thread 0 makes n writes of its own object,
// thread 1 one write of another.
type longRun struct{ n int }

func (l longRun) Init() [2]int { return [2]int{} }
func (l longRun) Threads() int { return 2 }
func (l longRun) Apply(s [2]int, t ts.Tid) [2]int {
	s[t]++
	return s
}
func (l longRun) Next(s [2]int, t ts.Tid) (ts.Step, ts.Status) {
	if (t == 0 && s[0] >= l.n) || (t == 1 && s[1] >= 1) {
		return ts.Step{}, ts.Finished
	}
	return ts.Step{Obj: ts.Obj(t), Op: ts.Write}, ts.Enabled
}

// Issue 11 #10: cb-por1's memory follows the number of HB states, not the
// sum of their lengths: 5,000 transitions deep (some 10,000 HB states at
// bound 1), it allocates a few MB, not the gigabytes of one copy per state.
func TestCBPORLinearMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	for _, s := range cbporStrategies[[2]int]()[:2] {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		res, err := s.f(context.Background(), longRun{n: 5000}, cbound.Options{Bound: 1, Options: ts.Options{Limits: ts.Limits{Memory: 64 << 20, Depth: 10000}}})
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		if err != nil || !res.Complete {
			t.Fatalf("%s: %v, %v", s.name, res, err)
		}
		if alloc > 100<<20 {
			t.Errorf("%s: %d MB allocated for %d HB states", s.name, alloc>>20, res.States)
		}
		t.Logf("%s: %v; %d MB allocated, table %d bytes", s.name, res, alloc>>20, res.Stats["hb.table_bytes"])
	}
}

// Issue 11 #11: identical runs give identical figures, with a memo small
// enough to drop entries and started at once.
func TestCBPORReproducible(t *testing.T) {
	sys := models.NewLastzero(5)
	for _, s := range cbporStrategies[models.LastzeroState]() {
		for _, cost := range []int64{0, 1 << 12, -1} {
			var first ts.Result
			for run := range 3 {
				res, err := s.f(context.Background(), sys, cbound.Eager(cbound.Options{Bound: 2, MemoCost: cost, Options: ts.Options{KeepGoing: true}}))
				if err != nil {
					t.Fatal(err)
				}
				res.Violation = nil // compared by count; the pointer differs
				if run == 0 {
					first = res
				} else if !reflect.DeepEqual(res, first) {
					t.Errorf("%s, MemoCost %d: run %d: %v %v, first run %v %v", s.name, cost, run, res, res.Stats, first, first.Stats)
				}
			}
		}
	}
}

// Issue 12: a global invariant is checked at every state, and no reduction
// hides where it fails. T0: x := 1; x := 0. T1: y := 1; y := 0. Invariant:
// x + y != 2, which fails only between the two steps of each thread: at
// bound 1 (T0, T1 preempting it, ...) and not at bound 0.
func TestCBPORInvariantNotHidden(t *testing.T) {
	p := &tstest.Program{Vars: []tstest.Var{{Name: "x"}, {Name: "y"}},
		Invariants: []tstest.Cond{{X: 0, Y: 1, K: 2}},
		Code:       [][]tstest.Instr{{tstest.Store(0, 1), tstest.Store(0, 0)}, {tstest.Store(1, 1), tstest.Store(1, 0)}}}
	for _, s := range cbporStrategies[tstest.State]() {
		for c, want := range []bool{false, true, true} {
			res, err := s.f(context.Background(), p, cbound.Options{Bound: cbound.AtMost(c)})
			if err != nil || (res.Violation != nil) != want || (want && res.Violation.Kind != ts.InvariantFailure) {
				t.Errorf("%s, bound %d: %v, %v; want a violation: %v", s.name, c, res, err, want)
			}
		}
	}
}

// Issue 12: with a global invariant (one drawn by the generator or an
// added x != k), idle threads and IgnoreDeadlocks, cb-por1, cb-por2 and
// IterativePOR reach exactly the terminal states and violations of the
// executions within the bound (cb-por1 and cb-por2 also unbounded).
func TestCBPORInvariantReduction(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		o := tstest.GenOptions{MaxThreads: 3, NoMulti: true, NoChoices: true}
		p := tstest.Programs(o).Draw(t, "program")
		if rapid.Bool().Draw(t, "addInvariant") {
			p.Invariants = append(p.Invariants, tstest.Cond{X: rapid.IntRange(0, len(p.Vars)-1).Draw(t, "inv.x"), Y: -1, K: rapid.IntRange(0, 3).Draw(t, "inv.k")})
		}
		c := rapid.IntRange(-1, 2).Draw(t, "bound") // -1: unbounded
		ignore := rapid.Bool().Draw(t, "ignoreDeadlocks")
		for _, s := range cbporStrategies[tstest.State]() {
			if c < 0 && s.name == "icb-por" {
				continue // needs a bound
			}
			explore := func(ctx context.Context, sys ts.TransitionSystem[tstest.State], opt ts.Options) (ts.Result, error) {
				opt.IgnoreDeadlocks = ignore
				return s.f(ctx, sys, cbound.Options{Bound: cbound.AtMost(c), Options: opt})
			}
			ropt := tstest.ReductionOptions{Bound: c, IgnoreDeadlocks: ignore}
			if rep := tstest.CheckReduction(t, p, explore, ropt); len(rep.Errors) > 0 {
				t.Fatalf("%s: %d discrepancies", s.name, len(rep.Errors))
			}
		}
	})
}

// Issue 12: Idle threads end a run normally and IgnoreDeadlocks makes every
// end normal: on random programs with idle waits (one object per step, one
// outcome, no invariant), cb-por1 and cb-por2 reach exactly what the
// executions within the bound reach.
func TestCBPORIdleAndIgnoredDeadlocks(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		o := tstest.GenOptions{MaxThreads: 3, NoMulti: true, NoChoices: true, NoInvariants: true}
		p := tstest.Programs(o).Draw(t, "program")
		c := rapid.IntRange(0, 2).Draw(t, "bound")
		ignore := rapid.Bool().Draw(t, "ignoreDeadlocks")
		for _, f := range []func(context.Context, ts.TransitionSystem[tstest.State], cbound.Options) (ts.Result, error){
			cbound.HBSearch[tstest.State], cbound.POR[tstest.State]} {
			explore := func(ctx context.Context, sys ts.TransitionSystem[tstest.State], opt ts.Options) (ts.Result, error) {
				opt.IgnoreDeadlocks = ignore
				return f(ctx, sys, cbound.Options{Bound: cbound.AtMost(c), Options: opt})
			}
			ropt := tstest.ReductionOptions{Bound: c, IgnoreDeadlocks: ignore}
			if rep := tstest.CheckReduction(t, p, explore, ropt); len(rep.Errors) > 0 {
				t.Fatalf("%d discrepancies", len(rep.Errors))
			}
		}
	})
}

// cancelAt cancels its context at its k-th Apply and counts the Applies
// after that, each slowed down so that the context's own goroutine has run.
type cancelAt struct {
	*models.Lastzero
	k, calls, after *int
	cancel          func()
}

func (c cancelAt) Apply(st models.LastzeroState, t ts.Tid) models.LastzeroState {
	*c.calls++
	switch {
	case *c.calls == *c.k:
		c.cancel()
		time.Sleep(time.Millisecond)
	case *c.calls > *c.k:
		*c.after++
		time.Sleep(100 * time.Microsecond)
	}
	return c.Lastzero.Apply(st, t)
}

// Issue 11 #5: once the context is cancelled, no search goes on applying
// transitions, whether it is searching, replaying a prefix to learn what
// is enabled there, or computing a context bound.
func TestCBPORCancellationInReplays(t *testing.T) {
	for _, s := range cbporStrategies[models.LastzeroState]() {
		worst := 0
		for k := 50; k < 3000; k += 97 {
			ctx, cancel := context.WithCancel(context.Background())
			calls, after := 0, 0
			sys := cancelAt{Lastzero: models.NewLastzero(5), k: &k, calls: &calls, after: &after, cancel: cancel}
			res, err := s.f(ctx, sys, cbound.Options{Bound: 2, Options: ts.Options{KeepGoing: true}})
			cancel()
			if calls < k {
				break // the search ended first
			}
			if !errors.Is(err, context.Canceled) || res.Complete {
				t.Errorf("%s, cancelled at Apply %d: %v, %v", s.name, k, res, err)
			}
			worst = max(worst, after)
		}
		if worst > 2 {
			t.Errorf("%s: %d Applies after the cancellation", s.name, worst)
		}
	}
}

// Issue 11 #4, #5: the transition limit counts every transition a search
// applies, replays included, and is never passed; a search it stops is
// incomplete and reports no error.
func TestCBPORTransitionLimitKept(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{MaxThreads: 3}.Core()).Draw(t, "program")
		c := rapid.IntRange(0, 3).Draw(t, "bound")
		for _, s := range cbporStrategies[tstest.State]() {
			full, err := s.f(context.Background(), p, cbound.Options{Bound: cbound.AtMost(c), Options: ts.Options{KeepGoing: true}})
			if err != nil || full.Transitions == 0 {
				continue
			}
			l := rapid.Int64Range(1, full.Transitions).Draw(t, "limit")
			res, err := s.f(context.Background(), p, cbound.Options{Bound: cbound.AtMost(c), Options: ts.Options{KeepGoing: true, Limits: ts.Limits{Transitions: l}}})
			if err != nil || res.Transitions > l || (res.Complete && l < full.Transitions) {
				t.Fatalf("%s, limit %d of %d: %v, %v", s.name, l, full.Transitions, res, err)
			}
		}
	})
}

// Issue 12: cb-por2 explores one execution per terminal HB class with CB at
// most the bound, so on programs without failing checks it is optimal within
// the bound: one execution per Mazurkiewicz trace that some schedule within
// the bound completes. Idle threads and IgnoreDeadlocks are drawn; so is a
// global invariant that reads one object and holds (its one object is then
// the whole read set, so the HB states' dependency is exactly the marked
// one).
func TestCBPOR2OptimalWithinBound(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		o := tstest.GenOptions{MaxThreads: 3, NoMulti: true, NoChoices: true, NoInvariants: true, NoAsserts: true}
		p := tstest.Programs(o).Draw(t, "program")
		if rapid.Bool().Draw(t, "invariant") {
			p.Invariants = []tstest.Cond{{X: rapid.IntRange(0, len(p.Vars)-1).Draw(t, "inv.x"), Y: -1, K: rapid.IntRange(0, 3).Draw(t, "inv.k")}}
		}
		c := rapid.IntRange(0, 2).Draw(t, "bound")
		ignore := rapid.Bool().Draw(t, "ignoreDeadlocks")
		res, err := ts.Explore(context.Background(), p, ts.Options{KeepGoing: true, IgnoreDeadlocks: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Violations > 0 {
			t.Skip("the invariant fails")
		}
		explore := func(ctx context.Context, sys ts.TransitionSystem[tstest.State], opt ts.Options) (ts.Result, error) {
			opt.IgnoreDeadlocks = ignore
			return cbound.POR(ctx, sys, cbound.Options{Bound: cbound.AtMost(c), Options: opt})
		}
		ropt := tstest.ReductionOptions{Bound: c, IgnoreDeadlocks: ignore}
		if rep := tstest.CheckOptimal(t, p, explore, ropt); len(rep.Errors) > 0 {
			t.Fatalf("%d discrepancies", len(rep.Errors))
		}
	})
}
