package hb

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/weftlab/weft/ts"
)

func dotEdges(dot string) []string {
	return regexp.MustCompile(`e\d+ -> e\d+( \[style=dashed\])?`).FindAllString(dot, -1)
}

func TestWriteDotDirectEdges(t *testing.T) {
	// e0 T0 writes x; e1 T1 reads it; e2 T1 writes x. The edge e0 -> e2 is
	// implied by e0 -> e1 -> e2 and must not be drawn. e3 T2 writes x after
	// reading nothing: its only direct edge is from e2.
	tr := ts.Trace{Events: []ts.Event{
		{Thread: 0, Step: wr(x)},
		{Thread: 1, Step: rd(x), Desc: `r := "x"`},
		{Thread: 1, Step: wr(x)},
		{Thread: 2, Step: wr(x)},
	}}
	var b strings.Builder
	if err := WriteDot(&b, tr, nil); err != nil {
		t.Fatal(err)
	}
	want := []string{"e0 -> e1 [style=dashed]", "e1 -> e2", "e2 -> e3 [style=dashed]"}
	if got := dotEdges(b.String()); !slices.Equal(got, want) {
		t.Errorf("edges %q, want %q in\n%s", got, want, b.String())
	}
	if !strings.Contains(b.String(), `[label="1: T1 read o0\nr := \"x\""]`) {
		t.Errorf("label not escaped:\n%s", b.String())
	}
}

func TestWriteDotReadsBeforeWrite(t *testing.T) {
	// Two reads of the initial value, then a write by a third thread: both
	// reads are direct predecessors. A later read by T0 depends on the write
	// only.
	tr := ts.Trace{Events: []ts.Event{
		{Thread: 0, Step: rd(x)},
		{Thread: 1, Step: rd(x)},
		{Thread: 2, Step: ts.Step{Obj: x, Op: ts.Write, Sync: true}},
		{Thread: 0, Step: rd(x)},
	}}
	var b strings.Builder
	if err := WriteDot(&b, tr, nil); err != nil {
		t.Fatal(err)
	}
	want := []string{"e1 -> e2 [style=dashed]", "e0 -> e2 [style=dashed]", "e0 -> e3", "e2 -> e3 [style=dashed]"}
	if got := dotEdges(b.String()); !slices.Equal(got, want) {
		t.Errorf("edges %q, want %q in\n%s", got, want, b.String())
	}
	if !strings.Contains(b.String(), "write o0 (sync)") {
		t.Errorf("sync access not marked:\n%s", b.String())
	}
}

// A transition of several objects is ordered with the others through each
// of its objects, and its outcome shows.
func TestWriteDotSeveralObjects(t *testing.T) {
	// e0 T0 writes x and y in one step (outcome 1 of 2); e1 T1 reads y; e2
	// T2 reads x: both depend on e0 directly. e3 T1 writes x: after e2's
	// read (and e0's write, implied through e1).
	tr := ts.Trace{Events: []ts.Event{
		{Thread: 0, Step: ts.Step{Obj: x, Op: ts.Write, Also: []ts.Access{{Obj: y, Op: ts.Write}}}, Outcome: 1, Outcomes: 2},
		{Thread: 1, Step: rd(y)},
		{Thread: 2, Step: rd(x)},
		{Thread: 1, Step: wr(x)},
	}}
	var b strings.Builder
	if err := WriteDot(&b, tr, nil); err != nil {
		t.Fatal(err)
	}
	want := []string{"e0 -> e1 [style=dashed]", "e0 -> e2 [style=dashed]", "e1 -> e3", "e2 -> e3 [style=dashed]"}
	if got := dotEdges(b.String()); !slices.Equal(got, want) {
		t.Errorf("edges %q, want %q in\n%s", got, want, b.String())
	}
	if !strings.Contains(b.String(), `[label="0: T0 write o0, write o1 /1"]`) {
		t.Errorf("label of the step of two objects:\n%s", b.String())
	}
}

// A deadlock's DOT shows each waiting thread's step and the wait-for edges:
// between two waiting nodes for a cycle, to the holder's last transition
// otherwise.
func TestWriteDotWaits(t *testing.T) {
	acq := func(o ts.Obj) ts.Step { return ts.Step{Obj: o, Op: ts.Acquire} }
	tr := ts.Trace{Events: []ts.Event{{Thread: 0, Step: acq(0)}, {Thread: 1, Step: acq(1), ThreadName: "reader"}}}
	var b strings.Builder
	waits := []ts.Waiter{{Thread: 0, Step: acq(1), Holder: 1}, {Thread: 1, Step: acq(0), Holder: 0}}
	if err := WriteDotWaits(&b, tr, nil, waits); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`w0 [label="T0 waits to acquire o1"`, "e0 -> w0;", "e1 -> w1;",
		`w0 -> w1 [color=red, style=bold, label="waits for"]`, `w1 -> w0 [color=red`, `label="T1 reader"`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("DOT lacks %q:\n%s", want, b.String())
		}
	}
	// Only T0 waits, for a lock T1 holds and T1 finished holding it.
	b.Reset()
	if err := WriteDotWaits(&b, tr, nil, waits[:1]); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `w0 -> e1 [color=red`) {
		t.Errorf("DOT lacks the edge to the holder's last transition:\n%s", b.String())
	}
}
