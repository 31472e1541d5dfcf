package por

import (
	"errors"
	"fmt"
	"time"

	"github.com/weftlab/weft/ts"
)

// ErrCyclic is wrapped by the error SDPOR returns when it meets a state that
// is on its own search stack: the state space has a cycle, and stateful
// dynamic partial-order reduction (thesis chapter 4) is only sound on acyclic
// state spaces. Use ts.ExploreStateful, or a strategy that handles cycles.
var ErrCyclic = errors.New("por: the state space has a cycle; stateful DPOR needs an acyclic one")

// Options configure every strategy of package por. The zero value explores
// the whole space up to the first violation, with the default depth limit.
// Options.Workers above 1 splits Sleep, DPOR and ODPOR over that many
// goroutines (see the package documentation); SDPOR refuses it.
type Options struct {
	ts.Options

	// SplitDepth is, for a search with several workers, the length of the
	// schedule prefixes at which it splits into units (see the package
	// documentation). 0 means 8 for ODPOR, 12 for DPOR and 4 for Sleep
	// (the depths that did best on the bundled models), but no deeper than
	// half the longest execution met before the split, and one frame
	// higher whenever the units taken are too small to repay their cost
	// (16 in a row of fewer than 200 transitions on average). Shallower
	// splits give fewer, larger units; deeper ones more, smaller units.
	// The result does not depend on it.
	SplitDepth int

	// SplitAfter is how many transitions a search with several workers
	// explores on the caller's goroutine alone before it splits: handing
	// units out has a cost that a small search does not repay, and the
	// split depth is chosen from the executions seen by then. If it is
	// deeper than the split depth then, it finishes the subtree it is in
	// alone while the workers explore the units after it, so that its
	// first units are whole subtrees. 0 means 1,000; a negative count
	// splits from the start.
	SplitAfter int64

	// Runner, if set, explores the units of Sleep, DPOR and ODPOR
	// elsewhere (other processes, machines, a distributed engine): the
	// search splits as it does with several workers, but hands the units to
	// Runner in batches instead of to goroutines (see the package
	// documentation, "Units explored elsewhere"). The result does not
	// depend on it. Workers must then be 0 or 1.
	Runner UnitRunner

	// UnitTransitions, if positive, splits a unit further when exploring
	// it passes that many transitions, so that a few large units do not
	// leave the other workers (or a runner's rounds) waiting at the end.
	// An ODPOR unit is handed back where the branch it is in ends, with
	// what it explored, and the search hands out the rest of it as units
	// (ODPOR does so without it too, whenever a goroutine has nothing to
	// explore; see the package documentation, "Units too large"). A DPOR or
	// Sleep unit is dropped and its subtree becomes part of the top of the
	// search, with units 4 frames deeper (and so on down); the transitions
	// spent finding it large are wasted. 0: only ODPOR's own rule. The
	// result does not depend on it.
	UnitTransitions int64

	// EveryRace is ignored: ODPOR analyses every race of every execution,
	// as the paper's algorithm does (see ODPOR, "Races of the shared
	// prefix"). It once made ODPOR do so instead of a shortcut that missed
	// traces.
	//
	// Deprecated: every race is always analysed.
	EveryRace bool

	// inline makes a parallel search explore every unit on the caller's
	// goroutine, for tests of the units alone.
	inline bool

	// checkKeys, in tests, makes a parallel ODPOR search write again each
	// unit key a predictor wrote from an earlier one's bytes, and count in
	// Stats those that differ (parallel-stale-keys) and those reused
	// (parallel-reused-keys).
	checkKeys bool

	// handBackAt, in tests, makes an ODPOR unit's worker hand back what is
	// left of the unit at the first branch of its root it would start after
	// that many transitions (see handBack), whether or not a goroutine has
	// nothing to explore.
	handBackAt int64

	// eagerClone, in tests, makes a predictor copy every unit's wakeup
	// subtree, as it did before it wrote them down and decoded one only
	// where it reads it (materialize).
	eagerClone bool

	// checkRevisits, in tests, makes SDPOR check its revisit records (see
	// revisitCheck).
	checkRevisits *revisitCheck

	// checkSleep, in tests, makes ODPOR check the sleep-set verdicts it
	// reaches without building the sequences (see sleepCheck).
	checkSleep *sleepCheck

	// checkDescent, in tests, makes ODPOR check each record of a descent
	// it starts below against a descent from the root (see descentCheck).
	checkDescent *descentCheck
	// noDescents, in tests, makes ODPOR keep no record of descents.
	noDescents bool
	// chainMin, in tests and when not 0, replaces ODPOR's chainMin: -1
	// has every insertion read the execution's chains, math.MaxInt none.
	chainMin int
	// cutBudget, in tests and when positive, replaces ODPOR's cutBudget.
	cutBudget int
	// insertTimes, in tests, makes a serial ODPOR search add the time of
	// each insertion into a frame's wakeup tree to the entry of the
	// frame's depth (grown as needed): a parallel search's coordinator
	// makes the insertions into the frames above the split depth itself,
	// in order, so that their share of a serial search's time bounds what
	// splitting can gain (TestParallelTrace).
	insertTimes *[]time.Duration
}

func (o Options) validate() error {
	if o.SplitDepth < 0 {
		return fmt.Errorf("%w: negative SplitDepth %d", ts.ErrBadOptions, o.SplitDepth)
	}
	if o.UnitTransitions < 0 {
		return fmt.Errorf("%w: negative UnitTransitions %d", ts.ErrBadOptions, o.UnitTransitions)
	}
	if o.Runner != nil && o.Workers > 1 {
		return fmt.Errorf("%w: a Runner explores the units: Workers must be 0 or 1, not %d", ts.ErrBadOptions, o.Workers)
	}
	return o.Options.Validate()
}
