package por_test

import (
	"context"
	"errors"
	"flag"
	"testing"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

var long = flag.Bool("por.long", false, "run the slow model checks: inspect-example1 at N = 46 (DPOR takes most of a minute), ODPOR against brute force on aget-3 and the queues")

// inspect-example1: SDPOR reaches the terminal states DPOR reaches with at
// least 10x fewer transitions, at N = 40 by default (DPOR: 3108105
// executions, about 1.5 s) and N = 46 with -por.long (92561040 executions,
// 48 s measured on 2 cores: the largest N where DPOR finishes within a
// minute there); and it finishes the thesis's N = 64.
func TestSDPORInspectExample1(t *testing.T) {
	ctx := context.Background()
	n := 40
	if *long {
		n = 46
	}
	if testing.Short() {
		n = 30
	}
	sys := models.NewInspectExample1(n)
	var dt, st []any
	d, err := por.DPOR(ctx, sys, por.Options{Options: ts.Options{OnTerminal: func(s any, _ ts.Schedule) { dt = append(dt, s) }}})
	if err != nil || !d.Complete {
		t.Fatal(d, err)
	}
	s, err := por.SDPOR(ctx, sys, por.Options{Options: ts.Options{OnTerminal: func(s any, _ ts.Schedule) { st = append(st, s) }}})
	if err != nil || !s.Complete {
		t.Fatal(s, err)
	}
	if len(st) != 1 || len(dt) == 0 || st[0] != dt[0] {
		t.Errorf("terminal states: sdpor %v, dpor %d of them", st, len(dt))
	}
	if s.Transitions*10 > d.Transitions {
		t.Errorf("N = %d: sdpor %d transitions, dpor %d: less than 10x fewer", n, s.Transitions, d.Transitions)
	}
	t.Logf("inspect-example1-%d: dpor %v; sdpor %v", n, d, s)

	s, err = por.SDPOR(ctx, models.NewInspectExample1(64), por.Options{})
	if err != nil || !s.Complete || s.States != 462 {
		t.Fatal(s, err)
	}
	t.Logf("inspect-example1-64: sdpor %d runs, %d transitions, %d states (thesis: 35 runs, 2084 transitions)", s.Executions, s.Transitions, s.States)
}

// cycle is a system with a cycle: one thread toggles a bit forever.
type cycle struct{}

func (cycle) Init() int         { return 0 }
func (cycle) Threads() int      { return 1 }
func (cycle) Hash(s int) uint64 { return uint64(s) }
func (cycle) Next(s int, t ts.Tid) (ts.Step, ts.Status) {
	return ts.Step{Obj: 0, Op: ts.Write}, ts.Enabled
}
func (cycle) Apply(s int, t ts.Tid) int { return 1 - s }

func TestSDPORRefusesCycles(t *testing.T) {
	_, err := por.SDPOR[int](context.Background(), cycle{}, por.Options{})
	var se *ts.SystemError
	if !errors.Is(err, por.ErrCyclic) || !errors.As(err, &se) || len(se.Schedule) != 2 {
		t.Fatalf("got %v", err)
	}
}

// noHash hides tstest.Program's Hash.
type noHash struct{ *tstest.Program }

func (noHash) Hash() {}

func TestSDPORNeedsHash(t *testing.T) {
	p := &tstest.Program{Vars: []tstest.Var{{Name: "x"}}, Code: [][]tstest.Instr{{tstest.Store(0, 1)}}}
	_, err := por.SDPOR[tstest.State](context.Background(), noHash{p}, por.Options{})
	if !errors.Is(err, ts.ErrBadOptions) || !errors.Is(err, ts.ErrNoHash) {
		t.Fatalf("got %v", err)
	}
}
