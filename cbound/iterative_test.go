package cbound_test

import (
	"context"
	"errors"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// IterativePOR reports a violation exactly when one exists within the bound,
// and then with the fewest preemptions any violating execution has.
func TestIterativePORFewestPreemptions(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{MaxThreads: 3}.Core()).Draw(t, "program")
		c := rapid.IntRange(0, 3).Draw(t, "bound")
		fewest := -1
		_, err := ts.Explore(context.Background(), p, ts.Options{KeepGoing: true, OnViolation: func(v *ts.Violation) {
			if fewest < 0 || v.Trace.Preemptions < fewest {
				fewest = v.Trace.Preemptions
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := cbound.IterativePOR(context.Background(), p, cbound.Options{Bound: cbound.AtMost(c)})
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case fewest < 0 || fewest > c:
			if res.Violation != nil || !res.Complete {
				t.Fatalf("no violation within %d preemptions, IterativePOR reports %v", c, res)
			}
		case res.Violation == nil:
			t.Fatalf("a violation needs %d preemptions, IterativePOR at bound %d found none", fewest, c)
		case res.Violation.Trace.Preemptions != fewest:
			t.Fatalf("IterativePOR's violation has %d preemptions, the fewest is %d", res.Violation.Trace.Preemptions, fewest)
		}
	})
}

func TestIterativePORNeedsABound(t *testing.T) {
	p := &tstest.Program{Vars: []tstest.Var{{Name: "x"}}, Code: [][]tstest.Instr{{tstest.Store(0, 1)}}}
	if _, err := cbound.IterativePOR(context.Background(), p, cbound.Options{Bound: cbound.Unbounded}); !errors.Is(err, ts.ErrBadOptions) {
		t.Errorf("got %v, want ErrBadOptions", err)
	}
}
