package por

import (
	"context"
	"flag"
	"math"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// ODPOR starts the insertion of a race's reversal below the levels its last
// insertion recorded (descent.go). On random programs of the whole model
// (five threads of plain accesses too), every record taken is where a
// descent from the root ends after as many levels, taking the same events,
// and the search is the one it makes without records: the same executions,
// transitions, violations and figures.
func TestODPORDescents(t *testing.T) {
	if testing.Short() {
		// Serial code: the race detector's run (-short) has nothing to
		// find here, and takes minutes.
		t.Skip("a serial property: run without -short")
	}
	chk := &descentCheck{}
	rapid.Check(t, func(t *rapid.T) {
		// -por.long draws longer threads.
		steps := 2
		if longRun() {
			steps = 3
		}
		shape := tstest.GenOptions{MaxSteps: steps + 1}
		switch rapid.IntRange(0, 2).Draw(t, "shape") {
		case 1:
			shape = tstest.GenOptions{MaxThreads: 4, MaxSteps: steps}
		case 2:
			// Where shortcuts in the analysis of shared prefixes went
			// wrong before (see ODPOR).
			shape = tstest.GenOptions{MinThreads: 5, MaxThreads: 5, MaxSteps: steps, NoRMW: true, NoLocks: true, NoBranches: true, NoSync: true, NoMulti: true, NoChoices: true, NoIdle: true, NoAsserts: true}
		}
		shape.CASReads = rapid.Bool().Draw(t, "casReads")
		p := tstest.Programs(shape).Draw(t, "program")
		var opt Options
		opt.KeepGoing = rapid.Bool().Draw(t, "keepGoing")
		opt.checkDescent = chk
		opt.chainMin = -1 // every insertion reads the chains
		misses := chk.misses.Load()
		got, err := ODPOR[tstest.State](context.Background(), p, opt)
		if err != nil {
			t.Fatal(err)
		}
		if n := chk.misses.Load() - misses; n > 0 {
			t.Fatalf("%d records differ from a descent from the root", n)
		}
		opt.checkDescent, opt.noDescents, opt.chainMin = nil, true, math.MaxInt
		want, err := ODPOR[tstest.State](context.Background(), p, opt)
		if err != nil {
			t.Fatal(err)
		}
		sameSearch(t, got, want)
	})
	if chk.chainMisses.Load() != 0 || chk.chainTests.Load() == 0 {
		t.Fatalf("%d of %d weak-initial tests answered from the chains differ from a scan", chk.chainMisses.Load(), chk.chainTests.Load())
	}
	if chk.uses.Load() == 0 || chk.levels.Load() == 0 {
		t.Fatalf("no record taken (%d uses, %d levels)", chk.uses.Load(), chk.levels.Load())
	}
	if chk.notdepMisses.Load() != 0 || chk.notdeps.Load() == 0 {
		t.Fatalf("%d of %d sequences built from a memo differ from notdep's", chk.notdepMisses.Load(), chk.notdeps.Load())
	}
	if chk.unrestored.Load() != 0 || chk.inserts.Load() == 0 {
		t.Fatalf("%d of %d insertions left an event of their sequence marked taken", chk.unrestored.Load(), chk.inserts.Load())
	}
	t.Logf("%d records taken, %d levels skipped; %d sequences built from memos", chk.uses.Load(), chk.levels.Load(), chk.notdeps.Load())
}

// With workers, the coordinator takes records too, for the reversals the
// units log (commitDescent): on random programs split into small units,
// every record taken (the workers' and the coordinator's) is where a
// descent from the root ends, and the search is the serial one without
// records.
func TestODPORDescentsParallel(t *testing.T) {
	chk := &descentCheck{}
	rapid.Check(t, func(t *rapid.T) {
		shape := tstest.GenOptions{MaxSteps: 3}
		if rapid.Bool().Draw(t, "wide") {
			shape = tstest.GenOptions{MinThreads: 4, MaxThreads: 5, MaxSteps: 2, NoRMW: true, NoLocks: true, NoBranches: true, NoSync: true, NoMulti: true, NoChoices: true, NoIdle: true, NoAsserts: true}
		}
		p := tstest.Programs(shape).Draw(t, "program")
		var opt Options
		opt.KeepGoing = rapid.Bool().Draw(t, "keepGoing")
		opt.Workers = 2
		opt.SplitAfter = -1
		opt.SplitDepth = rapid.IntRange(1, 4).Draw(t, "splitDepth")
		opt.checkDescent = chk
		opt.chainMin = -1
		misses := chk.misses.Load()
		got, err := ODPOR[tstest.State](context.Background(), p, opt)
		if err != nil {
			t.Fatal(err)
		}
		if n := chk.misses.Load() - misses; n > 0 {
			t.Fatalf("%d records differ from a descent from the root", n)
		}
		want, err := ODPOR[tstest.State](context.Background(), p, Options{Options: ts.Options{KeepGoing: opt.KeepGoing}, noDescents: true, chainMin: math.MaxInt})
		if err != nil {
			t.Fatal(err)
		}
		for k := range got.Stats {
			if strings.HasPrefix(k, "parallel-") || k == "feasibility-replays" || k == "waiting-sleepers" {
				// How the work was split; workers replay some reversals
				// the coordinator replays again.
				delete(got.Stats, k)
				delete(want.Stats, k)
			}
		}
		sameSearch(t, got, want)
	})
	if chk.notdepMisses.Load() != 0 {
		t.Fatalf("%d of %d sequences built from a memo differ from notdep's", chk.notdepMisses.Load(), chk.notdeps.Load())
	}
	if chk.chainMisses.Load() != 0 || chk.chainTests.Load() == 0 {
		t.Fatalf("%d of %d weak-initial tests answered from the chains differ from a scan", chk.chainMisses.Load(), chk.chainTests.Load())
	}
	if chk.indexMisses.Load() != 0 || chk.indexTests.Load() == 0 {
		t.Fatalf("%d of %d weak-initial tests answered from a commit's index differ from a scan", chk.indexMisses.Load(), chk.indexTests.Load())
	}
	if chk.commit.Load() == 0 {
		t.Fatalf("the coordinator took no record (%d records taken in all)", chk.uses.Load())
	}
	t.Logf("%d records taken, %d of them by the coordinator, %d levels skipped", chk.uses.Load(), chk.commit.Load(), chk.levels.Load())
}

// longRun reports whether -por.long is set (by the external test package).
func longRun() bool {
	f := flag.Lookup("por.long")
	return f != nil && f.Value.String() == "true"
}

// sameSearch fails t unless got and want report the same search.
func sameSearch(t interface {
	Helper()
	Fatalf(string, ...any)
}, got, want ts.Result) {
	t.Helper()
	if got.Executions != want.Executions || got.Transitions != want.Transitions || got.Violations != want.Violations ||
		!reflect.DeepEqual(got.Stats, want.Stats) || (got.Violation == nil) != (want.Violation == nil) ||
		(got.Violation != nil && !reflect.DeepEqual(got.Violation.Trace.Schedule(), want.Violation.Trace.Schedule())) {
		t.Fatalf("with records: %d executions, %d transitions, %d violations, %v; without: %d, %d, %d, %v",
			got.Executions, got.Transitions, got.Violations, got.Stats, want.Executions, want.Transitions, want.Violations, want.Stats)
	}
}

// On bundled models the records are taken, agree with descents from the
// root, and change nothing the search reports. The figures are this
// release's: a change in how many levels the records skip is a change in
// the search's cost.
func TestODPORDescentsModels(t *testing.T) {
	for _, c := range []struct {
		name         string
		run          func(Options) (ts.Result, error)
		uses, levels int64
	}{
		{"lastzero-8", func(o Options) (ts.Result, error) {
			return ODPOR(context.Background(), models.NewLastzero(8), o)
		}, 1028, 1366},
		{"indexer-13", func(o Options) (ts.Result, error) {
			return ODPOR(context.Background(), models.NewIndexer(13), o)
		}, 69, 1815},
		{"bluetooth-2", func(o Options) (ts.Result, error) {
			return ODPOR(context.Background(), models.NewBluetooth(2), o)
		}, 223, 237},
		{"twophase-bug-2", func(o Options) (ts.Result, error) {
			return ODPOR(context.Background(), models.NewTwoPhaseBug(2), o)
		}, 0, 0},
	} {
		chk := &descentCheck{}
		opt := Options{Options: ts.Options{KeepGoing: true}, checkDescent: chk, chainMin: -1}
		got, err := c.run(opt)
		if err != nil {
			t.Fatal(err)
		}
		if n := chk.chainMisses.Load(); n != 0 {
			t.Errorf("%s: %d of %d weak-initial tests answered from the chains differ from a scan", c.name, n, chk.chainTests.Load())
		}
		opt.checkDescent, opt.noDescents, opt.chainMin = nil, true, math.MaxInt
		want, err := c.run(opt)
		if err != nil {
			t.Fatal(err)
		}
		sameSearch(t, got, want)
		uses, levels, misses := chk.uses.Load(), chk.levels.Load(), chk.misses.Load()
		t.Logf("%s: %d executions, %d records taken, %d levels skipped, %d misses", c.name, got.Executions, uses, levels, misses)
		if misses != 0 || uses != c.uses || levels != c.levels {
			t.Errorf("%s: %d records taken, %d levels skipped, %d misses; want %d, %d, none", c.name, uses, levels, misses, c.uses, c.levels)
		}
	}
}

// With the default bounds, a coordinator's commits on indexer-13 (units in
// turn on one goroutine: deterministic) answer their weak-initial tests of
// long sequences from the frames' indexes (seqIndex), each as a scan would,
// and the search is the serial one. The count is this release's: a change
// in it is a change in which insertions read the index.
func TestODPORCommitIndex(t *testing.T) {
	chk := &descentCheck{}
	sys := models.NewIndexer(13)
	opt := Options{Options: ts.Options{Workers: 2}, SplitAfter: -1, inline: true, checkDescent: chk}
	got, err := ODPOR(context.Background(), sys, opt)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ODPOR(context.Background(), sys, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for k := range got.Stats {
		if strings.HasPrefix(k, "parallel-") || k == "feasibility-replays" {
			delete(got.Stats, k)
			delete(want.Stats, k)
		}
	}
	sameSearch(t, got, want)
	if tests, misses := chk.indexTests.Load(), chk.indexMisses.Load(); tests != 498 || misses != 0 {
		t.Errorf("%d weak-initial tests answered from the commits' indexes, %d differ from a scan; want 498, none", tests, misses)
	}
}
