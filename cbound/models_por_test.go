package cbound_test

import (
	"context"
	"testing"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/ts"
)

// Bluetooth under both context-bounded POR algorithms: no bug at bound 0,
// the assertion at bound 1 with a 1-preemption schedule.
func TestBluetoothPOR(t *testing.T) {
	for name, f := range map[string]strategy[models.BluetoothState]{"cb-por1": cbound.HBSearch[models.BluetoothState], "cb-por2": cbound.POR[models.BluetoothState]} {
		sys := models.NewBluetooth(1)
		res, err := f(context.Background(), sys, cbound.Options{Bound: cbound.NoPreemption})
		if err != nil || res.Violation != nil || !res.Complete {
			t.Fatalf("%s, bound 0: %v, %v; want complete, no violation", name, res, err)
		}
		res, err = f(context.Background(), sys, cbound.Options{Bound: 1})
		if err != nil {
			t.Fatal(err)
		}
		v := res.Violation
		if v == nil || v.Kind != ts.CheckFailure || v.Trace.Preemptions != 1 {
			t.Fatalf("%s, bound 1: %v; want the assertion with 1 preemption", name, res)
		}
		if n, err := ts.Preemptions(sys, v.Trace.Schedule()); err != nil || n != 1 {
			t.Errorf("%s: the schedule replays with %d preemptions (%v)", name, n, err)
		}
	}
}

// The work-stealing queue (cbpor paper, Table 1): per bound, cb-por2
// explores one execution per HB class of the executions cb-dfs explores
// (counted by building each one's HB state), and cb-por1 as many; the
// queue is clean up to bound 3, and the buggy variants are found at the
// bounds their documentation states, with schedules within them.
func TestWSQ(t *testing.T) {
	if testing.Short() {
		t.Skip("explores wsq to bound 3")
	}
	sys := models.NewWSQ(1)
	for c := 0; c <= 3; c++ {
		classes := map[string]bool{}
		dfs, err := cbound.DFS(context.Background(), sys, cbound.Options{Bound: cbound.AtMost(c), Options: ts.Options{
			OnTerminal: func(_ any, s ts.Schedule) { classes[hbKey[models.WSQState](t, sys, s)] = true }}})
		if err != nil || dfs.Violation != nil {
			t.Fatal(dfs, err)
		}
		for name, f := range map[string]strategy[models.WSQState]{"cb-por1": cbound.HBSearch[models.WSQState], "cb-por2": cbound.POR[models.WSQState]} {
			res, err := f(context.Background(), sys, cbound.Options{Bound: cbound.AtMost(c)})
			if err != nil || res.Violation != nil || !res.Complete {
				t.Fatal(name, res, err)
			}
			if res.Executions != int64(len(classes)) {
				t.Errorf("bound %d: %s explores %d executions; cb-dfs's %d executions fall in %d HB classes", c, name, res.Executions, dfs.Executions, len(classes))
			}
		}
	}
	for _, bug := range []struct {
		sys   *models.WSQ
		bound int
	}{{models.NewWSQBug1(1), 1}, {models.NewWSQBug2(1), 2}, {models.NewWSQBug3(1), 2}} {
		for name, f := range map[string]strategy[models.WSQState]{"cb-por1": cbound.HBSearch[models.WSQState], "cb-por2": cbound.POR[models.WSQState]} {
			res, err := f(context.Background(), bug.sys, cbound.Options{Bound: cbound.AtMost(bug.bound - 1)})
			if err != nil || res.Violation != nil {
				t.Errorf("%s at bound %d: %v, %v; want no violation", name, bug.bound-1, res, err)
			}
			res, err = f(context.Background(), bug.sys, cbound.Options{Bound: cbound.AtMost(bug.bound)})
			if err != nil || res.Violation == nil || res.Violation.Trace.Preemptions > bug.bound {
				t.Errorf("%s at bound %d: %v, %v; want a violation within the bound", name, bug.bound, res, err)
			}
		}
	}
}
