// Package ts is weft's model of a concurrent system and its reference search.
//
// A user describes a system by implementing [TransitionSystem]: an initial
// state, a fixed number of threads, each thread's next visible access
// ([Step]) and status at a state, and the successor state. Everything else in
// weft (the strategies in cbound, por, transact, symmetry and mat) explores
// such a system and returns a [Result].
//
// # Transitions
//
// A transition is one visible access to a shared object followed by the
// thread's local computation up to its next visible access. Two steps of
// different threads are dependent iff they touch the same object and at least
// one is not a Read ([Dependent]). Lock acquire and release are accesses to
// the lock object; a thread waiting for a lock is [Blocked].
//
// # Capabilities
//
// Optional interfaces add what some strategies need, found by type assertion
// as io/fs does: [Checker] for assertions and invariants, [Hasher] for state
// caching, [Describer] and [ObjNamer] for readable traces.
//
// # Results and errors
//
// A bug is a [Violation] in the Result, with a replayable [Trace]: a failed
// Check, a deadlock (no thread enabled while one has not finished), a data
// race, or a panic in user code. An error means bad options
// ([ErrBadOptions]), a system that breaks the contract ([ErrBadSystem], as a
// [*SystemError] naming the thread and the schedule), or cancellation; the
// partial Result comes with it.
//
// # The reference search
//
// [Explore] visits every interleaving, depth first, with no reduction;
// [ExploreStateful] stores visited states and so handles cyclic systems.
// [Replay] re-runs a schedule and reports where it ends.
package ts
