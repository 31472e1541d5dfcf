package cbound_test

import (
	"context"
	"errors"
	"testing"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// panicky is a Program whose thread 1 panics in Apply after thread 0 has
// written x.
type panicky struct{ *tstest.Program }

func (p panicky) Apply(s tstest.State, t ts.Tid) tstest.State {
	if st, _ := p.Next(s, 0); t == 1 && st.Obj == 1 {
		panic("boom")
	}
	return p.Program.Apply(s, t)
}

func TestHBBadInput(t *testing.T) {
	p := &tstest.Program{Vars: []tstest.Var{{Name: "x"}, {Name: "y"}},
		Code: [][]tstest.Instr{{tstest.Store(0, 1), tstest.Store(1, 1)}, {tstest.Load(0, 0)}}}
	for name, f := range map[string]strategy[tstest.State]{"cb-por1": cbound.HBSearch[tstest.State], "cb-por2": cbound.POR[tstest.State]} {
		for _, opt := range []cbound.Options{{Bound: -3}, {SyncOnly: true}, {Options: ts.Options{Limits: ts.Limits{Depth: -1}}}} {
			if _, err := f(context.Background(), p, opt); !errors.Is(err, ts.ErrBadOptions) {
				t.Errorf("%s %+v: %v, want ErrBadOptions", name, opt, err)
			}
		}
		if _, err := f(context.Background(), p, cbound.Options{Options: ts.Options{Limits: ts.Limits{Depth: 1}}}); !errors.Is(err, ts.ErrDepth) {
			t.Errorf("%s: depth 1: %v, want ErrDepth", name, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if res, err := f(ctx, p, cbound.Options{}); !errors.Is(err, context.Canceled) || res.Complete {
			t.Errorf("%s: cancelled: %v, %v", name, res, err)
		}
		res, err := f(context.Background(), p, cbound.Options{Options: ts.Options{Limits: ts.Limits{Transitions: 1}}})
		if err != nil || res.Complete || res.Transitions > 1 {
			t.Errorf("%s: 1 transition: %v, %v", name, res, err)
		}
		// A panic in user code is a violation with a replayable schedule
		// within the bound (T0 x := 1 then T1: one preemption).
		res, err = f(context.Background(), panicky{p}, cbound.Options{Bound: 1})
		if err != nil || res.Violation == nil || res.Violation.Kind != ts.Panic || res.Violation.Trace.Preemptions > 1 {
			t.Errorf("%s: panicking Apply: %v, %v", name, res, err)
		}
		// At bound 0 the search itself never moves T1 after T0's first write,
		// but computing an enabled set may replay a prefix in an order that
		// does: the panic is then reported with that replay's schedule, which
		// shows it (documented; ts.Explore finds it with 1 preemption).
		res, err = f(context.Background(), panicky{p}, cbound.Options{Bound: cbound.NoPreemption})
		if err != nil || (res.Violation != nil && res.Violation.Kind != ts.Panic) {
			t.Errorf("%s: panicking Apply at bound 0: %v, %v", name, res, err)
		}
		if v := res.Violation; v != nil {
			if _, err := ts.Confirm[tstest.State](panicky{p}, v, v.Trace.Schedule()); err != nil {
				t.Errorf("%s: the panic's schedule does not replay: %v", name, err)
			}
		}
	}
}
