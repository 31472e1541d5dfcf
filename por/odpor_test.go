package por_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts/tstest"
)

// On programs where no step ever blocks (no locks, no awaits) and no
// assertion fails, ODPOR explores exactly one execution per terminal
// happens-before state (Mazurkiewicz trace), counted by brute force, never
// two with the same one, and none blocked by its sleep sets.
func TestODPOROptimalWithoutBlocking(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{NoLocks: true, NoAwait: true, NoAsserts: true}).Draw(t, "program")
		want := classes(t, p)
		got, res := explored(t, p, por.ODPOR[tstest.State])
		if res.Executions != int64(len(want)) {
			t.Fatalf("odpor explores %d executions, there are %d terminal HB states", res.Executions, len(want))
		}
		for k, n := range got {
			if n > 1 {
				t.Fatalf("odpor explores %d executions with HB state %s", n, k)
			}
			if want[k] == 0 {
				t.Fatalf("odpor reaches HB state %s, which ts.Explore does not", k)
			}
		}
		if b := res.Stats["sleep-blocked"]; b != 0 {
			t.Fatalf("%d sleep-blocked executions", b)
		}
	})
}
