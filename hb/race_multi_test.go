package hb

import (
	"testing"

	"github.com/weftlab/weft/ts"
)

// A step of several objects: its synchronization accesses order it, its
// plain accesses race, each on its own object; the invariant mark is not an
// access; an object with both kinds of access races only between plain ones.
func TestDetectorSeveralObjectsAndMixedObjects(t *testing.T) {
	const x, y, s = 0, 1, 2
	mark := ts.Access{Obj: ts.InvariantObj, Op: ts.Write}
	evs := []ts.Event{
		// T0 writes x and y plainly in one step, and the invariant mark.
		{Thread: 0, Step: ts.Step{Obj: x, Op: ts.Write, Also: []ts.Access{{Obj: y, Op: ts.Write}, mark}}},
		// T1 reads y plainly and releases s in one step: races with T0 on y.
		{Thread: 1, Step: ts.Step{Obj: y, Op: ts.Read, Also: []ts.Access{{Obj: s, Op: ts.Write, Sync: true}, mark}}},
		// T0 reads x with a synchronization access: not a race with its own
		// plain write, and no race with anything (mixed object x).
		{Thread: 0, Step: ts.Step{Obj: x, Op: ts.Read, Sync: true}},
		// T2 syncs on s (after T1), then writes x plainly: races with T0's
		// plain write of x (nothing orders T0 before T2).
		{Thread: 2, Step: ts.Step{Obj: s, Op: ts.Read, Sync: true, Also: []ts.Access{{Obj: x, Op: ts.Write}}}},
	}
	got := Races(evs)
	if len(got) != 2 {
		t.Fatalf("races %v, want 2", got)
	}
	if r := got[0]; r.Obj != y || r.First.Index != 0 || r.Second.Index != 1 {
		t.Errorf("first race %v, want T0 and T1 on o%d", r, y)
	}
	if r := got[1]; r.Obj != x || r.First.Index != 0 || r.Second.Index != 3 {
		t.Errorf("second race %v, want T0 and T2 on o%d", r, x)
	}
	if s := got[1].Error(); s != "data race on o0: T0 write at step 0 and T2 write at step 3" {
		t.Errorf("message %q", s)
	}
}
