// Package symmetry explores systems whose threads are interchangeable:
// worker pools, rings of identical processes, identical clients of a server.
// Of states (or branches) that differ only by a renaming of such threads it
// explores one. It follows chapter 7 of Yu Yang's thesis, "Efficient Dynamic
// Verification of Concurrent Programs" (Utah, 2009), and the classic
// quotient construction it reviews (Ip and Dill; Emerson and Sistla).
//
// # Two ways to tell weft about symmetry
//
// Declared symmetry ([Canonicalizer]): the system maps every state to a
// canonical representative of its orbit under a group of thread permutations
// and says which permutation it used. A search that keys its visited states
// on the canonical hash stores one state per orbit. The contract is stated
// as checkable conditions (statuses, checks and successors agree under the
// permutation), under which equal canonical hashes mean futures equal up to
// a renaming of threads. [Permuter] is optional and lets [Verify] check more.
//
// Discovered symmetry ([Signer]): the thesis's dynamic discovery. A model
// checker of C programs computes each thread's residual code and local state
// and finds, state by state, threads that are interchangeable; an abstract
// transition system does not expose its code, so it gives, per thread and
// state, a signature of what the thread will still do and of its local state
// (PAPER-NOTES, section 3). Two threads with equal signatures are claimed
// interchangeable at that state.
//
// # Strategies
//
//   - [Explore] (strategy name "sym"): depth-first search with a table of
//     visited canonical hashes: ts.ExploreStateful on [Orbits]. Needs
//     ts.Hasher and Canonicalizer; handles cyclic state spaces. It takes the
//     whole model: steps of several objects, outcomes (ts.Chooser), idle
//     threads and a global invariant (ts.Invariant), which Orbits passes
//     through; the canonical form must then respect them too (equal outcome
//     counts for renamed threads, an invariant that fails exactly when it
//     fails on the representative). Verify and DPOR take the basic model
//     only and refuse the rest with an error wrapping ts.ErrUnsupported.
//   - [DPOR] (strategy name "sympor"): dynamic partial-order reduction that
//     skips a thread whose signature equals that of a thread already
//     explored at the same state (thesis Figure 7.6). Needs Signer, unless
//     Options.NoSymmetry makes it plain DPOR (the baseline). Stateless: the
//     system must terminate.
//   - [Orbits]: the wrapper that gives any state-caching search the
//     canonical hash. Sound for searches whose only use of Hash is a table of
//     visited states whose futures depend on the state alone
//     (ts.ExploreStateful, a user's breadth-first search); unsound for
//     searches that cache work items naming threads (cbound.ICB's (state,
//     last thread) cache), stateful DPOR (por.SDPOR, whose summaries name
//     threads), or anything else that carries thread ids between states.
//   - [Verify]: checks a declared canonicalizer, permutation or signature
//     on a bounded state space and reports the first [Mismatch] (schedule,
//     thread, image) where it fails.
//
// # What they preserve
//
// Both strategies reach every terminal state (deadlocks included) and every
// failed check (for Explore, every invariant failure too) of ts.Explore up
// to a renaming of threads in the symmetry
// group, provided the declared symmetry is true (check it with Verify) and,
// for checks, the check itself is symmetric (a failure message that names a
// thread may name another one). Neither looks for data races. Every
// schedule they report is a schedule of the system's own thread ids:
// neither explores canonical representatives, they explore real states and
// use the canonical form (or the signature) only to decide what to skip, so
// nothing has to be mapped back and every violation is replayed by
// ts.Confirm on the system before it is reported. The property tests check
// all of this against ts.Explore on random programs with groups of identical
// threads, comparing canonical forms of terminal states.
//
// # Where the thesis is wrong or silent, and what we do
//
//   - Figure 7.6, line 11, tests SYMMETRIC(s, tid(t), tid(t')) for every t'
//     in s.done right after adding t to s.done (line 9): t is compared with
//     itself, is always symmetric to itself, and no transition would ever be
//     explored. We compare t only with the other threads of s.done.
//   - Theorem 7.5 is proved from the automorphism alone (Theorem 7.4): a
//     skipped subtree is the image of an explored one. DPOR's completeness
//     also relies on the backtrack points that a subtree adds at earlier
//     states, and the skipped subtree's are not the images of the explored
//     one's when the path to the state is not itself symmetric. The thesis
//     does not address this. We implement the algorithm as published (with
//     the fix above), and test it hard: on tens of thousands of random
//     programs with groups of identical threads, locks, awaits and
//     assertions it reached every terminal orbit and violation of
//     ts.Explore. We have no proof; [Explore] (state caching) is the strategy
//     whose soundness follows from the contract alone.
//   - The DPOR under SymPOR is the thesis's: Flanagan and Godefroid's rule
//     (PAPER-NOTES section 3: blocked threads' next steps count, the latest
//     dependent, co-enabled transition not happening before the thread),
//     with lock-aware co-enabledness and no sleep sets. Without sleep sets it
//     explores more than por.DPOR (pfscan-2: 392 executions against 36):
//     Options.NoSymmetry is the baseline the symmetry savings are measured
//     against, as in the thesis's Table 7.1, not a competitor of por.DPOR.
//     Combining symmetry with sleep sets is left out on purpose: a thread
//     skipped as symmetric would have to be put to sleep, and sleep sets are
//     exactly the context a skipped subtree does not share with its image.
//   - A transition into a state whose check fails ends the execution, so it
//     is treated as dependent with every other thread's next step (as in
//     package por): those threads may fail too, first, in another order.
//   - The thesis's Table 7.1 gives pfscan with 4 threads 4185k executions
//     under DPOR and 7k under SymPOR; our pfscan model is smaller (3 items,
//     the workers forget their locals between items), so its figures are
//     smaller, and under SymPOR one execution covers every orbit: every
//     reversal that DPOR schedules is between two workers in the same local
//     state.
//
// # Figures (tests assert them)
//
// States stored, ts.ExploreStateful against Explore:
//
//	N   philosophers-N        ratio   pfscan-N            ratio
//	2   17 / 10               1.7     267 / 136           2.0
//	3   75 / 27               2.8     1478 / 276          5.4
//	4   321 / 86              3.7     6707 / 408          16.4
//	5   1363 / 275            5.0     27860 / 540         51.6
//	6   5777 / 982            5.9     107011 / 672        159.2
//
// The philosophers' group is the N rotations, so the ratio tends to N; the
// workers' is all N! permutations. Executions of pfscan-N, DPOR without and
// with symmetry: 392 / 1 (N = 2), 20468 / 1 (N = 3), more than 100000 / 1
// for N = 4..6.
//
// # Options
//
// Options embeds ts.Options (limits, KeepGoing, hooks). Limits, the depth
// limit (ts.ErrDepth with the schedule) and cancellation are honoured; a
// panic in user code becomes a violation of kind ts.Panic (a panic in
// Signature cannot be replayed, since replay does not call it: its
// violation carries the trace up to the state whose threads were compared).
package symmetry
