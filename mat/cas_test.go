package mat

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// Issue 19: mat fixes each thread's accesses in one unrolling run, which a
// value-dependent step (a cas that is a write in one schedule and a read in
// another) does not have: it refuses such systems up front, Explore and
// Unroll alike, and still takes the same program when its cas is always a
// write.
func TestRefusesValueDependentSteps(t *testing.T) {
	cas := tstest.CAS(0, 0, 0, 1)
	p := &tstest.Program{Vars: []tstest.Var{{Name: "x"}}, CASReads: true, Code: [][]tstest.Instr{{cas}, {cas}}}
	_, err := Explore(context.Background(), p, Options{})
	if !errors.Is(err, ts.ErrUnsupported) || !strings.Contains(err.Error(), "mat does not support value-dependent steps") {
		t.Errorf("Explore: %v", err)
	}
	if _, err := Unroll[tstest.State](p, ts.Limits{}); !errors.Is(err, ts.ErrUnsupported) {
		t.Errorf("Unroll: %v", err)
	}
	if _, err := Explore[models.CASState](context.Background(), models.NewCASW(2), Options{}); !errors.Is(err, ts.ErrUnsupported) {
		t.Errorf("casw-2: %v", err)
	}
	p.CASReads = false
	if res, err := Explore(context.Background(), p, Options{}); err != nil || !res.Complete {
		t.Errorf("cas as a write: %v %v", res, err)
	}
}
