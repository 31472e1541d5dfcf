package transact_test

import (
	"context"
	"errors"
	"testing"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/transact"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

func TestExploreBadInput(t *testing.T) {
	ctx := context.Background()
	p := models.NewPeterson(1)
	for _, opt := range []transact.Options{
		{Proviso: 7},
		{Proviso: transact.Cycle, Refine: true},
		{InferStates: -1},
		{Options: ts.Options{Limits: ts.Limits{Transitions: -1}}},
	} {
		if _, err := transact.Explore(ctx, p, opt); !errors.Is(err, ts.ErrBadOptions) {
			t.Errorf("%+v: %v, want ErrBadOptions", opt, err)
		}
	}
	if _, err := transact.Explore[int](ctx, noHashSys{}, transact.Options{}); !errors.Is(err, ts.ErrNoHash) {
		t.Errorf("no Hash: %v", err)
	}
	if _, err := transact.Explore(ctx, models.NewPeterson(3), transact.Options{InferStates: 5}); !errors.Is(err, transact.ErrInfer) {
		t.Errorf("inference cap: %v", err)
	}
}

func TestExploreLimitsAndCancel(t *testing.T) {
	p := models.NewPeterson(3)
	res, err := transact.Explore(context.Background(), p, transact.Options{Options: ts.Options{Limits: ts.Limits{Transitions: 50}}})
	if err != nil || res.Complete || res.Transitions != 50 {
		t.Errorf("transition limit: %v, %+v", err, res)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err = transact.Explore(ctx, models.NewPhilosophers(5), transact.Options{})
	if !errors.Is(err, context.Canceled) || res.Complete {
		t.Errorf("cancelled: %v, complete %v", err, res.Complete)
	}
	_, err = transact.Explore(context.Background(), p, transact.Options{Options: ts.Options{Limits: ts.Limits{Depth: 5}}})
	var se *ts.SystemError
	if !errors.Is(err, ts.ErrDepth) || !errors.As(err, &se) || len(se.Schedule) != 6 {
		t.Errorf("depth: %v", err)
	}
}

// panicky panics in Apply when thread 1 moves after thread 0's store.
type panicky struct{ *tstest.Program }

func (p panicky) Apply(s tstest.State, t ts.Tid) tstest.State {
	if _, st := p.Program.Next(s, 0); t == 1 && st == ts.Finished {
		panic("boom")
	}
	return p.Program.Apply(s, t)
}

func TestExplorePanicsBecomeViolations(t *testing.T) {
	p := &tstest.Program{Vars: []tstest.Var{{Name: "x"}}, Code: [][]tstest.Instr{{tstest.Store(0, 1)}, {tstest.Load(0, 0)}}}
	res, err := transact.Explore[tstest.State](context.Background(), panicky{p}, transact.Options{Options: ts.Options{KeepGoing: true}})
	if err != nil || res.Violation == nil || res.Violation.Kind != ts.Panic || res.Violation.Thread != 1 {
		t.Fatalf("%v, %v", err, res.Violation)
	}
	if !res.Complete {
		t.Errorf("KeepGoing: the search stopped at the panic")
	}
	mover := transact.WithMovers[tstest.State](p, func(tstest.State, ts.Tid) transact.Mover { panic("mover") })
	if _, err := transact.Explore(context.Background(), mover, transact.Options{}); !errors.Is(err, ts.ErrBadSystem) {
		t.Errorf("Mover panics: %v", err)
	}
}

// mutator modifies the state it is given.
type mutator struct{}

func (m mutator) Init() *[2]int { return &[2]int{} }
func (m mutator) Threads() int  { return 2 }
func (m mutator) Next(s *[2]int, t ts.Tid) (ts.Step, ts.Status) {
	if s[t] > 0 {
		return ts.Step{}, ts.Finished
	}
	return ts.Step{Obj: ts.Obj(t), Op: ts.Write}, ts.Enabled
}
func (m mutator) Apply(s *[2]int, t ts.Tid) *[2]int { s[t]++; return s }
func (m mutator) Hash(s *[2]int) uint64             { return uint64(s[0]*3 + s[1]) }

func TestExploreDetectsMutation(t *testing.T) {
	_, err := transact.Explore[*[2]int](context.Background(), mutator{}, transact.Options{})
	if !errors.Is(err, ts.ErrMutated) {
		t.Errorf("%v, want ErrMutated", err)
	}
}

// Every terminal state reported passes Check, once per distinct state, and
// the search is complete.
func TestExploreTerminals(t *testing.T) {
	seen := map[uint64]int{}
	p := models.NewPeterson(2)
	res, err := transact.Explore(context.Background(), p, transact.Options{Options: ts.Options{
		OnTerminal: func(s any, _ ts.Schedule) { seen[p.Hash(s.(models.PetersonState))]++ },
	}})
	if err != nil || !res.Complete || res.Violation != nil || len(seen) != 2 {
		t.Errorf("%v, %v, %d terminals", err, res, len(seen))
	}
	for h, k := range seen {
		if k != 1 {
			t.Errorf("terminal %#x reported %d times", h, k)
		}
	}
}

// An execution that never ends is an error wrapping ts.ErrDepth with its
// thread and schedule under every proviso, found by the inference pass,
// whose transitions the result counts; it keeps to Limits.Depth and, unset,
// to ts.DefaultMaxDepth, long before the pass's state cap.
func TestExploreEndlessExecutionIsErrDepth(t *testing.T) {
	for _, p := range []transact.Proviso{transact.CPC, transact.Cycle, transact.None} {
		for _, depth := range []int{0, 50} {
			want := depth
			if depth == 0 {
				want = ts.DefaultMaxDepth
			}
			res, err := transact.Explore(context.Background(), tstest.Endless(), transact.Options{Proviso: p,
				Options: ts.Options{Limits: ts.Limits{Depth: depth}}})
			var se *ts.SystemError
			if !errors.Is(err, ts.ErrDepth) || !errors.As(err, &se) {
				t.Fatalf("%v, depth %d: %v, want ErrDepth", p, depth, err)
			}
			if len(se.Schedule) != want+1 || se.Thread != se.Schedule[len(se.Schedule)-1].Thread {
				t.Errorf("%v, depth %d: thread %d, schedule of %d moves %v, want %d moves ending with the thread's",
					p, depth, se.Thread, len(se.Schedule), se.Schedule.Short(8), want+1)
			}
			if _, err := ts.Replay(tstest.Endless(), se.Schedule); err != nil {
				t.Errorf("%v, depth %d: the schedule does not replay: %v", p, depth, err)
			}
			if res.Transitions < int64(want) || res.Stats[transact.StatInferTransitions] != res.Transitions {
				t.Errorf("%v, depth %d: %d transitions (pass %d), want the pass's, at least %d",
					p, depth, res.Transitions, res.Stats[transact.StatInferTransitions], want)
			}
		}
	}
}

// The inference pass keeps to Limits.Memory, and a pass stopped by its state
// cap reports the transitions it took.
func TestExploreInferMemoryAndStateCap(t *testing.T) {
	_, err := transact.Explore(context.Background(), tstest.Endless(), transact.Options{
		Options: ts.Options{Limits: ts.Limits{Depth: 1 << 20, Memory: 1 << 16}}})
	if !errors.Is(err, ts.ErrMemory) || !errors.Is(err, transact.ErrInfer) {
		t.Errorf("Memory 64 KiB: %v, want ErrMemory from the pass", err)
	}
	res, err := transact.Explore(context.Background(), tstest.Endless(), transact.Options{InferStates: 100})
	if !errors.Is(err, transact.ErrInfer) || res.Transitions < 99 {
		t.Errorf("InferStates 100: %v with %d transitions, want ErrInfer with the pass's transitions", err, res.Transitions)
	}
}
