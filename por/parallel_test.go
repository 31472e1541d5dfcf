package por

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// record is what a search did, as its caller sees it: the result, the error
// and every callback in order.
type record struct {
	res   ts.Result
	err   string
	calls []string
}

// callbacks says which callbacks a recorded search has.
type callbacks struct{ terminal, violation bool }

// drawCallbacks draws the callbacks of a search, most often both. (Drawn
// last, so that the draws of the failures kept before keep their meaning:
// a recorded failure's draws end before it, and the least value draws
// both.)
func drawCallbacks(t *rapid.T) callbacks {
	return callbacks{
		terminal:  rapid.IntRange(0, 3).Draw(t, "noOnTerminal") != 3,
		violation: rapid.IntRange(0, 3).Draw(t, "noOnViolation") != 3,
	}
}

// drawDefaultSplit draws, now and then, the default split depth, which
// moves with the executions met before the split and the units' sizes
// (drawn last, for the failures kept before, as drawCallbacks).
func drawDefaultSplit(t *rapid.T, opt *Options) {
	if rapid.IntRange(0, 3).Draw(t, "defaultSplit") == 3 {
		opt.SplitDepth = 0
	}
}

func runRecorded[S any](sys ts.TransitionSystem[S], opt Options, m mode, cb callbacks) record {
	var r record
	if cb.terminal {
		opt.OnTerminal = func(s any, sched ts.Schedule) {
			r.calls = append(r.calls, fmt.Sprintf("terminal %v %v", sched, s))
		}
	}
	if cb.violation {
		opt.OnViolation = func(v *ts.Violation) {
			r.calls = append(r.calls, fmt.Sprintf("violation %v %d %v", v.Kind, v.Thread, v.Trace.Schedule()))
		}
	}
	res, err := run(context.Background(), sys, opt, m)
	if err != nil {
		r.err = err.Error()
	}
	res.Stats = maps.Clone(res.Stats)
	for k := range res.Stats {
		// A worker replays reversals of races of the coordinator's events
		// that the serial search knows it need not (see ODPOR).
		if strings.HasPrefix(k, "parallel-") || k == "feasibility-replays" || k == "waiting-sleepers" {
			delete(res.Stats, k)
		}
	}
	r.res = res
	return r
}

func (r record) diff(o record) string {
	switch {
	case r.err != o.err:
		return fmt.Sprintf("error %q, want %q", o.err, r.err)
	case !reflect.DeepEqual(r.res, o.res):
		return fmt.Sprintf("result\n%s\nwant\n%s", dump(o.res), dump(r.res))
	case !reflect.DeepEqual(r.calls, o.calls):
		for i := range min(len(r.calls), len(o.calls)) {
			if r.calls[i] != o.calls[i] {
				return fmt.Sprintf("callback %d: %s, want %s", i, o.calls[i], r.calls[i])
			}
		}
		return fmt.Sprintf("%d callbacks, want %d", len(o.calls), len(r.calls))
	}
	return ""
}

var modeNames = map[mode]string{modeSleep: "sleep", modeDPOR: "dpor", modeODPOR: "odpor"}

// A parallel search is the serial search: on random programs of the whole
// model, with and without KeepGoing, deadlocks and limits, every worker
// count and split depth gives the same result, error and callbacks, in the
// same order, with or without each callback.
func TestParallelIsSerial(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p, m, opt := drawSearch(t)
		serial := opt
		opt.Workers = rapid.IntRange(2, 4).Draw(t, "workers")
		drawSplit(t, &opt)
		opt.inline = rapid.IntRange(0, 3).Draw(t, "inline") == 0
		cb := drawCallbacks(t)
		drawDefaultSplit(t, &opt)
		drawHandBack(t, &opt)
		if opt.Workers == 3 {
			// ODPOR's insertions read the execution's chains at every
			// length (no draw: the committed fail files keep their
			// meaning); the serial search scans.
			opt.chainMin = -1
		}
		want := runRecorded[tstest.State](p, serial, m, cb)
		got := runRecorded[tstest.State](p, opt, m, cb)
		if d := want.diff(got); d != "" {
			t.Fatalf("%s with %d workers, split %d: %s", modeNames[m], opt.Workers, opt.SplitDepth, d)
		}
	})
}

// drawSearch draws a random program of the whole model, a strategy and
// options for a serial search of it.
func drawSearch(t *rapid.T) (*tstest.Program, mode, Options) {
	shape := tstest.GenOptions{}
	if rapid.Bool().Draw(t, "four") {
		shape = tstest.GenOptions{MaxThreads: 4, MaxSteps: 3}
	}
	shape.CASReads = rapid.Bool().Draw(t, "casReads")
	p := tstest.Programs(shape).Draw(t, "program")
	m := rapid.SampledFrom([]mode{modeSleep, modeDPOR, modeODPOR}).Draw(t, "mode")
	var opt Options
	opt.KeepGoing = rapid.Bool().Draw(t, "keepGoing")
	opt.IgnoreDeadlocks = rapid.IntRange(0, 3).Draw(t, "ignoreDeadlocks") == 0
	if rapid.IntRange(0, 3).Draw(t, "limited") == 0 {
		opt.Limits.Transitions = int64(rapid.IntRange(1, 300).Draw(t, "transitions"))
		opt.Limits.Executions = int64(rapid.IntRange(0, 30).Draw(t, "executions"))
	}
	return p, m, opt
}

// drawSplit draws how a split search splits: where, from when, and the
// units split further.
func drawSplit(t *rapid.T, opt *Options) {
	opt.SplitDepth = rapid.IntRange(1, 5).Draw(t, "split")
	opt.SplitAfter = int64(rapid.IntRange(-1, 100).Draw(t, "splitAfter"))
	if opt.SplitAfter == 0 {
		opt.SplitAfter = -1
	}
	if rapid.Bool().Draw(t, "splitFurther") {
		opt.UnitTransitions = int64(rapid.IntRange(1, 40).Draw(t, "unitTransitions"))
	}
}

// drawHandBack draws, half the time, after how many transitions an ODPOR
// unit's worker hands back the rest of the unit at a branch of its root,
// whatever the other goroutines do (drawn last, for the failures kept
// before, as drawCallbacks).
func drawHandBack(t *rapid.T, opt *Options) {
	if rapid.Bool().Draw(t, "handBack") {
		opt.handBackAt = int64(rapid.IntRange(1, 30).Draw(t, "handBackAt"))
	}
}

func dump(r ts.Result) string {
	v := "none"
	if r.Violation != nil {
		v = fmt.Sprintf("%v %d %v", r.Violation.Kind, r.Violation.Thread, r.Violation.Trace.Schedule())
	}
	return fmt.Sprintf("executions %d transitions %d states %d complete %v violations %d (%s) stats %v coverage %v",
		r.Executions, r.Transitions, r.States, r.Complete, r.Violations, v, r.Stats, r.Coverage)
}

// A reversal of a waiting thread's step with several outcomes is inserted
// once per outcome from one buffer; inserting must not modify it. (It did:
// the second outcome's sequence lost events, which made three planned
// branches infeasible here and the parallel search, which copies
// sequences, disagree with the serial one.)
func TestODPORInsertKeepsSequence(t *testing.T) {
	p := &tstest.Program{
		Vars: []tstest.Var{{Name: "x"}, {Name: "y"}, {Name: "s0", Init: 1, Sync: true}},
		Mod:  4,
		Code: [][]tstest.Instr{
			{tstest.Set(0, 0), tstest.Pick(1, 2, 2), tstest.AssertEq(1, 2), tstest.Set(1, 3), tstest.CAS(0, 0, 2, 0), tstest.AssertNe(1, 2)},
			{tstest.Pick(1, 0, 3), tstest.Await(1, 0), tstest.Store(2, 2)},
			{tstest.Store(2, 1), tstest.Set(0, 0), tstest.Copy(1, 0), tstest.AssertNe(1, 0), tstest.Move(0, 1, 1)},
			{tstest.Store(1, 2), tstest.Copy(0, 1)},
		},
	}
	var opt Options
	opt.KeepGoing = true
	res, err := ODPOR(context.Background(), p, opt)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Stats["infeasible-branches"]; got != 0 {
		t.Errorf("infeasible branches = %d, want 0", got)
	}
	// 682 transitions while a reversal stopped at the racing event once
	// outcomes had been seen (see ODPOR).
	if res.Executions != 277 || res.Transitions != 658 {
		t.Errorf("%d executions, %d transitions; want 277, 658", res.Executions, res.Transitions)
	}
	opt.Workers, opt.SplitDepth, opt.SplitAfter = 3, 2, -1
	par, err := ODPOR(context.Background(), p, opt)
	if err != nil || par.Executions != res.Executions || par.Transitions != res.Transitions ||
		par.Stats["wakeup-insertions"] != res.Stats["wakeup-insertions"] {
		t.Errorf("parallel: %v, %v; serial %v", par, err, res)
	}
}

// unforkable is a system that says it cannot be copied.
type unforkable struct {
	ts.TransitionSystem[tstest.State]
}

func (unforkable) Fork() (ts.TransitionSystem[tstest.State], error) {
	return nil, fmt.Errorf("no copies")
}

// Bad worker settings are refused before the search starts: SDPOR with
// workers, a system that cannot be copied, a negative split depth.
func TestParallelRefuses(t *testing.T) {
	p := &tstest.Program{Vars: []tstest.Var{{Name: "x"}}, Mod: 2, Code: [][]tstest.Instr{{tstest.Store(0, 1)}, {tstest.Store(0, 0)}}}
	var opt Options
	opt.Workers = 2
	if _, err := SDPOR[tstest.State](context.Background(), p, opt); !errors.Is(err, ts.ErrBadOptions) || !strings.Contains(err.Error(), "sdpor") {
		t.Errorf("sdpor with workers: %v", err)
	}
	if _, err := ODPOR[tstest.State](context.Background(), unforkable{p}, opt); !errors.Is(err, ts.ErrBadOptions) || !strings.Contains(err.Error(), "no copies") {
		t.Errorf("a system that cannot be copied: %v", err)
	}
	opt.SplitDepth = -1
	if _, err := DPOR[tstest.State](context.Background(), p, opt); !errors.Is(err, ts.ErrBadOptions) {
		t.Errorf("negative split depth: %v", err)
	}
}

// A parallel search leaves no goroutine behind, whether it ends, stops at
// a violation or is cancelled; a cancelled one says so.
func TestParallelGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	lz := models.NewLastzero(9)
	var opt Options
	opt.Workers, opt.SplitDepth, opt.SplitAfter = 3, 6, -1
	if _, err := ODPOR(context.Background(), lz, opt); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	opt.Progress = func(ts.Result) { cancel() }
	opt.ProgressEvery = time.Millisecond
	res, err := DPOR(ctx, models.NewLastzero(12), opt)
	if !errors.Is(err, context.Canceled) || res.Complete {
		t.Errorf("cancelled: %v, %v", res, err)
	}
	for range 100 {
		if runtime.NumGoroutine() <= before {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("goroutines: %d before, %d after", before, after)
	}
}

// A search asked for more workers than the scheduler runs at once explores
// on as many goroutines as it does (at least 2), with the serial search's
// result: its own goroutine commits every unit in order, and more explorers
// than cores only took cores from it (8 workers on 2 cores: 2.2 times the
// time of 1 worker on indexer-17, 8.8 times on lastzero-16).
func TestParallelWorkersAtMostCores(t *testing.T) {
	want := min(64, max(runtime.GOMAXPROCS(0), 2))
	if got := exploring(64); got != want {
		t.Errorf("exploring(64) = %d with GOMAXPROCS %d, want %d", got, runtime.GOMAXPROCS(0), want)
	}
	if got := exploring(2); got != 2 {
		t.Errorf("exploring(2) = %d, want 2", got)
	}
	lz := models.NewLastzero(8)
	serial, err := ODPOR(context.Background(), lz, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var opt Options
	opt.Workers, opt.SplitDepth, opt.SplitAfter = 64, 6, -1
	res, err := ODPOR(context.Background(), lz, opt)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Stats["parallel-workers"]; got != int64(want) || res.Stats["parallel-units"] == 0 {
		t.Errorf("64 workers: %d exploring, %d units; want %d exploring", got, res.Stats["parallel-units"], want)
	}
	if res.Executions != serial.Executions || res.Transitions != serial.Transitions || !res.Complete {
		t.Errorf("64 workers: %d executions, %d transitions; serial %d, %d", res.Executions, res.Transitions, serial.Executions, serial.Transitions)
	}
}

// A parallel ODPOR search allocates per unit, not per logged insertion: the
// sequences its workers log and the plans the coordinator forwards go into
// recycled chunks. On lastzero-12 split from the start at depth 12 (352
// units) it allocated 154 bytes and 0.24 times per transition when each was
// a slice of its own, 48 and 0.094 with the chunks; 94-96 bytes and 0.07 times
// since a predictor copies the wakeup subtrees of up to 128 units (the
// explorers' wakeup-tree node pools, which grow once a search, are half
// the bytes). Since every execution analyses the races of the coordinator's
// events again, its workers log several times as many sequences: 182-193
// bytes and 0.08 times. The bounds leave room for the restarts that timing
// adds.
func TestParallelODPORAllocates(t *testing.T) {
	var opt Options
	opt.Workers, opt.SplitAfter, opt.SplitDepth = 2, -1, 12
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := ODPOR(context.Background(), models.NewLastzero(12), opt)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	bytes := float64(after.TotalAlloc-before.TotalAlloc) / float64(res.Transitions)
	allocs := float64(after.Mallocs-before.Mallocs) / float64(res.Transitions)
	t.Logf("%d transitions, %d units, %d restarts: %.1f bytes and %.3f allocations a transition",
		res.Transitions, res.Stats["parallel-units"], res.Stats["parallel-restarts"], bytes, allocs)
	if bytes > 240 || allocs > 0.15 {
		t.Errorf("%.1f bytes and %.3f allocations a transition, want at most 240 and 0.15", bytes, allocs)
	}
}

// A parallel search's units repay what a unit costs whatever the shape of
// the tree: on models whose executions are short or whose trees branch at
// every frame, the default split depth used to hand out units of 5 to 35
// transitions on average (casrot-10, twophase-3, bluetooth-4), and 2 workers
// took 2 to 6 times as long as one. The units' count is deterministic: it
// depends on the serial search and the units' sizes only.
func TestParallelUnitsRepayTheirCost(t *testing.T) {
	cases := []struct {
		name string
		m    mode
		run  func(Options, mode) (ts.Result, error)
	}{
		{"casrot-10", modeODPOR, func(o Options, m mode) (ts.Result, error) {
			return run(context.Background(), models.NewCASRot(10), o, m)
		}},
		{"wcas-12", modeDPOR, func(o Options, m mode) (ts.Result, error) { return run(context.Background(), models.NewWCAS(12), o, m) }},
		{"twophase-3", modeDPOR, func(o Options, m mode) (ts.Result, error) {
			return run(context.Background(), models.NewTwoPhase(3), o, m)
		}},
		{"lastzero-8", modeSleep, func(o Options, m mode) (ts.Result, error) {
			return run(context.Background(), models.NewLastzero(8), o, m)
		}},
	}
	for _, c := range cases {
		var opt Options
		opt.KeepGoing = true
		want, err := c.run(opt, c.m)
		if err != nil {
			t.Fatal(err)
		}
		opt.Workers = 2
		got, err := c.run(opt, c.m)
		if err != nil {
			t.Fatal(err)
		}
		units := got.Stats["parallel-units"]
		t.Logf("%s, %s: %d transitions, %d units", c.name, modeNames[c.m], got.Transitions, units)
		if got.Executions != want.Executions || got.Transitions != want.Transitions || got.Violations != want.Violations {
			t.Errorf("%s, %s with 2 workers: %s; alone: %s", c.name, modeNames[c.m], dump(got), dump(want))
		}
		if units == 0 || got.Transitions < minUnit*units {
			t.Errorf("%s, %s: %d units for %d transitions, want at least %d transitions a unit", c.name, modeNames[c.m], units, got.Transitions, minUnit)
		}
	}
}

// A predictor writes the key of a unit whose subtree the coordinator has
// not changed since an earlier predictor wrote it from that one's bytes:
// on random programs, and on lastzero-12 (where a predictor starts again
// every few units and meets most of its predecessor's units again), such a
// key is always the one it would write from its own copy of the subtree.
// A stale one would cost a miss only (the coordinator writes its keys from
// its own tree), but would mean the versions miss a change.
func TestPredictorKeysReused(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p, _, opt := drawSearch(t)
		opt.Workers = rapid.IntRange(2, 4).Draw(t, "workers")
		drawSplit(t, &opt)
		drawDefaultSplit(t, &opt)
		opt.checkKeys = true
		opt.eagerClone = rapid.Bool().Draw(t, "eagerClone")
		res, err := run(context.Background(), p, opt, modeODPOR)
		if err != nil {
			t.Fatal(err)
		}
		if n := res.Stats["parallel-stale-keys"]; n > 0 {
			t.Fatalf("%d of %d keys reused differ from the subtree's", n, res.Stats["parallel-reused-keys"])
		}
	})
	var opt Options
	opt.Workers, opt.checkKeys = 2, true
	res, err := run(context.Background(), models.NewLastzero(12), opt, modeODPOR)
	if err != nil {
		t.Fatal(err)
	}
	reused, stale := res.Stats["parallel-reused-keys"], res.Stats["parallel-stale-keys"]
	lazy, decoded := res.Stats["parallel-lazy-trees"], res.Stats["parallel-materialized"]
	t.Logf("lastzero-12: %d keys reused, %d units, %d restarts; %d subtrees not copied, %d of them decoded", reused, res.Stats["parallel-units"], res.Stats["parallel-restarts"], lazy, decoded)
	if reused < res.Stats["parallel-units"] || stale > 0 {
		t.Fatalf("lastzero-12: %d keys reused (%d stale), want at least one per unit (%d) and none stale", reused, stale, res.Stats["parallel-units"])
	}
	if lazy < res.Stats["parallel-units"] {
		t.Fatalf("lastzero-12: %d subtrees not copied, want at least one per unit (%d)", lazy, res.Stats["parallel-units"])
	}
}

// emitLog is a unitTracer that records the keys predictors hand out, and
// when they start.
type emitLog struct{ keys []string }

func (l *emitLog) restart()                 { l.keys = append(l.keys, "restart") }
func (l *emitLog) emit(key string)          { l.keys = append(l.keys, key) }
func (l *emitLog) took(key string, _ int64) {}

// traceEmits runs an ODPOR search with opt's split, its units explored in
// order on one goroutine and each predictor run to its end with the whole
// wakeup trees (not only the next units: with subtrees not copied, the
// real search's budget takes more units), and returns the keys its
// predictors handed out (see unitTrace), and how many subtrees were not
// copied and how many of those decoded.
func traceEmits[S any](t interface{ Fatal(...any) }, sys ts.TransitionSystem[S], opt Options) (keys []string, lazy, decoded int64) {
	var res ts.Result
	model, err := searchModel(sys)
	if err != nil {
		t.Fatal(err)
	}
	opt.Workers = 2
	log := &emitLog{}
	e := newExplorer(context.Background(), sys, model, opt, modeODPOR, &res, false)
	e.role = roleCoordinator
	p := &parallel[S]{ctx: context.Background(), cancel: func() {}, sys: sys, model: model, opt: opt, mode: modeODPOR,
		jobs: map[string]*job{}, skip: map[string]bool{}, window: 1 << 30, trace: log, predSys: sys, predModel: model,
		cloneUnits: 1 << 30, cloneMin: 1 << 30, split: opt.SplitDepth, after: opt.SplitAfter}
	if p.split <= 0 {
		p.split = defaultSplit(modeODPOR)
	}
	if p.after == 0 {
		p.after = defaultSplitAfter
	}
	p.cond = sync.NewCond(&p.mu)
	e.par = p
	if err := e.Drive(e.root, e.loop, e.panicked); err != nil {
		t.Fatal(err)
	}
	return log.keys, p.lazyTrees, p.materialized
}

// A predictor does not copy the subtrees of units whose keys an earlier one
// wrote (see materialize): it decodes one from those bytes where it reads or
// changes it; nor those of the others, which it writes down instead. It
// must hand out exactly the units, in the same order, that it hands out
// copying every one (Options.eagerClone), on random programs and on
// lastzero-12 and indexer-16. (Run this way, a predictor changes no
// subtree: TestReplanLazySubtree tests that.)
func TestPredictorLazySubtrees(t *testing.T) {
	same := func(t interface{ Fatalf(string, ...any) }, name string, eager, lazy []string) {
		if len(eager) != len(lazy) {
			t.Fatalf("%s: %d keys handed out copying every subtree, %d copying only some", name, len(eager), len(lazy))
		}
		for i := range eager {
			if eager[i] != lazy[i] {
				t.Fatalf("%s: key %d of %d differs", name, i, len(eager))
			}
		}
	}
	var totalLazy, totalDecoded int64
	totalKeys := 0
	rapid.Check(t, func(t *rapid.T) {
		p, _, opt := drawSearch(t)
		drawSplit(t, &opt)
		drawDefaultSplit(t, &opt)
		opt.checkKeys = true
		lazy, n, d := traceEmits(t, p, opt)
		totalLazy += n
		totalKeys += len(lazy)
		totalDecoded += d
		opt.eagerClone = true
		eager, _, _ := traceEmits(t, p, opt)
		same(t, "random program", eager, lazy)
	})
	t.Logf("random programs: %d keys, %d subtrees not copied, %d of them decoded", totalKeys, totalLazy, totalDecoded)
	for _, c := range []struct {
		name string
		run  func(opt Options) ([]string, int64, int64)
	}{
		{"lastzero-12", func(opt Options) ([]string, int64, int64) { return traceEmits(t, models.NewLastzero(12), opt) }},
		{"indexer-16", func(opt Options) ([]string, int64, int64) { return traceEmits(t, models.NewIndexer(16), opt) }},
	} {
		var opt Options
		opt.checkKeys = true
		lazy, n, decoded := c.run(opt)
		opt.eagerClone = true
		eager, _, _ := c.run(opt)
		same(t, c.name, eager, lazy)
		t.Logf("%s: %d keys handed out; %d subtrees not copied, %d of them decoded", c.name, len(lazy), n, decoded)
		if n < int64(len(lazy))/2 {
			t.Errorf("%s: %d subtrees not copied for %d keys: the test does not test them", c.name, n, len(lazy))
		}
	}
}

// A plan forwarded to a predictor attaches in a unit's subtree that clone
// did not copy (materialize decodes it first) exactly as in a copy: the
// same node or none, and the same trees after.
func TestReplanLazySubtree(t *testing.T) {
	sys := models.NewLastzero(3) // four threads
	model, err := searchModel(sys)
	if err != nil {
		t.Fatal(err)
	}
	rapid.Check(t, func(rt *rapid.T) {
		// The coordinator's tree: frame 0's root, whose children are
		// units' roots (split depth 1).
		var src wtree
		root := src.alloc(wev{t: -1})
		ids := []int32{root}
		event := func(label string) wev {
			return wev{t: ts.Tid(rapid.IntRange(0, 3).Draw(rt, label+"-t")), out: rapid.IntRange(0, 1).Draw(rt, label+"-out"),
				step: ts.Step{Obj: ts.Obj(rapid.IntRange(0, 2).Draw(rt, label+"-obj")), Op: ts.Write}}
		}
		for range rapid.IntRange(1, 40).Draw(rt, "nodes") {
			parent := ids[rapid.IntRange(0, len(ids)-1).Draw(rt, "parent")]
			c := src.addChild(parent, event("node"))
			src.nodes[c].extra = rapid.Bool().Draw(rt, "extra")
			ids = append(ids, c)
		}
		// A plan: the events down to a node of the tree, some of them
		// changed so that it may attach nowhere, and events to add.
		to := ids[rapid.IntRange(0, len(ids)-1).Draw(rt, "to")]
		var attach []wev
		for n := to; n != root; n = src.parentOf(root, n) {
			attach = append([]wev{src.wev(n)}, attach...)
		}
		if len(attach) > 0 && rapid.IntRange(0, 3).Draw(rt, "astray") == 0 {
			attach[rapid.IntRange(0, len(attach)-1).Draw(rt, "changed")] = event("changed")
		}
		var suffix []wev
		for range rapid.IntRange(1, 4).Draw(rt, "suffix") {
			suffix = append(suffix, event("suffix"))
		}
		x := &plan{frame: 0, extra: rapid.Bool().Draw(rt, "planExtra")}
		var planChunks [][]lev
		x.attach = (*wevPool)(nil).logTo(&planChunks, &x.also, attach)
		x.suffix = (*wevPool)(nil).logTo(&planChunks, &x.also, suffix)

		predictor := func(lazy bool) *explorer[models.LastzeroState] {
			var res ts.Result
			e := newExplorer(context.Background(), sys, model, Options{}, modeODPOR, &res, false)
			e.role, e.split = rolePredictor, 1
			for len(e.stack) < 1 {
				e.growStack()
			}
			e.depth = 1
			remap := make([]int32, len(src.nodes))
			if !lazy {
				e.stack[0].root, _ = e.wt.copySubtree(&src, root, remap, nil)
				return e
			}
			e.stack[0].root = e.wt.alloc(src.wev(root))
			e.lazy = map[int32]lazyTree{}
			last := int32(-1)
			for c := src.nodes[root].first; c >= 0; c = src.nodes[c].next {
				id := e.wt.alloc(src.wev(c))
				e.wt.nodes[id].extra = src.nodes[c].extra
				var u unit
				from, to := u.encode(nil, &src, c, nil, new([]int32), "", false)
				e.lazy[id] = lazyTree{s: string(u.keyb[from:to])}
				if last < 0 {
					e.wt.nodes[e.stack[0].root].first = id
				} else {
					e.wt.nodes[last].next = id
				}
				last = id
			}
			return e
		}
		eager, lazy := predictor(false), predictor(true)
		okEager, okLazy := eager.replan(x), lazy.replan(x)
		if okEager != okLazy {
			rt.Fatalf("the plan attaches in the copy: %v; in the subtrees not copied: %v", okEager, okLazy)
		}
		for id := range lazy.lazy {
			lazy.materialize(id)
		}
		if a, b := eager.subtreeBytes(eager.stack[0].root), lazy.subtreeBytes(lazy.stack[0].root); a != b {
			rt.Fatalf("the trees differ after the plan")
		}
	})
}

// A worker's log shares the first events of a frame's sequences and the
// coordinator skips repeats that changed nothing (see commit): indexer-14
// logs 1,080 entries at the default split depth and 75 are skipped, and the
// result is the serial search's. The units are
// explored in turn (inline), so that every result is taken and the counts
// do not depend on timing.
func TestParallelLoggedRepeats(t *testing.T) {
	ctx := context.Background()
	sys := models.NewIndexer(14)
	serial, err := run(ctx, sys, Options{}, modeODPOR)
	if err != nil {
		t.Fatal(err)
	}
	var opt Options
	opt.Workers, opt.inline = 2, true
	par, err := run(ctx, sys, opt, modeODPOR)
	if err != nil {
		t.Fatal(err)
	}
	if par.Executions != serial.Executions || par.Transitions != serial.Transitions {
		t.Errorf("2 workers: %d executions, %d transitions; serial %d, %d", par.Executions, par.Transitions, serial.Executions, serial.Transitions)
	}
	if par.Stats["parallel-logged"] != 1080 || par.Stats["parallel-logged-repeats"] != 75 {
		t.Errorf("logged %d, repeats skipped %d; want 1,080 and 75", par.Stats["parallel-logged"], par.Stats["parallel-logged-repeats"])
	}
}
