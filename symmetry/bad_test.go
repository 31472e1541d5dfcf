package symmetry_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/symmetry"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// bareLocks3 is locks3 with no capability but the four methods.
type bareLocks3 struct{ l *models.Locks3 }

func (b bareLocks3) Init() models.Locks3State { return b.l.Init() }
func (b bareLocks3) Threads() int             { return b.l.Threads() }
func (b bareLocks3) Next(s models.Locks3State, t ts.Tid) (ts.Step, ts.Status) {
	return b.l.Next(s, t)
}
func (b bareLocks3) Apply(s models.Locks3State, t ts.Tid) models.Locks3State { return b.l.Apply(s, t) }

// hashedLocks3 adds Hash but no symmetry.
type hashedLocks3 struct{ bareLocks3 }

func (h hashedLocks3) Hash(s models.Locks3State) uint64 { return h.l.Hash(s) }

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	l := models.NewLocks3(0)
	if _, err := symmetry.Explore[models.Locks3State](ctx, bareLocks3{l}, symmetry.Options{}); !errors.Is(err, ts.ErrBadOptions) || !errors.Is(err, ts.ErrNoHash) {
		t.Errorf("Explore without Hash: %v", err)
	}
	if _, err := symmetry.Explore[models.Locks3State](ctx, hashedLocks3{bareLocks3{l}}, symmetry.Options{}); !errors.Is(err, symmetry.ErrNoSymmetry) {
		t.Errorf("Explore without Canonical: %v", err)
	}
	if _, err := symmetry.DPOR[models.Locks3State](ctx, bareLocks3{l}, symmetry.Options{}); !errors.Is(err, symmetry.ErrNoSymmetry) {
		t.Errorf("DPOR without Signature: %v", err)
	}
	if res, err := symmetry.DPOR[models.Locks3State](ctx, bareLocks3{l}, symmetry.Options{NoSymmetry: true}); err != nil || res.Executions != 6 {
		t.Errorf("DPOR without symmetry on locks3: %v, %v; want 6 executions", res, err)
	}
	if err := symmetry.Verify[models.Locks3State](bareLocks3{l}, symmetry.VerifyOptions{}); !errors.Is(err, symmetry.ErrNoSymmetry) {
		t.Errorf("Verify without symmetry: %v", err)
	}
	if err := symmetry.Verify[models.Locks3State](l, symmetry.VerifyOptions{MaxDepth: -1}); !errors.Is(err, ts.ErrBadOptions) {
		t.Errorf("Verify with a negative bound: %v", err)
	}
	if _, err := symmetry.NewOrbits[models.Locks3State](bareLocks3{l}); !errors.Is(err, ts.ErrNoHash) {
		t.Errorf("NewOrbits without Hash: %v", err)
	}
	bad := symmetry.Options{Options: ts.Options{Limits: ts.Limits{Transitions: -1}}}
	if _, err := symmetry.Explore[models.Locks3State](ctx, l, bad); !errors.Is(err, ts.ErrBadOptions) {
		t.Errorf("Explore with a negative limit: %v", err)
	}
	if _, err := symmetry.DPOR[models.Locks3State](ctx, l, bad); !errors.Is(err, ts.ErrBadOptions) {
		t.Errorf("DPOR with a negative limit: %v", err)
	}
}

// panicky panics in Signature, Canonical or Apply of thread 1 after thread
// 0 has moved.
type panicky struct {
	*models.Locks3
	where string
}

func (p panicky) moved(s models.Locks3State) bool {
	rep, _ := p.Locks3.Canonical(s)
	return p.Locks3.Hash(rep) != p.Locks3.Hash(p.Locks3.Init())
}

func (p panicky) Signature(s models.Locks3State, t ts.Tid) uint64 {
	if p.where == "Signature" && t == 1 && p.moved(s) {
		panic("signature")
	}
	return p.Locks3.Signature(s, t)
}

func (p panicky) Apply(s models.Locks3State, t ts.Tid) models.Locks3State {
	if p.where == "Apply" && t == 2 && p.moved(s) {
		panic("apply")
	}
	return p.Locks3.Apply(s, t)
}

func (p panicky) Canonical(s models.Locks3State) (models.Locks3State, []ts.Tid) {
	if p.where == "Canonical" && p.moved(s) {
		panic("canonical")
	}
	return p.Locks3.Canonical(s)
}

// Panics in user code become violations of kind ts.Panic with the
// schedule that reaches them; the search does not crash.
func TestPanics(t *testing.T) {
	ctx := context.Background()
	for _, where := range []string{"Signature", "Apply", "Canonical"} {
		sys := panicky{models.NewLocks3(0), where}
		for name, f := range map[string]strategy[models.Locks3State]{"sym": symmetry.Explore[models.Locks3State], "sympor": symmetry.DPOR[models.Locks3State]} {
			res, err := f(ctx, sys, symmetry.Options{})
			if err != nil {
				t.Errorf("%s/%s: %v", where, name, err)
				continue
			}
			if (name == "sym" && where == "Signature") || (name == "sympor" && where == "Canonical") {
				if res.Violation != nil {
					t.Errorf("%s/%s: %v", where, name, res.Violation)
				}
				continue
			}
			if res.Violation == nil || res.Violation.Kind != ts.Panic {
				t.Errorf("%s/%s: %v; want a panic", where, name, res)
				continue
			}
			var pe *ts.PanicError
			if !errors.As(res.Violation.Err, &pe) || pe.Value != map[string]string{"Signature": "signature", "Apply": "apply", "Canonical": "canonical"}[where] {
				t.Errorf("%s/%s: %v", where, name, res.Violation.Err)
			}
		}
	}
}

// Limits, the depth limit and cancellation are honoured.
func TestLimits(t *testing.T) {
	ctx := context.Background()
	p := models.NewPFScan(3)
	for name, f := range map[string]strategy[models.PFScanState]{"sym": symmetry.Explore[models.PFScanState], "sympor": symmetry.DPOR[models.PFScanState]} {
		res, err := f(ctx, p, symmetry.Options{Options: ts.Options{Limits: ts.Limits{Transitions: 5}}})
		if err != nil || res.Complete || res.Transitions != 5 {
			t.Errorf("%s, 5 transitions: %v, %v", name, res, err)
		}
		_, err = f(ctx, p, symmetry.Options{Options: ts.Options{Limits: ts.Limits{Depth: 4}}})
		var se *ts.SystemError
		if !errors.Is(err, ts.ErrDepth) || !errors.As(err, &se) || len(se.Schedule) != 5 {
			t.Errorf("%s, depth 4: %v", name, err)
		}
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		res, err = f(cctx, p, symmetry.Options{})
		if !errors.Is(err, context.Canceled) || res.Complete {
			t.Errorf("%s, cancelled: %v, %v", name, res, err)
		}
	}
	// Without symmetry DPOR explores 6 executions of locks3 (3!), with it 1.
	for _, tc := range []struct {
		opt  symmetry.Options
		want int64
	}{{symmetry.Options{NoSymmetry: true}, 6}, {symmetry.Options{}, 1}} {
		res, err := symmetry.DPOR[models.Locks3State](ctx, models.NewLocks3(0), tc.opt)
		if err != nil || res.Executions != tc.want || !res.Complete {
			t.Errorf("locks3 %+v: %v, %v; want %d executions", tc.opt, res, err, tc.want)
		}
	}
}

// Without symmetry, DPOR is Flanagan and Godefroid's DPOR without sleep
// sets, as in the thesis's Figure 7.6: on the inspect-2.3.1 example it
// explores all 6 interleavings (with sleep sets, por.DPOR explores 3): the
// reversal of t2's x = 3 with t1's x = 1 is scheduled at the initial state,
// and nothing there says that t2's first step y = 1 was already explored
// after t1's first.
func TestPlainDPORFixtures(t *testing.T) {
	res, err := symmetry.DPOR[models.Inspect231State](context.Background(), models.NewInspect231(0), symmetry.Options{NoSymmetry: true})
	if err != nil || res.Executions != 6 {
		t.Errorf("inspect-2.3.1: %v, %v; want 6 executions", res, err)
	}
	tstest.CheckReduction[models.Inspect231State](t, models.NewInspect231(0), func(ctx context.Context, sys ts.TransitionSystem[models.Inspect231State], o ts.Options) (ts.Result, error) {
		return symmetry.DPOR(ctx, sys, symmetry.Options{Options: o, NoSymmetry: true})
	}, tstest.ReductionOptions{Bound: ts.NoBound})
}

// mutCoins is two threads that each flip a coin into a slot of their own;
// thread 1's second outcome writes into the state it was given.
type mutCoins struct{}

func (mutCoins) Init() []int  { return []int{-1, -1} }
func (mutCoins) Threads() int { return 2 }
func (mutCoins) Next(s []int, t ts.Tid) (ts.Step, ts.Status) {
	if s[t] >= 0 {
		return ts.Step{}, ts.Finished
	}
	return ts.Step{Obj: ts.Obj(t), Op: ts.Write}, ts.Enabled
}
func (m mutCoins) Apply(s []int, t ts.Tid) []int    { return m.ApplyOutcome(s, t, 0) }
func (mutCoins) Outcomes([]int, ts.Tid) int         { return 2 }
func (mutCoins) Signature(s []int, t ts.Tid) uint64 { return uint64(t) }
func (mutCoins) Hash(s []int) uint64                { return uint64((s[0]+1)*3 + s[1] + 1) }
func (mutCoins) ApplyOutcome(s []int, t ts.Tid, c int) []int {
	if t == 1 && c == 1 {
		s[1] = 1 // in place
		return s
	}
	r := slices.Clone(s)
	r[t] = c
	return r
}

// sympor notices an ApplyOutcome that modifies its argument, names the
// thread, and keeps inside Limits.Memory.
func TestSymporContractAndMemory(t *testing.T) {
	ctx := context.Background()
	for _, o := range []symmetry.Options{{}, {NoSymmetry: true}} {
		_, err := symmetry.DPOR[[]int](ctx, mutCoins{}, o)
		var se *ts.SystemError
		if !errors.Is(err, ts.ErrMutated) || !errors.As(err, &se) || se.Thread != 1 {
			t.Errorf("symmetry off %v: %v; want ts.ErrMutated naming thread 1", o.NoSymmetry, err)
		}
	}
	_, err := symmetry.DPOR[models.PFScanState](ctx, models.NewPFScan(3), symmetry.Options{Options: ts.Options{Limits: ts.Limits{Memory: 64}}})
	if !errors.Is(err, ts.ErrMemory) {
		t.Errorf("pfscan-3 with 64 bytes: %v, want ts.ErrMemory", err)
	}
}
