package models

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// casFigure is a CAS model's figure: GenMC's number of execution graphs
// under SC, which is the number of Mazurkiewicz traces of the actual
// accesses (a failed cas a read).
type casFigure struct {
	name   string
	sys    *CAS
	traces int64
	long   bool // seconds under ODPOR or cb-por2: with -models.long only
}

func casFigures() []casFigure {
	var fs []casFigure
	for n, want := range map[int]int64{2: 6, 3: 66, 4: 1200, 5: 32880} {
		fs = append(fs, casFigure{fmt.Sprintf("casw-%d", n), NewCASW(n), want, false})
	}
	for n := 1; n <= 9; n++ {
		fs = append(fs, casFigure{fmt.Sprintf("wcas-%d", n), NewWCAS(n), int64(n)<<(n-1) + 1, false})
	}
	for n, want := range map[int]int64{2: 2, 3: 5, 4: 14, 5: 43, 6: 144, 7: 523, 8: 2048, 9: 8597} {
		fs = append(fs, casFigure{fmt.Sprintf("casrot-%d", n), NewCASRot(n), want, false})
	}
	slices.SortFunc(fs, func(a, b casFigure) int {
		if a.name < b.name {
			return -1
		}
		return 1
	})
	return fs
}

// terminals collects the hashes of the terminal states a search reports.
func terminals(m *CAS) (map[uint64]bool, ts.Options) {
	got := map[uint64]bool{}
	return got, ts.Options{KeepGoing: true, OnTerminal: func(s any, _ ts.Schedule) { got[m.Hash(s.(CASState))] = true }}
}

// ODPOR and cb-por2 (unbounded) explore exactly GenMC's number of executions
// on casw, wcas and casrot, and reach every terminal state ts.Explore's
// stateful search reaches.
func TestCASFigures(t *testing.T) {
	for _, f := range casFigures() {
		if f.long && !*long {
			continue
		}
		want, o := terminals(f.sys)
		if _, err := ts.ExploreStateful(context.Background(), f.sys, o); err != nil {
			t.Fatal(f.name, err)
		}
		for _, s := range []struct {
			name string
			run  func(ts.Options) (ts.Result, error)
		}{
			{"odpor", func(o ts.Options) (ts.Result, error) {
				return por.ODPOR(context.Background(), f.sys, por.Options{Options: o})
			}},
			{"cb-por2", func(o ts.Options) (ts.Result, error) {
				return cbound.POR(context.Background(), f.sys, cbound.Options{Options: o, Bound: cbound.Unbounded})
			}},
		} {
			got, o := terminals(f.sys)
			res, err := s.run(o)
			if err != nil || !res.Complete || res.Violation != nil {
				t.Fatalf("%s under %s: %v, %v", f.name, s.name, res, err)
			}
			if res.Executions != f.traces {
				t.Errorf("%s under %s: %d executions, want %d", f.name, s.name, res.Executions, f.traces)
			}
			if !maps.Equal(got, want) {
				t.Errorf("%s under %s: %d terminal states, ts.ExploreStateful %d", f.name, s.name, len(got), len(want))
			}
			if n := res.Stats["search.stuck"] + res.Stats["sleep-blocked"] + res.Stats["infeasible-branches"]; n != 0 {
				t.Errorf("%s under %s: stats %v", f.name, s.name, res.Stats)
			}
		}
	}
}

// cb-por2's executions per context bound on casw-3 are GenMC's with
// --bound-type=context: 6, 24, 54, 66; casw-2: 2, 4, 6; casw-4: 24, 168,
// 576, 1056, 1200.
func TestCASWPerBound(t *testing.T) {
	for n, want := range map[int][]int64{2: {2, 4, 6}, 3: {6, 24, 54, 66}, 4: {24, 168, 576, 1056, 1200}} {
		m := NewCASW(n)
		res, err := cbound.POR(context.Background(), m, cbound.Options{Bound: len(want) - 1, Options: ts.Options{KeepGoing: true}})
		if err != nil || !res.Complete {
			t.Fatal(res, err)
		}
		var got []int64
		for _, c := range res.Coverage {
			got = append(got, c.Executions)
		}
		if !slices.Equal(got, want) {
			t.Errorf("casw-%d: cb-por2 executions per bound %v, want %v", n, got, want)
		}
		if res.Stats["search.stuck"] != 0 {
			t.Errorf("casw-%d: search.stuck %d", n, res.Stats["search.stuck"])
		}
	}
}

// Each execution ODPOR explores on the small models is a different trace,
// and every trace is explored (tstest.CheckOptimal against ts.Explore).
func TestCASOptimal(t *testing.T) {
	for _, sys := range []*CAS{NewCASW(2), NewCASW(3), NewWCAS(4), NewCASRot(5)} {
		tstest.CheckOptimal(t, sys, func(ctx context.Context, sys ts.TransitionSystem[CASState], o ts.Options) (ts.Result, error) {
			return por.ODPOR(ctx, sys, por.Options{Options: o})
		}, tstest.ReductionOptions{Bound: ts.NoBound})
	}
}

// The models keep the relaxed contract of ts.ValueDependent.
func TestCASConformance(t *testing.T) {
	for _, sys := range []*CAS{NewCASW(3), NewWCAS(3), NewCASRot(4)} {
		tstest.Conformance(t, sys, tstest.ConformanceOptions{})
	}
}
