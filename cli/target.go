package cli

import (
	"context"
	"fmt"

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
)

// Target is one system of a catalog built for one N, with its state type
// hidden, for programs that drive a search themselves: a runner that
// explores the units of a search on other machines (por.Options.Runner)
// finds the system by name on each of them with [Lookup].
type Target struct {
	name string
	inst instance
}

// Lookup builds the system a command-line model name names ("lastzero-12",
// or "locks3" for a model without a parameter) among systems, or among
// weft's bundled models when none are given.
func Lookup(name string, systems ...System) (Target, error) {
	if len(systems) == 0 {
		systems = Bundled()
	}
	m, n, err := lookup(systems, name)
	if err != nil {
		return Target{}, err
	}
	return Target{name: m.displayName(n), inst: m.build(n)}, nil
}

// Name returns the target's model name, with its N.
func (t Target) Name() string { return t.name }

// Threads returns the system's thread count.
func (t Target) Threads() int { return t.inst.threads() }

// Search runs a search of package por, "sleep", "dpor" or "odpor" (the
// strategies that split into units), on the target.
func (t Target) Search(ctx context.Context, strategy string, opt por.Options) (ts.Result, error) {
	if t.inst == nil {
		return ts.Result{}, fmt.Errorf("%w: the zero Target (use Lookup)", ts.ErrBadOptions)
	}
	return t.inst.porSearch(ctx, strategy, opt)
}

// ExploreUnit explores a unit of a search of the target
// (por.ExploreUnit).
func (t Target) ExploreUnit(ctx context.Context, u por.Unit) (por.UnitResult, error) {
	if t.inst == nil {
		return nil, fmt.Errorf("%w: the zero Target (use Lookup)", ts.ErrBadOptions)
	}
	return t.inst.exploreUnit(ctx, u)
}

func (m typed[S]) porSearch(ctx context.Context, strategy string, opt por.Options) (ts.Result, error) {
	switch strategy {
	case "sleep":
		return por.Sleep(ctx, m.sys, opt)
	case "dpor":
		return por.DPOR(ctx, m.sys, opt)
	case "odpor":
		return por.ODPOR(ctx, m.sys, opt)
	}
	return ts.Result{}, fmt.Errorf("%w: strategy %q does not split into units: sleep, dpor or odpor", ts.ErrBadOptions, strategy)
}

func (m typed[S]) exploreUnit(ctx context.Context, u por.Unit) (por.UnitResult, error) {
	return por.ExploreUnit(ctx, m.sys, u)
}
