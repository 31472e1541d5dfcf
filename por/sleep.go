package por

import (
	"context"

	"github.com/weftlab/weft/ts"
)

// Sleep is a depth-first search of every interleaving pruned by sleep sets
// (Godefroid, "Partial-order methods for the verification of concurrent
// systems", LNCS 1032, chapter 5).
//
// Invariant: a thread is asleep at a state when its next transition has been
// explored from an earlier state of the current execution (or from an
// earlier sibling of this one) and every transition taken since is
// independent of it. Exploring it again would only reach, in another order,
// states already reached; it wakes up as soon as a dependent transition is
// taken. A thread asleep is enabled (independent steps do not disable each
// other), so a blocked thread never sleeps; the step that enables a blocked
// thread is dependent with the blocked step, so it wakes nothing wrongly.
//
// Sleep sets alone reach every reachable state of an acyclic system, so the
// search reaches every terminal state, deadlock and violation that
// ts.Explore reaches. It explores at most the executions of ts.Explore: an
// execution where every enabled thread is asleep ends early and is not
// counted (Result.Stats["sleep-blocked"] counts them).
func Sleep[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options) (ts.Result, error) {
	return run(ctx, sys, opt, modeSleep)
}
