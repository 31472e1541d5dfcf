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
// state, a signature of what the thread will still do and of its local state.
// Two threads with equal signatures are claimed interchangeable at that
// state.
//
// # Strategies
//
//   - [Explore] (strategy name "sym"): depth-first search with a table of
//     visited canonical hashes: ts.ExploreStateful on [Orbits]. Needs
//     ts.Hasher and Canonicalizer; handles cyclic state spaces.
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
//     thread, image) where it fails, or an [Unverified] claim of signatures
//     that it cannot check (see "What Verify guarantees" below).
//
// All of them take the whole model: steps of several objects, transitions
// of several outcomes (ts.Chooser), idle threads and a global invariant
// (ts.Invariant), under the conditions below.
//
// # The whole model: what a symmetry must respect, and why it is sound
//
// A symmetry is a renaming of threads (and of what names them: lock owners,
// per-thread objects) that the system cannot tell from the original. With
// the whole model that includes, for a thread t and its image t':
//   - the same status, Idle included (an idle server is renamed to an idle
//     server, so a normal end stays a normal end and a deadlock a deadlock);
//   - the same number of outcomes, and successors by equal outcomes that are
//     images of each other: the renaming maps the move (t, c) to (t', c);
//   - a symmetric check and invariant: each fails on a state exactly when it
//     fails on its image;
//   - for sympor, steps that are images of each other access by access (the
//     renaming of threads induces a renaming of objects: the buffer of t
//     becomes the buffer of t'), and a renaming of objects that maps the
//     objects the invariant reads (InvariantReads) to objects it reads and
//     the others to others.
//
// [Canonicalizer] and [Signer] state these as their contracts, and [Verify]
// checks them on the states it samples, every outcome of every transition
// included, reporting the first that fails (an outcome count, a successor
// by some outcome, the invariant or the check on one side only, a renaming
// that moves an object in or out of the invariant's read set).
//
// # What Verify guarantees, and what it cannot check
//
// A symmetry is a renaming of states, and Verify can check one only where
// it can compare a state with its renaming. A canonical form is such a
// comparison, made at every state Verify visits. A signature is not: it
// claims, at one state, that exchanging two threads is a symmetry of the
// whole future, and which renaming that is the system says only through
// [Permuter]. So:
//
//   - With Permuter, Verify checks that the exchange fixes the state where
//     it is claimed and commutes with every transition of every state of its
//     future, up to MaxStates states per exchange: a claim that is not a
//     renaming (two threads that write their own ids to a shared variable,
//     at once or many steps later) fails at the transition where the states
//     stop being renamings of each other, however far from the claim. When
//     the states reachable from the claims of an exchange number at most
//     MaxStates, every one is checked, and an accepted claim holds, except
//     for the consistency of the renaming of objects, which is checked
//     within MaxDepth transitions of the claim only.
//   - Without Permuter, Verify can only compare what the system shows:
//     statuses, steps, numbers of outcomes, Check and Invariant, along the
//     two futures, which it does to the end of every execution. A
//     difference there is a Mismatch. Nothing there can tell an exchange of
//     threads from a change of data that nothing reads, and a search that
//     trusts such a claim leaves out terminal states; so Verify reports the
//     claim as [Unverified] and says to implement Permuter.
//     VerifyOptions.Observational accepts instead a claim whose futures
//     show no difference to the end. The skipped subtree then matches the
//     explored one move by move in everything that the argument for sympor
//     below uses (statuses, steps up to a renaming of objects, outcomes,
//     check and invariant), so sympor loses no failed check, invariant
//     failure or deadlock that it would not lose under a true symmetry; but
//     terminal states (Options.OnTerminal) are covered only up to that
//     indistinguishability.
//
// Verify cannot check what lies beyond its bounds: claims made only at
// states past the first MaxStates it visits, and, with Permuter,
// transitions past the MaxStates states it checks per exchange; a nil
// error does not say whether a bound was reached. Check small instances
// whole (raise the bounds until they cover the state space), then run the
// large ones.
//
// Why sym stays sound: "equal canonical hash" is then a bisimulation that
// matches moves with moves of the same outcome and preserves statuses,
// checks and the invariant; ts.ExploreStateful takes every move (every
// outcome) of every state it stores, so it meets every terminal state and
// every failing state up to the renaming. The read set plays no part: sym
// reduces nothing but whole orbits.
//
// Why sympor stays sound, on top of the argument for the basic model below:
// its DPOR takes a thread with every outcome of its transition, and a
// backtrack set is a set of threads; since independent steps commute with
// any outcomes (the ts contract), the backtrack argument of Flanagan and
// Godefroid holds with each thread's transition a choice among its
// outcomes, and every outcome is a transition of its own in the schedule,
// never merged with another. A step of several objects is dependent where
// any of its accesses is, and every lock it acquires or releases counts for
// co-enabledness. Every step that writes what the invariant reads also
// writes ts.InvariantObj, so all of them are dependent: every execution
// that DPOR counts as equivalent to one that reaches a failing state passes
// through the same values of the invariant's objects, and fails too; a
// transition into a failing state counts as dependent with every other
// thread's next step, as for checks. Idle threads are analysed as blocked
// ones (their next steps race too) and end an execution normally. On the
// symmetry side, Theorem 7.4 carries over move by move: if exchanging t and
// t' fixes the state, the subtree of (t, c) is the image of the subtree of
// (t', c) for every outcome c, with failures of the symmetric check and
// invariant mapped to failures and idle ends to idle ends. The read-set
// condition makes the renaming preserve the dependency DPOR computes (the
// marked steps of the images are the images of the marked steps), which is
// what the backtrack points of a skipped subtree being images of the
// explored one's depends on; as for the basic model, that part is tested,
// not proved (see below).
//
// # What they preserve
//
// Both strategies reach every terminal state (deadlocks included, as
// ts.Explore counts them: not where every waiting thread is Idle, nor under
// Options.IgnoreDeadlocks), every failed check and every invariant failure
// of ts.Explore up to a renaming of threads in the symmetry group, provided
// the declared symmetry is true (check it with Verify, which for signatures
// needs Permuter) and the check and the invariant are symmetric (a failure
// message that names a thread may name another one). For signatures that
// hold only observationally (what Verify accepts without Permuter under
// VerifyOptions.Observational), sympor reaches every failed check,
// invariant failure and deadlock, and every terminal state up to what the
// system shows. Neither looks for data races. Every
// schedule they report is a schedule of the system's own thread ids:
// neither explores canonical representatives, they explore real states and
// use the canonical form (or the signature) only to decide what to skip, so
// nothing has to be mapped back and every violation is replayed by
// ts.Confirm on the system before it is reported, outcomes included. The
// property tests check all of this against ts.Explore, comparing canonical
// forms of terminal states: on random programs with groups of identical
// threads, of the basic model and of the whole one (coin flips, copies of
// one variable to another, idle waits, acquires of two locks at once, an
// invariant over the variables, with and without IgnoreDeadlocks); on
// random programs of the whole model (ts/tstest) under the trivial
// symmetry, where sympor must match ts.Explore exactly; under random
// signers, most of them wrong (threads that write their ids, signatures
// that forget registers or see only the next instruction), for which
// whatever Verify accepts sympor must get right; and on hand-built
// systems: coin flips, identical clients of identical idle servers over a
// lossy link, and flags whose invariant fails only at an intermediate state
// that a reduction skips when the same property is a check.
//
// Value-dependent steps (ts.ValueDependent: a compare-and-swap that fails
// is a Read) are taken too; sym stores states and does not reduce by
// independence, and sympor's DPOR computes its races and sleep sets on the
// accesses the transitions actually make, which change only through a
// dependent write. Property-tested under the trivial symmetry on random
// programs with them (tstest.GenOptions.CASReads): sym, sympor and DPOR
// without symmetry match ts.Explore.
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
//     (blocked threads' next steps count; the latest dependent, co-enabled
//     transition not happening before the thread), with lock-aware
//     co-enabledness and no sleep sets. Without sleep sets it
//     explores more than por.DPOR (pfscan-2: 392 executions against 36):
//     Options.NoSymmetry is the baseline the symmetry savings are measured
//     against, as in the thesis's Table 7.1, not a competitor of por.DPOR.
//     Combining symmetry with sleep sets is left out on purpose: a thread
//     skipped as symmetric would have to be put to sleep, and sleep sets are
//     exactly the context a skipped subtree does not share with its image.
//   - A transition into a state whose check or invariant fails ends the
//     execution, so it is treated as dependent with every other thread's
//     next step (as in package por): those threads may fail too, first, in
//     another order.
//   - The thesis has no outcomes, idle threads or invariants; what sympor
//     does with them, and what the symmetry must then respect, is above.
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
