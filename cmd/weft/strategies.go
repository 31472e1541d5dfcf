package main

import (
	"context"
	"fmt"
	"io"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/mat"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/symmetry"
	"github.com/weftlab/weft/transact"
	"github.com/weftlab/weft/ts"
)

// strategy is a search the command can run.
type strategy struct {
	name    string
	summary string
	bounded bool // honours -bound
	hashed  bool // needs the model to implement ts.Hasher
	cycles  bool // terminates on cyclic models (stores states or caches work items)
	// traces: one execution per Mazurkiewicz trace (terminal happens-before
	// class), so that a clean run is a count of distinct partial orders.
	traces bool
	// whole: takes the whole model (steps of several objects, outcomes,
	// idle threads, invariants); the others refuse what goes beyond one
	// object per step with one outcome.
	whole bool
}

var strategies = []strategy{
	{name: "dfs", summary: "every interleaving, depth first, no reduction and no caching (ts.Explore, the reference)", whole: true},
	{name: "dfs-stateful", summary: "depth first with a table of visited states (ts.ExploreStateful); handles cyclic models", hashed: true, cycles: true, whole: true},
	{name: "sleep", summary: "depth-first search with sleep sets (por.Sleep)", whole: true},
	{name: "dpor", summary: "dynamic partial-order reduction with vector clocks and sleep sets (por.DPOR)", whole: true},
	{name: "odpor", summary: "optimal DPOR: source sets and wakeup trees, one execution per Mazurkiewicz trace (por.ODPOR)", traces: true, whole: true},
	{name: "sdpor", summary: "stateful DPOR: visited states with the dependency-graph summary; acyclic models (por.SDPOR)", hashed: true, whole: true},
	{name: "icb", summary: "iterative context bounding: 0 preemptions, then 1, ...; the first bug has the fewest (cbound.ICB)", bounded: true, cycles: true, whole: true},
	{name: "cb-por1", summary: "context-bounded POR, Algorithm 1: every happens-before state with CB <= C once (cbound.HBSearch)", bounded: true, whole: true},
	{name: "cb-por2", summary: "context-bounded POR, Algorithm 2: every terminal HB class with CB <= C once (cbound.POR)", bounded: true, traces: true, whole: true},
	{name: "icb-por", summary: "cb-por2 at bounds 0, 1, ..., C: one execution per HB class, the first bug with the fewest preemptions (cbound.IterativePOR)", bounded: true, traces: true, whole: true},
	{name: "cpc", summary: "transactions with commit point completion against the ignoring problem; movers declared or inferred (transact)", hashed: true, cycles: true},
	{name: "cycle", summary: "transactions with cycle detection and the dead-end rule (transact)", hashed: true, cycles: true},
	{name: "unsound", summary: "transactions with no proviso: UNSOUND, misses bugs; for comparison only (transact)", hashed: true, cycles: true},
	{name: "sym", summary: "stateful search storing one state per symmetry orbit; models that declare a canonical form (symmetry.Explore)", hashed: true, cycles: true, whole: true},
	{name: "sympor", summary: "DPOR exploring one of each set of interchangeable threads; models that give thread signatures (symmetry.DPOR)"},
	{name: "mat", summary: "mutually atomic transactions: one schedule per Mazurkiewicz class for two straight-line threads (mat.Explore); prints the MATs"},
	{name: "cb-dfs", summary: "depth-first search pruned above the preemption bound, no reduction: the baseline (cbound.DFS)", bounded: true, whole: true},
}

func findStrategy(name string) (strategy, bool) {
	for _, s := range strategies {
		if s.name == name {
			return s, true
		}
	}
	return strategy{}, false
}

// config is what the command line asks of one search.
type config struct {
	strategy string
	bound    int // -1: none
	syncOnly bool
	opt      ts.Options
	report   io.Writer // where a strategy prints what it computed first (mat's pairs), or nil
}

// defaultBound is the preemption bound of the bounded strategies when the
// command line gives none: cbound's.
const defaultBound = cbound.DefaultBound

func (c config) cbound() cbound.Options {
	b := c.bound
	if b < 0 {
		b = defaultBound
	}
	return cbound.Options{Options: c.opt, Bound: cbound.AtMost(b), SyncOnly: c.syncOnly}
}

// explore runs the named strategy on sys. It is generic so that each model
// keeps its own state type; the catalog instantiates it per model.
func explore[S any](ctx context.Context, sys ts.TransitionSystem[S], cfg config) (ts.Result, error) {
	switch cfg.strategy {
	case "dfs":
		return ts.Explore(ctx, sys, cfg.opt)
	case "dfs-stateful":
		return ts.ExploreStateful(ctx, sys, cfg.opt)
	case "sleep":
		return por.Sleep(ctx, sys, por.Options{Options: cfg.opt})
	case "dpor":
		return por.DPOR(ctx, sys, por.Options{Options: cfg.opt})
	case "odpor":
		return por.ODPOR(ctx, sys, por.Options{Options: cfg.opt})
	case "sdpor":
		return por.SDPOR(ctx, sys, por.Options{Options: cfg.opt})
	case "icb":
		return cbound.ICB(ctx, sys, cfg.cbound())
	case "cb-dfs":
		return cbound.DFS(ctx, sys, cfg.cbound())
	case "cb-por1":
		return cbound.HBSearch(ctx, sys, cfg.cbound())
	case "cb-por2":
		return cbound.POR(ctx, sys, cfg.cbound())
	case "icb-por":
		return cbound.IterativePOR(ctx, sys, cfg.cbound())
	case "cpc":
		return transact.Explore(ctx, sys, transact.Options{Options: cfg.opt, Proviso: transact.CPC})
	case "cycle":
		return transact.Explore(ctx, sys, transact.Options{Options: cfg.opt, Proviso: transact.Cycle})
	case "unsound":
		return transact.Explore(ctx, sys, transact.Options{Options: cfg.opt, Proviso: transact.None})
	case "sym":
		return symmetry.Explore(ctx, sys, symmetry.Options{Options: cfg.opt})
	case "sympor":
		return symmetry.DPOR(ctx, sys, symmetry.Options{Options: cfg.opt})
	case "mat":
		if cfg.report != nil {
			threads, err := mat.Unroll(sys, cfg.opt.Limits)
			if err != nil {
				return ts.Result{}, err
			}
			names, _ := sys.(ts.ObjNamer)
			fmt.Fprint(cfg.report, mat.Analyze(threads).Report(names))
		}
		return mat.Explore(ctx, sys, mat.Options{Options: cfg.opt})
	}
	return ts.Result{}, fmt.Errorf("strategy %q is not wired into the command", cfg.strategy)
}

// unfit says why strategy s cannot run on a model, or "".
func unfit(s strategy, info models.Info, inst instance) string {
	switch {
	case s.hashed && !inst.hashed():
		return "needs a model that implements Hash"
	case info.Cyclic && !s.cycles:
		return "does not terminate on a cyclic model"
	case info.Cyclic && s.name == "icb" && !inst.hashed():
		return "needs Hash on a cyclic model"
	case info.Cyclic && s.name == "mat":
		return "needs straight-line threads"
	case info.Extended && !s.whole:
		return "needs the basic model (one object per step, one outcome)"
	case s.name == "sym" && !inst.symmetric(false):
		return "needs a model that declares its symmetry (a canonical form)"
	case s.name == "sympor" && !inst.symmetric(true):
		return "needs a model that gives thread signatures"
	}
	return ""
}
