package weft_test

import (
	"context"
	"testing"
	"time"

	"github.com/weftlab/weft"
	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/ts"
)

// Every strategy reports as Violation.Thread the thread that takes the last
// step of the violation's schedule (the field's doc; a panic keeps the thread
// that panicked), for a deadlock, a failed Check and a failed Invariant. A
// strategy may report a schedule other than the one its search took (the CB
// strategies linearize the happens-before state again), and the thread must
// follow the schedule reported.
func TestEveryStrategyViolationThreadEndsSchedule(t *testing.T) {
	type model struct {
		name string
		run  func(weft.Strategy, ts.Options) (ts.Result, error)
	}
	cases := []model{
		{"philosophers-3", runner(models.NewPhilosophers(3))},    // deadlock
		{"peterson-buggy-1", runner(models.NewPetersonBuggy(1))}, // check failure
		{"bluetooth-1", runner(models.NewBluetooth(1))},          // check failure
		{"wsq-bug2-1", runner(models.NewWSQBug2(1))},             // check failure
		{"cpc-fig1", runner(models.NewCPCFig1(0))},               // check failure
		{"twophase-bug-2", runner(models.NewTwoPhaseBug(2))},     // invariant
		{"abp-bug-2", runner(models.NewABPBug(2))},               // invariant
	}
	kinds := map[ts.ViolationKind]bool{}
	for _, m := range cases {
		for _, s := range everyStrategy() {
			var seen []*ts.Violation
			opt := ts.Options{OnViolation: func(v *ts.Violation) { seen = append(seen, v) }}
			res, _ := m.run(s, opt)
			if res.Violation != nil && (len(seen) == 0 || seen[0] != res.Violation) {
				seen = append(seen, res.Violation)
			}
			for _, v := range seen {
				if v.Kind == ts.Panic {
					continue
				}
				kinds[v.Kind] = true
				sched := v.Trace.Schedule()
				want := ts.Tid(-1)
				if len(sched) > 0 {
					want = sched[len(sched)-1].Thread
				}
				if v.Thread != want {
					t.Errorf("%s, %s: %v by thread %d, but schedule %v ends with thread %d",
						m.name, s, v.Kind, v.Thread, sched.Short(32), want)
				}
			}
		}
	}
	for _, k := range []ts.ViolationKind{ts.Deadlock, ts.CheckFailure, ts.InvariantFailure} {
		if !kinds[k] {
			t.Errorf("no strategy reported a %v: the test checks nothing of it", k)
		}
	}
}

func runner[S any](sys ts.TransitionSystem[S]) func(weft.Strategy, ts.Options) (ts.Result, error) {
	return func(s weft.Strategy, opt ts.Options) (ts.Result, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return weft.Run(ctx, sys, s, opt)
	}
}
