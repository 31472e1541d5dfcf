package ts_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weftlab/weft/internal/cputime"
	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
	"pgregory.net/rapid"
)

// tb is what the comparisons need of a *testing.T or a *rapid.T.
type tb interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// transcript is everything a search shows its caller: the result (every
// field), the error, and the callbacks in order, as text.
type transcript struct {
	result    string
	err       string
	terminals []string
	violation []string
}

func (a transcript) diff(b transcript) string {
	switch {
	case a.result != b.result:
		return fmt.Sprintf("result\n %s\nvs\n %s", a.result, b.result)
	case a.err != b.err:
		return fmt.Sprintf("error\n %s\nvs\n %s", a.err, b.err)
	case len(a.terminals) != len(b.terminals):
		return fmt.Sprintf("%d OnTerminal calls vs %d", len(a.terminals), len(b.terminals))
	case len(a.violation) != len(b.violation):
		return fmt.Sprintf("%d OnViolation calls vs %d", len(a.violation), len(b.violation))
	}
	for i := range a.terminals {
		if a.terminals[i] != b.terminals[i] {
			return fmt.Sprintf("OnTerminal call %d: %s vs %s", i, a.terminals[i], b.terminals[i])
		}
	}
	for i := range a.violation {
		if a.violation[i] != b.violation[i] {
			return fmt.Sprintf("OnViolation call %d: %s vs %s", i, a.violation[i], b.violation[i])
		}
	}
	return ""
}

// describeViolation is a violation as text, without what differs from run
// to run (a panic's stack).
func describeViolation(v *ts.Violation) string {
	if v == nil {
		return "<nil>"
	}
	msg := ""
	if v.Err != nil {
		msg = v.Err.Error()
		var pe *ts.PanicError
		if errors.As(v.Err, &pe) {
			msg = fmt.Sprint("panic: ", pe.Value)
		}
	}
	return fmt.Sprintf("%v %q thread %d schedule %v preemptions %d events %d",
		v.Kind, msg, v.Thread, v.Trace.Schedule(), v.Trace.Preemptions, len(v.Trace.Events))
}

// record runs ExploreStateful with opt and the given worker count, and
// returns its transcript. It also fails t if a callback runs on another
// goroutine than the caller's or while another runs.
func record[S any](t tb, sys ts.TransitionSystem[S], opt ts.Options, workers int) transcript {
	t.Helper()
	var tr transcript
	var busy atomic.Int32
	caller := goid()
	enter := func() func() {
		if busy.Add(1) != 1 {
			t.Errorf("callbacks overlap")
		}
		if g := goid(); g != caller {
			t.Errorf("callback on goroutine %d, caller %d", g, caller)
		}
		return func() { busy.Add(-1) }
	}
	opt.Workers = workers
	if !ts.Probed(opt) {
		opt = ts.WorkersNow(opt)
	}
	opt.OnTerminal = func(state any, sched ts.Schedule) {
		defer enter()()
		tr.terminals = append(tr.terminals, fmt.Sprintf("%v @ %v", state, sched))
	}
	opt.OnViolation = func(v *ts.Violation) {
		defer enter()()
		tr.violation = append(tr.violation, describeViolation(v))
	}
	res, err := ts.ExploreStateful(context.Background(), sys, opt)
	if err != nil {
		tr.err = err.Error()
	}
	v := res.Violation
	res.Violation = nil
	tr.result = fmt.Sprintf("%+v violation %s", plainResult(res), describeViolation(v))
	return tr
}

// plainResult is a Result without its String method: printed, it shows
// every field.
type plainResult ts.Result

// goid returns the current goroutine's number, from its stack header.
func goid() string {
	var buf [64]byte
	s := string(buf[:runtime.Stack(buf[:], false)])
	s = strings.TrimPrefix(s, "goroutine ")
	return s[:strings.IndexByte(s, ' ')]
}

// sameAsSerial fails t unless the search with each worker count shows
// exactly what the serial search shows.
func sameAsSerial[S any](t tb, sys ts.TransitionSystem[S], opt ts.Options, workers ...int) transcript {
	t.Helper()
	want := record(t, sys, opt, 1)
	for _, w := range workers {
		if d := record(t, sys, opt, w).diff(want); d != "" {
			t.Fatalf("workers %d: %s", w, d)
		}
	}
	return want
}

// The parallel stateful search shows exactly what the serial one shows, on
// random whole-model programs (outcomes, invariants, idle threads, asserts,
// deadlocks), with and without KeepGoing, under small limits: 100 programs
// of the default size and 100 larger ones by default (more with
// -rapid.checks), each with 2, 3 and 8 workers.
func TestParallelMatchesSerial(t *testing.T) {
	t.Run("default", func(t *testing.T) { rapid.Check(t, parallelProperty(tstest.GenOptions{})) })
	t.Run("larger", func(t *testing.T) {
		rapid.Check(t, parallelProperty(tstest.GenOptions{MaxThreads: 4, MaxSteps: 5}))
	})
}

func parallelProperty(gen tstest.GenOptions) func(*rapid.T) {
	return func(rt *rapid.T) {
		p := tstest.Programs(gen).Draw(rt, "program")
		opt := ts.Options{
			KeepGoing:       rapid.Bool().Draw(rt, "keepGoing"),
			IgnoreDeadlocks: rapid.Bool().Draw(rt, "ignoreDeadlocks"),
		}
		switch rapid.IntRange(0, 4).Draw(rt, "limit") {
		case 1:
			opt.Limits.Transitions = rapid.Int64Range(1, 60).Draw(rt, "transitions")
		case 2:
			opt.Limits.Executions = rapid.Int64Range(1, 20).Draw(rt, "executions")
		case 3:
			opt.Limits.Depth = rapid.IntRange(1, 8).Draw(rt, "depth")
		case 4:
			opt.Limits.Memory = rapid.Int64Range(1, 20_000).Draw(rt, "memory")
		}
		if rapid.Bool().Draw(rt, "probe") {
			opt = drawProbe(rt, opt)
		}
		sameAsSerial(rt, p, opt, 2, 3, 8)
	}
}

// A costly system ends the stretch alone by time, at a multiple of 16
// states, and the stretches with the workers shrink with it (here the
// check for a hopeless slowdown comes every 48/16 = 3 states, and the
// first stops them).
func TestParallelProbeAloneByTime(t *testing.T) {
	sys := hashedGrid{grid{4, 3, 2}}
	reads := 0
	clock := func() time.Time { // 100 ns a read
		reads++
		return time.Unix(0, int64(reads)*100)
	}
	var kept bool
	var started int64
	// Reads: the first state, the 16th, 32nd, 48th (300 ns alone: the
	// limit is 250), the time alone, the workers' start, the first check.
	opt := ts.WithTimedProbe(ts.Options{}, 1000, 2000, 500, 100, 250, clock, &kept, &started)
	tr := sameAsSerial(t, sys, opt, 2)
	if started != 48 || kept || reads != 7 {
		t.Errorf("workers started at state %d, kept %v, %d clock reads; want 48, false, 7 (%s)", started, kept, reads, tr.result)
	}
}

// drawProbe returns opt with a probe of drawn sizes on a clock whose
// ticks are drawn, so that the workers start where the search happens to
// be and stay or stop by the draw.
func drawProbe(rt *rapid.T, opt ts.Options) ts.Options {
	serial := rapid.Int64Range(1, 40).Draw(rt, "probeSerial")
	warm := rapid.Int64Range(1, 10).Draw(rt, "probeWarm")
	timed := warm + rapid.Int64Range(1, 40).Draw(rt, "probeTimed")
	every := rapid.Int64Range(1, 50).Draw(rt, "probeEvery")
	ticks := rapid.SliceOfN(rapid.Int64Range(0, 1000), 1, 5).Draw(rt, "ticks")
	var now time.Time
	calls := 0
	clock := func() time.Time {
		now = now.Add(time.Duration(ticks[calls%len(ticks)]))
		calls++
		return now
	}
	alone := time.Duration(rapid.SampledFrom([]int64{0, 1, 500, 3000}).Draw(rt, "probeAlone"))
	return ts.WithTimedProbe(opt, serial, timed, warm, every, alone, clock, nil, nil)
}

// The probe keeps the workers where a state took at most 0.85 of its time
// alone, else stops them for the rest of the search (no goroutine left),
// and stops them at once where they are 3 times as slow, warm-up and all;
// the search shows what the serial one shows either way.
func TestParallelProbeDecides(t *testing.T) {
	sys := hashedGrid{grid{4, 3, 2}}
	before := runtime.NumGoroutine()
	for _, c := range []struct {
		warm, tick int64 // ns a state with the workers, in and after their warm-up; 100 alone
		kept       bool
		reads      int
	}{
		{50, 50, true, 8}, {300, 85, true, 8}, {50, 86, false, 8}, {50, 299, false, 8},
		{50, 630, false, 7}, // 3 times as slow at the check after 24 states
		{700, 50, false, 4}, // at the check after 8 (in the warm-up)
	} {
		// 10 states alone, then the workers: 10 states of warm-up and 20
		// timed, checked every 8. The clock is read at the first state,
		// the 10th, the workers' start, then 8, 10 (warm), 16, 24 and 30
		// states after it: what it reads is the time by then.
		at := []int64{0, 900, 900}
		for _, n := range []int64{8, 10, 16, 24, 30} {
			at = append(at, 900+min(n, 10)*c.warm+max(n-10, 0)*c.tick)
		}
		reads := 0
		clock := func() time.Time {
			reads++
			return time.Unix(0, at[min(reads, len(at))-1])
		}
		var kept bool
		tr := sameAsSerial(t, sys, ts.WithProbe(ts.Options{}, 10, 30, 10, 8, clock, &kept), 2)
		if reads != c.reads || kept != c.kept {
			t.Errorf("%d then %d ns a state with workers, 100 alone: kept %v after %d clock reads, want %v after %d (%s)",
				c.warm, c.tick, kept, reads, c.kept, c.reads, tr.result)
		}
	}
	noGoroutineLeft(t, before)
}

// The bundled models, clean and buggy, with and without KeepGoing.
func TestParallelBundledModels(t *testing.T) {
	for _, c := range []struct {
		name string
		run  func(t *testing.T, opt ts.Options) transcript
	}{
		{"lastzero-4", func(t *testing.T, o ts.Options) transcript { return sameAsSerial(t, models.NewLastzero(4), o, 2, 4) }},
		{"philosophers-4", func(t *testing.T, o ts.Options) transcript {
			return sameAsSerial(t, models.NewPhilosophers(4), o, 2, 4)
		}},
		{"indexer-5", func(t *testing.T, o ts.Options) transcript { return sameAsSerial(t, models.NewIndexer(5), o, 2, 4) }},
		{"peterson-buggy-2", func(t *testing.T, o ts.Options) transcript {
			return sameAsSerial(t, models.NewPetersonBuggy(2), o, 2, 4)
		}},
		{"wsq-bug1", func(t *testing.T, o ts.Options) transcript { return sameAsSerial(t, models.NewWSQBug1(1), o, 2, 4) }},
		{"twophase-bug-2", func(t *testing.T, o ts.Options) transcript {
			return sameAsSerial(t, models.NewTwoPhaseBug(2), o, 2, 4)
		}},
		{"abp-bug-2", func(t *testing.T, o ts.Options) transcript { return sameAsSerial(t, models.NewABPBug(2), o, 2, 4) }},
		{"bluetooth-2", func(t *testing.T, o ts.Options) transcript { return sameAsSerial(t, models.NewBluetooth(2), o, 2, 4) }},
		{"filesystem-3", func(t *testing.T, o ts.Options) transcript {
			return sameAsSerial(t, models.NewFilesystem(3), o, 2, 4)
		}},
	} {
		for _, keep := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/keepGoing=%v", c.name, keep), func(t *testing.T) {
				tr := c.run(t, ts.Options{KeepGoing: keep})
				t.Log(tr.result, tr.err)
			})
		}
	}
}

// A violation-finding model: the same first violation, with its schedule,
// and with KeepGoing every violation in the same order.
func TestParallelViolation(t *testing.T) {
	sys := models.NewPetersonBuggy(2)
	tr := sameAsSerial(t, sys, ts.Options{}, 2, 3, 8)
	if !strings.Contains(tr.result, "Violations:1 ") || len(tr.violation) != 1 {
		t.Fatalf("want one violation: %s", tr.result)
	}
	tr = sameAsSerial(t, sys, ts.Options{KeepGoing: true}, 2, 3, 8)
	if len(tr.violation) < 2 {
		t.Fatalf("want several violations with KeepGoing: %s", tr.result)
	}
}

// panicky panics in Apply, Next, Hash or Check at chosen states: user
// panics become violations at the point of the serial search.
type panicky struct {
	hashedGrid
	where string // "apply", "next", "hash", "check"
	at    uint8  // the pc sum at which it panics
}

func (p panicky) sum(s gridState) (n uint8) {
	for _, pc := range s.pc {
		n += pc
	}
	return n
}

func (p panicky) Next(s gridState, t ts.Tid) (ts.Step, ts.Status) {
	if p.where == "next" && p.sum(s) == p.at && t == 1 {
		panic("next")
	}
	if p.where == "badstep" && p.sum(s) == p.at && t == 1 {
		return ts.Step{Obj: 1, Op: 99}, ts.Enabled // an error (ErrBadStep), not a violation
	}
	return p.hashedGrid.Next(s, t)
}

func (p panicky) Apply(s gridState, t ts.Tid) gridState {
	if p.where == "apply" && p.sum(s) == p.at && t == 2 {
		panic("apply")
	}
	return p.hashedGrid.Apply(s, t)
}

func (p panicky) Hash(s gridState) uint64 {
	if p.where == "hash" && p.sum(s) == p.at && s.pc[0] == 1 {
		panic("hash")
	}
	return p.hashedGrid.Hash(s)
}

func (p panicky) Check(s gridState) error {
	if p.where == "check" && p.sum(s) == p.at && s.pc[1] == 2 {
		return errors.New("check")
	}
	return nil
}

func TestParallelPanics(t *testing.T) {
	for _, where := range []string{"apply", "next", "hash", "check", "badstep"} {
		for i, opt := range []ts.Options{{}, {KeepGoing: true}, midSearch(ts.Options{}), midSearch(ts.Options{KeepGoing: true})} {
			at := uint8(4)
			if i >= 2 {
				at = 6 // after the workers start
			}
			sys := panicky{hashedGrid{grid{3, 3, 2}}, where, at}
			tr := sameAsSerial(t, sys, opt, 2, 3, 8)
			if where == "badstep" {
				if !strings.Contains(tr.err, "Next returned step") {
					t.Errorf("badstep: %s", tr.err)
				}
			} else if len(tr.violation) == 0 {
				t.Errorf("%s: no violation: %s", where, tr.result)
			}
		}
	}
}

// Every limit stops the search at the same point with the same error.
func TestParallelLimits(t *testing.T) {
	sys := models.NewLastzero(4)
	full := record(t, sys, ts.Options{}, 1)
	t.Log(full.result)
	for _, l := range []ts.Limits{
		{Transitions: 1}, {Transitions: 100}, {Transitions: 1234},
		{Executions: 1}, {Executions: 77},
		{Depth: 3}, {Depth: 10},
		{Memory: 1}, {Memory: 2000}, {Memory: 50_000}, {Memory: 200_000},
	} {
		sameAsSerial(t, sys, ts.Options{Limits: l}, 2, 3, 8)
		sameAsSerial(t, sys, ts.Options{Limits: l, KeepGoing: true}, 2, 8)
		sameAsSerial(t, sys, midSearch(ts.Options{Limits: l}), 2, 3)
	}
}

// midSearch returns opt with the workers started after 5 states, where the
// search stands, and kept.
func midSearch(opt ts.Options) ts.Options {
	var never int64 = 1 << 40
	return ts.WithProbe(opt, 5, never, 1, never, func() time.Time { return time.Time{} }, nil)
}

// A cancelled search returns the cancellation, and leaves no goroutine. The
// context is cancelled from the first OnTerminal call, while workers are
// in the middle of slow Applies; the search sees it within a few hundred
// transitions of the thousands left.
func TestParallelCancel(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sys := hashedSlowGrid{slowGrid{grid{4, 6, 2}}}
	res, err := ts.ExploreStateful(ctx, sys, ts.WorkersNow(ts.Options{Workers: 4, OnTerminal: func(any, ts.Schedule) { cancel() }}))
	if !errors.Is(err, context.Canceled) || res.Complete {
		t.Fatalf("got %v, %v; want a cancelled, incomplete search", res, err)
	}
	noGoroutineLeft(t, before)
}

type hashedSlowGrid struct{ slowGrid }

func (hashedSlowGrid) Hash(s gridState) uint64 { return hashedGrid{}.Hash(s) }

// noGoroutineLeft fails t if more goroutines run than before, after a short
// wait for those that are ending.
func noGoroutineLeft(t *testing.T, before int) {
	t.Helper()
	for range 100 {
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("%d goroutines, %d before", runtime.NumGoroutine(), before)
}

// No worker outlives the call: after a complete search, a violation, a
// user panic, a callback that panics, a limit.
func TestParallelNoGoroutineLeft(t *testing.T) {
	before := runtime.NumGoroutine()
	sys := models.NewLastzero(4)
	for _, opt := range []ts.Options{
		{},
		{Limits: ts.Limits{Transitions: 50}},
		{Limits: ts.Limits{Memory: 3000}},
		{OnTerminal: func(any, ts.Schedule) { panic("callback") }},
	} {
		opt.Workers = 4
		_, _ = ts.ExploreStateful(ctx, sys, ts.WorkersNow(opt))
	}
	_, _ = ts.ExploreStateful(ctx, models.NewPetersonBuggy(2), ts.WorkersNow(ts.Options{Workers: 3}))
	_, _ = ts.ExploreStateful(ctx, panicky{hashedGrid{grid{3, 3, 2}}, "apply", 4}, ts.WorkersNow(ts.Options{Workers: 3, KeepGoing: true}))
	noGoroutineLeft(t, before)
}

// A panic in a callback is the same error as in the serial search.
func TestParallelCallbackPanic(t *testing.T) {
	sys := models.NewLastzero(3)
	for _, w := range []int{1, 4} {
		n := 0
		_, err := ts.ExploreStateful(ctx, sys, ts.WorkersNow(ts.Options{Workers: w, OnTerminal: func(any, ts.Schedule) {
			if n++; n == 3 {
				panic("enough")
			}
		}}))
		var cb *ts.CallbackError
		if !errors.As(err, &cb) || cb.Value != "enough" {
			t.Fatalf("workers %d: %v", w, err)
		}
	}
}

// heavyLastzero is lastzero with a Hash that costs as much as a real
// system's state fingerprint might (it hashes the state rounds times).
type heavyLastzero struct {
	*models.Lastzero
	rounds int
}

func (h heavyLastzero) Hash(s models.LastzeroState) uint64 {
	var x uint64
	for range h.rounds {
		x = x*31 + h.Lastzero.Hash(s)
	}
	return x
}

// BenchmarkStatefulWorkers runs ExploreStateful with 1, 2 and 4 workers on
// lastzero-9 (cheap methods: the search's own table work dominates),
// indexer-7, and lastzero-7 with a Hash 20 and 100 times as costly (the
// system's methods dominate). workers=N is what a caller gets: the probe
// keeps the workers only where they pay; workers=N-kept starts them at
// once and keeps them, what the workers cost or gain. Besides
// transitions/s it reports, on Linux, the CPU time of the whole process and
// of the walker (the caller's goroutine, locked to its thread) per search:
// the walker's is the floor of the wall time whatever the cores, their sum
// over the cores the other floor.
func BenchmarkStatefulWorkers(b *testing.B) {
	benchWorkers(b, "lastzero-9", models.NewLastzero(9))
	benchWorkers(b, "indexer-7", models.NewIndexer(7))
	benchWorkers(b, "lastzero-7-hash20", heavyLastzero{models.NewLastzero(7), 20})
	benchWorkers(b, "lastzero-7-hash100", heavyLastzero{models.NewLastzero(7), 100})
}

func benchWorkers[S any](b *testing.B, name string, sys ts.TransitionSystem[S]) {
	for _, w := range []int{1, 2, 4, -2, -4} {
		opt := ts.Options{Workers: max(w, -w)}
		label := fmt.Sprintf("%s/workers=%d", name, opt.Workers)
		if w < 0 {
			opt, label = ts.WorkersNow(opt), label+"-kept"
		}
		b.Run(label, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			b.ReportAllocs()
			var trans int64
			proc0, walker0 := cputime.Process(), cputime.Thread()
			for b.Loop() {
				res, err := ts.ExploreStateful(ctx, sys, opt)
				if err != nil {
					b.Fatal(err)
				}
				trans += res.Transitions
			}
			proc1, walker1 := cputime.Process(), cputime.Thread()
			b.ReportMetric(float64(trans)/b.Elapsed().Seconds(), "transitions/s")
			if proc1 > 0 {
				b.ReportMetric(float64(proc1-proc0)/float64(b.N)/1e6, "cpu-ms/op")
				b.ReportMetric(float64(walker1-walker0)/float64(b.N)/1e6, "walker-cpu-ms/op")
			}
		})
	}
}

// symGrid hashes a grid state up to the order of the threads' counters, as
// a symmetry reduction does: different states share a hash on purpose. The
// parallel search takes a computed state only for the very value it was
// computed from, so it still matches the serial search exactly.
type symGrid struct{ grid }

func (symGrid) Hash(s gridState) uint64 {
	pc := s.pc
	slices.Sort(pc[:])
	return hashedGrid{}.Hash(gridState{pc: pc})
}

func (g symGrid) Next(s gridState, t ts.Tid) (ts.Step, ts.Status) {
	if int(s.pc[t]) >= g.steps-int(t%2) { // odd threads have one step fewer
		return ts.Step{}, ts.Finished
	}
	return ts.Step{Obj: ts.Obj(int(t) % g.objects), Op: ts.Write}, ts.Enabled
}

func TestParallelSharedHashes(t *testing.T) {
	tr := sameAsSerial(t, symGrid{grid{4, 3, 2}}, ts.Options{}, 2, 3, 8)
	t.Log(tr.result, len(tr.terminals))
}

// countingGrid reports its own work (StatsReporter): work done ahead would
// change its figures, so the search stays on one goroutine.
type countingGrid struct {
	hashedGrid
	applies *atomic.Int64
}

func (g countingGrid) Apply(s gridState, t ts.Tid) gridState {
	g.applies.Add(1)
	return g.hashedGrid.Apply(s, t)
}

func (g countingGrid) SearchStats() map[string]int64 {
	return map[string]int64{"applies": g.applies.Load()}
}

func TestParallelStatsReporter(t *testing.T) {
	tr := sameAsSerial(t, countingGrid{hashedGrid{grid{3, 3, 2}}, new(atomic.Int64)}, ts.Options{}, 2, 4)
	if !strings.Contains(tr.result, "applies:") {
		t.Fatalf("no stats: %s", tr.result)
	}
}

// A system that breaks the contract is still caught with workers: the same
// kind of error as the serial search's. (Not under the race detector: these
// systems modify states the workers share, or count calls in a shared
// counter, which is exactly what Workers > 1 rules out.)
func TestParallelContractBreaches(t *testing.T) {
	if raceEnabled {
		t.Skip("the broken systems are not safe for concurrent use")
	}
	for _, b := range tstest.Breaches {
		_, serr := ts.ExploreStateful(ctx, tstest.Broken(b, true), ts.Options{})
		for _, w := range []int{2, 4, -2} {
			opt := ts.WorkersNow(ts.Options{Workers: w})
			if w < 0 {
				opt = midSearch(ts.Options{Workers: -w})
			}
			_, err := ts.ExploreStateful(ctx, tstest.Broken(b, true), opt)
			if !b.Noticed(err) || errors.Is(err, ts.ErrMutated) != errors.Is(serr, ts.ErrMutated) {
				t.Errorf("%v, workers %d: %v; serially: %v", b, w, err, serr)
			}
		}
	}
}

// exiting ends the goroutine that calls its Apply at state {0,1,0}
// (runtime.Goexit, as t.FailNow does). The serial search never gets there:
// it stops at the violation of the first state it reaches, {1,0,0}, whose
// Check is slow, so that meanwhile a worker expands {0,1,0} and ends. The
// search must still match the serial one, and leave no goroutine.
type exiting struct{ hashedGrid }

func (e exiting) Apply(s gridState, t ts.Tid) gridState {
	if s.pc == [8]uint8{0, 1, 0} {
		runtime.Goexit()
	}
	return e.hashedGrid.Apply(s, t)
}

func (exiting) Check(s gridState) error {
	if s.pc == [8]uint8{1, 0, 0} {
		time.Sleep(10 * time.Millisecond)
		return errors.New("stop here")
	}
	return nil
}

func TestParallelWorkerGoexit(t *testing.T) {
	before := runtime.NumGoroutine()
	sameAsSerial(t, exiting{hashedGrid{grid{3, 3, 2}}}, ts.Options{}, 2, 3)
	noGoroutineLeft(t, before)
}
