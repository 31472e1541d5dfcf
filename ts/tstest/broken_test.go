package tstest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// The reference searches notice every breach, with and without Hash
// (ts.ExploreStateful needs it).
func TestBrokenIsNoticed(t *testing.T) {
	for _, b := range tstest.Breaches {
		for _, hashed := range []bool{false, true} {
			if _, err := ts.Explore(context.Background(), tstest.Broken(b, hashed), ts.Options{}); !b.Noticed(err) {
				t.Errorf("ts.Explore, %v, hashed %v: %v", b, hashed, err)
			}
		}
		if _, err := ts.ExploreStateful(context.Background(), tstest.Broken(b, true), ts.Options{}); !b.Noticed(err) {
			t.Errorf("ts.ExploreStateful, %v: %v", b, err)
		}
	}
	// Unbroken, the same system is fine: Noticed is not true of nil.
	for _, b := range tstest.Breaches {
		if b.Noticed(nil) {
			t.Errorf("%v: Noticed(nil)", b)
		}
	}
}

// BrokenIndependence breaks only what the reductions rely on: Conformance
// reports thread 3's step changed by thread 0's independent transition,
// and ts.Explore, which asks every thread at every state, explores it
// without an error (4 threads of 2 steps each: 8!/2^4 executions).
func TestBrokenIndependence(t *testing.T) {
	sys := tstest.BrokenIndependence()
	errs := tstest.CheckConformance(sys, tstest.ConformanceOptions{})
	if len(errs) == 0 || !errors.Is(errs[0], tstest.ErrStepChanged) {
		t.Errorf("Conformance: %v", errs)
	}
	res, err := ts.Explore(context.Background(), sys, ts.Options{})
	if err != nil || !res.Complete || res.Executions != 2520 {
		t.Errorf("ts.Explore: %v, %v", res, err)
	}
}
