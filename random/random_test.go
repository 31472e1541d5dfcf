package random_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/random"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

type sampleFunc[S any] func(context.Context, ts.TransitionSystem[S], random.Options) (ts.Result, error)

func samplers[S any]() map[string]sampleFunc[S] {
	return map[string]sampleFunc[S]{"random": random.Walk[S], "pct": random.PCT[S], "urw": random.URW[S]}
}

// lines: thread t runs lengths[t] transitions, each a write of an object of
// its own (so nothing blocks and no two transitions conflict), and records
// the order in which the threads moved. Its runs are its interleavings.
type lines struct{ lengths []int }

type lineState struct {
	pc    [4]uint8
	trace uint64 // the threads in the order they moved, two bits each
	steps uint8
}

func (l lines) Init() lineState { return lineState{} }
func (l lines) Threads() int    { return len(l.lengths) }
func (l lines) Next(s lineState, t ts.Tid) (ts.Step, ts.Status) {
	if int(s.pc[t]) < l.lengths[t] {
		return ts.Step{Obj: ts.Obj(t), Op: ts.Write}, ts.Enabled
	}
	return ts.Step{}, ts.Finished
}
func (l lines) Apply(s lineState, t ts.Tid) lineState {
	s.pc[t]++
	s.trace |= uint64(t) << (2 * s.steps)
	s.steps++
	return s
}
func (l lines) Hash(s lineState) uint64 { return s.trace*31 + uint64(s.steps) }

// URW samples the interleavings of threads that never block uniformly: a
// chi-square test over the 30 interleavings of lengths 2, 2, 1 (fixed
// seed, so it cannot flake) passes at the 0.1% level, where the random
// walk, which favours interleavings that switch threads early, fails it.
func TestURWIsUniform(t *testing.T) {
	sys := lines{[]int{2, 2, 1}}
	const runs, cells = 6000, 30 // 5!/(2!2!1!)
	chi := func(f sampleFunc[lineState], lengths []int) float64 {
		counts := map[uint64]int{}
		opt := random.Options{Runs: runs, Seed: 7, Lengths: lengths}
		opt.OnTerminal = func(s any, _ ts.Schedule) { counts[s.(lineState).trace]++ }
		if _, err := f(context.Background(), sys, opt); err != nil {
			t.Fatal(err)
		}
		if len(counts) != cells {
			t.Fatalf("%d interleavings seen, want %d", len(counts), cells)
		}
		x := 0.0
		for _, c := range counts {
			d := float64(c) - runs/cells
			x += d * d / (runs / cells)
		}
		return x
	}
	const critical = 58.3 // chi-square, 29 degrees of freedom, p = 0.001
	if x := chi(random.URW[lineState], []int{2, 2, 1}); x > critical {
		t.Errorf("urw with exact lengths: chi-square %.1f > %.1f", x, critical)
	}
	// Estimated lengths: exact after the first run on this program.
	if x := chi(random.URW[lineState], nil); x > critical {
		t.Errorf("urw with estimated lengths: chi-square %.1f > %.1f", x, critical)
	}
	if x := chi(random.Walk[lineState], nil); x <= critical {
		t.Errorf("random walk: chi-square %.1f, expected it not to look uniform", x)
	}
}

// counter: each thread takes pad local steps, then reads n and writes n+1.
// The lost update is a bug of depth 2 (T_i reads before T_j writes, T_j
// reads before T_i writes).
type counter struct{ threads, pad int }

type counterState struct {
	pc  [4]uint8
	reg [4]uint8
	n   uint8
}

func (c counter) Init() counterState { return counterState{} }
func (c counter) Threads() int       { return c.threads }
func (c counter) Next(s counterState, t ts.Tid) (ts.Step, ts.Status) {
	switch pc := int(s.pc[t]); {
	case pc < c.pad:
		return ts.Step{Obj: ts.Obj(1 + t), Op: ts.Write}, ts.Enabled
	case pc == c.pad:
		return ts.Step{Obj: 0, Op: ts.Read}, ts.Enabled
	case pc == c.pad+1:
		return ts.Step{Obj: 0, Op: ts.Write}, ts.Enabled
	}
	return ts.Step{}, ts.Finished
}
func (c counter) Apply(s counterState, t ts.Tid) counterState {
	switch int(s.pc[t]) {
	case c.pad:
		s.reg[t] = s.n
	case c.pad + 1:
		s.n = s.reg[t] + 1
	}
	s.pc[t]++
	return s
}
func (c counter) Check(s counterState) error {
	for t := range c.threads {
		if int(s.pc[t]) != c.pad+2 {
			return nil
		}
	}
	if int(s.n) != c.threads {
		return fmt.Errorf("lost update: n = %d", s.n)
	}
	return nil
}

// PCT's bound holds: on a depth-2 bug with n = 2 threads and k = 16 steps,
// each run finds it with probability at least 1/(2*16) = 1/32. With a fixed
// seed the counts are deterministic: of 3,200 runs, at least the bound's
// 100 find it, and the first does within the 150 runs after which the bound
// gives a probability above 99%.
func TestPCTMeetsItsBound(t *testing.T) {
	sys := counter{threads: 2, pad: 6}
	const runs = 3200
	opt := random.Options{Runs: runs, Seed: 1, Depth: 2, Steps: 16}
	opt.KeepGoing = true
	res, err := random.PCT(context.Background(), sys, opt)
	if err != nil {
		t.Fatal(err)
	}
	g, ok := random.GuaranteeOf(res)
	if !ok || g.Strategy != "pct" || g.Depth != 2 || g.Steps != 16 || g.Threads != 2 {
		t.Fatalf("guarantee %+v", g)
	}
	if want := 1.0 / 32; math.Abs(g.PerRun-want) > 1e-12 {
		t.Errorf("per run %v, want %v", g.PerRun, want)
	}
	if min := int64(g.PerRun * runs); res.Violations < min {
		t.Errorf("%d of %d runs found the lost update, the bound promises %d on average", res.Violations, runs, min)
	}
	t.Logf("%d of %d runs found it (%.3f, bound %.3f); %s", res.Violations, runs, float64(res.Violations)/runs, g.PerRun, g)
	// The first violation within 150 runs (1-(31/32)^150 > 0.99).
	opt.KeepGoing, opt.Runs = false, 150
	res, err = random.PCT(context.Background(), sys, opt)
	if err != nil || res.Violation == nil {
		t.Fatalf("not found in 150 runs: %v, %v", res, err)
	}
	if _, err := ts.Replay(sys, res.Violation.Trace.Schedule()); err != nil {
		t.Fatal(err)
	}
	// With k estimated: the first run (no change point) sets it.
	opt.Steps = 0
	res, err = random.PCT(context.Background(), sys, opt)
	if err != nil || res.Violation == nil {
		t.Fatalf("k estimated: not found in 150 runs: %v, %v", res, err)
	}
}

// Every terminal state a sampler reports is one ts.Explore reaches (its
// schedule reaching it), and every violation it reports replays and is one
// ts.Explore finds (random programs of the whole model: outcomes, idle
// threads, invariants, steps of several objects).
func TestSamplersStayInsideTheSpace(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{MaxThreads: 3}).Draw(rt, "program")
		seed := rapid.Uint64().Draw(rt, "seed")
		ctx := context.Background()
		ref, err := tstest.Reference(ctx, p, tstest.ReductionOptions{Bound: ts.NoBound})
		if err != nil {
			rt.Fatal(err)
		}
		for name, f := range samplers[tstest.State]() {
			explore := func(ctx context.Context, sys ts.TransitionSystem[tstest.State], o ts.Options) (ts.Result, error) {
				return f(ctx, sys, random.Options{Options: o, Runs: 40, Seed: seed})
			}
			got, err := tstest.Collect(ctx, p, explore, tstest.ReductionOptions{Bound: ts.NoBound})
			if err != nil {
				rt.Fatalf("%s: %v", name, err)
			}
			if len(got.Problems) > 0 {
				rt.Fatalf("%s: %v", name, got.Problems)
			}
			if got.Result.Executions != 40 || got.Result.Complete {
				rt.Fatalf("%s: %d runs, complete %v", name, got.Result.Executions, got.Result.Complete)
			}
			for k, oc := range got.Terminals {
				if _, ok := ref.Terminals[k]; !ok {
					rt.Fatalf("%s: terminal state %v (schedule %v) that ts.Explore does not reach", name, oc.State, oc.Schedule)
				}
			}
			for k, oc := range got.Violations {
				if _, ok := ref.Violations[k]; !ok {
					rt.Fatalf("%s: violation %v that ts.Explore does not find", name, oc.Violation)
				}
			}
		}
	})
}

// The same seed samples the same runs.
func TestSeedReplays(t *testing.T) {
	sys := counter{threads: 3, pad: 3}
	for name, f := range samplers[counterState]() {
		var a, b []string
		for i, out := range []*[]string{&a, &b} {
			opt := random.Options{Runs: 50, Seed: 42}
			opt.KeepGoing = true
			opt.OnViolation = func(v *ts.Violation) { *out = append(*out, v.Trace.Schedule().String()) }
			if _, err := f(context.Background(), sys, opt); err != nil {
				t.Fatal(i, err)
			}
		}
		if fmt.Sprint(a) != fmt.Sprint(b) || len(a) == 0 {
			t.Errorf("%s: two searches with one seed differ or find nothing: %d, %d", name, len(a), len(b))
		}
	}
}

func TestBadOptions(t *testing.T) {
	sys := counter{threads: 2, pad: 1}
	ctx := context.Background()
	cases := []struct {
		name string
		f    sampleFunc[counterState]
		opt  random.Options
	}{
		{"no budget", random.Walk[counterState], random.Options{}},
		{"negative runs", random.Walk[counterState], random.Options{Runs: -1}},
		{"negative time", random.Walk[counterState], random.Options{Runs: 1, Time: -time.Second}},
		{"depth on walk", random.Walk[counterState], random.Options{Runs: 1, Depth: 2}},
		{"negative depth", random.PCT[counterState], random.Options{Runs: 1, Depth: -1}},
		{"steps below change points", random.PCT[counterState], random.Options{Runs: 1, Depth: 4, Steps: 2}},
		{"lengths on pct", random.PCT[counterState], random.Options{Runs: 1, Lengths: []int{1, 1}}},
		{"lengths of the wrong count", random.URW[counterState], random.Options{Runs: 1, Lengths: []int{1}}},
		{"negative length", random.URW[counterState], random.Options{Runs: 1, Lengths: []int{1, -1}}},
	}
	for _, c := range cases {
		if _, err := c.f(ctx, sys, c.opt); !errors.Is(err, ts.ErrBadOptions) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	//lint:ignore SA1012 the nil context is the point
	if _, err := random.Walk[counterState](nil, sys, random.Options{Runs: 1}); !errors.Is(err, ts.ErrBadOptions) {
		t.Errorf("nil context: %v", err)
	}
}

// A time budget ends the search without an error.
func TestTimeBudget(t *testing.T) {
	res, err := random.Walk(context.Background(), counter{threads: 3, pad: 4}, random.Options{Time: 20 * time.Millisecond})
	if err != nil || res.Executions == 0 || res.Complete {
		t.Fatalf("%v, %v", res, err)
	}
}

// Cancellation is an error, as for every search.
func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := random.Walk(ctx, counter{threads: 2, pad: 1}, random.Options{Runs: 10}); !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
}

// A panic in Apply is a violation whose schedule replays it.
type panicky struct{ counter }

func (p panicky) Apply(s counterState, t ts.Tid) counterState {
	if t == 1 && int(s.pc[1]) == p.pad {
		panic("boom")
	}
	return p.counter.Apply(s, t)
}

func TestPanicIsAViolation(t *testing.T) {
	sys := panicky{counter{threads: 2, pad: 2}}
	for name, f := range samplers[counterState]() {
		res, err := f(context.Background(), sys, random.Options{Runs: 20, Seed: 3})
		if err != nil || res.Violation == nil || res.Violation.Kind != ts.Panic {
			t.Fatalf("%s: %v, %v", name, res, err)
		}
	}
}

// Progress reports of a search with a run count say the share done.
func TestProgressSaysTheShareDone(t *testing.T) {
	var last *ts.Estimated
	opt := random.Options{Runs: 2000, Seed: 1}
	opt.KeepGoing = true // else the first lost update ends it
	opt.ProgressEvery = time.Millisecond
	opt.Progress = func(r ts.Result) { last = r.Estimated }
	if _, err := random.Walk(context.Background(), slow{counter{threads: 2, pad: 2}}, opt); err != nil {
		t.Fatal(err)
	}
	if last == nil || last.Executions != 2000 || last.Fraction <= 0 || last.Fraction > 1 {
		t.Errorf("%+v", last)
	}
}

// slow spins 5µs in Apply (a sleep would last far longer than asked), so
// that a search takes long enough for progress reports: 16,000 transitions,
// 80 ms at least, against a report every millisecond.
type slow struct{ counter }

func (s slow) Apply(st counterState, t ts.Tid) counterState {
	for start := time.Now(); time.Since(start) < 5*time.Microsecond; {
	}
	return s.counter.Apply(st, t)
}

// A search counts distinct schedules and distinct Mazurkiewicz traces: the
// 30 interleavings of three independent threads are one trace; the
// counter's 2 threads of read, write on one object have 6 interleavings
// and 4 traces (the two serial orders, and the two where both reads come
// first, which differ in the order of the writes).
func TestSchedulesAndTraces(t *testing.T) {
	res, err := random.URW(context.Background(), lines{[]int{2, 2, 1}}, random.Options{Runs: 3000})
	if err != nil || res.Stats[random.StatSchedules] != 30 || res.Stats[random.StatTraces] != 1 {
		t.Errorf("lines: %v, %v", res.Stats, err)
	}
	opt := random.Options{Runs: 3000}
	opt.KeepGoing = true
	res, err = random.Walk(context.Background(), counter{threads: 2}, opt)
	if err != nil || res.Stats[random.StatSchedules] != 6 || res.Stats[random.StatTraces] != 4 {
		t.Errorf("counter: %v, %v", res.Stats, err)
	}
}

// The samplers check the contract at every state a run leaves: an Apply
// that modifies its argument (shown by the hash, or without one by a
// thread's changed step), a Next that is not a function of the state and a
// thread count that changes are errors, not a clean sample.
func TestSamplersNoticeBrokenContracts(t *testing.T) {
	for name, f := range samplers[[]int]() {
		for _, b := range tstest.Breaches {
			for _, hashed := range []bool{true, false} {
				_, err := f(context.Background(), tstest.Broken(b, hashed), random.Options{Runs: 100, Seed: 5})
				if !b.Noticed(err) {
					t.Errorf("%s, %v, hashed %v: %v", name, b, hashed, err)
				}
			}
		}
	}
}

// PCT's printed guarantee is a lower bound on the rate at which searches
// find a bug of depth 2, with k estimated (the default, whose first run has
// no change point and only measures k) and with k given: over 2,000 seeds
// per case, the share of searches that found the lost update is at least
// the mean of the AtLeast each printed, less four standard deviations of
// the binomial. With k estimated, one run promises nothing and says so.
// (Before runs were counted by the k they drew over, one run claimed
// 1/12 here and found nothing.)
func TestPCTGuaranteeIsALowerBound(t *testing.T) {
	sys := counter{threads: 2, pad: 1}
	const seeds = 2000
	for _, c := range []struct {
		runs  int64
		steps int
	}{{1, 0}, {2, 0}, {3, 0}, {5, 0}, {1, 6}, {3, 6}} {
		found, claimed := 0, 0.0
		var g random.Guarantee
		for seed := uint64(50001); seed < 50001+seeds; seed++ {
			// Every run made, so that every seed's claim is for all of them.
			opt := random.Options{Runs: c.runs, Seed: seed, Depth: 2, Steps: c.steps}
			opt.KeepGoing = true
			res, err := random.PCT(context.Background(), sys, opt)
			if err != nil {
				t.Fatal(err)
			}
			if res.Violations > 0 {
				found++
			}
			g, _ = random.GuaranteeOf(res)
			claimed += g.AtLeast()
		}
		rate, claimed := float64(found)/seeds, claimed/seeds
		margin := 4 * math.Sqrt(claimed*(1-claimed)/seeds)
		t.Logf("runs %d, k %d: found by %.3f of seeds, claimed at least %.3f (last: %s)", c.runs, c.steps, rate, claimed, g)
		if rate < claimed-margin {
			t.Errorf("runs %d, k %d: found by %.3f of seeds, the guarantee claimed at least %.3f", c.runs, c.steps, rate, claimed)
		}
		if c.runs == 1 && c.steps == 0 && (claimed != 0 || g.Counted != 0 || !strings.Contains(g.String(), "no probability bound")) {
			t.Errorf("k estimated, one run: %+v, %s", g, g)
		}
	}
}

// URW's guarantee counts only the runs drawn with the final lengths: with
// the lengths estimated, the first run is a random walk and is left out.
func TestURWCountsRunsWithTheFinalLengths(t *testing.T) {
	sys := lines{[]int{2, 2, 1}}
	for _, c := range []struct {
		lengths []int
		counted int64
	}{{nil, 49}, {[]int{2, 2, 1}, 50}} {
		res, err := random.URW(context.Background(), sys, random.Options{Runs: 50, Lengths: c.lengths})
		g, _ := random.GuaranteeOf(res)
		if err != nil || g.Runs != 50 || g.Counted != c.counted {
			t.Errorf("lengths %v: %+v, %v", c.lengths, g, err)
		}
	}
}
