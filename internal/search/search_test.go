package search

import (
	"context"
	"errors"
	"testing"

	"github.com/weftlab/weft/ts"
)

type fake struct {
	threads int
	step    ts.Step
	status  ts.Status
	panics  bool
}

func (f fake) Init() int { return 0 }
func (f fake) Threads() int {
	if f.panics {
		panic("no threads today")
	}
	return f.threads
}
func (f fake) Next(int, ts.Tid) (ts.Step, ts.Status) { return f.step, f.status }
func (f fake) Apply(s int, _ ts.Tid) int             { return s + 1 }

func TestThreads(t *testing.T) {
	if n, err := Threads[int](fake{threads: 3}); n != 3 || err != nil {
		t.Errorf("got %d, %v", n, err)
	}
	for _, f := range []fake{{threads: 0}, {threads: ts.MaxThreads + 1}} {
		if _, err := Threads[int](f); !errors.Is(err, ts.ErrThreadRange) || !errors.Is(err, ts.ErrBadSystem) {
			t.Errorf("%d threads: got %v", f.threads, err)
		}
	}
	if _, err := Threads[int](fake{panics: true}); !errors.Is(err, ts.ErrBadSystem) {
		t.Errorf("panicking Threads: got %v", err)
	}
}

func TestLook(t *testing.T) {
	steps, status := make([]ts.Step, 2), make([]ts.Status, 2)
	cur := ts.Tid(7)
	en, bl, err := Look[int](fake{threads: 2, step: ts.Step{Obj: 1, Op: ts.Acquire}, status: ts.Blocked}, 0, steps, status, &cur)
	if en != 0 || bl != 2 || err != nil || cur != -1 || steps[1].Op != ts.Acquire {
		t.Errorf("got %d enabled, %d blocked, %v, current %d, steps %v", en, bl, err, cur, steps)
	}
	for _, f := range []fake{
		{threads: 2, step: ts.Step{Op: 9}},
		{threads: 2, step: ts.Step{Obj: -1}},
		{threads: 2, status: 5},
	} {
		_, _, err := Look[int](f, 0, steps, status, &cur)
		if !errors.Is(err, ts.ErrBadStep) {
			t.Errorf("%+v: got %v, want ErrBadStep", f, err)
		}
		err = WithSchedule(err, ts.ScheduleOf(1, 0))
		var se *ts.SystemError
		if !errors.As(err, &se) || len(se.Schedule) != 2 || se.Thread != 0 {
			t.Errorf("%+v: %v does not name thread 0 and the schedule", f, err)
		}
	}
	// A finished thread's step is not checked.
	if _, _, err := Look[int](fake{threads: 1, step: ts.Step{Op: 9}, status: ts.Finished}, 0, steps[:1], status[:1], &cur); err != nil {
		t.Errorf("finished thread: %v", err)
	}
}

func TestBudgetSpent(t *testing.T) {
	opt := &ts.Options{Limits: ts.Limits{Transitions: 10, Executions: 3}}
	for _, c := range []struct {
		res   ts.Result
		spent bool
	}{
		{ts.Result{Transitions: 9, Executions: 2}, false},
		{ts.Result{Transitions: 10}, true},
		{ts.Result{Executions: 3}, true},
	} {
		if spent, err := BudgetSpent(context.Background(), opt, &c.res); spent != c.spent || err != nil {
			t.Errorf("%+v: spent %v, %v", c.res, spent, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	spent, err := BudgetSpent(ctx, &ts.Options{}, &ts.Result{Transitions: 2049})
	if !spent || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, %v", spent, err)
	}
}
