package random

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
	"unsafe"

	"github.com/weftlab/weft/estimate"
	"github.com/weftlab/weft/hb"
	"github.com/weftlab/weft/internal/flat"
	"github.com/weftlab/weft/internal/search"
	"github.com/weftlab/weft/ts"
)

// Options are the options of a random search: ts.Options (limits, callbacks,
// KeepGoing, IgnoreDeadlocks) and the sampler's own.
type Options struct {
	ts.Options

	// Runs is the number of runs (executions) to sample; 0: no count, the
	// search ends at another budget (Time, Limits, the context's
	// deadline). A search with no budget at all is refused.
	Runs int64
	// Time is a wall-clock budget; 0: none. Running out of it ends the
	// search normally (no error), as Runs does.
	Time time.Duration
	// Seed seeds the generator: the same seed, system and options sample
	// the same runs.
	Seed uint64

	// Depth is PCT's bug depth d (at least 1): d-1 priority change points
	// a run. Zero means DefaultDepth. Walk and URW refuse a Depth.
	Depth int
	// Steps is PCT's k, the number of steps over which the change points
	// are drawn; 0: estimated, as the longest run so far (the first run has
	// no change point). Walk and URW refuse it.
	Steps int
	// Lengths is, for URW, the number of transitions each thread takes in
	// a run, when known; nil: estimated as the most each thread took in any
	// run so far (the first run is a random walk). Walk and PCT refuse it.
	Lengths []int
}

// DefaultDepth is PCT's bug depth when Options.Depth is zero: most bugs
// found in the PCT paper's study have depth 1 or 2.
const DefaultDepth = 3

// Stats keys of Result.Stats a random search fills.
const (
	StatRuns      = "runs"                         // runs sampled (Executions, violations included)
	StatTerminals = "terminal-states"              // distinct terminal states seen, by Hash (only for a ts.Hasher)
	StatSchedules = "schedules"                    // distinct schedules sampled, by a 64-bit hash of each
	StatTraces    = "traces"                       // distinct Mazurkiewicz traces sampled, by the hash of each run's happens-before state
	StatSeed      = "seed"                         // the seed, as int64 bits
	StatThreads   = "threads"                      // n
	StatDepth     = "pct-depth"                    // d (PCT)
	StatSteps     = "pct-steps"                    // k the counted runs drew their change points over (PCT): Options.Steps, or the estimate the last run drew over
	StatCounted   = "guaranteed-runs"              // runs the guarantee counts (PCT, URW; see Guarantee.Counted)
	StatLongest   = "longest-run"                  // transitions of the longest run
	StatLogInterl = "urw-log2-interleavings-x1000" // URW: log2 of the interleavings of the lengths in force, times 1000
)

type kind uint8

const (
	kindWalk kind = iota
	kindPCT
	kindURW
)

var kindNames = [...]string{kindWalk: "random", kindPCT: "pct", kindURW: "urw"}

// Walk samples runs by random walk: at each state, an enabled thread
// chosen uniformly, then one of its transition's outcomes chosen uniformly.
func Walk[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options) (ts.Result, error) {
	return run(ctx, sys, opt, kindWalk)
}

// PCT samples runs by probabilistic concurrency testing (Burckhardt et al.,
// ASPLOS 2010): each run gives the threads random distinct priorities and
// draws d-1 change points among steps 1..k; the enabled thread of highest
// priority runs, and at the i-th change point the thread about to run drops
// to a priority below every initial one. Outcomes are chosen uniformly.
// See [Guarantee] for what a run promises.
func PCT[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options) (ts.Result, error) {
	return run(ctx, sys, opt, kindPCT)
}

// URW samples runs with the enabled thread chosen with probability
// proportional to the number of transitions it has left (known from
// Options.Lengths or estimated from earlier runs), then an outcome
// uniformly: when no thread ever blocks, every transition has one outcome
// and the lengths are exact, every interleaving is sampled with the same
// probability, 1 / (L_1+...+L_n)! / (L_1! ... L_n!).
func URW[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options) (ts.Result, error) {
	return run(ctx, sys, opt, kindURW)
}

func (o *Options) validate(k kind) error {
	if err := o.Options.Validate(); err != nil {
		return err
	}
	if err := search.OneWorker(&o.Options, kindNames[k]); err != nil {
		return err
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: "+format, append([]any{ts.ErrBadOptions, kindNames[k]}, args...)...)
	}
	switch {
	case o.Runs < 0:
		return bad("negative run count %d", o.Runs)
	case o.Time < 0:
		return bad("negative time budget %v", o.Time)
	case o.Depth < 0:
		return bad("negative PCT depth %d", o.Depth)
	case o.Steps < 0:
		return bad("negative PCT step count %d", o.Steps)
	case k != kindPCT && (o.Depth != 0 || o.Steps != 0):
		return bad("Depth and Steps are PCT's (use PCT)")
	case k != kindURW && o.Lengths != nil:
		return bad("Lengths are URW's (use URW)")
	}
	if k == kindPCT && o.Steps > 0 && o.Steps < o.depth()-1 {
		return bad("Steps %d is fewer than the %d change points of depth %d", o.Steps, o.depth()-1, o.depth())
	}
	for t, l := range o.Lengths {
		if l < 0 {
			return bad("Lengths[%d] = %d is negative", t, l)
		}
	}
	return nil
}

func (o *Options) depth() int {
	if o.Depth == 0 {
		return DefaultDepth
	}
	return o.Depth
}

// sampler is one random search.
type sampler[S any] struct {
	search.Outcome
	m    *search.Model[S]
	opt  Options
	kind kind
	rng  *rand.Rand
	n    int

	steps  []ts.Step
	status []ts.Status
	outs   []int
	sched  ts.Schedule
	state  S
	inRun  bool
	hsched uint64 // FNV-1a of the run's moves so far

	current  ts.Tid
	maxDepth int
	longest  int

	// The contract check after each transition: flat states (package flat)
	// cannot be modified by Apply, so they need no hash.
	flat  bool
	taken [1]ts.Move

	// PCT
	prio   []int // each thread's priority this run
	change []int // change point j's step (1-based), for j < d-1
	k      int   // steps over which change points are drawn; 0 until known
	depth  int
	drawnK int // the k this run drew its change points over

	// The runs the guarantee counts: PCT's that drew all d-1 change points
	// over overK steps (the largest k so far), URW's drawn with the lengths
	// in force.
	counted int64
	overK   int

	// URW
	lengths []int // each thread's length in force
	done    []int // transitions each thread took this run
	known   bool  // lengths are the caller's
	changed bool  // the run just ended changed the lengths

	terminals map[uint64]struct{}
	schedules map[uint64]struct{}
	// The run's happens-before state: its hash at the end of a run names
	// the run's Mazurkiewicz trace (hb.State allocates nothing once it has
	// seen the threads and objects).
	hbs    *hb.State
	traces map[uint64]struct{}
}

func run[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options, k kind) (ts.Result, error) {
	res := ts.Result{Bound: ts.NoBound, Finds: search.Finds(&opt.Options)}
	if err := search.Context(ctx); err != nil {
		return res, err
	}
	if sys == nil {
		return res, fmt.Errorf("%w: nil system", ts.ErrBadOptions)
	}
	if err := opt.validate(k); err != nil {
		return res, err
	}
	if _, deadline := ctx.Deadline(); !deadline && opt.Runs == 0 && opt.Time == 0 && opt.Limits.Executions == 0 && opt.Limits.Transitions == 0 {
		return res, fmt.Errorf("%w: %s: no budget: set Runs, Time, Limits.Executions or Limits.Transitions, or give a context with a deadline (a random search does not end by itself)", ts.ErrBadOptions, kindNames[k])
	}
	m, err := search.NewModel(sys)
	if err != nil {
		return res, err
	}
	n := m.N
	if k == kindURW && opt.Lengths != nil && len(opt.Lengths) != n {
		return res, fmt.Errorf("%w: urw: %d Lengths for %d threads", ts.ErrBadOptions, len(opt.Lengths), n)
	}
	// The time budget is a context of our own, so that the search notices
	// it as it notices cancellation; its expiry is a budget, not an error.
	sctx := ctx
	if opt.Time > 0 {
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeout(ctx, opt.Time)
		defer cancel()
	}
	started := time.Now()
	s := &sampler[S]{m: m, opt: opt, kind: k, n: n, current: -1, maxDepth: opt.Limits.MaxDepth(),
		rng:   rand.New(rand.NewPCG(opt.Seed, 0x9e3779b97f4a7c15)),
		steps: make([]ts.Step, n), status: make([]ts.Status, n), outs: make([]int, n),
		schedules: make(map[uint64]struct{}), hbs: hb.New(n), traces: make(map[uint64]struct{}),
		flat: flat.Is[S]()}
	if m.Hasher != nil {
		s.terminals = make(map[uint64]struct{})
	}
	switch k {
	case kindPCT:
		s.depth = opt.depth()
		s.k, s.overK = opt.Steps, opt.Steps
		s.prio = make([]int, n)
		s.change = make([]int, 0, s.depth-1)
	case kindURW:
		s.lengths = make([]int, n)
		s.done = make([]int, n)
		if opt.Lengths != nil {
			copy(s.lengths, opt.Lengths)
			s.known = true
		}
	}
	if f := s.opt.Progress; f != nil && opt.Runs > 0 {
		// The runs are the size of the search: reports say the share done
		// and the time left, unless the caller's wrapper says already.
		s.opt.Progress = func(r ts.Result) {
			if r.Estimated == nil {
				r.Estimated = estimate.Of(estimate.Estimate{Executions: float64(opt.Runs)}, r, time.Since(started))
			}
			f(r)
		}
	}
	s.Outcome = search.Outcome{Ctx: sctx, Opt: &s.opt.Options, Res: &res}
	addSystemStats := search.SystemStats(sys)
	err = s.Drive(func() {}, s.loop, s.panicked)
	// A sample is never the whole space.
	res.Complete = false
	if err != nil && opt.Time > 0 && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		err = nil // the time budget ran out
	}
	if err == nil {
		err = m.ThreadsAgain()
	}
	res.Stats = map[string]int64{
		StatRuns:      res.Executions,
		StatSchedules: int64(len(s.schedules)),
		StatTraces:    int64(len(s.traces)),
		StatSeed:      int64(opt.Seed),
		StatThreads:   int64(n),
		StatLongest:   int64(s.longest),
	}
	if s.terminals != nil {
		res.Stats[StatTerminals] = int64(len(s.terminals))
	}
	switch k {
	case kindPCT:
		res.Stats[StatDepth] = int64(s.depth)
		res.Stats[StatSteps] = int64(s.overK)
		res.Stats[StatCounted] = s.counted
	case kindURW:
		res.Stats[StatLogInterl] = int64(math.Round(1000 * log2Interleavings(s.lengths)))
		res.Stats[StatCounted] = s.counted
	}
	addSystemStats(&res)
	return res, err
}

// loop samples runs until a budget, a violation (unless KeepGoing) or an
// error stops it. It picks up where a panic left it: the panic ended the
// run.
func (s *sampler[S]) loop() {
	l := s.opt.Limits
	for !s.Stop {
		if !s.inRun {
			if (s.opt.Runs > 0 && s.Res.Executions >= s.opt.Runs) ||
				(l.Executions > 0 && s.Res.Executions >= l.Executions) {
				s.Stop = true
				return
			}
			if !s.memoryOK() {
				return
			}
			s.startRun()
			continue
		}
		if s.Spent() {
			return
		}
		mv := s.choose()
		s.sched = append(s.sched, mv)
		s.hsched = (s.hsched ^ uint64(mv.Thread)<<16 ^ uint64(mv.Outcome)) * fnvPrime
		s.hbs.AddOutcome(mv.Thread, s.steps[mv.Thread], mv.Outcome)
		b := search.Baseline{Flat: s.flat, Steps: s.steps, Status: s.status, Outs: s.outs}
		if s.m.Hasher != nil && !s.flat {
			b.Hash, b.Hashed = s.m.Hasher.Hash(s.state), true
		}
		s.current = mv.Thread
		next := s.m.Apply(s.state, mv)
		s.current = -1
		s.Res.Transitions++
		if s.kind == kindURW {
			s.done[mv.Thread]++
		}
		// A run never comes back to a state, but the state it just left
		// must still be what Look saw: otherwise Apply modified its
		// argument or Next is not a function of the state, and the runs
		// sampled need not be runs of the system.
		s.taken[0] = mv
		if err := s.m.Unchanged(s.state, b, s.sched[:len(s.sched)-1], s.taken[:], &s.current); err != nil {
			s.Fail(err)
			s.inRun = false
			return
		}
		s.visit(next)
	}
}

// memoryOK fails the search if what it keeps passes Limits.Memory: the
// sets of distinct schedules, traces and terminal states it counts (one
// entry a run at most in each, a Go map's entry of a uint64 counted at 40
// bytes, the most it takes), and a run's schedule and happens-before state
// (an estimate of 24 bytes a transition of the longest run). It is asked
// before each run: within one nothing grows but with the run's length.
func (s *sampler[S]) memoryOK() bool {
	limit := s.opt.Limits.MaxMemory()
	if limit < 0 {
		return true
	}
	used := int64(len(s.schedules)+len(s.traces)+len(s.terminals))*40 + int64(cap(s.sched))*int64(unsafe.Sizeof(ts.Move{})) + int64(s.longest)*24
	if used <= limit {
		return true
	}
	return s.MemoryOK(used, fmt.Sprintf("%d distinct schedules, %d traces and %d terminal states counted over %d runs", len(s.schedules), len(s.traces), len(s.terminals), s.Res.Executions))
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func (s *sampler[S]) startRun() {
	s.sched = s.sched[:0]
	s.hsched = fnvOffset
	s.inRun = true
	switch s.kind {
	case kindPCT:
		s.startPCT()
	case kindURW:
		clear(s.done)
	}
	s.current = -1
	s.visit(s.m.Sys.Init())
}

// startPCT draws the run's priorities and change points. Initial
// priorities are d-1 .. d-1+n-1 in a random order; change point j lowers
// the thread about to run to j < d-1. With k unknown, the first run has no
// change point and its length becomes k.
func (s *sampler[S]) startPCT() {
	d := s.depth
	for t := range s.prio {
		s.prio[t] = d - 1 + t
	}
	s.rng.Shuffle(len(s.prio), func(i, j int) { s.prio[i], s.prio[j] = s.prio[j], s.prio[i] })
	s.change = s.change[:0]
	k := s.k
	if s.opt.Steps == 0 {
		k = s.longest // 0 before the first run ends: no change point
	}
	for len(s.change) < d-1 && len(s.change) < k {
		c := 1 + s.rng.IntN(k)
		if !contains(s.change, c) {
			s.change = append(s.change, c)
		}
	}
	s.drawnK = k
}

// count counts the run just ended toward the guarantee, or not. PCT's bound
// 1/(n*k^(d-1)) holds for a run only over the k it drew its d-1 change
// points from: the first run with k estimated (no change point) and the
// runs before the estimate reached its final value promise nothing for a
// bug that needs a later change point. With k estimated as the longest run
// so far, k never falls, so the runs over the largest k are the last ones.
// URW's uniformity holds only for runs drawn with the lengths in force at
// the end: the first run with the lengths estimated is a random walk.
func (s *sampler[S]) count() {
	switch s.kind {
	case kindPCT:
		if s.depth == 1 { // no change point: 1/n from the priorities alone
			s.counted++
			return
		}
		if s.drawnK > s.overK {
			s.overK, s.counted = s.drawnK, 0
		}
		if s.drawnK == s.overK && len(s.change) == s.depth-1 {
			s.counted++
		}
	case kindURW:
		if s.changed {
			s.counted = 0 // no run so far was drawn with the new lengths
		} else {
			s.counted++
		}
	}
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// visit looks at the state a run has reached: its checks, its end, or the
// moves enabled there.
func (s *sampler[S]) visit(st S) {
	path := s.sched
	if len(path) > s.maxDepth {
		detail := fmt.Sprintf("a run reached %d transitions; raise Limits.Depth if the system does terminate", len(path))
		if s.kind == kindPCT {
			detail += " (under PCT the enabled thread of highest priority runs: one that spins starves the others; model a spin-wait as a Blocked await, see package ts, or sample with random or urw)"
		}
		s.Fail(&ts.SystemError{Err: ts.ErrDepth, Thread: s.lastThread(), Schedule: path.Clone(), Detail: detail})
		s.inRun = false
		return
	}
	s.state = st
	c, err := s.m.Look(st, s.steps, s.status, s.outs, &s.current)
	if err != nil {
		s.Fail(search.WithSchedule(err, path))
		s.inRun = false
		return
	}
	if v := s.m.Check(st); v != nil {
		v.Thread = s.lastThread()
		s.endRun(v)
		return
	}
	if c.Enabled > 0 {
		return
	}
	if search.Deadlock(c, &s.opt.Options) {
		s.endRun(&ts.Violation{Kind: ts.Deadlock, Thread: s.lastThread()})
		return
	}
	if s.terminals != nil {
		s.terminals[s.m.Hasher.Hash(st)] = struct{}{}
	}
	search.Terminal(&s.Outcome, st, s.sched)
	s.endRun(nil)
}

func (s *sampler[S]) lastThread() ts.Tid {
	if len(s.sched) == 0 {
		return -1
	}
	return s.sched[len(s.sched)-1].Thread
}

// endRun ends the run, with the violation it showed, if any (replayed
// before it is recorded).
func (s *sampler[S]) endRun(v *ts.Violation) {
	s.inRun = false
	s.Res.Executions++
	s.schedules[s.hsched] = struct{}{}
	s.traces[s.hbs.Hash()] = struct{}{}
	for i := len(s.sched) - 1; i >= 0; i-- {
		s.hbs.Remove(s.sched[i].Thread) // the last event of a run is maximal
	}
	s.longest = max(s.longest, len(s.sched))
	if s.kind == kindURW && !s.known {
		s.changed = false
		for t, d := range s.done {
			if d > s.lengths[t] {
				s.lengths[t], s.changed = d, true
			}
		}
	}
	s.count()
	if v != nil {
		search.Confirm(&s.Outcome, s.m.Sys, v, s.sched)
	}
}

// panicked turns a panic in user code into a violation: the schedule is
// the run's so far, the panicking transition included when Apply panicked.
func (s *sampler[S]) panicked(any) {
	t := s.current
	s.current = -1
	s.endRun(&ts.Violation{Kind: ts.Panic, Thread: t})
}

// choose picks the next move of the run.
func (s *sampler[S]) choose() ts.Move {
	var t ts.Tid
	switch s.kind {
	case kindWalk:
		t = s.nthEnabled(s.rng.IntN(s.enabled()))
	case kindPCT:
		t = s.highest()
		if j := indexOf(s.change, len(s.sched)+1); j >= 0 {
			s.prio[t] = j
			t = s.highest()
		}
	case kindURW:
		t = s.weighted()
	}
	o := 0
	if s.outs[t] > 1 {
		o = s.rng.IntN(s.outs[t])
	}
	return ts.Move{Thread: t, Outcome: o}
}

func indexOf(xs []int, x int) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}

func (s *sampler[S]) enabled() int {
	c := 0
	for _, st := range s.status {
		if st == ts.Enabled {
			c++
		}
	}
	return c
}

func (s *sampler[S]) nthEnabled(i int) ts.Tid {
	for t, st := range s.status {
		if st == ts.Enabled {
			if i == 0 {
				return ts.Tid(t)
			}
			i--
		}
	}
	panic("random: no enabled thread") // unreachable: visit ends a run without one
}

// highest is the enabled thread of highest priority.
func (s *sampler[S]) highest() ts.Tid {
	best := ts.Tid(-1)
	for t, st := range s.status {
		if st == ts.Enabled && (best < 0 || s.prio[t] > s.prio[best]) {
			best = ts.Tid(t)
		}
	}
	return best
}

// weighted picks an enabled thread with probability proportional to the
// transitions it has left (at least 1: an estimate may be short).
func (s *sampler[S]) weighted() ts.Tid {
	total := 0
	for t, st := range s.status {
		if st == ts.Enabled {
			total += s.left(t)
		}
	}
	r := s.rng.IntN(total)
	for t, st := range s.status {
		if st == ts.Enabled {
			if r -= s.left(t); r < 0 {
				return ts.Tid(t)
			}
		}
	}
	panic("random: weights do not add up") // unreachable
}

func (s *sampler[S]) left(t int) int { return max(s.lengths[t]-s.done[t], 1) }

// log2Interleavings is log2 of the multinomial (L_1+...+L_n)! / prod L_i!.
func log2Interleavings(lengths []int) float64 {
	sum := 0
	l := 0.0
	for _, x := range lengths {
		sum += x
		lg, _ := math.Lgamma(float64(x) + 1)
		l -= lg
	}
	lg, _ := math.Lgamma(float64(sum) + 1)
	return (l + lg) / math.Ln2
}
