package ts

import (
	"fmt"
	"time"
)

// DefaultMaxDepth is the execution length at which a search stops with
// [ErrDepth] when Limits.Depth is zero. It keeps a system that never
// terminates from hanging a stateless search.
const DefaultMaxDepth = 10_000

// Limits bound the work of a search. A zero field means no limit, except
// Depth, whose zero value means [DefaultMaxDepth].
type Limits struct {
	// Transitions caps the transitions applied. When reached, the search
	// returns with Complete false and no error.
	Transitions int64
	// Executions caps the complete executions explored. When reached, the
	// search returns with Complete false and no error.
	Executions int64
	// Depth caps the length of one execution. An execution that would be
	// longer is a defect of the system (it does not terminate) and the search
	// returns an error wrapping [ErrDepth] with the schedule that shows it.
	Depth int
	// Memory caps, in bytes, what a search keeps: its stacks, visited
	// tables, queues, caches and memo tables, the sets a sampler counts
	// distinct runs with, and in a search with Workers above 1 what every
	// goroutine keeps (the system's own states are counted by the size the
	// strategy can see, not by what they point to). When a search would
	// pass it, it returns its partial result with an error wrapping
	// [ErrMemory] that says how many bytes it kept, of what, and the
	// budget. What a search keeps is its own estimate (a Go map's entry,
	// for one, at the most it takes), checked every few thousand
	// transitions and within the steps that store without a transition;
	// the process's heap also holds garbage not yet collected. Zero means
	// DefaultMemory; negative means no cap.
	Memory int64
}

// DefaultMemory is the memory cap of a search whose Limits.Memory is zero.
const DefaultMemory int64 = 4 << 30

// MaxMemory returns the memory cap in force in bytes, or -1 for none.
func (l Limits) MaxMemory() int64 {
	switch {
	case l.Memory == 0:
		return DefaultMemory
	case l.Memory < 0:
		return -1
	}
	return l.Memory
}

// MaxDepth returns the depth limit in force: Depth, or DefaultMaxDepth.
func (l Limits) MaxDepth() int {
	if l.Depth == 0 {
		return DefaultMaxDepth
	}
	return l.Depth
}

// Options are the options every strategy accepts. Strategy packages embed
// them in their own Options. The zero value explores until the first
// violation with no limit but the default depth.
type Options struct {
	Limits Limits

	// IgnoreDeadlocks makes every state where no thread is enabled a normal
	// ending, as TLC's CHECK_DEADLOCK FALSE does: no Deadlock violation is
	// reported. (To allow only some threads to wait forever, report them
	// Idle.)
	IgnoreDeadlocks bool

	// KeepGoing explores past violations: the search does not go on from a
	// violating state, but it goes on with the rest of the space. Result
	// holds the first violation found and the count of all of them.
	KeepGoing bool

	// OnTerminal, if set, is called for each terminal state reached (a state
	// where no thread is enabled, deadlocks included) that passes its checks, with
	// the state, boxed, and the schedule that reached it. A state that fails
	// Check is a violation (OnViolation), not a terminal: whether a
	// thread-local assertion fails at the last step or earlier depends on
	// the interleaving, so only violations are comparable across searches.
	// The schedule is only valid during the call: copy it to keep it.
	// Stateful searches call it once per distinct terminal state.
	OnTerminal func(state any, schedule Schedule)

	// OnViolation, if set, is called for each violation found.
	OnViolation func(v *Violation)

	// Progress, if set, is called about every ProgressEvery (default one
	// second, at least a millisecond) with the figures so far. It runs on
	// the searching goroutine: keep it short.
	Progress      func(Result)
	ProgressEvery time.Duration

	// Workers is how many goroutines explore at once, for the strategies
	// that can split their search (por.Sleep, por.DPOR, por.ODPOR and
	// ExploreStateful); 0 and 1 keep the whole search on the caller's
	// goroutine. The result does not depend on it: the same executions,
	// transitions, terminal states and violations, in the same order, as
	// the search on one goroutine. Callbacks (OnTerminal, OnViolation,
	// Progress) are still called from the caller's goroutine, one at a
	// time. Strategies that cannot split refuse a count above 1. Workers
	// above 1 needs the system's methods to be safe to call concurrently
	// on different states, as pure functions of the state are, or a system
	// that implements Forker (see the package documentation, "Parallel
	// search"). ExploreStateful measures at its start whether its workers
	// pay, and where they do not goes on on the caller's goroutine alone.
	// The por strategies explore on at most as many goroutines as
	// GOMAXPROCS (but 2 at least): their search's own goroutine orders
	// every unit's result, and more explorers than cores only slow it
	// (Result.Stats["parallel-workers"] says how many explored).
	Workers int

	// probe, in tests, changes when the workers start and how it is
	// decided whether they stay (see parallel.go).
	probe *probeSettings
}

// Validate reports whether the options are usable. Strategies call it before
// they start; the error wraps [ErrBadOptions].
func (o Options) Validate() error {
	switch {
	case o.Limits.Transitions < 0:
		return fmt.Errorf("%w: negative transition limit %d", ErrBadOptions, o.Limits.Transitions)
	case o.Limits.Executions < 0:
		return fmt.Errorf("%w: negative execution limit %d", ErrBadOptions, o.Limits.Executions)
	case o.Limits.Depth < 0:
		return fmt.Errorf("%w: negative depth limit %d", ErrBadOptions, o.Limits.Depth)
	case o.ProgressEvery < 0:
		return fmt.Errorf("%w: negative progress interval %v", ErrBadOptions, o.ProgressEvery)
	case o.Workers < 0:
		return fmt.Errorf("%w: negative worker count %d", ErrBadOptions, o.Workers)
	}
	return nil
}
