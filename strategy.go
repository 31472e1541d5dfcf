package weft

import (
	"fmt"
	"strings"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/ts"
)

// DefaultBound is the preemption bound of the bounded strategies when none
// is given: the bugs of the ICB paper's study all need at most 3
// preemptions, and most need 2 or fewer. The command and the test entry
// point use it too.
const DefaultBound = cbound.DefaultBound

// Strategy is a search strategy with its own options: which algorithm, its
// preemption bound where it has one, and whether it runs on the transaction
// view of the system. Every strategy runs through [Run] the same way.
//
// Build one with a constructor ([ODPOR], [ICB], ...) and compose it with
// [Strategy.WithBound], [Transactions] and [Symmetric], which refuse the
// compositions that would miss bugs, with the reason. The zero Strategy is
// no strategy: Run refuses it. Strategies are comparable values.
type Strategy struct {
	algo   algo
	bound  int  // preemptions allowed, or ts.NoBound; bounded algorithms only
	view   bool // run on the transaction view of the system (Transactions)
	sample sampling
}

// sampling is a random search's parameters (the samplers only).
type sampling struct {
	runs  int64  // runs to sample; 0: until another budget (limits, the context's deadline)
	seed  uint64 // the generator's seed
	depth int    // PCT's bug depth d; 0: random.DefaultDepth
}

// algo is one of the search functions weft offers.
type algo uint8

const (
	algoNone algo = iota
	algoDFS
	algoDFSStateful
	algoSleep
	algoDPOR
	algoODPOR
	algoSDPOR
	algoICB
	algoSyncOnly
	algoCBDFS
	algoCBPOR1
	algoCBPOR2
	algoICBPOR
	algoCPC
	algoCycle
	algoUnsound
	algoSym
	algoSymPOR
	algoMAT
	algoRandom
	algoPCT
	algoURW
	numAlgos
)

// info is what weft knows of an algorithm.
type info struct {
	name     string
	summary  string
	model    string // what of the model it takes when not whole, as the README's table says it
	needs    Needs
	bounded  bool // takes a preemption bound
	traces   bool // one execution per Mazurkiewicz trace (within the bound)
	fewest   bool // the first violation has the fewest preemptions (within the bound)
	preserve string
	// whole: takes the whole model (steps of several objects, outcomes,
	// idle threads, invariants); the others refuse what goes beyond one
	// object per step with one outcome, up front. Model, Needs and Whole
	// follow it.
	whole bool
	// sampler: a random search (package random), listed by Samplers, not
	// Strategies: it promises nothing exhaustive.
	sampler bool
}

const (
	samePOR   = "terminal states, deadlocks, failed checks, invariant failures and panics; needs the independence contract (independent steps commute)"
	sameCBPOR = "terminal states, deadlocks, failed checks and invariant failures within the bound, for checks that stay failed (a thread's assertion)"
	sameTx    = "terminal states, failed checks and invariant failures; deadlocks not promised (those met are reported)"
)

var algos = [numAlgos]info{
	algoDFS: {name: "dfs", summary: "every interleaving, depth first, no reduction and no caching (ts.Explore, the reference)",
		needs: NeedsAcyclic, whole: true,
		preserve: "everything, every intermediate state (the reference)"},
	algoDFSStateful: {name: "dfs-stateful", summary: "depth first with a table of visited states (ts.ExploreStateful); handles cyclic models",
		needs: NeedsHash, whole: true,
		preserve: "everything; cyclic systems"},
	algoSleep: {name: "sleep", summary: "depth-first search with sleep sets (por.Sleep)",
		needs: NeedsAcyclic, whole: true, preserve: samePOR},
	algoDPOR: {name: "dpor", summary: "dynamic partial-order reduction with vector clocks and sleep sets (por.DPOR)",
		needs: NeedsAcyclic, whole: true, preserve: samePOR},
	algoODPOR: {name: "odpor", summary: "optimal DPOR: source sets and wakeup trees, one execution per Mazurkiewicz trace (por.ODPOR)",
		needs: NeedsAcyclic, traces: true, whole: true, preserve: samePOR},
	algoSDPOR: {name: "sdpor", summary: "stateful DPOR: visited states with the dependency-graph summary; acyclic models (por.SDPOR)",
		needs: NeedsHash | NeedsAcyclic, whole: true, preserve: samePOR},
	algoICB: {name: "icb", summary: "iterative context bounding: 0 preemptions, then 1, ...; the first bug has the fewest (cbound.ICB)",
		needs: NeedsHashOnCycles, bounded: true, whole: true, fewest: true,
		preserve: "everything within the bound; the first violation has the fewest preemptions"},
	algoSyncOnly: {name: "icb-sync-only", summary: "icb scheduling only before synchronization steps, every execution checked for data races (cbound.ICB with SyncOnly)",
		needs: NeedsHashOnCycles, bounded: true, whole: true, fewest: true,
		preserve: "data races, exactly when the full search has one; for race-free programs, terminal states, deadlocks, failed checks and invariant failures"},
	algoCBDFS: {name: "cb-dfs", summary: "depth-first search pruned above the preemption bound, no reduction: the baseline (cbound.DFS)",
		needs: NeedsAcyclic, bounded: true, whole: true,
		preserve: "everything within the bound"},
	algoCBPOR1: {name: "cb-por1", summary: "context-bounded POR, Algorithm 1: every happens-before state with CB <= C once (cbound.HBSearch)",
		needs: NeedsAcyclic, bounded: true, whole: true, preserve: sameCBPOR},
	algoCBPOR2: {name: "cb-por2", summary: "context-bounded POR, Algorithm 2: every terminal HB class with CB <= C once (cbound.POR)",
		needs: NeedsAcyclic, bounded: true, whole: true, traces: true, preserve: sameCBPOR},
	algoICBPOR: {name: "icb-por", summary: "cb-por2 at bounds 0, 1, ..., C: one execution per HB class, the first bug with the fewest preemptions (cbound.IterativePOR)",
		needs: NeedsAcyclic, bounded: true, whole: true, traces: true, fewest: true,
		preserve: sameCBPOR + "; the first violation has the fewest preemptions"},
	algoCPC: {name: "cpc", summary: "transactions with commit point completion against the ignoring problem; movers declared or inferred (transact)",
		needs: NeedsHash, whole: true, preserve: sameTx},
	algoCycle: {name: "cycle", summary: "transactions with cycle detection and the dead-end rule (transact)",
		needs: NeedsHash, whole: true, preserve: sameTx},
	algoUnsound: {name: "unsound", summary: "transactions with no proviso: UNSOUND, misses bugs; for comparison only (transact)",
		needs: NeedsHash, whole: true, preserve: "nothing: it misses bugs by design"},
	algoSym: {name: "sym", summary: "stateful search storing one state per symmetry orbit; models that declare a canonical form (symmetry.Explore)",
		needs: NeedsHash | NeedsCanonical, whole: true,
		preserve: "everything, up to the symmetry"},
	algoSymPOR: {name: "sympor", summary: "DPOR exploring one of each set of interchangeable threads; models that give thread signatures (symmetry.DPOR)",
		needs: NeedsAcyclic | NeedsSignatures, whole: true,
		preserve: "terminal states and violations up to the symmetry"},
	algoMAT: {name: "mat", summary: "mutually atomic transactions: one schedule per Mazurkiewicz class for two straight-line threads (mat.Explore)",
		model: "basic", needs: NeedsStraightLine,
		preserve: "terminal states of executions that finish; a failed check whenever one exists (not each one); deadlocks not promised"},
	algoRandom: {name: "random", summary: "random walk: runs with an enabled thread and an outcome chosen uniformly at each step; seeded, budgeted by runs or time (random.Walk)",
		whole: true, sampler: true, preserve: samplePreserve + "; no probability bound"},
	algoPCT: {name: "pct", summary: "probabilistic concurrency testing: random priorities, d-1 change points over k steps; a bug of depth d with probability at least 1/(n*k^(d-1)) a run whose change points were drawn over k (random.PCT)",
		whole: true, sampler: true, preserve: samplePreserve + "; each run whose change points were drawn over k steps finds a bug of depth d within them with probability at least 1/(n*k^(d-1))"},
	algoURW: {name: "urw", summary: "uniform random walk: the next thread in proportion to the steps it has left, uniform over interleavings where nothing blocks (random.URW)",
		whole: true, sampler: true, preserve: samplePreserve + "; each interleaving equally likely when nothing blocks, there are no outcomes and the lengths are exact"},
}

const samplePreserve = "nothing exhaustive (never complete): every terminal state and violation reported is one ts.Explore reaches, every violation replays"

// The strategies, one constructor each; the bounded ones start at
// DefaultBound.

// DFS is ts.Explore: every interleaving, the reference every other strategy
// is tested against.
func DFS() Strategy { return Strategy{algo: algoDFS, bound: ts.NoBound} }

// DFSStateful is ts.ExploreStateful: every reachable state once; cyclic
// systems. Needs Hash.
func DFSStateful() Strategy { return Strategy{algo: algoDFSStateful, bound: ts.NoBound} }

// Sleep is por.Sleep: depth-first search with sleep sets.
func Sleep() Strategy { return Strategy{algo: algoSleep, bound: ts.NoBound} }

// DPOR is por.DPOR: dynamic partial-order reduction.
func DPOR() Strategy { return Strategy{algo: algoDPOR, bound: ts.NoBound} }

// ODPOR is por.ODPOR: optimal DPOR, one execution per Mazurkiewicz trace.
func ODPOR() Strategy { return Strategy{algo: algoODPOR, bound: ts.NoBound} }

// SDPOR is por.SDPOR: stateful DPOR for acyclic systems. Needs Hash.
func SDPOR() Strategy { return Strategy{algo: algoSDPOR, bound: ts.NoBound} }

// ICB is cbound.ICB: iterative context bounding up to DefaultBound
// preemptions; the first violation has the fewest preemptions.
func ICB() Strategy { return Strategy{algo: algoICB, bound: DefaultBound} }

// SyncOnly is cbound.ICB with SyncOnly: scheduling points only before
// synchronization steps, and every execution checked for data races.
func SyncOnly() Strategy { return Strategy{algo: algoSyncOnly, bound: DefaultBound} }

// CBDFS is cbound.DFS: depth-first search pruned above the bound.
func CBDFS() Strategy { return Strategy{algo: algoCBDFS, bound: DefaultBound} }

// CBPOR1 is cbound.HBSearch: every happens-before state within the bound
// once.
func CBPOR1() Strategy { return Strategy{algo: algoCBPOR1, bound: DefaultBound} }

// CBPOR2 is cbound.POR: every terminal happens-before class within the
// bound once.
func CBPOR2() Strategy { return Strategy{algo: algoCBPOR2, bound: DefaultBound} }

// ICBPOR is cbound.IterativePOR: CBPOR2 at bounds 0, 1, ..., the bound.
func ICBPOR() Strategy { return Strategy{algo: algoICBPOR, bound: DefaultBound} }

// CPC is transact.Explore with commit point completion. Needs Hash.
func CPC() Strategy { return Strategy{algo: algoCPC, bound: ts.NoBound} }

// Cycle is transact.Explore with cycle detection. Needs Hash.
func Cycle() Strategy { return Strategy{algo: algoCycle, bound: ts.NoBound} }

// Unsound is transact.Explore with no proviso: it misses bugs by design,
// for comparison only.
func Unsound() Strategy { return Strategy{algo: algoUnsound, bound: ts.NoBound} }

// Sym is symmetry.Explore: stateful search storing one state per orbit of
// the declared symmetry. Needs Hash and symmetry.Canonicalizer. It is
// Symmetric(DFSStateful()).
func Sym() Strategy { return Strategy{algo: algoSym, bound: ts.NoBound} }

// SymPOR is symmetry.DPOR: DPOR over interchangeable threads. Needs
// symmetry.Signer. It is Symmetric(DPOR()).
func SymPOR() Strategy { return Strategy{algo: algoSymPOR, bound: ts.NoBound} }

// MAT is mat.Explore: mutually atomic transactions, for straight-line
// threads.
func MAT() Strategy { return Strategy{algo: algoMAT, bound: ts.NoBound} }

// Random is random.Walk: a random walk, DefaultRuns runs, seed 0.
func Random() Strategy {
	return Strategy{algo: algoRandom, bound: ts.NoBound, sample: sampling{runs: DefaultRuns}}
}

// PCT is random.PCT: probabilistic concurrency testing of depth
// random.DefaultDepth, DefaultRuns runs, seed 0.
func PCT() Strategy {
	return Strategy{algo: algoPCT, bound: ts.NoBound, sample: sampling{runs: DefaultRuns}}
}

// URW is random.URW: the sampler uniform over interleavings where nothing
// blocks, DefaultRuns runs, seed 0.
func URW() Strategy {
	return Strategy{algo: algoURW, bound: ts.NoBound, sample: sampling{runs: DefaultRuns}}
}

// DefaultRuns is the runs a sampler takes unless WithRuns says otherwise.
const DefaultRuns = 1000

// Samplers returns the random searches (Random, PCT, URW) with their
// defaults. They are not among Strategies: a sample is never complete.
func Samplers() []Strategy { return []Strategy{Random(), PCT(), URW()} }

// IsSampler reports whether s is a random search.
func (s Strategy) IsSampler() bool { return s.info().sampler }

// WithRuns returns sampler s with n runs (0: until another budget: the
// search's limits, or its context's deadline). Only samplers take it; the
// error wraps ts.ErrBadOptions.
func (s Strategy) WithRuns(n int64) (Strategy, error) {
	if !s.IsSampler() || n < 0 {
		return s, fmt.Errorf("%w: %s: runs %d: only a sampler (random, pct, urw) takes a run count, 0 or more", ts.ErrBadOptions, s.Name(), n)
	}
	s.sample.runs = n
	return s, nil
}

// WithSeed returns sampler s with seed seed.
func (s Strategy) WithSeed(seed uint64) (Strategy, error) {
	if !s.IsSampler() {
		return s, fmt.Errorf("%w: %s takes no seed: only a sampler (random, pct, urw) does", ts.ErrBadOptions, s.Name())
	}
	s.sample.seed = seed
	return s, nil
}

// WithDepth returns PCT with bug depth d (1 or more).
func (s Strategy) WithDepth(d int) (Strategy, error) {
	if s.algo != algoPCT || d < 1 {
		return s, fmt.Errorf("%w: %s: depth %d: only pct takes a bug depth, 1 or more", ts.ErrBadOptions, s.Name(), d)
	}
	s.sample.depth = d
	return s, nil
}

// Runs returns a sampler's run count (0 for the others).
func (s Strategy) Runs() int64 { return s.sample.runs }

// Seed returns a sampler's seed.
func (s Strategy) Seed() uint64 { return s.sample.seed }

// Strategies returns every strategy weft offers, the bounded ones at
// DefaultBound, in the order the command lists them.
func Strategies() []Strategy {
	return []Strategy{DFS(), DFSStateful(), Sleep(), DPOR(), ODPOR(), SDPOR(), ICB(), SyncOnly(), CBDFS(),
		CBPOR1(), CBPOR2(), ICBPOR(), CPC(), Cycle(), Unsound(), Sym(), SymPOR(), MAT()}
}

// txPrefix names a strategy run on the transaction view: "tx:odpor".
const txPrefix = "tx:"

// Lookup returns the strategy of a name, as Name gives it ("odpor",
// "tx:odpor"), at its default bound. An unknown name is an error wrapping
// ts.ErrBadOptions.
func Lookup(name string) (Strategy, error) {
	base, tx := strings.CutPrefix(name, txPrefix)
	for _, s := range append(Strategies(), Samplers()...) {
		if s.info().name == base {
			if tx {
				return Transactions(s)
			}
			return s, nil
		}
	}
	return Strategy{}, fmt.Errorf("%w: unknown strategy %q", ts.ErrBadOptions, name)
}

func (s Strategy) info() *info { return &algos[s.algo] }

// IsZero reports whether s is the zero Strategy, which is no strategy.
func (s Strategy) IsZero() bool { return s == Strategy{} }

// Name returns the strategy's name as the command spells it: "odpor",
// "icb", and "tx:odpor" for ODPOR on the transaction view. The bound is
// not part of it.
func (s Strategy) Name() string {
	if s.algo == algoNone || s.algo >= numAlgos {
		return "none"
	}
	if s.view {
		return txPrefix + s.info().name
	}
	return s.info().name
}

// String returns the name and, for a bounded strategy, the bound:
// "icb-por (bound 2)".
func (s Strategy) String() string {
	if s.Bounded() {
		if s.bound == ts.NoBound {
			return s.Name() + " (unbounded)"
		}
		return fmt.Sprintf("%s (bound %d)", s.Name(), s.bound)
	}
	return s.Name()
}

// Summary says in one line what the strategy explores.
func (s Strategy) Summary() string {
	sum := s.info().summary
	if s.view {
		sum += ", on the transaction view (transact.View): whole transactions as single steps"
	}
	return sum
}

// Model says what of the model the strategy takes: "all" for the whole
// model (steps of several objects, outcomes, idle threads, invariants),
// "basic" for one object per step, one outcome, no idle thread and no
// invariant with a read set, or a list in between. A strategy refuses what
// it does not take up front, with an error wrapping ts.ErrUnsupported.
func (s Strategy) Model() string {
	switch {
	case s.view:
		return "basic"
	case s.info().whole:
		return "all"
	}
	return s.info().model
}

// Preserves says exactly what the strategy finds of what ts.Explore finds,
// and under which condition.
func (s Strategy) Preserves() string {
	if s.view {
		return "failed checks (Lipton's reduction: every assertion failure is reached by a sequence of whole transactions), as far as " +
			s.info().name + " preserves them; deadlocks not promised (those met are reported)"
	}
	return s.info().preserve
}

// Splits reports whether the strategy splits its search over
// ts.Options.Workers goroutines (the others refuse a count above 1).
func (s Strategy) Splits() bool { return !s.view && splits(s.algo) }

// Needs says what the strategy needs of a system. Validate checks what can
// be checked before a search.
func (s Strategy) Needs() Needs {
	n := s.info().needs
	if s.view {
		n |= NeedsHash
	}
	if !s.Whole() {
		n |= NeedsBasicModel
	}
	return n
}

// Bounded reports whether the strategy takes a preemption bound.
func (s Strategy) Bounded() bool { return s.info().bounded }

// Bound returns the preemption bound of a bounded strategy, or ts.NoBound
// (for a strategy without one, or a bounded one made unbounded).
func (s Strategy) Bound() int {
	if !s.Bounded() {
		return ts.NoBound
	}
	return s.bound
}

// OnePerTrace reports whether a complete search explores one execution per
// Mazurkiewicz trace (within the bound, for a bounded strategy): its
// execution count is then the number of distinct partial orders.
func (s Strategy) OnePerTrace() bool { return s.info().traces && !s.view }

// FewestPreemptions reports whether the first violation a search reports
// has the fewest preemptions of any within the bound (the iterative
// strategies: ICB, SyncOnly, ICBPOR). On the transaction view it counts
// preemptions between transactions, so it does not.
func (s Strategy) FewestPreemptions() bool { return s.info().fewest && !s.view }

// Whole reports whether the strategy takes the whole model (Model is
// "all").
func (s Strategy) Whole() bool { return s.info().whole && !s.view }

// WithBound returns s with preemption bound c (ts.NoBound: raise the bound
// until nothing is left). Only the bounded strategies take one: a bound on
// a stateless reduction (sleep sets, DPOR) or a stateful search would cut
// the executions their pruning relies on and miss bugs (the cbpor paper's
// Fig. 1 loses y = 1 at bound 0 under sleep sets), so those are refused,
// with the sound strategy to use instead. The error wraps ts.ErrBadOptions.
func (s Strategy) WithBound(c int) (Strategy, error) {
	if c < ts.NoBound {
		return s, fmt.Errorf("%w: preemption bound %d: a bound is 0 or more (ts.NoBound for none)", ts.ErrBadOptions, c)
	}
	if s.Bounded() {
		s.bound = c
		return s, nil
	}
	var why string
	switch s.algo {
	case algoNone:
		why = "the zero Strategy is no strategy"
	case algoDFS:
		why = "use CBDFS, depth-first search within a bound, or ICB"
	case algoSleep, algoDPOR, algoODPOR, algoSymPOR:
		why = "partial-order reduction under a preemption bound is unsound (pruning above the bound drops the executions the reduction relies on: the cbpor paper's Fig. 1); use CBPOR2 or ICBPOR, partial-order reduction over happens-before states within a bound"
	case algoDFSStateful, algoSDPOR, algoSym:
		why = "a stateful search under a preemption bound is unsound (a state first reached with more preemptions cuts a later visit with fewer); use ICB, whose cache keeps the preemption count, or CBPOR1"
	case algoMAT:
		why = "MAT search takes no preemption bound"
	case algoRandom, algoPCT, algoURW:
		why = "a random search takes no preemption bound (PCT's bug depth is WithDepth)"
	default:
		why = "transaction-based search takes no preemption bound; put a bounded strategy under Transactions instead"
	}
	return s, fmt.Errorf("%w: %s takes no preemption bound: %s", ts.ErrBadOptions, s.Name(), why)
}

// Transactions returns inner run on the transaction view of the system
// (transact.View: each transition a whole transaction, delimited by Lipton
// movers declared or inferred). Any explorer may run on the view, the
// bounded ones included (the bound then counts preemptions between
// transactions); violations are reported with the original system's
// schedule. Refused, with the reason: the transaction searches themselves
// (they are transaction-based already), the symmetry strategies (the view
// declares no symmetry), sync-only scheduling (its race check sees no
// accesses on the view), MAT, and the zero Strategy. The view needs Hash and
// the basic model. The error wraps ts.ErrBadOptions.
func Transactions(inner Strategy) (Strategy, error) {
	var why string
	switch {
	case inner.algo == algoNone:
		why = "the zero Strategy is no strategy"
	case inner.view:
		why = "it runs on the transaction view already"
	case inner.algo == algoCPC || inner.algo == algoCycle || inner.algo == algoUnsound:
		why = "it is a transaction-based search already"
	case inner.algo == algoSym || inner.algo == algoSymPOR:
		why = "the transaction view declares no symmetry"
	case inner.algo == algoSyncOnly:
		why = "the view reports one synchronization object, so no data race could be seen"
	case inner.algo == algoMAT:
		why = "MATs are computed over a thread's single accesses, not transactions"
	case inner.IsSampler():
		why = "a random search samples the system itself"
	}
	if why != "" {
		return Strategy{}, fmt.Errorf("%w: %s cannot run on the transaction view: %s", ts.ErrBadOptions, inner.Name(), why)
	}
	inner.view = true
	return inner, nil
}

// Symmetric returns inner with thread symmetry: Symmetric(DFSStateful()) is
// Sym (one state per orbit of a declared symmetry) and Symmetric(DPOR()) is
// SymPOR (DPOR over threads found interchangeable). Symmetry is sound only
// under a search that cuts at a state whose orbit it has seen and whose
// future depends on the state alone; every other strategy is refused with
// the reason (an error wrapping ts.ErrBadOptions): ICB's cache of (state,
// thread) items, SDPOR's summaries and sleep sets name threads, a stateless
// search stores nothing to share between orbits.
func Symmetric(inner Strategy) (Strategy, error) {
	if !inner.view {
		switch inner.algo {
		case algoDFSStateful, algoSym:
			return Sym(), nil
		case algoDPOR, algoSymPOR:
			return SymPOR(), nil
		}
	}
	var why string
	switch {
	case inner.algo == algoNone:
		why = "the zero Strategy is no strategy"
	case inner.view:
		why = "the transaction view declares no symmetry"
	case inner.algo == algoICB || inner.algo == algoSyncOnly:
		why = "its cache of (state, thread) items would merge items of different threads and get preemption counts wrong"
	case inner.algo == algoSDPOR:
		why = "its summaries of visited states name threads"
	case inner.algo == algoCBPOR1 || inner.algo == algoCBPOR2 || inner.algo == algoICBPOR:
		why = "its happens-before states name threads"
	case inner.algo == algoCPC || inner.algo == algoCycle || inner.algo == algoUnsound:
		why = "its stored states carry per-thread phase bits"
	case inner.algo == algoMAT:
		why = "its token-passing pairs name threads"
	default:
		why = "it stores no states, so orbits save nothing (use DFSStateful for one state per orbit, DPOR for interchangeable threads)"
	}
	return Strategy{}, fmt.Errorf("%w: symmetry under %s: %s", ts.ErrBadOptions, inner.Name(), why)
}

// Needs is a set of things a strategy needs of a system.
type Needs uint16

const (
	// NeedsHash: the system implements ts.Hasher (checked by Validate).
	NeedsHash Needs = 1 << iota
	// NeedsHashOnCycles: the search terminates on a cyclic state space only
	// when the system implements ts.Hasher (ICB's cache of work items).
	NeedsHashOnCycles
	// NeedsAcyclic: the search terminates only on an acyclic state space; on
	// a cyclic one it stops with ts.ErrDepth.
	NeedsAcyclic
	// NeedsCanonical: the system implements symmetry.Canonicalizer (checked
	// by Validate).
	NeedsCanonical
	// NeedsSignatures: the system implements symmetry.Signer (checked by
	// Validate).
	NeedsSignatures
	// NeedsBasicModel: the strategy refuses some of the whole model (see
	// Strategy.Model) up front, with an error wrapping ts.ErrUnsupported.
	NeedsBasicModel
	// NeedsStraightLine: every thread's accesses are the same in every
	// interleaving (mat.ErrNotStraightLine otherwise).
	NeedsStraightLine
)

var needNames = []struct {
	n    Needs
	name string
}{
	{NeedsHash, "Hash"},
	{NeedsHashOnCycles, "Hash on a cyclic system"},
	{NeedsAcyclic, "an acyclic state space"},
	{NeedsCanonical, "a canonical form (symmetry.Canonicalizer)"},
	{NeedsSignatures, "thread signatures (symmetry.Signer)"},
	{NeedsBasicModel, "the basic model"},
	{NeedsStraightLine, "straight-line threads"},
}

// Has reports whether every need of x is in n.
func (n Needs) Has(x Needs) bool { return n&x == x }

// String lists the needs: "Hash, an acyclic state space", or "nothing".
func (n Needs) String() string {
	var parts []string
	for _, e := range needNames {
		if n.Has(e.n) {
			parts = append(parts, e.name)
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}
