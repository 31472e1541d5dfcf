package transact

import (
	"fmt"

	"github.com/weftlab/weft/internal/search"
	"github.com/weftlab/weft/ts"
)

// Proviso is how a transaction-based search deals with the ignoring problem:
// a transaction that commits and never completes would otherwise keep every
// other thread from running after its commit.
type Proviso uint8

const (
	// CPC is commit point completion, Figure 6 of the paper: a state of a
	// committed transaction from which the search found no path to a state
	// where all threads run is, when popped, made such a state itself. Sound
	// for assertion failures.
	CPC Proviso = iota
	// Cycle is cycle detection with the dead-end rule: all threads run at a
	// post-commit state whose transition closes a cycle on the search stack,
	// and at a post-commit state from which its thread has no transition.
	// Sound for assertion failures.
	Cycle
	// None is the reduction of Figure 5, which ignores the ignoring problem:
	// other threads run only where a transaction ends. It is UNSOUND: it
	// misses assertion failures that need another thread to run after a
	// commit whose transaction never ends. For comparison only.
	None
)

var provisoNames = [...]string{CPC: "cpc", Cycle: "cycle", None: "unsound"}

// String returns the strategy name of the proviso: "cpc", "cycle" or
// "unsound".
func (p Proviso) String() string {
	if int(p) < len(provisoNames) {
		return provisoNames[p]
	}
	return fmt.Sprintf("Proviso(%d)", uint8(p))
}

// Options configure Explore. The zero value is commit point completion
// without the L19 refinement, movers declared or inferred, no limits.
type Options struct {
	ts.Options

	// Proviso selects the answer to the ignoring problem.
	Proviso Proviso

	// Refine adds the optional `&& !q.RM` of line L19 of Figure 6 (CPC
	// only): a dead end reached by a right mover is not forced; the commit
	// point before it is, when popped (Theorem 2 of the paper).
	Refine bool

	// InferStates caps the exhaustive pass that infers movers for a system
	// that does not declare them (see Infer); 0 means DefaultInferStates.
	// Result.Transitions counts the pass's transitions and the search's,
	// however the pass ends (Stats[StatInferTransitions] has the pass's
	// apart), and Limits.Transitions caps the sum. The pass keeps to the
	// other limits as a search does (see InferOptions.Limits) and the
	// context cancels it. A transition limit reached during the pass gives
	// an incomplete result with nothing explored; a path longer than
	// Limits.Depth (an execution that may never end) is an error wrapping
	// ErrInfer and a *ts.SystemError of ts.ErrDepth, with its thread and
	// schedule.
	InferStates int

	// OnForce, if set, is called at each state where the proviso forces all
	// threads to run (CPC's line L18, a cycle closed, a dead end), with the
	// state and the schedule that reached it. The schedule is only valid
	// during the call. Transaction ends (line L7) are not forced and are not
	// reported.
	OnForce func(Force)
}

// Force is a state where a proviso made all threads run.
type Force struct {
	Reason Reason
	// Thread is the thread whose transaction was cut short there.
	Thread   ts.Tid
	State    any
	Schedule ts.Schedule
}

// Reason says why a proviso forced all threads at a state.
type Reason uint8

const (
	// Completion: CPC popped a state with its CPC bit unset (line L18).
	Completion Reason = iota + 1
	// CycleClosed: the thread's transition from the state closes a cycle
	// on the search stack in the post-commit part of its transaction.
	CycleClosed
	// DeadEnd: the thread has no transition from the state, in the
	// post-commit part of its transaction (cycle detection's extra rule).
	DeadEnd
)

var reasonNames = [...]string{Completion: "completion", CycleClosed: "cycle", DeadEnd: "dead end"}

func (r Reason) String() string {
	if int(r) < len(reasonNames) && r > 0 {
		return reasonNames[r]
	}
	return fmt.Sprintf("Reason(%d)", uint8(r))
}

// Stats keys of Result.Stats.
const (
	// StatEnds counts the states where a transaction ended (line L7): its
	// thread, past its commit, has a next step that is not a left mover.
	StatEnds = "transaction-ends"
	// StatForced counts the states where the proviso forced all threads.
	StatForced = "forced"
	// StatPlainStates counts the distinct states of the system among the
	// instrumented states stored (Result.States), which also tell states
	// apart by their phase bits.
	StatPlainStates = "plain-states"
	// StatInferStates and StatInferTransitions count the inference pass's
	// work, when the movers were inferred.
	StatInferStates      = "infer-states"
	StatInferTransitions = "infer-transitions"
)

func (o Options) validate() error {
	if err := o.Options.Validate(); err != nil {
		return err
	}
	if err := search.OneWorker(&o.Options, "transact"); err != nil {
		return err
	}
	switch {
	case o.Proviso > None:
		return fmt.Errorf("%w: unknown proviso %v", ts.ErrBadOptions, o.Proviso)
	case o.Refine && o.Proviso != CPC:
		return fmt.Errorf("%w: Refine applies to the cpc proviso only, not %v", ts.ErrBadOptions, o.Proviso)
	case o.InferStates < 0:
		return fmt.Errorf("%w: negative InferStates %d", ts.ErrBadOptions, o.InferStates)
	}
	return nil
}
