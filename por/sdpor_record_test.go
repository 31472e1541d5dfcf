package por

import (
	"context"
	"runtime"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/internal/models"
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

// An SDPOR search that keeps the next operations of 325,820 states keeps
// them, past 2 MB, in memory mapped for them (internal/offheap); its figures
// are those of the search with them in the heap.
func TestSDPORStatesInRegions(t *testing.T) {
	if testing.Short() {
		t.Skip("a search of a million transitions")
	}
	e, res := searchAlone(t, models.NewLastzero(9), modeSDPOR)
	defer release(e)
	if res.Executions != 945997 || res.Transitions != 1270280 || e.visited.Len() != 325820 {
		t.Errorf("%d executions, %d transitions, %d states; want 945,997, 1,270,280 and 325,820", res.Executions, res.Transitions, e.visited.Len())
	}
	if runtime.GOOS == "linux" && e.graph.stateMem == nil {
		t.Errorf("%d bytes of stored operations in the heap", 4*cap(e.graph.stateAt))
	}
}
