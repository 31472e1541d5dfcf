// Package cbound explores a system's schedules by increasing preemption
// bound: iterative context bounding and partial-order reduction for
// context-bounded search.
//
// A preemption is a switch away from a thread that is still enabled; a switch
// away from a blocked or finished thread is free (both papers define it so:
// Musuvathi and Qadeer, "Iterative context bounding for systematic testing of
// multithreaded programs", PLDI 2007, and "Partial-order reduction for
// context-bounded state exploration", MSR-TR-2007-12). Most concurrency bugs
// need very few preemptions, and the number of executions with at most c
// preemptions grows polynomially in the length of the threads for a fixed c.
//
// # Strategies
//
//   - [ICB] explores every execution with 0 preemptions, then 1, and so on up
//     to Options.Bound: the first violation it reports has the fewest
//     preemptions of any, and Result.Coverage says what each bound covered.
//   - [DFS] is the baseline cb-dfs: a depth-first search pruned above the
//     bound, with no reduction.
//   - [HBSearch] (cb-por1) is Algorithm 1 of the cbpor paper: a depth-first
//     search over happens-before states that visits every HB state s with
//     CB(s) <= c exactly once and stores it (Result.States).
//   - [POR] (cb-por2) is Algorithm 2: the search drives the system only to
//     terminal states and hands each to Mark, which stores it and every
//     prefix from which no unexplored terminal state within the bound is
//     reachable; every terminal HB class with CB <= c is explored exactly once
//     (Result.Executions counts them), never two executions ending in one HB
//     state.
//   - [IterativePOR] (icb-por) is iterative context bounding over cb-por2:
//     bound 0, then 1, ..., c, the first violation with the fewest
//     preemptions of any, and each terminal HB class within c explored once
//     over all bounds (the bounds share one table; see below).
//   - [CB] and [Minimize] compute the context bound of the HB state a schedule
//     reaches, and an equivalent schedule with that many preemptions.
//
// # Partial-order reduction for context-bounded search
//
// Context bounding and partial-order reduction do not compose naively: with
// sleep sets and pruning above the bound, the cbpor paper's Fig. 1 (T0: x :=
// 1; y := 1, T1: y := 2) loses the final state y = 1 at bound 0 (y := 2, x :=
// 1, y := 1 needs no preemption, but the sleep set of T1's branch holds T0).
// cb-por1 and cb-por2 are sound because their states are happens-before
// states (package hb: the set of events, hashed incrementally) and their
// pruning asks the context bound of the HB state, not of the path:
//
//	CB(s_I, t) = 0
//	CB(s, t)   = min over t' in F(s) of CB(s - t', t') + (t' == t || t' not in E(s) ? 0 : 1)
//
// CB(s, t) is the fewest preemptions of an execution whose last step is t's
// from s; F(s) is the frontier (threads whose last event nothing depends on);
// s - t' removes that event. The enabled set consulted is E(s), the state in
// which t is scheduled, after the last step of t': switching from t' is a
// preemption iff t' could have gone on (E(s - t') would always contain t',
// which steps from there, and would charge switching away from a thread its
// last step finished; a test pins this reading). CB is not monotonic along a
// transition (the paper's Fig. 2), but every state within the bound is
// reached by a path of steps within it (Theorem 1), which is what the
// searches follow.
//
// Invariants: Algorithm 1 keeps CI (every stored state is on the stack or
// has everything reachable from it within the bound stored); Algorithm 2
// keeps Inv (a state is stored iff every terminal state reachable from it
// within the bound is stored), which Mark restores after each new terminal
// state: a predecessor x = s - t with CB(x, t) <= c is marked when every
// thread t' enabled at x has next(x, t') stored or CB(x, t') > c (lines
// 17-18; line 18 looks next(x, t') up without putting the event of t' on x: the
// table compares x and the event with a stored state word by word,
// hb.Table.LookupNext). A search that finds a state with enabled threads but nothing to
// explore would break Theorem 4; Result.Stats["search.stuck"] counts such
// states and the tests assert it is 0 for cb-por2.
//
// # The CB computation is a cache
//
// Deciding CB(s) <= c is NP-complete (Theorem 5, by reduction from minimum
// feedback vertex set), and the dynamic program can visit every prefix of s.
// It is memoized across the whole search, so its cost amortizes over the
// prefixes of the states visited (BenchmarkMark measures a few subproblems
// and about a microsecond per Mark call on the work-stealing queue). The
// memo keeps, per HB state, bounds on the CB values of every thread in one
// packed entry (a bounded search keeps values up to the bound plus one: it
// mostly asks whether a value passes the bound, which bounds usually
// answer; a status not read off the stack, below, widens them), in
// open-addressing tables of two
// generations bounded by Options.MemoCost (and a quarter of Limits.Memory)
// and rotated only between operations, so that one operation (a CB query, a
// Mark, a witness) keeps what it computes (within Limits.Memory: see
// Memory below). The memo is deterministic:
// identical runs report identical figures, replays included (an earlier
// ristretto cache made them differ from run to run). It is a cache: a value
// found is exact, a value missing is recomputed, so the budget changes
// time, never what is found. Entries are matched by the HB state's hash and
// a second, independent 64-bit fingerprint; the visited table itself
// compares events exactly. IterativePOR's bounds share one memo (a
// state's context bound does not depend on the bound searched), so the
// lower bounds' CB computations are not done again.
//
// E(x) is needed at prefixes x the search never drove the system to. For a
// system whose steps are not value-dependent it is mostly read off the
// stack: a thread's step depends only on its own transitions, and a step
// not Dependent with it never changes its status, so a thread u with k
// events in x has at x the status it has at any stack frame with k events
// of u that differs from x only by transitions not Dependent with u's next
// step (or, when every transition its next transition on the path depends
// on is in x, it is enabled: x with those is a prefix where u takes it); a
// thread Finished at the top with no later transition is Finished at x. The
// transitions Dependent with each frame's next steps are bit sets over the
// path's positions, computed once per frame. Where the stack does not
// decide a status (a Dependent transition of x comes after one missing
// from x), u's status at x is still its status at z, the least prefix of
// x that holds u's events and x's transitions Dependent with u's next step
// (x adds to z only transitions of other threads that are not Dependent
// with it): a status found once is kept under z's key (u, its events, the
// Dependent transitions) while the stack keeps the transitions z is made
// of (Stats["enabled.learned"] counts those read back). Where that status
// changes the answer asked (whether CB(x, t) passes the bound, an exact
// CB(x, t), or Mark's test for that thread) and is not known, z is made
// from x by taking off last events of other threads not Dependent with
// u's next step, and u's status is read off the stack at z, or found in
// the cache of enabled sets, or z is replayed: every linearization of z
// reaches the same state of a system that keeps the ts.TransitionSystem
// contract, so the path's transitions that belong to z are taken from the
// deepest state on the search stack that z extends, and the enabled set
// found is cached with the CB values. A replay starts from the last state
// on its way that an earlier replay reached: where the state type holds no
// references (Apply, handed a copy, cannot modify it), the states replays
// reach are kept by HB state (its hash and second fingerprint, as the
// memo's entries), within an eighth of Options.MemoCost, and a replay
// takes only the transitions after the last of its HB states found there
// (Stats["enabled.replay_skipped"] counts those it did not take again).
// (Replaying x itself, before, took 5.7 replayed transitions per
// transition taken on lastzero-7 at bound 2 with cb-por2; z, 0.37; z from
// a kept state, 0.24.) The first 16 statuses a search derives, and then
// one at every power of two, are replayed at x too and compared (a system
// whose independent steps change each other's status is reported with
// ts.ErrNondeterministic, an Apply that modified its argument with
// ts.ErrMutated). Replayed transitions count in Result.Transitions (and in
// Stats["enabled.replay_transitions"], those of audits also in
// Stats["enabled.audit_transitions"]; the statuses derived in
// Stats["enabled.derived"]). Value-dependent steps (below) and prefixes
// whose Check result is needed are always replayed at x.
//
// # What cb-por1 and cb-por2 preserve
//
// Every terminal state (deadlocks included) and every violation that some
// execution with at most c preemptions reaches, checked against ts.Explore
// on random programs by tstest.CheckReduction, with exact counts checked by
// brute force over all schedules. A violation is reported with a schedule of
// at most c preemptions: a fewest-preemption linearization of the violating
// HB state, cut at its first failing state, and confirmed by replay. A state
// whose Check fails has no successors. Check is assumed to stay failed once it
// fails along an execution (a thread's assertion, as ts.Checker recommends):
// with such checks the prefixes of a passing state pass, and the context
// bound of the explored system (where nothing moves on from a violation) is
// the one computed. A global property checked in Check that can fail and
// pass again may be missed, as with every partial-order reduction; declared
// as a ts.Invariant with its read set it is not (below: every linearization
// of an HB state, and of each of its prefixes, shows the same values of what
// it reads). All of this holds on the whole model (below). A state where
// user code panicked (the Apply or Next of the move that reaches it, or its
// Check or Hash) is, like one whose Check fails, a terminal state of the
// search, which Mark stores: no equivalent path reaches it, or reports its
// panic, again. A panic in user code met while replaying a prefix (a system
// whose Apply panics on what its step does not access, breaking the
// independence contract) is reported with that replay's schedule, which may
// exceed the bound, and the search goes on without the work that needed
// the replay; replayed transitions, a panicking one included, count in
// Result.Transitions and against Limits.Transitions.
//
// Memory: the table keeps a state stored by cb-por1, or a predecessor stored
// by Mark, as the state it extends or precedes plus one event, in about 50
// bytes (hb.EntryBytes; a state cb-por1 stores by an event of several
// accesses or with an outcome keeps 8 bytes more a word of it; one state in
// 9 or fewer is kept as a copy, which shortens comparisons, at most 32
// bytes a state more), and each
// terminal state cb-por2 reaches as a copy of its events (8 bytes an access,
// and one for an outcome); the memo keeps at most about Options.MemoCost
// (an entry costs 16 bytes of key and 8 bytes for every 16 threads at bound
// 2, in tables at most three quarters full before they rotate; the states
// replays reached, an eighth of it more), and a quarter of Limits.Memory at
// most, between operations: within one (a CB query, a Mark) it keeps all it
// computes, and one CB query can visit every prefix of its state, a number
// that grows as a power of the threads' length (seven threads of 110 steps:
// more than 11 GB before this was checked); the stack costs some 50 bytes per
// thread per transition of depth, plus a bit per thread per transition of
// depth per frame for the dependency sets (derive.go reads statuses off the
// stack only while a frame's sets fit in 2 KiB, some 1,600 transitions of
// depth for 10 threads, and replays beyond). BenchmarkCBPORSpeed measures
// the live heap per stored state, with the memory mapped outside the heap
// for the table's and the memo's arrays past 2 MB (offheap), which the
// search unmaps when it returns: about 160 bytes on lastzero-8 and 130 on
// lastzero-9 at bound 2, table (82 bytes) and memo included. Past Limits.Memory the search stops with an error
// wrapping ts.ErrMemory that says what it kept. The budget is checked between
// transitions and inside the operations that keep without taking one: every
// 4096 CB subproblems, Mark calls, stored states and transitions, and
// before the memo's table doubles; so one CB query or one Mark (which, for
// n independent threads, stores all 2^n prefixes of their terminal state)
// stops at the budget too, not when it ends. What is counted is an
// estimate: the tables by their arrays' capacity, Go maps at 40 bytes an
// entry of a small key (the most they take), the system's states by their
// Go size.
//
// # cb-por on the whole model
//
// cb-por1, cb-por2 and IterativePOR take every system ts.Explore takes:
// steps of several objects, transitions of several outcomes, Idle threads (a
// state where every waiting thread is Idle ends normally),
// Options.IgnoreDeadlocks, and a global invariant with a read set
// (ts.Invariant), checked at every state the search visits; a state where it
// fails ends the execution there, as a failed Check does.
//
// Their transitions are moves: a thread and an outcome of its transition.
// Search tries every outcome of every enabled thread, and Mark's line 18
// asks next(x, t') for every such move of every thread enabled at x. The
// HB state of an execution is the set of its events (package hb), each
// with one access per object its step touches and the outcome it took, over
// the steps as search.Model marks them: a step that writes what the
// invariant reads also writes ts.InvariantObj. Two events of different
// threads are therefore ordered directly iff they share an object one of
// them writes: exactly ts.Dependent of the marked steps, the dependency
// every strategy and tstest.TraceKey use. Two moves of one thread never
// commute, and two outcomes make two events, so executions that take
// different outcomes never share an HB state: no reduction merges them.
// An event of one object with outcome 0, the common case, is stored in one
// word and costs nothing more than a step of the basic model.
//
// Why the paper's theorems still hold: they need (1) that every
// linearization of an HB state reaches the same system state, which is the
// ts.TransitionSystem contract (steps that are not Dependent commute, with
// any outcomes, and neither enables, disables or changes the other), and
// (2) the context bound of a linearization, which counts switches between
// threads only. A move's context bound is its thread's: CB(s, t) is the
// fewest preemptions of an execution that ends with t's transition from s,
// whichever outcome it takes, because choosing an outcome is not a
// preemption. So the dynamic program is unchanged, asked once per thread
// for all its outcomes, and its memo is keyed by the HB state (whose hashes
// cover every event's accesses and outcome) and the thread.
//
// Why the invariant is never hidden: every two transitions that write what
// it reads are dependent (both write ts.InvariantObj), so every
// linearization of an HB state takes them in one order; each takes the same
// event, reading and writing the same values, in all of them; and reads
// change nothing. Every linearization of an HB state, and of each of its
// prefixes, thus shows the same sequence of values of the invariant's
// objects: the invariant holds at every state of all of them, or fails on
// the way in all of them, and a state whose prefix fails is not reached in
// the explored system (where nothing moves on from a violation), as the
// CB computation assumes. The search explores one linearization of every
// HB state (cb-por1) or of every leaf HB class (cb-por2, where a failing
// state is a leaf) with CB at most the bound, so it reports every invariant
// failure some schedule within the bound reaches. Reads of those objects
// stay independent of each other and of writes of the invariant's other
// objects, as in ts.Dependent.
//
// What is tested, on random programs of the whole model against ts.Explore
// and against an enumeration of every schedule with every outcome: at bounds
// 0..3, exactly the terminal states and every violation (of every kind)
// that the executions within the bound reach; cb-por1 stores every HB state
// with CB <= c exactly once; cb-por2 explores exactly one execution per leaf
// HB class within the bound, and so, where no check or invariant fails
// (invariants that hold, of one object or two, included), exactly one
// execution per Mazurkiewicz trace that some schedule within the bound
// completes (tstest.CheckOptimal); IterativePOR's first violation has the
// fewest preemptions; Minimize keeps outcomes. Where checks fail, an
// execution ends at the first failing state, and cb-por2 explores one
// execution per leaf HB class, which may be more than one per trace of the
// complete executions.
//
// The contract is checked as ts.Explore checks it: at every state with two threads enabled the
// search asks Next again (and Hash, if the system has one) when it leaves
// it, and a replay that meets a different step looks for the stack state an
// Apply modified; the error wraps ts.ErrMutated or ts.ErrNondeterministic.
//
// Both need more work per transition than cb-dfs (the CB queries and
// replays) and win when many executions are equivalent: on the work-stealing
// queue at bounds 0..4, cb-dfs explores 1, 17, 110, 773 and 2373 executions,
// cb-por2 1, 9, 13, 18 and 18 (one per terminal HB class). Result.Coverage
// of both counts, per bound b <= c, the terminal HB classes with CB <= b, so
// one run at bound c gives the cb-por2 figures of every smaller bound.
//
// # IterativePOR
//
// IterativePOR searches bound 0, then 1, ..., up to c, as ICB does: its
// first violation has the fewest preemptions of any, and a budget is spent
// on the lowest bounds first. Bound k does not redo the lower bounds'
// work: the bounds are one cb-por2 search whose table H is kept from bound
// to bound, with a level for each state, L(x), such that every terminal
// state reachable from x by steps of context bound at most L(x) is in H
// (H only grows, so this stays true). At bound k a state counts as stored
// iff its level is at least k, which is Inv's "stored implies complete" at
// bound k. Mark gives a state x the level
//
//	L(x) = min over moves m of x of max(CB(x, m) - 1, L(next(x, m)) if next(x, m) is in H)
//
// (a lower bound on CB(x, m) serves; a thread whose status at x the stack
// does not decide counts as enabled; levels above c count as c), and
// raises the level of a state already stored when its successors allow.
// L(x) says what it claims: a path from x within L(x) starts with a move m
// with CB(x, m) <= L(x), which reaches a state in H of level at least L(x).
// Mark looks ahead: it asks line 17 with the top bound c, not with k, and
// stores (or raises) every predecessor x = s - t with CB(x, t) <= c whose
// level is at least max(k, CB(x, t)) and walks on to its predecessors; a
// state that a higher bound reaches is then often stored with a level that
// covers that bound before the search of the bound begins (on lastzero-N,
// whose terminal HB classes all have context bound 0, bound 0 stores nearly
// everything the higher bounds need). Line 18 at bound k is the level
// being at least k: every move within k reaches a state stored at k.
//
// Why it is exact. (1) The search at bound k never enters a state stored at
// k, and a terminal state (or one whose Check fails) is stored with the
// level of a state without steps when it is reached: no terminal HB class
// is reached twice, over all bounds. (2) Every state the search pops at
// bound k is stored at k: a state it moved from is a predecessor within k
// of the last of its successors to become stored at k, and Mark examines
// every predecessor within c of each state it stores or raises, as in POR;
// a state none of whose moves was taken (each was stored or over the bound
// from the start: kept from lower bounds, so that no Mark at k came back
// to it) is stored by markStuck, which computes its level and runs Mark's
// recursion from it (Result.Stats["mark.stuck"] counts them; 93 of 95,091
// states on lastzero-8 at bound 3). So the initial state is stored at the end of bound k,
// and every terminal state within k is in H: found at bound k (then its
// context bound is k) or at a lower one. Each bound's terminal states,
// terminal HB classes, violations and Coverage are therefore those of POR
// at that bound, and Result.Executions is the number of terminal HB classes
// within c. A state where user code panicked is stored as a terminal state,
// complete at every bound; a state whose markStuck panicked (in a replay) is left
// unstored, and the next bound searches it again, as before. Tested on random programs
// of the whole model at bounds 0..3 against the search of each bound afresh
// (TestIterativePORIncrementalSameAsRedo: the same terminal HB classes,
// violations and Coverage, each terminal HB class reached once, no state
// left stuck), besides the property tests of every cb-por strategy.
//
// Measured (go run ./cmd/weft -model M -strategy icb-por -bound C -q -json;
// transitions include replays; "afresh" is each bound searched anew, as
// icb-por did before, sharing only the memo; Mark calls afresh are the sum
// over the bounds of cb-por2's Stats["mark.calls"] at each):
//
//	model           C  executions afresh -> now  transitions afresh -> now  Mark calls afresh -> now
//	lastzero-7      2     960 ->   320           10,852 ->  4,950           48,322 ->  37,025
//	lastzero-7      3   1,280 ->   320           13,790 ->  4,788           74,387 ->  45,095
//	lastzero-8      2   2,112 ->   704           25,679 -> 12,178          158,476 -> 127,854
//	lastzero-8      3   2,816 ->   704           32,588 -> 11,758          253,567 -> 167,002
//	lastzero-9      2   4,608 -> 1,536           59,721 -> 29,698          512,856 -> 430,989
//	lastzero-9      3   6,144 -> 1,536           75,805 -> 29,297          855,008 -> 603,848
//	philosophers-4  2      22 ->    15              292 ->    247  (violation at bound 1)
//	bluetooth-2     2       9 ->     8               95 ->     87  (violation at bound 1)
//
// Transitions fall to about those of bound 0 alone (cb-por2 at bound 0:
// 4,605, 10,851 and 25,204 on lastzero-7, 8 and 9), but the work moves to
// Mark, which examines predecessors within c from bound 0 on and looks up
// the states of refused moves for their levels, and on lastzero the CB
// computation, which no bound repeats in either search, dominates:
// instructions under callgrind (valgrind --tool=callgrind, GOMAXPROCS=1,
// GODEBUG=asyncpreemptoff=1, the weft command above with -q) go from
// 1.22e9 to 1.16e9 on lastzero-7 at bound 2, 1.97e9 to 1.57e9 at bound 3,
// and stay at 4.46e9 on lastzero-8 at bound 2 (cb-por2 at bound 2 alone:
// 0.78e9 on lastzero-7). The search's own CPU time in BenchmarkRatio (go
// test -p 1 ./cbound -run '^$' -bench 'Ratio/.*/icb-por' -count 5, median
// of transitions/op over transitions/s, before and after on a shared
// machine): lastzero-4 3.54 -> 2.70 ms, philosophers-4 2.73 -> 2.04,
// wsq-1 1.70 -> 1.41, bluetooth-2 3.59 -> 2.75, lastzero-7 211 -> 223
// (noisy; callgrind above says 5% fewer instructions). Its x-bare is per
// transition, so it rises where transitions fall faster than time.
// BenchmarkCBPORSpeed compares icb-por with icb-por-redo, the search of
// each bound afresh, in the same run.
//
// # ICB and cb-dfs on the whole model
//
// ICB and cb-dfs take every system ts.Explore takes: steps of several
// objects, transitions with several outcomes (the outcome of the running
// thread's transition is the environment's choice, never a preemption;
// preempting to a thread takes each of its outcomes), threads that wait
// Idle (an end where only Idle threads wait is not a deadlock), global
// invariants, and Options.IgnoreDeadlocks. Wherever a state had two moves or
// more, its state is checked when the search leaves it (the same hash, or
// every thread's next step again), and a queued preemption checks its state
// when it is run, so an Apply that modifies its argument or a Next that is
// not a function of the state stops the search with ts.ErrMutated or
// ts.ErrNondeterministic. Where the state type holds no references (no
// pointer, slice, map, channel, function or interface), Apply is handed a
// copy and cannot modify the state kept: the check then asks one thread's
// step again and no Hash. ICB hashes each state it reaches once, for its
// cache; cb-dfs hashes only terminal states, which it counts by hash. Cancellation is seen within 100 ms even when every
// Apply takes 100 µs (tested); Progress, Limits (Memory included) and the caller's
// callbacks behave as in ts.Explore.
//
// ICB's largest slices, the queue of preemptions for the next bound, the
// states they start from (where the state type holds no pointers), the
// schedule nodes they share, and the table of visited items (a state's hash
// and the thread that moved last, probed at random), move past 2 MB to
// memory mapped outside the Go heap and advised for huge pages, where they
// grow without copies and their probes miss the TLB less; the search unmaps
// it when it returns, and Result.Stats["icb.offheap_bytes"] (only when not
// zero) says how much it held, which the Go heap's figures do not count.
// On lastzero-9 at bound 2 (930,341 items) a process took 0.95 s instead
// of 1.30, and 11,400 page faults instead of 40,700 or more. The smaller
// ones (in the Go heap) go to a pool that the next ICB or cb-dfs search, of
// any state type, takes them from, so that a search of a few thousand
// transitions does not grow and clear them from nothing (BenchmarkRatio:
// 2.9-3.7x the bare loop to 2.8-3.4x); Limits.Memory counts them by the
// room the search would have grown them to, so where a search stops for its
// budget does not depend on what ran before it.
//
// # Value-dependent steps
//
// Every strategy of the package takes systems with value-dependent steps
// (ts.ValueDependent: a compare-and-swap that fails is a Read, one that
// succeeds a Write) and preserves what it preserves above; HB states are
// made of the accesses the transitions actually made. Mark (cb-por2) needs
// the next step of each thread at predecessors x that the search never
// drove the system to, and a thread's step at x may differ from its step
// on the path (the write that made a cas fail may not be in x): for such
// systems it takes the steps at x from the replay that already finds E(x),
// kept in the same cache, and from the stack where x is a prefix of the
// path. (Taking the path's step instead left predecessors unmarked, and the
// search then visited them for nothing: Result.Stats["search.stuck"] was
// 582,700 on wcas-9.) Property-tested against ts.Explore and the brute
// force (tstest.GenOptions.CASReads): cb-por1, cb-por2, icb-por, icb and
// cb-dfs at bounds 0..3, with cb-por2's exact counts and no stuck search;
// on the bundled casw-N, wcas-N and casrot-N cb-por2 explores GenMC's
// counts (casw-3 per bound 6, 24, 54, 66). Sync-only scheduling is not
// property-tested with them.
//
// # Sync-only scheduling
//
// With Options.SyncOnly, ICB places scheduling points only before steps on
// synchronization objects and checks every explored execution for data
// races. A synchronization object is one that some step accesses as
// synchronization (a lock, or an access marked Step.Sync), one on which a
// step was seen blocked or waiting Idle (an await not marked Sync), and the
// global invariant's read set (ts.InvariantReads: without it, every step).
// Every access to such an object is a scheduling point, also a plain one: a
// variable written plainly and awaited with a Sync read has all its
// interleavings explored. Objects are learned as their steps are seen; when
// one is learned after the search has passed a state without making it a
// scheduling point, the search starts again (Result.Stats["restarts"],
// "restart-transitions"), and violations already reported are not reported
// twice.
//
// A data race is two accesses of different threads to one object, at least
// one a write, neither a synchronization access, that program order and
// synchronization accesses do not order (package hb's Detector). An
// execution with a race is reported as a violation of kind ts.DataRace, and
// Result.Finds includes data races.
//
// A check that fails (or a panic) right after a plain step ends the
// execution there, before the other threads' later steps; the state before
// that step then becomes a scheduling point, so the interleavings in which
// the others run first are explored too.
//
// What it preserves, for every program it accepts: it reports a data race
// exactly when some execution of the full search has one (by the definition
// above), and when it reports none it reaches every terminal state,
// deadlock, failed check and invariant failure the full search reaches (ICB
// paper, section 3.1 and Theorems 2-3, extended as above), with no more
// transitions, apart from those of restarts. All of this is property-tested
// against ts.Explore on random programs of the whole model, with objects of
// both kinds of access and assertions between scheduling points. It
// preserves nothing more: a property over intermediate states between two
// plain accesses, other than a declared invariant, is not seen.
package cbound
