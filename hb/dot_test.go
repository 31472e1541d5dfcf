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
