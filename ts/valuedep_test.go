package ts_test

import (
	"testing"

	"github.com/weftlab/weft/ts"
)

func TestStepVariant(t *testing.T) {
	x := func(o ts.Obj) bool { return o == 0 }
	w, r := ts.Step{Obj: 0, Op: ts.Write}, ts.Step{Obj: 0, Op: ts.Read}
	multi := func(op ts.Op) ts.Step {
		return ts.Step{Obj: 1, Op: ts.Read, Also: []ts.Access{{Obj: 0, Op: op}}}
	}
	marked := w
	marked.Also = []ts.Access{{Obj: ts.InvariantObj, Op: ts.Write}}
	for _, tc := range []struct {
		a, b ts.Step
		decl func(ts.Obj) bool
		want bool
	}{
		{w, r, x, true},
		{r, w, x, true},
		{w, w, x, true},
		{w, r, nil, false},
		{w, r, func(o ts.Obj) bool { return o == 1 }, false},
		{w, ts.Step{Obj: 0, Op: ts.Acquire}, x, false},
		{ts.Step{Obj: 0, Op: ts.Release}, ts.Step{Obj: 0, Op: ts.Acquire}, x, false},
		{w, ts.Step{Obj: 1, Op: ts.Read}, x, false},
		{w, ts.Step{Obj: 0, Op: ts.Read, Sync: true}, x, false},
		{multi(ts.Write), multi(ts.Read), x, true},
		{multi(ts.Write), ts.Step{Obj: 1, Op: ts.Read}, x, false},
		{marked, r, x, true},
	} {
		if got := ts.StepVariant(tc.a, tc.b, tc.decl); got != tc.want {
			t.Errorf("StepVariant(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
