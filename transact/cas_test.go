package transact_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/ts/tstest"
)

// Issue 19: TestWholeModel's checks on programs with value-dependent steps
// (a failed cas is a read, ts.ValueDependent): the inference pass sees
// every step each thread takes at every reachable state, so a variable
// that a cas only ever reads is read-only, and one it writes is not.
func TestWholeModelValueDependent(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		o := tstest.GenOptions{MinThreads: 2, MaxThreads: 3, CASReads: true}
		if rapid.Bool().Draw(rt, "mod2") {
			o.Mod = 2
		}
		p := tstest.Programs(o).Draw(rt, "program")
		withInvariant(rt, p)
		wholeCase(rt, p, rapid.Bool().Draw(rt, "ignoreDeadlocks"))
	})
}
