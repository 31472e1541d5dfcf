// Package por explores a system's schedules with partial-order reduction and
// no preemption bound: of all the interleavings that differ only in the order
// of independent transitions (one Mazurkiewicz trace), it explores few, or
// one.
//
// # Strategies
//
//   - [Sleep] (strategy name "sleep"): depth-first search with sleep sets
//     (Godefroid). Never explores more executions than ts.Explore.
//   - [DPOR] ("dpor"): dynamic partial-order reduction (Flanagan and
//     Godefroid, POPL 2005) with vector clocks and sleep sets, their
//     backtrack rule (blocked threads' next steps count; dependent,
//     co-enabled transitions not happening before the thread; the set E)
//     and the lock refinement of co-enabledness. inspect-2.3.1: 3
//     executions; locks3: 6.
//   - [ODPOR] ("odpor"): optimal DPOR with source sets and wakeup trees
//     (Abdulla, Aronis, Jonsson and Sagonas, POPL 2014): one execution per
//     Mazurkiewicz trace and no sleep-set-blocked execution, with locks and
//     awaits too (see below for exactly when).
//   - [SDPOR] ("sdpor"): stateful DPOR (Yu Yang's thesis, Utah 2009,
//     chapter 4): state caching with the visible-operation dependency graph
//     as the summary of a revisited state. Needs ts.Hasher and an acyclic
//     state space.
//
// # What they preserve
//
// Every strategy reaches every terminal state (deadlocks included) that
// ts.Explore reaches, and finds every violation it finds: failed checks
// (assertions a thread evaluates over its own history, as weft's Checker
// contract asks), violated global invariants (ts.Invariant), deadlocks and
// panics. SDPOR is compared with ts.ExploreStateful and calls OnTerminal
// once per distinct state. They do not look for data races. All of this is
// property-tested against the reference searches on random programs of the
// whole model (tstest.Programs): locks, awaits, atomic read-modify-writes,
// branches and assertions, transitions of several objects (ts.Step.Also),
// transitions with several outcomes (ts.Chooser), threads that wait Idle,
// objects with both synchronization and plain accesses, and invariants.
//
// The whole model is supported:
//
//   - A step of several objects is dependent with another step when any of
//     its accesses is (ts.Dependent); its races are found on each object.
//   - A transition with several outcomes is explored with each of them.
//     Outcomes are different Mazurkiewicz traces, so ODPOR explores one
//     execution per (trace, outcome choice), with some executions cut by
//     sleep sets; every strategy takes every outcome of a thread wherever it
//     takes the thread.
//   - A global invariant declares what it reads (ts.InvariantReads); a
//     transition that writes there counts as dependent with every other
//     such transition, so no interleaving the invariant can tell apart is
//     merged. Without InvariantReads every transition counts as writing
//     what the invariant reads, which is sound and reduces nothing.
//   - Threads that wait Idle end an execution normally; with
//     Options.IgnoreDeadlocks no end is a deadlock, and Result.Finds says so.
//   - Value-dependent steps (ts.ValueDependent: a compare-and-swap that
//     fails is a Read of its object, one that succeeds a Write): every
//     strategy takes them and preserves all of the above, and the
//     reduction is over the accesses the transitions actually make, so two
//     failed compare-and-swaps of one object are independent. ODPOR
//     explores one execution per Mazurkiewicz trace of the actual accesses:
//     where it reverses a race whose later step touches a declared object,
//     it finds that step's access at its new place by replaying the
//     reversal (a cas that failed after the write it races with may succeed
//     before it), as it does for a step that may block. This costs one
//     replay per such race; systems that declare nothing pay nothing. DPOR,
//     sleep sets and SDPOR need no change: a thread's step changes only
//     through a dependent write, which wakes it from every sleep set and
//     is a race they backtrack on. Property-tested against ts.Explore
//     (tstest.GenOptions.CASReads, soundness for all four and one execution
//     per trace for ODPOR), and on the bundled casw-N, wcas-N and casrot-N,
//     where ODPOR's counts are GenMC's (casw-5: 32,880 executions, where a
//     cas that is always a Write gives 113,400; wcas-9: 2,305 for
//     3,628,800; casrot-9: 8,597 for 362,880).
//
// # The contract check
//
// Wherever a state had two moves or more, the search checks, when it leaves
// the state, that the state is still what it was: the same hash (with
// ts.Hasher, plus one thread's Next again, a different one at each depth),
// or else every thread's next step again. An Apply that modified its
// argument, or a Next that is not a function of the state, stops the search
// with ts.ErrMutated or ts.ErrNondeterministic, as ts.Explore does, also
// where the reduction took only one of the moves. A violation whose replay
// does not show it (what a state modified behind the search's back looks
// like) is first met by the same check on every state of the stack, so
// that the modification is reported with ts.ErrMutated, naming the thread,
// rather than as ts.ErrNondeterministic.
//
// At each state the search asks Next only of the thread that moved there
// and of the threads whose step is dependent with its step (and, for a
// ts.Chooser, of the Blocked and Idle threads, whose number of outcomes may
// change); it keeps the others' answers from the state before, as the
// contract of ts.Dependent allows: an independent transition changes
// neither the step nor the status of another thread, and a Finished thread
// stays Finished. With fewer than four threads it asks every thread, which
// costs less than the copies. On lastzero-12 and indexer-16, ODPOR runs
// 12% and 17% fewer instructions (callgrind, BenchmarkParallel's workers-1
// rows); on two threads nothing changes. Where the contract check then finds
// a kept answer wrong, the search stops with ts.ErrBadSystem naming the
// thread and that contract (tstest.Conformance finds the transition).
//
// Result.Executions counts executions that end in a terminal state or a
// violation (and, for SDPOR, at a visited state); an execution cut because
// every enabled thread is asleep is counted in Result.Stats["sleep-blocked"]
// instead.
//
// # Assumptions
//
// The system keeps the ts.TransitionSystem contract; reductions rely on
// independence as ts.Dependent defines it: independent steps commute and do
// not enable or disable each other, so a step that enables or disables
// another thread's step must touch its object (a release and the acquire it
// unblocks, a write and the await that reads it). ts.Acquire and ts.Release
// must behave as a non-recursive mutex for the lock refinement (a thread
// holds a lock from its Acquire to its Release; an Acquire of a held lock is
// Blocked). A read that may block (an await) should say so with Step.Sync:
// ODPOR then checks up front that reversing its races is feasible; an
// unmarked blocking step is learned when it is first seen Blocked, which
// stays sound (tested) but may cost an infeasible branch. A write that may
// block (a Once's Do, a send on a full channel) is learned the same way,
// marked or not: where it is first seen Blocked, or where a branch planned
// for it finds it Blocked (then it is analysed there as a waiting thread's
// step, which plans the reversals the branch stood for); from then on
// ODPOR replays the reversals of its races and, where it cannot run before
// the event it races with, walks back to an earlier write of that object
// (property-tested against ts.Explore, one execution per trace).
//
// # Where the papers were wrong or silent, and what we do
//
//   - The thesis's Figure 2.1 backtrack rule is a shortcut; we use Flanagan
//     and Godefroid's (with the happens-before test), but
//     for every racing transition, not only the latest: with sleep sets the
//     latest-only rule lost a terminal state on a random program with an
//     await (kept as a rapid regression file).
//   - Flanagan and Godefroid add "any" thread of E to the backtrack set. With
//     sleep sets that is not enough: the thread may be asleep there without
//     its sleep covering the reversal, and lastzero-3 then loses a terminal
//     state. DPOR picks a thread of E that is not asleep (see backtrackAt).
//   - A failed check ends an execution. Under KeepGoing the failing
//     transition masks the failures other threads would have later, so it is
//     treated as dependent with every other thread's next step (it disables
//     them). Sleep sets alone cut some of those executions, so with failing
//     checks DPOR can explore more executions than Sleep
//     (TestDPORMoreThanSleepWithFailures); without, it never does.
//   - Optimal DPOR assumes no transition disables another and that every
//     execution runs to a maximal state. With locks and awaits a race may
//     not be reversible where it is found: an acquire needs the release
//     before it, an await the write that enabled it. ODPOR reverses a race
//     only where the reversal can run: an acquire against the previous
//     acquire of its lock, an await against the latest earlier write before
//     which it could pass (checked by replaying the sequence). At a
//     deadlock, the blocked threads' next steps are analysed as if taken.
//     Sleep sets need no change, since independent steps neither enable
//     nor disable each other, but a sleeping thread whose step may wait
//     can be disabled for good by a later dependent event, so it counts as
//     a weak initial of a sequence only if it is an initial of it; and an
//     execution that ends with a thread waiting for ever lacks that
//     thread's later events, so its races are all analysed again (see
//     ODPOR). ODPOR then explores one execution per trace (tested:
//     executions equal the distinct terminal happens-before states by
//     brute force, never two alike, on random programs with locks in any
//     order and awaits, and on every bundled acyclic model), none
//     sleep-blocked unless such a sleeper let a sequence through
//     (Result.Stats["waiting-sleepers"]). Failed checks under KeepGoing end executions early;
//     from the first one on, a thread counts as a weak initial of a
//     sequence only if it is an initial, and some executions are cut by
//     sleep sets (measured in the ODPOR documentation), though no two
//     reported ones are equivalent.
//   - Stateful DPOR: the thesis adds a graph edge to the operation explored
//     next only; DPOR's rule looks at every thread's next step, blocked ones
//     included, so we add edges to all of them. Sleep sets are off in SDPOR
//     (with state caching they would be unsound), so it explores more
//     executions than DPOR on models without revisits (indexer, lastzero) and
//     far fewer where states repeat (inspect-example1: 348 transitions
//     against 14307148 at N = 40). The thesis's 35 runs and 2084 transitions
//     at N = 64 are of its instrumented C program; ours are 417 executions,
//     877 transitions, 462 states.
//
// # Options
//
// Options embeds ts.Options (limits, KeepGoing, hooks). Limits, the depth
// limit (ts.ErrDepth with the schedule) and cancellation are honoured; a panic
// in user code becomes a violation of kind ts.Panic; every violation is
// replayed (ts.Confirm) before it is reported.
//
// A serial search takes its working memory (frames, events with their
// vector clocks, wakeup-tree nodes, scratch buffers) from the last finished
// search of the same state type, kept in a sync.Pool without the states,
// so that a search of a few hundred transitions allocates a few times, not
// per transition; Limits.Memory counts what the search itself uses: its
// frames and events by the chunks it used, the wakeup-tree nodes, SDPOR's
// visited table (an open-addressing table of 16-byte slots, in memory
// mapped outside the Go heap past 2 MB, by its slots) and
// the operations it keeps per state, estimated every 4096 transitions and
// when the stack grows; past the budget the search stops with an error
// wrapping ts.ErrMemory that says what it kept. In a parallel search every
// explorer adds what it keeps to one count, and the search's goroutine adds
// what it hands between them (below).
//
// # Parallel search
//
// With Options.Workers above 1, Sleep, DPOR and ODPOR split their search
// into units: the subtree below a move into a fixed depth
// (Options.SplitDepth), explored by the same engine from plain data (the
// schedule prefix, the sleep set and wakeup subtree there, and what the
// analysis has learnt). The search itself stays serial on the caller's
// goroutine and takes each unit's result in order, doing to the frames
// above the unit what the unit's analysis did to them (a backtrack point,
// a wakeup sequence) at the point where the serial search would have: a
// unit's exploration reads nothing of those frames but the states, steps
// and sleep sets of its prefix (which stay as they are while it runs), and
// nothing else touches them meanwhile. ODPOR's record of which races of the
// prefix's events have had their reversal reach a wakeup tree (see ODPOR,
// "Races of the shared prefix") stays the search's: a worker sends each
// reversal of such a race that may still be needed, and the search drops
// those its record says the serial search would not have made. Workers explore the units a
// predictor (a copy of the search that walks ahead as if no unit planned
// anything) expects next, and a result is used only if its input is the
// one the serial search has when it gets there; otherwise the search
// explores the unit itself. The predictor is a coroutine, walked by the
// search before each result it takes and by any goroutine that has
// nothing to explore. The search's goroutine is one of the Workers:
// it explores the units it needs that no other has started, and queued
// ones while it waits for a result. It is on every unit's critical path,
// so no more goroutines explore than the scheduler runs at once
// (GOMAXPROCS, but 2 at least; Stats["parallel-workers"]): with 8 on 2
// cores, indexer-17 took 2.2 times as long as with 1 worker, lastzero-16
// 8.8 times, where now 8 workers are 2. So the result is the
// serial search's whatever the worker count: the same executions in the
// same order, the same figures (but ODPOR's feasibility-replays and
// waiting-sleepers, counts of checks: see ODPOR),
// callbacks and first violation, under limits
// and KeepGoing too (property-tested on random programs of the whole
// model, with the split depth, the point of splitting and the callbacks
// drawn). Under a limit, a worker explores a unit within what the search
// had left when it last took a result; a unit whose result does not fit
// what is left when the search takes it is explored again by the search.
// Limits.Memory is the exception: it caps what the whole parallel search
// keeps, which is more than the serial search keeps (the predictor's copy
// of the search, each worker's explorer with the frames of its unit's
// prefix, the units handed out and the results not yet taken, with their
// wakeup sequences), so a parallel search can stop with ts.ErrMemory at a
// point the serial search passes, or under a budget the serial search
// keeps to (lastzero-14 under ODPOR: the serial search keeps to 32 MB, two
// workers need more).
// Result.Stats gains parallel-* figures: units, misses (units the search
// explored itself), restarts of the predictor, the transitions explored by
// the search itself or wasted by workers, logged (what the units did to
// the frames above them, taken in order), and how long the workers waited
// (parallel-wait-*-us: for the search to split, for the predictor, for the
// search to take results) and the search for a worker's result with
// nothing else to explore (parallel-wait-result-us).
//
// What it can gain is bounded by how early each unit's input is known:
// DPOR and ODPOR plan a branch when their analysis finds a race. At the
// default split depths, lastzero-12 and indexer-16 (ODPOR) would allow
// 1.93-1.98x with 2 workers and no overhead (TestParallelTrace with
// -por.units), if the predictor saw every unit it has copied. Measured
// on 2 cores with 2 workers against one (BenchmarkParallel, medians of 8,
// in a spell when two serial searches at once ran as fast as one): 1.47x
// on indexer-16 and 1.10x on lastzero-12 with ODPOR, whose workers log the
// reversal of every race of the search's events for the search to insert
// (the CPU time of every goroutine is 1.22x and 1.70x the serial search's,
// which bounds what 2 cores can give), and 1.78x on indexer-16 with DPOR.
// The search inserts those reversals from an index of each frame's logged
// sequence (the tests a scan would make, answered along a thread's or an
// object's events). The host moves these figures from day to day: an
// earlier release measured 1.50x, 1.31x and 1.98x, the previous release
// 1.23x and 0.99x for ODPOR on the same day as these. (Before ODPOR analysed every
// race of every execution: 1.62-1.73x on indexer-16 and 1.72x on
// casrot-10 with ODPOR, 1.71x on lastzero-8 and 1.45x on bluetooth-4 with
// Sleep, 1.63-1.66x on lastzero-12.) A search in a fresh process gains
// less, or loses: it writes each page of its memory for the first time,
// a page fault each, and the parallel search keeps several times the
// serial search's memory (lastzero-15: about 230 MB against 73). Logs hold
// their events packed, without pointers, and the search takes back the
// logs of guesses it has passed at once, for that reason. What is left
// is what a unit costs: its
// key, the replay of its prefix, the log of what it did to the frames
// above it and the search's taking it (explored one after the other on one
// goroutine, the benchmark's inline rows: lastzero-12's 63 units take
// 15-30% more time than the serial search, indexer-16's 99 units 22-25%
// more, and 10% more instructions), and a new predictor
// each time a result adds a branch the predictor has walked past (22 times
// in lastzero-12's 63 units), which copies the frames and the wakeup trees
// the next units need: the subtrees of at most 64 units a worker, or of two
// windows of units and then up to 32,768 nodes. A new predictor writes
// again the keys of units its predecessors handed out; where a subtree has
// not changed since (the search versions a unit's root whenever it inserts
// below it) it takes the bytes already written, and since the search
// writes its own keys from its own tree, a guess so written can miss but
// never change a result. Nor does it copy the units' subtrees: it keeps
// those bytes or writes the subtree down, and decodes them where it reads
// or changes a subtree, which it seldom does. A search that finds the
// predictor wrong about the unit it takes, or ended before it, starts a
// new one before it takes the unit rather than after, so that the workers
// do not spend that time on the old one's later guesses (indexer-17:
// 286,000 transitions wasted, then 108,000). (A budget of 4,096 nodes, before,
// fell short of a single unit's subtree on lastzero-16, where a predictor
// then saw nothing to hand out: 2 workers took longer than one.)
//
// The default split depth is the strategy's (Options.SplitDepth): 8 for
// ODPOR, whose units carry and log the most; 12 for DPOR, whose trees
// branch further down; 4 for Sleep, whose trees branch at every frame, so
// that at 12 its units were of a few transitions and 2 workers took 2.4
// times as long as one on lastzero-8. It is capped at half the longest
// execution met before the split (casrot-10's executions are 10 long: its
// ODPOR units at 8 took 5 transitions on average, and 2 workers 6 times as
// long as one), and moves one frame up whenever 16 units in a row take
// fewer than 200 transitions on average (wcas-12, twophase-3: 2-5 times as
// long with 2 workers before). A unit too small costs more than its work;
// one too large costs only balance, so the depth never moves down. Where
// the search has no OnViolation, a unit builds the trace of its first
// violation only and counts the others, as the serial search does after
// its first (bluetooth-4's units built every trace: 2 workers took 1.6
// times as long as one with Sleep); a unit explored elsewhere (below) still
// sends the schedule of each, which the search replays. A search splits
// after Options.SplitAfter transitions (1,000 by default). If it is then
// deeper than the split depth, it finishes the subtree it is in alone
// while the predictor, started as if that subtree were a unit already
// handed out, gives the workers the units after it: making each move of
// the deep frames a unit made a string of small units, each of which
// changed the next one's input (on indexer-17 the workers explored 1.9
// million transitions, of 4.5 million, for units the search then explored
// itself), and waiting until the search was back at the split depth left
// the workers idle for the first tenth of lastzero-12's search. When the
// predictor starts again, the units it handed out stay known, with their
// results, but leave the queue until the new predictor meets them again,
// so that the workers do not explore the old guesses first. The sequences a worker logs and the plans
// the search forwards to the predictor go into recycled chunks, so that a
// search allocates per unit, not per logged insertion
// (TestParallelODPORAllocates). A unit's input holds the sleep sets (and
// DPOR's backtrack sets) of the frames above it, which only the unit
// changes while it runs, so its worker logs only what changes them: the
// wakeup sequences those sleep sets do not reject, the applications of
// DPOR's rule that add a backtrack point. SDPOR refuses a worker count above
// 1. A system that cannot be used from several goroutines implements
// ts.Forker.
//
// # Units explored elsewhere
//
// With Options.Runner, the units go to a UnitRunner instead of goroutines:
// other processes, machines, or a distributed engine (the Apache Beam
// runner in the repository's runners/beam module is one). A [Unit] is
// bytes: the input above, the strategy and the options that change what
// the unit explores (limits, KeepGoing, IgnoreDeadlocks, whether terminal
// states are wanted). [ExploreUnit] explores one on a system equal to the
// search's and returns a [UnitResult], also bytes: what the unit did to
// the frames above it, its figures, and the schedules of its terminal
// states and violations. The search takes the results as it takes its
// workers', in order and only where the input is the one it has, so the
// result is still the serial search's; it replays each violation's
// schedule (ts.Confirm, as it does its own) and, when OnTerminal is set,
// each terminal state's, so a remote unit hands back schedules, never
// states. A unit of another system (another thread count, a prefix that
// does not run) and bytes that are not a unit or result are errors
// wrapping [ErrBadUnit]; a runner's error or panic stops the search with
// it.
//
// The search hands the runner batches: when it needs a result it does not
// have, it lets the predictor walk all it can and sends every unit
// handed out and not yet explored, the needed one with them. A batch is a
// round trip, so what matters on a cluster is the rounds: a unit whose
// input the predictor guessed wrong costs one. How many there are does not
// depend on timing (the predictor walks only when the search lets it), so
// a search sends the same batches every time. A runner may answer out of
// order, twice (a retried unit is counted once, by Unit.Key) or not at all
// (the search explores a unit left without a result itself, when it needs
// it). Result.Stats adds parallel-batches and parallel-remote-units
// (results used or not).
//
// # Units too large
//
// A unit's size is only known once it is explored, and a few large ones
// can leave every other worker idle at the end. An ODPOR unit's worker
// hands back what is left of it instead: once it has explored 2,000
// transitions while another goroutine waits with nothing to explore, it
// stops where the branch it is in ends and returns what it explored with
// the rest, its path's frames (each one's wakeup tree, sleep sets and moves
// taken) and which of its events race with nothing. The search takes that
// as the unit's result, moves along the worker's path as the top of the
// search, each frame taking the worker's state, and hands out as units the
// other branches of the path's shallowest frame that has any, finishing
// the branch it is in alone (parallel-handed-back counts them). Nothing the
// worker explored is lost, and where the units start never changes the
// serial search, so the result is the same (property-tested with the rest,
// with units handed back after a few transitions whatever the goroutines
// do). With Options.UnitTransitions, an ODPOR unit is handed back once it
// passes that many transitions, whether or not a goroutine waits, and with
// a Runner too: the result carries the rest as bytes. DPOR and Sleep units
// are not handed back: with Options.UnitTransitions, one that passes that
// many transitions is dropped and split further, the search exploring its
// subtree as part of its top with units 4 frames deeper, and so on down
// while they are still too large (parallel-split-further counts them, and
// the transitions spent finding them large are in
// parallel-wasted-transitions). With a Runner each unit handed back or
// split further costs a round: on indexer-16 at split depth 8 with the
// Beam runner, ODPOR units handed back at 5,000 transitions took 34 rounds
// instead of 3, and left 79,731 transitions its runner explored unused
// (guesses a hand-back proved wrong); split further, as they were before,
// 77 rounds and 1,002,325 transitions.
package por
