// Package sim turns a mutable simulator into a [ts.TransitionSystem].
//
// A protocol simulator, a node of a real implementation or a data
// structure under test usually changes in place and cannot be copied
// through its API, while a search needs to come back to a state and take
// another branch. The adapter does the bookkeeping: the user gives a
// [Simulator] that can reset to its initial state, report each thread's
// next step and take a transition in place; optionally it can also save and
// restore its state ([Snapshotter]), fingerprint it ([Hasher]), check
// assertions and an invariant, and describe transitions.
//
// # How it works
//
// A [State] is a place in the tree of executions: the moves from the
// initial state. The adapter asks the simulator every thread's next step,
// its number of outcomes, the checks and the fingerprint once, while the
// simulator stands on the state, and keeps the answers with the State, so
// that a search's questions about a state it holds cost nothing. The
// simulator stands on one state at a time (the cursor). Taking a transition
// from the state under the cursor is a Step in place. Taking one from
// another state first brings the simulator there: from the cursor when it
// is above, else from the nearest snapshot above, else from Reset, by
// replaying the moves in between. Depth-first strategies mostly extend the
// execution under the cursor; a replay happens when they back up, and a
// snapshot at each state with more than one move (the states a depth-first
// search comes back to) removes the replays but costs a snapshot each.
// Options.CheckpointEvery trades one against the other.
//
// States are freed with the search's references to them: the adapter keeps
// no table, only each state's path to the root and its snapshot, if any.
//
// # Determinism
//
// Every replay is checked: before each replayed transition the moving
// thread must report the step it reported the first time, and at the end
// the state must have the fingerprint it had (with a Hasher) and every
// thread the step and status it had. A simulator that goes another way
// stops the search with an error wrapping [ts.ErrNondeterministic] that
// gives the schedule to the transition where it showed. Common causes: a
// map iterated in random order, a random number generator not reset, time.
//
// # Figures
//
// The adapter counts its own work ([Stats]): transitions taken for the
// search, transitions replayed, resets, restores and snapshots. It
// implements [ts.StatsReporter], so every search adds the figures it caused
// to Result.Stats under the names "sim.steps", "sim.replayed",
// "sim.resets", "sim.restores" and "sim.snapshots".
//
// # Capabilities
//
// A [System] implements [ts.Chooser], [ts.Checker], [ts.Invariant] and
// [ts.Describer] with defaults when the simulator does not (one outcome, no
// assertion, no invariant, the step's text), so that every strategy that
// takes the whole model takes it. Stateful strategies need a fingerprint:
// wrap a simulator that implements [Hasher] with [NewHashed].
//
// A System is not safe for concurrent use: a parallel search needs one
// simulator and one System per worker.
package sim
