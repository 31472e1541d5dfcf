package cbound

import (
	"fmt"

	"github.com/weftlab/weft/ts"
)

// Unbounded as Options.Bound lets a search raise the bound until no work is
// left.
const Unbounded = -1

// Options configure the context-bounded searches. The zero value explores the
// non-preemptive schedules (bound 0) with a cache of work items when the
// system implements ts.Hasher.
type Options struct {
	ts.Options

	// Bound is the largest number of preemptions an explored execution may
	// have, or Unbounded.
	Bound int

	// SyncOnly places scheduling points only before synchronization steps
	// (Step.IsSync) and checks every explored execution for data races
	// (ICB paper, section 3.1). ICB only.
	SyncOnly bool

	// NoCache turns the cache of visited (state, thread) work items off even
	// when the system implements ts.Hasher. ICB only.
	NoCache bool

	// MemoCost caps the memory of the cache that keeps CB values and the
	// enabled sets of replayed prefixes across a search (HBSearch and POR),
	// in bytes: 0 picks DefaultMemoCost (64 MiB), a negative value turns the
	// cache off. It is a cache: what it drops is recomputed, so the budget
	// changes the time a search takes, never what it finds.
	MemoCost int64

	eagerCache bool // tests: start the memo cache before the search needs it
	timeMark   bool // benchmarks: time the Mark calls (Stats["mark.nanos"])
}

func (o Options) validate() error {
	if err := o.Options.Validate(); err != nil {
		return err
	}
	if o.Bound < Unbounded {
		return fmt.Errorf("%w: negative preemption bound %d (use cbound.Unbounded for none)", ts.ErrBadOptions, o.Bound)
	}
	return nil
}
