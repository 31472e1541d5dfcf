package models

import (
	"context"
	"testing"

	"github.com/weftlab/weft/ts"
)

func TestPFScanAGetConformance(t *testing.T) {
	conform(t, PFScanInfo, sys[PFScanState](NewPFScan))
	conform(t, PFScanBuggyInfo, sys[PFScanState](NewPFScanBuggy))
	conform(t, AGetInfo, sys[AGetState](NewAGet))
	conform(t, AGetBuggyInfo, sys[AGetState](NewAGetBuggy))
}

// stateful returns the states, distinct terminal states and violating states
// ts.ExploreStateful finds.
func stateful[S any](t *testing.T, sys interface {
	ts.TransitionSystem[S]
	ts.Hasher[S]
}) (states int64, terminals int, violations int64) {
	t.Helper()
	seen := map[uint64]bool{}
	res, err := ts.ExploreStateful[S](context.Background(), sys, ts.Options{KeepGoing: true,
		OnTerminal: func(s any, _ ts.Schedule) { seen[sys.Hash(s.(S))] = true }})
	if err != nil || !res.Complete {
		t.Fatalf("%v, %v", res, err)
	}
	return res.States, len(seen), res.Violations
}

func TestPFScanFacts(t *testing.T) {
	for n, want := range map[int][2]int64{1: {28, 20}, 2: {267, 1475}, 3: {1478, 56882}} {
		states, terms, viols := stateful[PFScanState](t, NewPFScan(n))
		if states != want[0] || terms != 1 || viols != 0 {
			t.Errorf("pfscan-%d: %d states, %d terminal, %d violations; want %d, 1, 0", n, states, terms, viols, want[0])
		}
		states, terms, viols = stateful[PFScanState](t, NewPFScanBuggy(n))
		wantViols := map[int]int64{1: 0, 2: 8, 3: 21}[n]
		if states != want[1] || terms != 1 || viols != wantViols {
			t.Errorf("pfscan-bug-%d: %d states, %d terminal, %d violations; want %d, 1, %d", n, states, terms, viols, want[1], wantViols)
		}
	}
	res, err := ts.ExploreStateful[PFScanState](context.Background(), NewPFScanBuggy(2), ts.Options{})
	if err != nil || res.Violation == nil || res.Violation.Kind != ts.CheckFailure {
		t.Errorf("pfscan-bug-2: %v, %v; want the double scan", res, err)
	}
}

func TestAGetFacts(t *testing.T) {
	for n, want := range map[int][2]int64{1: {11, 7}, 2: {85, 94}, 3: {575, 1661}} {
		states, terms, viols := stateful[AGetState](t, NewAGet(n))
		if states != want[0] || terms != 1 || viols != 0 {
			t.Errorf("aget-%d: %d states, %d terminal, %d violations; want %d, 1, 0", n, states, terms, viols, want[0])
		}
		states, terms, viols = stateful[AGetState](t, NewAGetBuggy(n))
		wantViols := map[int]int64{1: 0, 2: 2, 3: 4}[n]
		if states != want[1] || terms != 1 || viols != wantViols {
			t.Errorf("aget-bug-%d: %d states, %d terminal, %d violations; want %d, 1, %d", n, states, terms, viols, want[1], wantViols)
		}
	}
	for _, tc := range []struct {
		sys         *AGet
		execs, viol int64
	}{{NewAGet(2), 466, 0}, {NewAGetBuggy(2), 924, 774}} {
		res, err := ts.Explore[AGetState](context.Background(), tc.sys, ts.Options{KeepGoing: true})
		if err != nil || res.Executions != tc.execs || res.Violations != tc.viol {
			t.Errorf("aget buggy=%v: %v, %v; want %d executions, %d violations", tc.sys.buggy, res, err, tc.execs, tc.viol)
		}
	}
}
