package transact_test

import (
	"context"
	"errors"
	"testing"

	"github.com/bits-and-blooms/bitset"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/transact"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// The view keeps the TransitionSystem contract.
func TestViewConformance(t *testing.T) {
	ctx := context.Background()
	for _, sys := range []ts.TransitionSystem[models.CPCFigState]{declaredFig(models.NewCPCFig3(0)), declaredFig(models.NewCPCFig8(0))} {
		v, err := transact.NewView(ctx, sys, transact.ViewOptions{})
		if err != nil {
			t.Fatal(err)
		}
		tstest.Conformance[models.CPCFigState](t, v, tstest.ConformanceOptions{})
	}
	v, err := transact.NewView[models.PhilosophersState](ctx, models.NewPhilosophers(3), transact.ViewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tstest.Conformance[models.PhilosophersState](t, v, tstest.ConformanceOptions{})
	// The whole model: outcomes, idle threads, steps of several objects,
	// an invariant.
	tp, err := transact.NewView[models.TwoPhaseState](ctx, models.NewTwoPhase(1), transact.ViewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tstest.Conformance[models.TwoPhaseState](t, tp, tstest.ConformanceOptions{})
	abp, err := transact.NewView[models.ABPState](ctx, models.NewABPBug(1), transact.ViewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tstest.Conformance[models.ABPState](t, abp, tstest.ConformanceOptions{})
}

// On Figure 3 the view runs T1's transaction from acq(m) through rel(m) and
// into its local loop, which it cuts when the loop's step comes back to the
// same state: 5 steps; its footprint reads nothing and writes m, x, y and
// T1's local object (acquire and release count as writes). Its violation's schedule
// expands to a schedule of the figure that shows the same failure.
func TestViewFigure3(t *testing.T) {
	ctx := context.Background()
	fig := declaredFig(models.NewCPCFig3(0))
	v, err := transact.NewView(ctx, fig, transact.ViewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := v.Init()
	if n := v.Len(s, 0); n != 5 {
		t.Errorf("T1's first transaction has %d steps, want 5", n)
	}
	if d := v.Describe(s, 0); d != "L0: acq(m); L1: y := 42; L2: x := 1; L3: rel(m); L4: while (true) { skip; }" {
		t.Errorf("Describe = %q", d)
	}
	r, w := bitset.New(8), bitset.New(8)
	v.Footprint(s, 0, r, w)
	if r.Count() != 0 || w.String() != "{0,1,2,3}" {
		t.Errorf("footprint reads %v writes %v", r, w)
	}
	r2, w2 := bitset.New(8), bitset.New(8)
	v.Footprint(s, 2, r2, w2) // T3: y = 10
	if !transact.Conflict(r, w, r2, w2) || transact.Conflict(r2, bitset.New(0), r2, bitset.New(0)) {
		t.Errorf("Conflict is wrong")
	}
	if allocs := testing.AllocsPerRun(100, func() { v.Footprint(s, 0, r, w) }); allocs != 0 {
		t.Errorf("Footprint allocates %v times", allocs)
	}
	res, err := ts.ExploreStateful[models.CPCFigState](ctx, v, ts.Options{})
	if err != nil || res.Violation == nil {
		t.Fatalf("%v, %v", err, res.Violation)
	}
	sched, err := v.Expand(res.Violation.Trace.Schedule())
	if err != nil {
		t.Fatal(err)
	}
	run, err := ts.Replay(fig, sched)
	if err != nil || run.Violation == nil || run.Violation.Err.Error() != res.Violation.Err.Error() {
		t.Errorf("expanded schedule %v: %v, %v", sched, err, run.Violation)
	}
	if _, err := v.Expand(ts.ScheduleOf(5)); !errors.Is(err, ts.ErrThreadRange) {
		t.Errorf("Expand out of range: %v", err)
	}
	if _, err := transact.NewView[int](ctx, noHashSys{}, transact.ViewOptions{}); !errors.Is(err, ts.ErrNoHash) {
		t.Errorf("no Hash: %v", err)
	}
}

// The view of a system that declares nothing infers its movers.
func TestViewInfers(t *testing.T) {
	v, err := transact.NewView[models.PhilosophersState](context.Background(), models.NewPhilosophers(3), transact.ViewOptions{})
	if err != nil || v.Discipline == nil || v.Discipline.Class(0) != transact.Lock {
		t.Fatalf("%v, %v", err, v.Discipline)
	}
	res, err := ts.ExploreStateful[models.PhilosophersState](context.Background(), v, ts.Options{KeepGoing: true})
	if err != nil || res.States >= 75 {
		t.Errorf("%v, %d states, want fewer than ts.ExploreStateful's 75", err, res.States)
	}
}

// crashing is two threads that each write their own object three times;
// thread 1's third Apply panics.
type crashing struct{}

func (crashing) Init() [2]int { return [2]int{} }
func (crashing) Threads() int { return 2 }
func (crashing) Next(s [2]int, t ts.Tid) (ts.Step, ts.Status) {
	if s[t] < 3 {
		return ts.Step{Obj: ts.Obj(t), Op: ts.Write}, ts.Enabled
	}
	return ts.Step{}, ts.Finished
}
func (crashing) Apply(s [2]int, t ts.Tid) [2]int {
	if t == 1 && s[1] == 2 {
		panic("thread 1")
	}
	s[t]++
	return s
}
func (crashing) Hash(s [2]int) uint64 { return uint64(s[0])<<8 | uint64(s[1]) }

// Expand reruns transactions: a panic in one is returned as a *ts.PanicError
// with the schedule up to the move that panicked, whose replay shows it.
func TestViewExpandPanic(t *testing.T) {
	v, err := transact.NewView[[2]int](context.Background(), crashing{}, transact.ViewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sched, err := v.Expand(ts.Schedule{{Thread: 0}, {Thread: 1}})
	var pe *ts.PanicError
	if !errors.As(err, &pe) || pe.Value != "thread 1" || sched.String() != (ts.Schedule{{Thread: 0}, {Thread: 0}, {Thread: 0}, {Thread: 1}, {Thread: 1}, {Thread: 1}}).String() {
		t.Fatalf("Expand: %v, %v", sched, err)
	}
	run, err := ts.ReplayWith[[2]int](crashing{}, sched, ts.Options{})
	if err != nil || run.Violation == nil || run.Violation.Kind != ts.Panic || run.Violation.Thread != 1 {
		t.Errorf("the replay: %v, %v", run.Violation, err)
	}
}
