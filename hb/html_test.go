package hb

import (
	"errors"
	"strings"
	"testing"

	"github.com/weftlab/weft/ts"
)

// The page lists every transition in its thread's lane, marks the failing
// one, carries the cross-thread happens-before edges for its script, and
// escapes what it shows.
func TestWriteHTML(t *testing.T) {
	w := func(o ts.Obj) ts.Step { return ts.Step{Obj: o, Op: ts.Write} }
	r := func(o ts.Obj) ts.Step { return ts.Step{Obj: o, Op: ts.Read} }
	tr := ts.Trace{Events: []ts.Event{
		{Thread: 0, Step: w(0), Desc: "x := 1"},
		{Thread: 1, Step: r(0), Desc: "r := x", ThreadName: "reader"},
		{Thread: 1, Step: w(1), Desc: "y := <r>"},
	}}
	v := &ts.Violation{Kind: ts.CheckFailure, Err: errors.New("y < 2 & more")}
	var b strings.Builder
	if err := WriteHTML(&b, tr, nil, v); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		`id="s0" class="step" style="grid-column: 2; grid-row: 2"`,
		`id="s2" class="step failing" style="grid-column: 3; grid-row: 4"`,
		`T1 reader`, `check failure: y &lt; 2 &amp; more`, `y := &lt;r&gt;`,
		`var edges = [[0,1]];`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
}
