package symmetry

import (
	"context"

	"github.com/weftlab/weft/ts"
)

// Explore is state-caching search with declared symmetry (strategy name
// "sym"): the depth-first search of ts.ExploreStateful on [Orbits], which
// stores the canonical hash of every state and does not go on from a state
// whose orbit it has visited. It needs the system to implement ts.Hasher and
// [Canonicalizer].
//
// Invariant: every state of the current execution is a real state of the
// system, reached by a schedule of real thread ids; a state is cut only when
// a state of its orbit was pushed before, and the future of that state is the
// future of this one with threads renamed. So the search reaches every
// terminal state, deadlock and failed check of the system up to a renaming of
// threads in the symmetry group, and every violation it reports comes with a
// schedule of the original system (replayed by ts.Confirm before it is
// reported). Nothing has to be mapped back: the canonical form is used only
// as the key of the visited table.
//
// Result.States counts the orbits visited; Options.OnTerminal is called once
// per orbit of terminal states, with one real state of it. Limits, the depth
// limit, cancellation and panics in user code are handled as by
// ts.ExploreStateful (a panic in Canonical is reported as a panic with the
// schedule that reached the state).
func Explore[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options) (ts.Result, error) {
	res := ts.Result{Bound: ts.NoBound}
	if err := opt.validate(); err != nil {
		return res, err
	}
	o, err := NewOrbits(sys)
	if err != nil {
		return res, err
	}
	res, err = ts.ExploreStateful[S](ctx, o, opt.Options)
	if res.Stats == nil {
		res.Stats = map[string]int64{}
	}
	res.Stats["orbits"] = res.States
	return res, err
}
