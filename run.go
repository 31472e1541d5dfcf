package weft

import (
	"context"
	"errors"
	"fmt"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/internal/search"
	"github.com/weftlab/weft/mat"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/random"
	"github.com/weftlab/weft/symmetry"
	"github.com/weftlab/weft/transact"
	"github.com/weftlab/weft/ts"
)

// Validate reports whether strategy s can run on sys, as far as that can be
// known before a search: a strategy that needs Hash, a canonical form or
// thread signatures gets a system that has them, and the zero Strategy is
// refused. The error wraps ts.ErrBadOptions (and ts.ErrNoHash or
// symmetry.ErrNoSymmetry). What only a search can see (a cycle, a step of
// several objects for a strategy that takes the basic model) the strategy
// itself refuses, with ts.ErrDepth or ts.ErrUnsupported.
func Validate[S any](sys ts.TransitionSystem[S], s Strategy) error {
	if s.algo == algoNone || s.algo >= numAlgos {
		return fmt.Errorf("%w: no strategy (the zero Strategy; use a constructor such as weft.ODPOR)", ts.ErrBadOptions)
	}
	if sys == nil {
		return fmt.Errorf("%w: nil system", ts.ErrBadOptions)
	}
	need := s.Needs()
	if need.Has(NeedsHash) {
		if _, ok := sys.(ts.Hasher[S]); !ok {
			return fmt.Errorf("%w: %s: %w", ts.ErrBadOptions, s.Name(), ts.ErrNoHash)
		}
	}
	if need.Has(NeedsCanonical) {
		if _, ok := sys.(symmetry.Canonicalizer[S]); !ok {
			return fmt.Errorf("%w: %s needs a system that implements symmetry.Canonicalizer: %w", ts.ErrBadOptions, s.Name(), symmetry.ErrNoSymmetry)
		}
	}
	if need.Has(NeedsSignatures) {
		if _, ok := sys.(symmetry.Signer[S]); !ok {
			return fmt.Errorf("%w: %s needs a system that implements symmetry.Signer: %w", ts.ErrBadOptions, s.Name(), symmetry.ErrNoSymmetry)
		}
	}
	if s.view {
		// The view checks only what it forwards: an invariant it did not
		// forward would go unchecked, silently.
		if inv, ok := sys.(ts.Invariant[S]); ok && len(invariantReads(inv)) > 0 {
			if _, vok := any((*transact.View[S])(nil)).(ts.Invariant[S]); !vok {
				return fmt.Errorf("%w: %s: the transaction view does not check a global invariant", ts.ErrUnsupported, s.Name())
			}
		}
	}
	return nil
}

// Run explores sys with strategy s under opt and returns what the strategy
// returns: a Result, and an error for bad options, a system that breaks the
// contract or one the strategy does not take, or cancellation. It checks
// what Validate checks first, so a strategy that needs Hash on a system
// without it fails before any search.
func Run[S any](ctx context.Context, sys ts.TransitionSystem[S], s Strategy, opt ts.Options) (ts.Result, error) {
	res := ts.Result{Bound: ts.NoBound}
	if err := Validate(sys, s); err != nil {
		return res, err
	}
	if opt.Workers > 1 && !s.Splits() {
		return res, fmt.Errorf("%w: %v explores on one goroutine: Workers must be 0 or 1, not %d (odpor, dpor, sleep and dfs-stateful split their search)", ts.ErrBadOptions, s, opt.Workers)
	}
	if s.view {
		return runView(ctx, sys, s, opt)
	}
	return run(ctx, sys, s, opt)
}

// run runs the algorithm of s, which Validate has accepted.
func run[S any](ctx context.Context, sys ts.TransitionSystem[S], s Strategy, opt ts.Options) (ts.Result, error) {
	cb := func(syncOnly bool) cbound.Options {
		return cbound.Options{Options: opt, Bound: cbound.AtMost(s.bound), SyncOnly: syncOnly}
	}
	switch s.algo {
	case algoDFS:
		return ts.Explore(ctx, sys, opt)
	case algoDFSStateful:
		return ts.ExploreStateful(ctx, sys, opt)
	case algoSleep:
		return por.Sleep(ctx, sys, por.Options{Options: opt})
	case algoDPOR:
		return por.DPOR(ctx, sys, por.Options{Options: opt})
	case algoODPOR:
		return por.ODPOR(ctx, sys, por.Options{Options: opt})
	case algoSDPOR:
		return por.SDPOR(ctx, sys, por.Options{Options: opt})
	case algoICB:
		return cbound.ICB(ctx, sys, cb(false))
	case algoSyncOnly:
		return cbound.ICB(ctx, sys, cb(true))
	case algoCBDFS:
		return cbound.DFS(ctx, sys, cb(false))
	case algoCBPOR1:
		return cbound.HBSearch(ctx, sys, cb(false))
	case algoCBPOR2:
		return cbound.POR(ctx, sys, cb(false))
	case algoICBPOR:
		return cbound.IterativePOR(ctx, sys, cb(false))
	case algoCPC:
		return transact.Explore(ctx, sys, transact.Options{Options: opt, Proviso: transact.CPC})
	case algoCycle:
		return transact.Explore(ctx, sys, transact.Options{Options: opt, Proviso: transact.Cycle})
	case algoUnsound:
		return transact.Explore(ctx, sys, transact.Options{Options: opt, Proviso: transact.None})
	case algoSym:
		return symmetry.Explore(ctx, sys, symmetry.Options{Options: opt})
	case algoSymPOR:
		return symmetry.DPOR(ctx, sys, symmetry.Options{Options: opt})
	case algoMAT:
		return mat.Explore(ctx, sys, mat.Options{Options: opt})
	case algoRandom, algoPCT, algoURW:
		ro := random.Options{Options: opt, Runs: s.sample.runs, Seed: s.sample.seed}
		switch s.algo {
		case algoRandom:
			return random.Walk(ctx, sys, ro)
		case algoPCT:
			ro.Depth = s.sample.depth
			return random.PCT(ctx, sys, ro)
		}
		return random.URW(ctx, sys, ro)
	}
	return ts.Result{Bound: ts.NoBound}, fmt.Errorf("%w: strategy %v", ts.ErrBadOptions, s.algo)
}

// runView runs the algorithm of s on the transaction view of sys and
// reports violations and terminal states with sys's own schedules.
func runView[S any](ctx context.Context, sys ts.TransitionSystem[S], s Strategy, opt ts.Options) (ts.Result, error) {
	// The count at the start, asked again at the end as every search does,
	// so that a count that changes in between shows.
	n, err := search.ThreadCount(sys)
	if err != nil {
		return ts.Result{Bound: ts.NoBound}, err
	}
	// Infer the movers here rather than in NewView, so that the pass keeps
	// to opt's limits and counts in the result, as transact.Explore's does.
	viewed := sys
	var inferred int64
	if _, ok := sys.(transact.Movers[S]); !ok {
		d, err := transact.Infer(ctx, sys, transact.InferOptions{Limits: opt.Limits})
		if d != nil {
			inferred = d.Transitions
		}
		// The pass reports its progress to transact.Explore only; report
		// its work once here, so that a long pass is not silent.
		if opt.Progress != nil && (err == nil || errors.Is(err, transact.ErrInferLimit)) {
			if cbErr := search.Protect(func() {
				search.Callback("Progress", func() { opt.Progress(ts.Result{Bound: ts.NoBound, Transitions: inferred}) })
			}); cbErr != nil {
				return ts.Result{Bound: ts.NoBound, Transitions: inferred}, cbErr
			}
		}
		if errors.Is(err, transact.ErrInferLimit) {
			// A limit: an incomplete result with nothing explored yet.
			return ts.Result{Bound: ts.NoBound, Transitions: inferred, Finds: ts.FindsOf(opt).Without(ts.Deadlock)}, nil
		}
		if err != nil {
			return ts.Result{Bound: ts.NoBound, Transitions: inferred}, err
		}
		viewed = transact.WithMovers(sys, func(s S, t ts.Tid) transact.Mover {
			step, st := sys.Next(s, t)
			return d.Mover(step, st)
		})
	}
	v, err := transact.NewView(ctx, viewed, transact.ViewOptions{})
	if err != nil {
		return ts.Result{Bound: ts.NoBound, Transitions: inferred}, err
	}
	// original turns a violation of the view into one of sys: the same kind
	// and error, with the expanded schedule's trace, replayed on sys. A
	// panic while expanding (the view's panic violation, met again as its
	// transaction is rerun) leaves the schedule to the panicking move, whose
	// replay reports it on sys.
	var fail error
	original := func(vv *ts.Violation) *ts.Violation {
		sched, err := v.Expand(vv.Trace.Schedule())
		var pe *ts.PanicError
		if err == nil || errors.As(err, &pe) {
			var run ts.Run[S]
			run, err = ts.ReplayWith(sys, sched, opt)
			if err == nil {
				out := *vv
				out.Trace = run.Trace
				if run.Violation != nil {
					out = *run.Violation
				}
				return &out
			}
		}
		if fail == nil {
			fail = fmt.Errorf("weft: the view's schedule %v does not replay on the system: %w", vv.Trace.Schedule().Short(16), err)
		}
		return vv
	}
	inner := opt
	if inner.Limits.Transitions > 0 {
		inner.Limits.Transitions = max(inner.Limits.Transitions-inferred, 1)
	}
	if opt.OnViolation != nil {
		inner.OnViolation = func(vv *ts.Violation) { opt.OnViolation(original(vv)) }
	}
	if opt.OnTerminal != nil {
		inner.OnTerminal = func(state any, sched ts.Schedule) {
			full, err := v.Expand(sched)
			if err != nil {
				if fail == nil {
					fail = err
				}
				return
			}
			opt.OnTerminal(state, full)
		}
	}
	res, err := run[S](ctx, v, Strategy{algo: s.algo, bound: s.bound}, inner)
	res.Transitions += inferred
	if res.Violation != nil {
		res.Violation = original(res.Violation)
	}
	// Lipton's reduction as the view applies it promises failed checks, not
	// every deadlock.
	res.Finds = res.Finds.Without(ts.Deadlock)
	// The inner search names the schedule of a broken contract in the
	// view's moves; the caller replays sys's.
	var se *ts.SystemError
	if errors.As(err, &se) && len(se.Schedule) > 0 {
		if full, xErr := v.Expand(se.Schedule); xErr == nil {
			se.Schedule = full
		} else {
			se.Detail += " (the schedule is the transaction view's: one move per transaction)"
		}
	}
	if fail != nil {
		err = errors.Join(err, fail)
	}
	// The inner search may have started with a changed count, and then
	// kept it: only the first one shows the change.
	if tErr := search.ThreadsStill(sys, n); tErr != nil {
		err = errors.Join(err, tErr)
	}
	return res, err
}

// invariantReads returns inv's read set, or nil if InvariantReads panics
// (the search reports that panic, with its context).
func invariantReads[S any](inv ts.Invariant[S]) (reads []ts.Obj) {
	defer func() { _ = recover() }()
	return inv.InvariantReads()
}

// splits reports whether algorithm a splits its search over
// ts.Options.Workers goroutines.
func splits(a algo) bool {
	switch a {
	case algoSleep, algoDPOR, algoODPOR, algoDFSStateful:
		return true
	}
	return false
}
