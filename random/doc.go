// Package random samples runs of a ts.TransitionSystem at random, for state
// spaces too big to exhaust: a random walk ([Walk]), probabilistic
// concurrency testing ([PCT]) and a sampler uniform over interleavings
// ([URW]).
//
// Each takes the whole model as ts.Explore does: a run goes from the
// initial state until no thread is enabled, checking Check and the
// Invariant at every state; a state where no thread is enabled while one is
// Blocked (not Idle) is a deadlock unless Options.IgnoreDeadlocks; a
// transition's outcome is chosen uniformly among its outcomes, and is
// recorded in the schedule.
//
// # What is preserved
//
// Nothing is promised to be found: a sample is never complete
// (Result.Complete is false). What holds:
//   - every terminal state reported (OnTerminal) is one ts.Explore reaches,
//     by the schedule handed with it, and every violation is one ts.Explore
//     finds; each violation's schedule is replayed before it is reported
//     (ts.Replay reproduces it, outcomes included);
//   - the same seed, system and options sample the same runs;
//   - PCT: a run that drew its d-1 change points over k steps finds a
//     given bug of depth d (d ordering constraints among events within the
//     first k steps) with probability at least 1/(n*k^(d-1)), n threads;
//     for a bug that also needs particular outcomes, times the probability
//     of those outcomes under the uniform choice. With k given
//     (Options.Steps) every run is such a run. With k estimated, the first
//     run has no change point (it measures k) and promises nothing for
//     d > 1, and a run that drew over a shorter estimate than the last
//     promises nothing for a bug that needs a later change point: the
//     guarantee counts only the runs that drew over the last estimate
//     (Guarantee.Counted), and its k is that estimate, which may be
//     shorter than the longest run. [GuaranteeOf] reads the bound back from
//     a Result;
//   - URW: when no thread blocks, no transition has more than one outcome
//     and each thread's length is exact (Options.Lengths, or estimated
//     exactly, as it is from the first run when the lengths do not depend
//     on the interleaving), every interleaving has the same probability.
//     Otherwise it is a weighted random walk; so is the first run with the
//     lengths estimated, which the guarantee does not count.
//
// PCT runs the enabled thread of highest priority, so a thread that spins
// (always enabled, looping until another moves) starves the others until
// a change point, and a run may pass Limits.Depth (ts.ErrDepth, with a
// hint): model spin-waits as Blocked awaits, as package ts recommends, or
// sample a cyclic system with Walk or URW.
//
// # Budgets and figures
//
// A search runs until Options.Runs runs, Options.Time, Limits.Executions or
// Limits.Transitions, a violation (unless KeepGoing) or the context stops
// it; running out of a budget is not an error, cancellation is. A search
// with no budget is refused (ts.ErrBadOptions). Result.Stats says what was
// sampled: runs, distinct schedules (by a 64-bit hash), distinct
// Mazurkiewicz traces (by the hash of each run's happens-before state, see
// package hb), distinct terminal states (by Hash, for a ts.Hasher), the
// longest run, the seed, PCT's d and k, and the runs the guarantee counts
// (PCT, URW). With Runs set, each Progress report's Estimated says the share of
// the runs done and the time left.
//
// Counting distinct schedules, traces and terminal states keeps a 64-bit
// hash of each, up to three a run: a long sample grows by that much.
// Limits.Memory (ts.DefaultMemory when zero) caps it as it caps every
// search: before each run the sets are counted, at 40 bytes an entry (what
// a Go map takes at most), with the run's schedule, and past the budget the
// search stops with an error wrapping ts.ErrMemory (with the default, after
// some 35 million runs that are all distinct; a budget of Runs, Time or the
// Limits ends a sample normally, as before).
//
// # The contract
//
// A run never returns to a state, but after each transition it checks the
// state it left against what Next said there, as the exhaustive searches
// do where they could take a second move: with Hash (for a state type that
// holds references; see ts.Hasher) the hash taken before Apply and one
// thread's step asked again, without Hash every thread's, and for a state
// that holds no references, which Apply cannot modify, one thread's. An
// Apply that modifies its argument is an error wrapping ts.ErrMutated, a
// Next that is not a function of the state one wrapping
// ts.ErrNondeterministic, as is a thread count that changes (asked again
// at the end). Per state the check costs one Next, with two Hash calls
// for a state with references and Hash, or a second Next of every thread
// for one without Hash. What it cannot see is a breach that shows neither
// in Next nor in Hash at the states the runs pass through: a sample is not
// a proof that the contract holds.
//
// A run allocates nothing per transition beyond what the system's own
// Apply allocates.
package random
