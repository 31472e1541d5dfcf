package por

import (
	"testing"

	"github.com/weftlab/weft/ts"
)

func w(t ts.Tid, obj ts.Obj, op ts.Op) wev { return wev{t: t, step: ts.Step{Obj: obj, Op: op}} }

func TestWeakInitial(t *testing.T) {
	x, y := ts.Obj(0), ts.Obj(1)
	seq := []wev{w(1, x, ts.Write), w(2, y, ts.Write), w(2, x, ts.Read)}
	for _, tc := range []struct {
		q            ts.Tid
		out          int
		st           ts.Step
		initialsOnly bool
		want         bool
	}{
		{1, 0, ts.Step{Obj: x, Op: ts.Write}, false, true},          // first, nothing before it
		{2, 0, ts.Step{Obj: y, Op: ts.Write}, false, true},          // its first transition is independent of T1's
		{3, 0, ts.Step{Obj: y, Op: ts.Read}, false, false},          // not in w, dependent with T2's write of y
		{3, 0, ts.Step{Obj: 5, Op: ts.Write}, false, true},          // not in w, independent of all of it
		{3, 0, ts.Step{Obj: 5, Op: ts.Acquire}, false, true},        // an acquire independent of w too
		{3, 0, ts.Step{Obj: 5, Op: ts.Write}, true, false},          // after a failed check: initials only
		{1, 1, ts.Step{Obj: x, Op: ts.Write}, false, false},         // another outcome of T1's transition
		{1, anyOutcome, ts.Step{Obj: x, Op: ts.Write}, false, true}, // T1 asleep with every outcome
		{3, 2, ts.Step{Obj: 5, Op: ts.Write}, false, true},          // not in w: any outcome commutes with it
		// A step of several objects is dependent through any of them.
		{3, 0, ts.Step{Obj: 5, Op: ts.Write, Also: []ts.Access{{Obj: y, Op: ts.Read}}}, false, false},
	} {
		if got := weakInitial(tc.q, tc.out, tc.st, seq, tc.initialsOnly); got != tc.want {
			t.Errorf("T%d/%d %v: got %v", tc.q, tc.out, tc.st, got)
		}
	}
	if weakInitial(2, 0, ts.Step{}, []wev{w(1, x, ts.Write), w(2, x, ts.Read)}, false) {
		t.Error("T2 reads what T1 writes first: not an initial")
	}
}

func TestWakeupTree(t *testing.T) {
	var tr wtree
	root := tr.alloc(wev{t: -1})
	a := tr.addChild(root, wev{t: 1})
	b := tr.addChild(root, wev{t: 2})
	tr.addChild(a, wev{t: 3})
	tr.addChild(a, wev{t: 4, out: 1})
	if got := len(tr.leaves(root, nil, nil)); got != 3 {
		t.Fatalf("%d leaves, want 3", got)
	}
	if l := tr.leaves(a, nil, nil); len(l) != 2 || l[1][0].out != 1 {
		t.Fatalf("leaves below a: %v", l)
	}
	tr.remove(root, a)
	if tr.nodes[root].first != b || len(tr.spare) != 3 {
		t.Fatalf("after remove: first %d, %d spare", tr.nodes[root].first, len(tr.spare))
	}
	if c := tr.alloc(wev{t: 5}); c >= int32(len(tr.nodes)) || tr.nodes[c].t != 5 {
		t.Fatal("alloc does not reuse")
	}
}
