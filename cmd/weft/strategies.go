package main

import (
	"context"
	"fmt"
	"io"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/mat"
	"github.com/weftlab/weft/ts"
)

// strategy is a search the command can run.
type strategy struct {
	name    string
	summary string
	bounded bool // honours -bound
	hashed  bool // needs the model to implement ts.Hasher
	cycles  bool // terminates on cyclic models (stores states or caches work items)
}

var strategies = []strategy{
	{name: "dfs", summary: "every interleaving, depth first, no reduction and no caching (ts.Explore, the reference)"},
	{name: "dfs-stateful", summary: "depth first with a table of visited states (ts.ExploreStateful); handles cyclic models", hashed: true, cycles: true},
	{name: "icb", summary: "iterative context bounding: 0 preemptions, then 1, ...; the first bug has the fewest (cbound.ICB)", bounded: true, cycles: true},
	{name: "mat", summary: "mutually atomic transactions: one schedule per Mazurkiewicz class for two straight-line threads (mat.Explore); prints the MATs"},
	{name: "cb-dfs", summary: "depth-first search pruned above the preemption bound, no reduction: the baseline (cbound.DFS)", bounded: true},
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
// command line gives none.
const defaultBound = 2

func (c config) cbound() cbound.Options {
	b := c.bound
	if b < 0 {
		b = defaultBound
	}
	return cbound.Options{Options: c.opt, Bound: b, SyncOnly: c.syncOnly}
}

// explore runs the named strategy on sys. It is generic so that each model
// keeps its own state type; the catalog instantiates it per model.
func explore[S any](ctx context.Context, sys ts.TransitionSystem[S], cfg config) (ts.Result, error) {
	switch cfg.strategy {
	case "dfs":
		return ts.Explore(ctx, sys, cfg.opt)
	case "dfs-stateful":
		return ts.ExploreStateful(ctx, sys, cfg.opt)
	case "icb":
		return cbound.ICB(ctx, sys, cfg.cbound())
	case "cb-dfs":
		return cbound.DFS(ctx, sys, cfg.cbound())
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
	}
	return ""
}
