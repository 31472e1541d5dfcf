package por

import (
	"context"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/ts/tstest"
)

// A revisit rules only on the events its operations' records do not cover
// (opRuled): on random programs of the whole model, ruling on the whole
// execution after it never adds a backtrack point.
func TestSDPORRevisitRecords(t *testing.T) {
	chk := &revisitCheck{}
	rapid.Check(t, func(t *rapid.T) {
		p, _, opt := drawSearch(t)
		opt.checkRevisits = chk
		if _, err := SDPOR[tstest.State](context.Background(), p, opt); err != nil {
			t.Fatal(err)
		}
		if chk.misses > 0 {
			t.Fatalf("%d rulings of %d shortened by a record missed a backtrack point", chk.misses, chk.checks)
		}
	})
	if chk.checks == 0 {
		t.Fatal("no revisit used a record")
	}
	t.Logf("%d rulings shortened by a record", chk.checks)
}
