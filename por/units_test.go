package por

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// shipping is a UnitRunner that explores each unit of a batch as a remote
// worker would, from a copy of its bytes, and misbehaves as a distributed
// engine may: it answers out of order, twice (a retried unit), not at all
// (a lost one), or with results of units it was not asked for.
type shipping[S any] struct {
	sys       ts.TransitionSystem[S]
	reverse   bool
	duplicate bool
	dropEvery int          // 0: none
	stale     []UnitResult // the previous batch's results
	batches   int
	units     int
}

func (r *shipping[S]) RunUnits(ctx context.Context, units []Unit) ([]UnitResult, error) {
	r.batches++
	var out []UnitResult
	sent := map[string]bool{}
	for i, u := range units {
		if sent[u.Key()] {
			return nil, errors.New("a batch holds a unit twice")
		}
		sent[u.Key()] = true
		r.units++
		res, err := ExploreUnit(ctx, r.sys, Unit(slices.Clone(u)))
		if err != nil {
			return nil, err
		}
		if r.dropEvery > 0 && i%r.dropEvery == 0 {
			continue
		}
		out = append(out, slices.Clone(res))
		if r.duplicate {
			out = append(out, res)
		}
	}
	if r.reverse {
		slices.Reverse(out)
	}
	fresh := out
	out = append(slices.Clip(out), r.stale...) // the last batch's again
	r.stale = fresh
	return out, nil
}

// A search whose units are explored elsewhere is the serial search: on
// random programs of the whole model, with and without KeepGoing, deadlocks
// and limits, whatever the split and however the runner orders, repeats or
// loses results, the same result, error and callbacks in the same order.
func TestRunnerIsSerial(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p, m, opt := drawSearch(t)
		serial := opt
		r := &shipping[tstest.State]{sys: p,
			reverse:   rapid.Bool().Draw(t, "reverse"),
			duplicate: rapid.Bool().Draw(t, "duplicate"),
			dropEvery: rapid.IntRange(0, 3).Draw(t, "dropEvery"),
		}
		opt.Runner = r
		drawSplit(t, &opt)
		cb := drawCallbacks(t)
		drawDefaultSplit(t, &opt)
		want := runRecorded[tstest.State](p, serial, m, cb)
		got := runRecorded[tstest.State](p, opt, m, cb)
		if d := want.diff(got); d != "" {
			t.Fatalf("%s with a runner, split %d: %s", modeNames[m], opt.SplitDepth, d)
		}
	})
}

// On a bundled model, the units go out in a few batches (rounds), the
// result is the serial one, and the figures say how many units were
// explored elsewhere.
func TestRunnerRounds(t *testing.T) {
	lz := models.NewLastzero(9)
	var opt Options
	opt.KeepGoing = true
	want, err := ODPOR(context.Background(), lz, opt)
	if err != nil {
		t.Fatal(err)
	}
	r := &shipping[models.LastzeroState]{sys: models.NewLastzero(9)}
	opt.Runner, opt.SplitDepth, opt.SplitAfter = r, 8, -1
	got, err := ODPOR(context.Background(), lz, opt)
	if err != nil {
		t.Fatal(err)
	}
	if got.Executions != want.Executions || got.Transitions != want.Transitions || got.Stats["wakeup-insertions"] != want.Stats["wakeup-insertions"] {
		t.Fatalf("with a runner: %v; serial: %v", got, want)
	}
	units, remote, batches := got.Stats["parallel-units"], got.Stats["parallel-remote-units"], got.Stats["parallel-batches"]
	t.Logf("lastzero-9 odpor, split 8: %d units, %d explored by the runner in %d batches (%d sent), %d by the search itself, %d transitions wasted",
		units, remote, batches, r.units, got.Stats["parallel-misses"], got.Stats["parallel-wasted-transitions"])
	// A worker logs no wakeup sequence that the sleep set of its frame
	// rejects. Every execution analyses the races of the coordinator's
	// events again (see ODPOR), so a worker sends the reversals of those
	// races that its frames' sleep sets do not reject each time: 3,178
	// operations, most of which the coordinator finds covered (717 when
	// each race was analysed until its reversal reached the tree, which
	// lost traces).
	if n := got.Stats["parallel-logged"]; n != 3178 {
		t.Errorf("%d operations logged, want 3178", n)
	}
	// The predictor walks only when the search lets it (a coroutine), so
	// the batches do not depend on timing.
	if units != 64 || remote != 79 || batches != 16 || r.batches != 16 || r.units != 79 {
		t.Errorf("%d units, %d explored remotely, %d batches (runner saw %d with %d units); want 64, 79, 16 (16, 79)", units, remote, batches, r.batches, r.units)
	}
}

// broken is a UnitRunner that fails in one of several ways.
type broken struct {
	err     error
	panics  bool
	garbage bool
}

func (b broken) RunUnits(ctx context.Context, units []Unit) ([]UnitResult, error) {
	if b.panics {
		panic("runner down")
	}
	if b.garbage {
		return []UnitResult{UnitResult(resultMagic + "\x02xy")}, nil
	}
	return nil, b.err
}

// Bad units, bad results and failing runners are errors that say what
// went wrong, never a wrong answer or a crash.
func TestRunnerBadInput(t *testing.T) {
	ctx := context.Background()
	p := &tstest.Program{Vars: []tstest.Var{{Name: "x"}}, Mod: 2, Code: [][]tstest.Instr{{tstest.Store(0, 1), tstest.Store(0, 0)}, {tstest.Store(0, 0)}}}
	var opt Options
	opt.SplitDepth, opt.SplitAfter = 1, -1

	// A real unit of p, caught on its way out.
	var unit Unit
	opt.Runner = runnerFunc(func(ctx context.Context, units []Unit) ([]UnitResult, error) {
		unit = slices.Clone(units[0])
		return nil, nil
	})
	if _, err := ODPOR[tstest.State](ctx, p, opt); err != nil {
		t.Fatalf("a runner that answers nothing: the search explores the units itself, got %v", err)
	}
	if unit == nil {
		t.Fatal("no unit was handed out")
	}
	if _, err := ExploreUnit[tstest.State](ctx, p, unit); err != nil {
		t.Fatalf("the unit itself: %v", err)
	}
	three := &tstest.Program{Vars: []tstest.Var{{Name: "x"}}, Mod: 2, Code: [][]tstest.Instr{{tstest.Store(0, 1)}, {tstest.Store(0, 0)}, {tstest.Store(0, 1)}}}
	other := &tstest.Program{Vars: []tstest.Var{{Name: "x"}}, Mod: 2, Code: [][]tstest.Instr{{}, {}}}
	otherInit := &tstest.Program{Vars: []tstest.Var{{Name: "x", Init: 1}}, Mod: 2, Code: p.Code}
	for name, c := range map[string]struct {
		sys  ts.TransitionSystem[tstest.State]
		u    Unit
		want string
	}{
		"empty":        {p, nil, "not a unit"},
		"a result":     {p, Unit(resultMagic), "not a unit"},
		"old version":  {p, Unit("weft-por-unit/4" + string(unit[len(unitMagic):])), "a unit of format weft-por-unit/4, this version of weft reads " + unitMagic},
		"cut short":    {p, unit[:len(unit)-2], "cut short"},
		"extra bytes":  {p, append(slices.Clone(unit), 0), "trailing"},
		"more threads": {three, unit, "2 threads, this one has 3"},
		"other system": {other, unit, "not enabled"},
		"other start":  {otherInit, unit, "another system"},
	} {
		_, err := ExploreUnit(ctx, c.sys, c.u)
		if !errors.Is(err, ErrBadUnit) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrBadUnit saying %q", name, err, c.want)
		}
	}

	down := errors.New("cluster down")
	for name, c := range map[string]struct {
		r    UnitRunner
		want error
	}{
		"fails":   {broken{err: down}, down},
		"panics":  {broken{panics: true}, ts.ErrCallback},
		"garbage": {broken{garbage: true}, ErrBadUnit},
	} {
		opt.Runner = c.r
		res, err := ODPOR[tstest.State](ctx, p, opt)
		if !errors.Is(err, c.want) || res.Complete {
			t.Errorf("a runner that %s: %v, %v; want an incomplete result and %v", name, res, err, c.want)
		}
	}

	// A result of an earlier format (a runner built from another release)
	// is refused, naming both versions.
	old := UnitResult("weft-por-result/3" + strings.Repeat("\x00", 40))
	if _, _, err := decodeResult(old, 2); !errors.Is(err, ErrBadUnit) || !strings.Contains(err.Error(), "format weft-por-result/3, this version of weft reads "+resultMagic) {
		t.Errorf("a result of format 3: %v", err)
	}
	if _, _, err := decodeResult(UnitResult("weft-por-unit/5"), 2); !errors.Is(err, ErrBadUnit) || !strings.Contains(err.Error(), "not a unit result") {
		t.Errorf("a unit as a result: %v", err)
	}

	opt.Runner, opt.Workers = broken{}, 2
	if _, err := ODPOR[tstest.State](ctx, p, opt); !errors.Is(err, ts.ErrBadOptions) {
		t.Errorf("a runner and workers: %v", err)
	}
	opt.Workers = 0
	if _, err := SDPOR[tstest.State](ctx, p, opt); !errors.Is(err, ts.ErrBadOptions) {
		t.Errorf("sdpor with a runner: %v", err)
	}
}

// A result's log entry names how many first events its wakeup sequence
// shares with the frame's previous one: that count round-trips, and one
// past what the previous sequence holds (or negative) is refused.
func TestResultSharedEvents(t *testing.T) {
	x := wev{t: 1, step: ts.Step{Obj: 0, Op: ts.Write}}
	y := wev{t: 0, step: ts.Step{Obj: 0, Op: ts.Read}}
	lw := func(w ...wev) []lev {
		var chunks [][]lev
		var also [][]ts.Access
		return (*wevPool)(nil).logTo(&chunks, &also, w)
	}
	ok := &unitResult{moves: 2, log: []logOp{
		{kind: opInsert, frame: 1, w: lw(x, y)},
		{kind: opInsert, frame: 0, w: lw(y)},
		{kind: opInsert, frame: 1, keep: 2, w: lw(x)},
		{kind: opInsert, frame: 1, keep: 3},
	}}
	_, r, err := decodeResult(encodeResult("k", ok), 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, op := range r.log {
		if op.keep != ok.log[i].keep || len(op.w) != len(ok.log[i].w) {
			t.Errorf("entry %d: keep %d and %d events, want %d and %d", i, op.keep, len(op.w), ok.log[i].keep, len(ok.log[i].w))
		}
	}
	for name, keep := range map[string]int32{"more than the last": 3, "negative": -1} {
		bad := &unitResult{moves: 2, log: []logOp{
			{kind: opInsert, frame: 1, w: lw(x, y)},
			{kind: opInsert, frame: 0, w: lw(y)},
			{kind: opInsert, frame: 1, keep: keep, w: lw(x)},
		}}
		if _, _, err := decodeResult(encodeResult("k", bad), 2); !errors.Is(err, ErrBadUnit) || !strings.Contains(err.Error(), "keeps events") {
			t.Errorf("%s: %v, want ErrBadUnit", name, err)
		}
	}
}

type runnerFunc func(ctx context.Context, units []Unit) ([]UnitResult, error)

func (f runnerFunc) RunUnits(ctx context.Context, units []Unit) ([]UnitResult, error) {
	return f(ctx, units)
}

// Decoding any bytes returns a unit or ErrBadUnit, never a panic.
func FuzzExploreUnit(f *testing.F) {
	p := &tstest.Program{Vars: []tstest.Var{{Name: "x"}, {Name: "l", Sync: true}}, Mod: 2,
		Code: [][]tstest.Instr{{tstest.Store(0, 1), tstest.Store(1, 0)}, {tstest.Store(0, 0), tstest.Store(1, 1)}}}
	var opt Options
	opt.SplitDepth, opt.SplitAfter, opt.OnTerminal = 1, -1, func(any, ts.Schedule) {}
	opt.Runner = runnerFunc(func(ctx context.Context, units []Unit) ([]UnitResult, error) {
		for _, u := range units {
			f.Add([]byte(u))
		}
		return nil, nil
	})
	if _, err := ODPOR[tstest.State](context.Background(), p, opt); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ExploreUnit[tstest.State](context.Background(), p, b)
		if err != nil {
			if !errors.Is(err, ErrBadUnit) {
				t.Fatalf("error not ErrBadUnit: %v", err)
			}
			return
		}
		if _, _, err := decodeResult(r, 2); err != nil {
			t.Fatalf("a result that does not decode: %v", err)
		}
	})
}

// Units too large are handed back part explored (ODPOR) or dropped and
// split further, down several levels (DPOR, Sleep), locally and with a
// runner, and the result is still the serial one.
func TestSplitFurther(t *testing.T) {
	ix := models.NewIndexer(14)
	for _, m := range []mode{modeODPOR, modeDPOR} {
		var opt Options
		opt.KeepGoing = true
		want, err := run[models.IndexerState](context.Background(), ix, opt, m)
		if err != nil {
			t.Fatal(err)
		}
		for _, remote := range []bool{false, true} {
			o := opt
			o.SplitDepth, o.SplitAfter, o.UnitTransitions = 4, -1, 200
			if m == modeDPOR {
				o.SplitDepth = 8
			}
			if remote {
				o.Runner = &shipping[models.IndexerState]{sys: models.NewIndexer(14)}
			} else {
				// Units explored in turn: none wasted on a guess gone wrong.
				o.Workers, o.inline = 2, true
			}
			got, err := run[models.IndexerState](context.Background(), ix, o, m)
			if err != nil {
				t.Fatal(err)
			}
			if got.Executions != want.Executions || got.Transitions != want.Transitions ||
				got.Stats["wakeup-insertions"] != want.Stats["wakeup-insertions"] || got.Stats["backtrack-points"] != want.Stats["backtrack-points"] {
				t.Fatalf("%s, remote %v: %v; serial %v", modeNames[m], remote, got, want)
			}
			further, back, units := got.Stats["parallel-split-further"], got.Stats["parallel-handed-back"], got.Stats["parallel-units"]
			t.Logf("indexer-14 %s, split %d, units of at most 200 transitions, remote %v: %d units, %d split further, %d handed back, %d transitions wasted of %d",
				modeNames[m], o.SplitDepth, remote, units, further, back, got.Stats["parallel-wasted-transitions"], got.Transitions)
			switch {
			case m == modeODPOR && (further != 0 || back < 2 || units <= back):
				t.Errorf("odpor, remote %v: %d units, %d split further, %d handed back", remote, units, further, back)
			case m == modeODPOR && !remote && got.Stats["parallel-wasted-transitions"] != 0:
				t.Errorf("odpor: %d transitions wasted", got.Stats["parallel-wasted-transitions"])
			case m == modeDPOR && (further < 2 || units <= further || back != 0):
				t.Errorf("dpor, remote %v: %d units, %d split further, %d handed back", remote, units, further, back)
			}
		}
	}
}

// A DPOR unit's worker applies the backtrack rule to its own copy of the
// frames above it and logs only what adds a backtrack point: on lastzero-8
// at split depth 8, 84 operations instead of 11,241 (one per application of
// the rule to those frames).
func TestDPORUnitsLogNewBacktracks(t *testing.T) {
	ix := models.NewLastzero(8)
	var opt Options
	want, err := DPOR(context.Background(), ix, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.Workers, opt.SplitDepth, opt.SplitAfter, opt.inline = 2, 8, -1, true
	got, err := DPOR(context.Background(), ix, opt)
	if err != nil {
		t.Fatal(err)
	}
	if got.Executions != want.Executions || got.Transitions != want.Transitions || got.Stats["backtrack-points"] != want.Stats["backtrack-points"] {
		t.Fatalf("split: %v; serial: %v", got, want)
	}
	if u, n := got.Stats["parallel-units"], got.Stats["parallel-logged"]; u != 129 || n != 84 {
		t.Errorf("%d units, %d operations logged; want 129 and 84", u, n)
	}
}

// Decoding any bytes as a unit's result returns it or ErrBadUnit, never a
// panic; the seeds are results of units handed back part explored, whose
// rest is a path down a wakeup tree that decoding checks.
func FuzzUnitResult(f *testing.F) {
	ix := models.NewIndexer(13)
	var opt Options
	opt.SplitDepth, opt.SplitAfter, opt.UnitTransitions = 2, -1, 20
	rests := 0
	opt.Runner = runnerFunc(func(ctx context.Context, units []Unit) ([]UnitResult, error) {
		out := make([]UnitResult, len(units))
		for i, u := range units {
			r, err := ExploreUnit[models.IndexerState](ctx, ix, u)
			if err != nil {
				return nil, err
			}
			if _, d, err := decodeResult(r, 13); err == nil && d.rest != nil {
				rests++
			}
			f.Add([]byte(r))
			out[i] = r
		}
		return out, nil
	})
	if _, err := ODPOR[models.IndexerState](context.Background(), ix, opt); err != nil {
		f.Fatal(err)
	}
	if rests == 0 {
		f.Fatal("no result handed a unit back")
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, r, err := decodeResult(b, 13); err != nil {
			if !errors.Is(err, ErrBadUnit) {
				t.Fatalf("error not ErrBadUnit: %v", err)
			}
		} else if r.rest != nil && (len(r.rest.frames) == 0 || r.rest.units < 1 || r.rest.units > len(r.rest.frames)) {
			t.Fatalf("a rest out of range decoded: %+v", r.rest)
		}
	})
}
