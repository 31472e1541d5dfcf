package por_test

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// On programs where no step may block (no locks, no synchronization
// variables, so no awaits: see mayBlock) and no
// assertion fails, ODPOR explores exactly one execution per terminal
// happens-before state (Mazurkiewicz trace), counted by brute force, never
// two with the same one, and none blocked by its sleep sets.
func TestODPOROptimalWithoutBlocking(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{NoLocks: true, NoAwait: true, NoSync: true, NoAsserts: true}).Draw(t, "program")
		want := classes[tstest.State](t, unchecked[tstest.State]{p})
		got, res := explored[tstest.State](t, unchecked[tstest.State]{p}, por.ODPOR[tstest.State])
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

// With locks and awaits ODPOR stays sound (TestReductionRandom) but is not
// always optimal: this test measures by how much, and asserts it never
// explores fewer executions than there are terminal HB states.
func TestODPORWithBlocking(t *testing.T) {
	var cases, exact, extra, blocked int
	rapid.Check(t, func(t *rapid.T) {
		// NoDeadlocks keeps the mutex discipline (no release of a lock not
		// held, which Check would report); awaits still block.
		p := tstest.Programs(tstest.GenOptions{NoAsserts: true, NoDeadlocks: true}).Draw(t, "program")
		want := classes[tstest.State](t, unchecked[tstest.State]{p})
		_, res := explored[tstest.State](t, unchecked[tstest.State]{p}, por.ODPOR[tstest.State])
		if res.Executions < int64(len(want)) {
			t.Fatalf("odpor explores %d executions, there are %d terminal HB states", res.Executions, len(want))
		}
		cases++
		if res.Executions == int64(len(want)) {
			exact++
		}
		extra += int(res.Executions) - len(want)
		blocked += int(res.Stats["sleep-blocked"])
	})
	t.Logf("%d programs with blocking: %d explored exactly once per trace; %d redundant executions, %d sleep-blocked in all", cases, exact, extra, blocked)
}

// indexer and filesystem (no blocking in indexer; locks in filesystem):
// ODPOR explores exactly the terminal HB states, counted by brute force.
func TestODPORModels(t *testing.T) {
	check := func(name string, want map[string]int, got map[string]int, res int64) {
		t.Helper()
		if res != int64(len(want)) {
			t.Errorf("%s: odpor %d executions, %d terminal HB states", name, res, len(want))
		}
		for k, n := range got {
			if n != 1 || want[k] == 0 {
				t.Errorf("%s: HB state %s explored %d times (brute force: %d)", name, k, n, want[k])
			}
		}
	}
	for n := 1; n <= 3; n++ {
		sys := models.NewIndexer(n)
		got, res := explored[models.IndexerState](t, unchecked[models.IndexerState]{sys}, por.ODPOR[models.IndexerState])
		check(fmt.Sprintf("indexer-%d", n), classes(t, sys), got, res.Executions)
	}
	for n := 1; n <= 2; n++ {
		sys := models.NewFilesystem(n)
		got, res := explored[models.FilesystemState](t, unchecked[models.FilesystemState]{sys}, por.ODPOR[models.FilesystemState])
		check(fmt.Sprintf("filesystem-%d", n), classes(t, sys), got, res.Executions)
	}
	for n := 1; n <= 4; n++ {
		sys := models.NewLastzero(n)
		got, res := explored(t, sys, por.ODPOR[models.LastzeroState])
		check(fmt.Sprintf("lastzero-%d", n), classes(t, sys), got, res.Executions)
	}
}

// On random programs with every feature (locks, awaits, assertions), ODPOR
// reaches exactly the terminal states and violations of ts.Explore.
func TestODPORReductionRandom(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(genShape(t)).Draw(t, "program")
		tstest.CheckReduction(t, p, adapt(por.ODPOR[tstest.State]), tstest.ReductionOptions{Bound: ts.NoBound})
	})
}
