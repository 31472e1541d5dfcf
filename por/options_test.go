package por_test

import (
	"context"
	"errors"
	"testing"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

func TestBadOptions(t *testing.T) {
	p := &tstest.Program{Vars: []tstest.Var{{Name: "x"}}, Code: [][]tstest.Instr{{tstest.Store(0, 1)}}}
	for _, s := range strategies[tstest.State]() {
		for _, o := range []ts.Options{
			{Limits: ts.Limits{Depth: -1}},
			{Limits: ts.Limits{Transitions: -1}},
			{Limits: ts.Limits{Executions: -1}},
			{ProgressEvery: -1},
		} {
			if _, err := s.f(context.Background(), p, por.Options{Options: o}); !errors.Is(err, ts.ErrBadOptions) {
				t.Errorf("%s %+v: got %v", s.name, o, err)
			}
		}
	}
}

// panicky panics in Apply of thread 1's first step.
type panicky struct{ *tstest.Program }

func (p panicky) Apply(s tstest.State, t ts.Tid) tstest.State {
	if t == 1 {
		panic("boom")
	}
	return p.Program.Apply(s, t)
}

// forever never terminates: one thread writes forever, counting.
type forever struct{}

func (forever) Init() int         { return 0 }
func (forever) Threads() int      { return 1 }
func (forever) Hash(s int) uint64 { return uint64(s) }
func (forever) Next(s int, t ts.Tid) (ts.Step, ts.Status) {
	return ts.Step{Obj: 0, Op: ts.Write}, ts.Enabled
}
func (forever) Apply(s int, t ts.Tid) int { return s + 1 }

func TestBadSystems(t *testing.T) {
	ctx := context.Background()
	p := &tstest.Program{Vars: []tstest.Var{{Name: "x"}}, Code: [][]tstest.Instr{{tstest.Store(0, 1)}, {tstest.Store(0, 2)}}}
	for _, s := range strategies[tstest.State]() {
		res, err := s.f(ctx, panicky{p}, por.Options{})
		if err != nil || res.Violation == nil || res.Violation.Kind != ts.Panic || res.Violation.Thread != 1 {
			t.Errorf("%s: panic: %v, %v", s.name, res, err)
		}
	}
	for _, s := range strategies[int]() {
		_, err := s.f(ctx, forever{}, por.Options{Options: ts.Options{Limits: ts.Limits{Depth: 50}}})
		var se *ts.SystemError
		if !errors.Is(err, ts.ErrDepth) || !errors.As(err, &se) || len(se.Schedule) != 51 {
			t.Errorf("%s: depth: %v", s.name, err)
		}
	}
}

func TestLimitsAndCancellation(t *testing.T) {
	sys := models.NewLastzero(6)
	for _, s := range strategies[models.LastzeroState]() {
		res, err := s.f(context.Background(), sys, por.Options{Options: ts.Options{Limits: ts.Limits{Executions: 3}}})
		if err != nil || res.Complete || res.Executions != 3 {
			t.Errorf("%s: execution limit: %v %v", s.name, res, err)
		}
		res, err = s.f(context.Background(), sys, por.Options{Options: ts.Options{Limits: ts.Limits{Transitions: 10}}})
		if err != nil || res.Complete || res.Transitions != 10 {
			t.Errorf("%s: transition limit: %v %v", s.name, res, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res, err = s.f(ctx, sys, por.Options{})
		if !errors.Is(err, context.Canceled) || res.Complete {
			t.Errorf("%s: cancelled: %v %v", s.name, res, err)
		}
	}
}

// Deadlocks are violations: philosophers deadlock under every strategy.
func TestDeadlock(t *testing.T) {
	for _, s := range strategies[models.PhilosophersState]() {
		res, err := s.f(context.Background(), models.NewPhilosophers(3), por.Options{})
		if err != nil || res.Violation == nil || res.Violation.Kind != ts.Deadlock {
			t.Errorf("%s: %v %v", s.name, res, err)
		}
	}
}
