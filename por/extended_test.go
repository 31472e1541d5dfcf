package por_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// extendedShape draws programs of the whole model: transitions of several
// objects and outcomes, idle waits, invariants, objects with both
// synchronization and plain accesses, locks, awaits and assertions.
func extendedShape(t *rapid.T) tstest.GenOptions {
	if rapid.Bool().Draw(t, "four") {
		return tstest.GenOptions{MaxThreads: 4, MaxSteps: 2}
	}
	return tstest.GenOptions{}
}

// On random programs of the whole model, every strategy reaches exactly the
// terminal states and violations of ts.Explore (SDPOR: ts.ExploreStateful),
// also when deadlocks are not looked for.
func TestExtendedReduction(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(extendedShape(t)).Draw(t, "program")
		ignore := rapid.IntRange(0, 3).Draw(t, "ignoreDeadlocks") == 0
		for _, s := range strategies[tstest.State]() {
			explore := func(ctx context.Context, sys ts.TransitionSystem[tstest.State], o ts.Options) (ts.Result, error) {
				o.IgnoreDeadlocks = ignore
				return s.f(ctx, sys, por.Options{Options: o})
			}
			ropt := tstest.ReductionOptions{Bound: ts.NoBound, Stateful: s.name == "sdpor", IgnoreDeadlocks: ignore}
			if rep := tstest.CheckReduction(t, p, explore, ropt); len(rep.Errors) > 0 {
				t.Fatalf("%s: %d discrepancies", s.name, len(rep.Errors))
			}
		}
	})
}

// ODPOR explores exactly one execution per Mazurkiewicz trace on programs of
// the whole model whose checks cannot fail: two outcomes of a transition are
// two traces, steps of several objects are dependent through any of them.
func TestODPOROptimalExtended(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		o := extendedShape(t)
		o.NoAsserts = true
		p := tstest.Programs(o).Draw(t, "program")
		optimalChoices[tstest.State](t, p, hasChoices(p))
	})
}

// hasChoices reports whether p has instructions of several outcomes.
func hasChoices(p *tstest.Program) bool {
	for _, code := range p.Code {
		for _, in := range code {
			if in.Kind == tstest.KPick || in.Kind == tstest.KStoreMaybe {
				return true
			}
		}
	}
	return false
}

// With a global invariant that holds, ODPOR is optimal for the dependency
// the invariant's read set adds (every two transitions that write what it
// reads are dependent): it explores one execution per trace of that
// relation, which tstest.TraceKey computes the same way.
func TestODPOROptimalInvariant(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		o := extendedShape(t)
		o.NoAsserts = true
		p := tstest.Programs(o).Draw(t, "program")
		c := tstest.Cond{X: rapid.IntRange(0, len(p.Vars)-1).Draw(t, "inv.x"), Y: -1, K: rapid.IntRange(0, 3).Draw(t, "inv.k")}
		p.Invariants = []tstest.Cond{c}
		res, err := ts.Explore(context.Background(), p, ts.Options{KeepGoing: true, IgnoreDeadlocks: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Violations > 0 {
			t.Skip("the invariant fails")
		}
		optimalChoices[tstest.State](t, p, hasChoices(p))
	})
}

// A tiny program whose traces are known: T0 writes x, T1 reads x with two
// outcomes. Four traces: T1 first (two outcomes), T0 first (two outcomes).
func TestODPOROutcomes(t *testing.T) {
	p := &tstest.Program{
		Vars: []tstest.Var{{Name: "x"}},
		Code: [][]tstest.Instr{{tstest.Store(0, 1)}, {tstest.Pick(0, 0, 2)}},
	}
	for _, s := range strategies[tstest.State]() {
		res, err := s.f(context.Background(), p, por.Options{})
		const want = 4 // for SDPOR too: the four terminal states differ
		if err != nil || res.Executions != want || !res.Complete {
			t.Errorf("%s: %v, %v; want %d executions", s.name, res, err, want)
		}
	}
	// Independent: T1 picks from y. One trace per outcome.
	q := &tstest.Program{
		Vars: []tstest.Var{{Name: "x"}, {Name: "y"}},
		Code: [][]tstest.Instr{{tstest.Store(0, 1)}, {tstest.Pick(0, 1, 3)}},
	}
	res, err := por.ODPOR(context.Background(), q, por.Options{})
	if err != nil || res.Executions != 3 {
		t.Errorf("odpor, independent pick: %v, %v; want 3 executions", res, err)
	}
}

// oneOutcome implements ts.Chooser without ever offering a choice, as the
// wrappers of other packages do (symmetry.Orbits, transact.WithMovers).
type oneOutcome struct{ *models.Lastzero }

func (oneOutcome) Outcomes(models.LastzeroState, ts.Tid) int { return 1 }
func (o oneOutcome) ApplyOutcome(s models.LastzeroState, t ts.Tid, _ int) models.LastzeroState {
	return o.Apply(s, t)
}

// A Chooser with one outcome everywhere is analysed as a system without
// outcomes: ODPOR stays optimal on it (lastzero-6: the same executions and
// transitions as unwrapped), instead of leaving events after the race to
// the search as it must when some event has several outcomes.
func TestODPOROneOutcomeChooser(t *testing.T) {
	for n := 3; n <= 6; n++ {
		plain, err1 := por.ODPOR(context.Background(), models.NewLastzero(n), por.Options{})
		wrapped, err2 := por.ODPOR(context.Background(), oneOutcome{models.NewLastzero(n)}, por.Options{})
		if err1 != nil || err2 != nil || plain.Executions != wrapped.Executions || plain.Transitions != wrapped.Transitions {
			t.Errorf("lastzero-%d: plain %v, %v; one-outcome Chooser %v, %v", n, plain, err1, wrapped, err2)
		}
	}
}

// Threads that wait Idle end a run normally; IgnoreDeadlocks makes every
// end normal; Finds says what was looked for.
func TestIdleAndIgnoredDeadlocks(t *testing.T) {
	server := &tstest.Program{
		Vars: []tstest.Var{{Name: "req", Sync: true}},
		Code: [][]tstest.Instr{{tstest.Store(0, 1)}, {tstest.Wait(0, 1), tstest.Wait(0, 2)}},
	}
	blocked := &tstest.Program{
		Vars: []tstest.Var{{Name: "req", Sync: true}},
		Code: [][]tstest.Instr{{tstest.Store(0, 1)}, {tstest.Await(0, 1), tstest.Await(0, 2)}},
	}
	for _, s := range strategies[tstest.State]() {
		res, err := s.f(context.Background(), server, por.Options{})
		if err != nil || res.Violation != nil || !res.Complete || !res.Finds.Has(ts.Deadlock) {
			t.Errorf("%s, idle server: %v, %v", s.name, res, err)
		}
		res, err = s.f(context.Background(), blocked, por.Options{})
		if err != nil || res.Violation == nil || res.Violation.Kind != ts.Deadlock {
			t.Errorf("%s, blocked server: %v, %v", s.name, res, err)
		}
		res, err = s.f(context.Background(), blocked, por.Options{Options: ts.Options{IgnoreDeadlocks: true}})
		if err != nil || res.Violation != nil || res.Finds.Has(ts.Deadlock) || !strings.Contains(res.String(), "deadlocks not looked for") {
			t.Errorf("%s, ignored deadlocks: %v, %v", s.name, res, err)
		}
	}
}

// An invariant that fails only in an interleaving where two independent
// writes meet is found by every strategy: its read set makes them dependent.
func TestInvariantNotHidden(t *testing.T) {
	// T0: x := 1; x := 0. T1: y := 1; y := 0. Invariant: x + y != 2.
	p := &tstest.Program{
		Vars:       []tstest.Var{{Name: "x"}, {Name: "y"}},
		Invariants: []tstest.Cond{{X: 0, Y: 1, K: 2}},
		Code:       [][]tstest.Instr{{tstest.Store(0, 1), tstest.Store(0, 0)}, {tstest.Store(1, 1), tstest.Store(1, 0)}},
	}
	for _, s := range strategies[tstest.State]() {
		res, err := s.f(context.Background(), p, por.Options{})
		if err != nil || res.Violation == nil || res.Violation.Kind != ts.InvariantFailure {
			t.Errorf("%s: %v, %v; want the invariant failure", s.name, res, err)
		}
	}
}

// Every strategy notices what ts.Explore notices of a broken contract,
// without Hash (SDPOR needs it): an Apply that modifies its argument, a Next
// that is not a function of the state, a thread count that changes.
func TestContractBreaches(t *testing.T) {
	for _, s := range strategies[[]int]() {
		for _, b := range tstest.Breaches {
			if _, err := s.f(context.Background(), tstest.Broken(b, s.name == "sdpor"), por.Options{}); !b.Noticed(err) {
				t.Errorf("%s, %v: %v", s.name, b, err)
			}
		}
	}
}

// The reductions keep a thread's answer where the move taken is
// independent of its step (search.Model.LookAfter), as their reduction
// assumes anyway; where the contract check then finds the answer changed,
// the error names the broken contract, not a nondeterministic Next.
func TestBrokenIndependenceIsNamed(t *testing.T) {
	sys := tstest.BrokenIndependence()
	if errs := tstest.CheckConformance(sys, tstest.ConformanceOptions{}); len(errs) == 0 {
		t.Fatal("Conformance finds nothing wrong with BrokenIndependence")
	}
	for _, s := range strategies[[5]int]() {
		_, err := s.f(context.Background(), sys, por.Options{})
		if !errors.Is(err, ts.ErrBadSystem) || !strings.Contains(err.Error(), "ts.Dependent") {
			t.Errorf("%s: %v", s.name, err)
		}
	}
}

// A panic in the caller's own callbacks is an error naming the callback, not
// a violation of the system; a nil context is bad options.
func TestCallbacksAndContext(t *testing.T) {
	p := models.NewPhilosophers(2)
	for _, s := range strategies[models.PhilosophersState]() {
		for _, c := range []struct {
			name string
			opt  ts.Options
		}{
			{"OnTerminal", ts.Options{KeepGoing: true, OnTerminal: func(any, ts.Schedule) { panic("mine") }}},
			{"OnViolation", ts.Options{OnViolation: func(*ts.Violation) { panic("mine") }}},
		} {
			_, err := s.f(context.Background(), p, por.Options{Options: c.opt})
			var ce *ts.CallbackError
			if !errors.As(err, &ce) || ce.Callback != c.name || errors.Is(err, ts.ErrBadSystem) {
				t.Errorf("%s, %s: %v", s.name, c.name, err)
			}
		}
		if _, err := s.f(nil, p, por.Options{}); !errors.Is(err, ts.ErrBadOptions) { //nolint:staticcheck
			t.Errorf("%s, nil context: %v", s.name, err)
		}
	}
}

// slowApply sleeps in every Apply: cancellation must still be seen within a
// fraction of a second.
type slowApply struct{ *models.Lastzero }

func (s slowApply) Apply(st models.LastzeroState, t ts.Tid) models.LastzeroState {
	time.Sleep(100 * time.Microsecond)
	return s.Lastzero.Apply(st, t)
}

func TestCancellationIsPrompt(t *testing.T) {
	for _, s := range strategies[models.LastzeroState]() {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		start := time.Now()
		_, err := s.f(ctx, slowApply{models.NewLastzero(8)}, por.Options{})
		cancel()
		if d := time.Since(start); !errors.Is(err, context.DeadlineExceeded) || d > 300*time.Millisecond {
			t.Errorf("%s: %v after %v", s.name, err, d)
		}
	}
}

func TestMemoryBudget(t *testing.T) {
	for _, s := range strategies[models.LastzeroState]() {
		_, err := s.f(context.Background(), models.NewLastzero(6), por.Options{Options: ts.Options{Limits: ts.Limits{Memory: 4096}}})
		if !errors.Is(err, ts.ErrMemory) {
			t.Errorf("%s: %v, want ErrMemory", s.name, err)
		}
	}
}

// Progress is reported by every strategy.
func TestProgress(t *testing.T) {
	for _, s := range strategies[models.LastzeroState]() {
		calls := 0
		_, err := s.f(context.Background(), slowApply{models.NewLastzero(5)}, por.Options{Options: ts.Options{
			ProgressEvery: time.Millisecond, Progress: func(ts.Result) { calls++ },
		}})
		if err != nil || calls == 0 {
			t.Errorf("%s: %d progress reports, %v", s.name, calls, err)
		}
	}
}
