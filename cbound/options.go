package cbound

import (
	"fmt"

	"github.com/weftlab/weft/internal/search"
	"github.com/weftlab/weft/ts"
)

// Values of Options.Bound besides a positive bound.
const (
	// Unbounded as Options.Bound lets a search raise the bound until no work
	// is left.
	Unbounded = -1
	// NoPreemption as Options.Bound explores only the schedules without
	// preemptions (bound 0).
	NoPreemption = -2
)

// DefaultBound is the preemption bound of Options whose Bound is zero: the
// bugs of the ICB paper's study (Table 2) all need at most 3 preemptions,
// and most need 2 or fewer.
const DefaultBound = 2

// AtMost returns the Options.Bound that allows at most c preemptions: c, or
// NoPreemption for 0 (a zero Bound means DefaultBound). A negative c means
// Unbounded.
func AtMost(c int) int {
	switch {
	case c < 0:
		return Unbounded
	case c == 0:
		return NoPreemption
	}
	return c
}

// Options configure the context-bounded searches. The zero value explores the
// schedules with at most DefaultBound preemptions, with a cache of work items
// when the system implements ts.Hasher.
type Options struct {
	ts.Options

	// Bound is the largest number of preemptions an explored execution may
	// have: 0 means DefaultBound, NoPreemption means none (bound 0), and
	// Unbounded means no bound. AtMost(c) gives the value for a bound c
	// computed at run time.
	Bound int

	// SyncOnly places scheduling points only before steps on
	// synchronization objects and checks every explored execution for data
	// races (ICB paper, section 3.1; see the package documentation for the
	// exact rules and what it preserves). ICB only.
	SyncOnly bool

	// NoCache turns the cache of visited (state, thread) work items off even
	// when the system implements ts.Hasher. ICB only.
	NoCache bool

	// MemoCost caps the memory of the cache that keeps CB values and the
	// enabled sets of replayed prefixes across a search (HBSearch and POR),
	// in bytes: 0 picks DefaultMemoCost (64 MiB), a negative value turns the
	// cache off (its tables still take some 12 KiB, the least they take at
	// any budget). It is a cache: what it drops is recomputed, so the budget
	// changes the time a search takes, never what it finds. IterativePOR's
	// searches share one. The cache drops entries only between operations
	// (a CB query, a Mark), so one operation may keep more than MemoCost;
	// Limits.Memory, which counts the cache too, stops the search then.
	MemoCost int64

	eagerCache  bool // tests: start the memo cache before the search needs it
	auditDerive bool // tests: replay every enabled status derived from the stack, and compare
	// shared, when set (IterativePOR), holds the CB memo the searches of
	// successive bounds share: its values do not depend on the bound.
	shared   *sharedMemo
	timeMark bool // benchmarks: time the Mark calls (Stats["mark.nanos"])
	// incremental: IterativePOR's search of bounds 0..Bound, each from the
	// table the lower ones left (iterative.go)
	incremental bool
	// redo: tests, IterativePOR as it was before the incremental search:
	// POR at each bound afresh, sharing only the memo
	redo bool
}

func (o Options) validate() error {
	if err := o.Options.Validate(); err != nil {
		return err
	}
	if err := search.OneWorker(&o.Options, "cbound"); err != nil {
		return err
	}
	if o.Bound < NoPreemption {
		return fmt.Errorf("%w: preemption bound %d (use a positive bound, cbound.NoPreemption for bound 0, or cbound.Unbounded)", ts.ErrBadOptions, o.Bound)
	}
	return nil
}

// resolved returns o with Bound as the searches read it: the number of
// preemptions allowed (0 for NoPreemption, DefaultBound for 0), or
// Unbounded. Entry points resolve once, after validate; code below them
// reads Bound as a plain count.
func (o Options) resolved() Options {
	switch o.Bound {
	case 0:
		o.Bound = DefaultBound
	case NoPreemption:
		o.Bound = 0
	}
	return o
}

// sharedMemo is a memo made by the first search that uses it, its values
// clamped at clamp.
type sharedMemo struct {
	m     *memo
	clamp int32
}
