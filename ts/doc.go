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
// A transition is one visible access to a shared object (or several: see
// below) followed by the thread's local computation up to its next visible
// access. Two steps of different threads are dependent iff they touch the
// same object and at least one of them writes it ([Dependent]). Lock acquire and release are accesses to
// the lock object; a thread waiting for a lock is [Blocked].
//
// # Several objects, outcomes and idle threads
//
// A transition may touch several objects: a message delivery that updates
// the receiver and queues replies, a select over several channels. Its
// [Step] lists the others in Also, each object once with its own
// operation. Two steps are dependent iff they share an object that one of
// them writes, so a step of several objects costs a reduction only where
// it really conflicts; a step of one object is written as before and costs
// nothing more.
//
// A transition may have several outcomes chosen by the environment: a
// message delivered or lost, a timer firing or not, a coin flip. A system
// that has them implements [Chooser]. Every strategy explores every outcome;
// two outcomes are two different transitions, never merged by a reduction;
// choosing one is not a preemption. A schedule records the outcome of each
// move ([Move.Outcome], written "thread/outcome"), traces show it, and
// [Replay] reproduces it.
//
// A thread that waits for something that may never come, as a server waits
// for requests, reports [Idle] rather than [Blocked]: a state where no
// thread is enabled and every waiting thread is Idle is a normal end, not a
// deadlock. [Options].IgnoreDeadlocks makes every end normal, and the
// Result's Finds says that deadlocks were not looked for.
//
// # Value-dependent steps
//
// A compare-and-swap writes its object when it succeeds and only reads it
// when it fails. A system that reports the access a transition actually
// makes (a Write or a Read, as the value it finds decides) implements
// [ValueDependent] and names the objects where that happens: there, and
// only there, another thread's write may switch a thread's next access to
// the object between Write and Read ([StepVariant] says exactly which
// changes are allowed). Two failed compare-and-swaps of one object are then
// independent, so reductions explore far fewer executions on programs that
// retry them. Strategies that support it reduce over the actual accesses
// (a reduction is over the Mazurkiewicz traces of the accesses the
// transitions really made); the others refuse such a system with an error
// wrapping [ErrUnsupported].
//
// # Assertions and invariants
//
// [Checker] is for assertions over what threads have seen: a thread's
// assertion recorded in the state by Apply. Reductions preserve those, but
// they do not promise intermediate states, so a property of shared objects
// at an arbitrary moment ("at most one leader per term", "never both in the
// critical section") may be skipped when it is a Check. Declare it with
// [Invariant] and the objects it reads. Strategies then count every
// transition that writes one of those objects as a write of one more object
// too ([InvariantObj]), so that every two such transitions are dependent:
// every execution a reduction counts as equivalent to one that reaches a
// failing state passes through the same sequence of values of the
// invariant's objects, and so fails too. The fewer objects the invariant
// reads, the more a reduction can prune.
//
// # Modelling real systems
//
// The examples show each recipe as a complete system:
//   - Message passing: a channel is an object; a send writes it and waits
//     while it is full, a receive writes it (it takes the message) and
//     waits while it is empty. A server waiting for requests is Idle (the
//     idle-server example).
//   - select: one transition whose step names every channel it may take
//     from, waiting while all are empty; one outcome per channel lets it
//     take any ready one (the select example).
//   - Spin-waits: a loop that re-reads a flag has executions of every
//     length. Model it as a blocked await: the thread is Blocked, with a
//     step that reads the flag, until the flag lets it pass (the spin-wait
//     example).
//   - Message loss, duplication and timeouts: outcomes. A lossy send has
//     the outcomes delivered and lost (and duplicated, for a link that
//     duplicates). A waiting thread takes no transition,
//     so a timeout is a choice the thread makes in a step of its own before
//     it waits: keep waiting, or give up (the timeout example).
//   - Global properties: an Invariant with its read set (the Invariant
//     example).
//
// The bundled models twophase-N and twophase-bug-N (go run ./cmd/weft
// -model twophase-bug-2 -trace) put all of these together.
//
// # Capabilities
//
// Optional interfaces add what some strategies need, found by type assertion
// as io/fs does: [Checker] for assertions, [Invariant] for global
// invariants, [Chooser] for outcomes, [ValueDependent] for steps whose
// access depends on the value read, [Blocking] for the objects on which a
// step can wait, [Hasher] for state caching, [Describer] and [ObjNamer] for
// readable traces.
//
// # Results and errors
//
// A bug is a [Violation] in the Result, with a replayable [Trace]: a failed
// Check, a deadlock (no thread enabled while one is Blocked), a data
// race, a failed invariant, or a panic in user code. An error means bad options
// ([ErrBadOptions]), a system that breaks the contract ([ErrBadSystem], as a
// [*SystemError] naming the thread and the schedule), or cancellation; the
// partial Result comes with it.
//
// # The reference search
//
// [Explore] visits every interleaving, depth first, with no reduction;
// [ExploreStateful] stores visited states and so handles cyclic systems.
// It keeps their hashes in an open-addressing table, 8 bytes a slot and at
// most three quarters full, which moves past 2 MB to memory mapped outside
// the Go heap and advised for huge pages, and which it unmaps when it
// returns: on lastzero-10's 1.4 million states a process took 1.24 s and
// 34 MB where a Go map took 2.04 s and 133 MB (the map's growth faulted in
// 32,000 pages).
// [Replay] re-runs a schedule and reports where it ends.
//
// Every search replays a violation's schedule from the initial state before
// it reports it ([ConfirmWith]), so that a system that does not reproduce
// what the search saw is an error, never a bogus bug. A search that keeps
// going counts the violations after the first it keeps: a [Reproducer]
// confirms those without building their traces, from the states its last
// replay reached where the state type holds no references, so that
// counting a violation costs the transitions its schedule does not share
// with the previous one's. A strategy of your own can do the same.
//
// # Parallel search
//
// With [Options].Workers above 1, ExploreStateful spreads the work of the
// model over several goroutines. The depth-first search itself stays on the
// caller's goroutine and decides everything as it does alone; workers
// compute ahead of it, in its depth-first order, what it would ask the
// system at the states it is about to reach: every thread's Next and
// Outcomes, Check and Invariant, each move's Apply and the Hash of the
// state it leads to. The search takes those answers where it would have
// called the system, and calls the system itself where an answer is not
// ready, or where computing it panicked or was invalid, so that a panic or
// a broken answer happens on the caller's goroutine at the point of the
// serial search. An answer is only taken for the very state value it was
// computed from, never for another state of the same hash, so a Hasher
// that maps several states to one hash on purpose (as a symmetry reduction
// does) is fine.
//
// What is identical, whatever the worker count: the Result (every field),
// the OnTerminal calls with their states and schedules, the OnViolation
// calls, in the same order, with KeepGoing too, and where the search stops
// at every limit and with which error. Callbacks run on the caller's
// goroutine, one at a time. No goroutine outlives the call. A system that
// implements [StatsReporter] is searched on one goroutine, since work done
// ahead would change its figures, and so is one that implements [Forker]
// (it cannot be shared, and its copies' states are not its own). [Explore]
// refuses Workers above 1.
//
// What it needs: the system's methods must be safe to call concurrently on
// different states. The contract makes them pure functions of the state,
// so a system that keeps it is; one that keeps a cache, counts calls or
// replays a shared simulator is not, and with Workers above 1 its answers,
// the search's result, or the process itself (Go stops on a concurrent map
// write) may break. A system that breaks the contract (an Apply that
// modifies its argument, a Next that is not a function of the state) is
// still caught, with an error wrapping the same [ErrMutated] or
// [ErrNondeterministic], but where it is caught, and so the partial
// result, may differ, since workers apply moves before the search reaches
// them. A method that never returns on a state the workers reach can hang
// the search even where the serial search stops before that state.
//
// What it costs: each state computed ahead is kept, with its threads'
// steps and its successors, until the search has passed it (at most 4096
// per worker ahead), and the hashes the workers claimed, in a Go map, take up
// to five times the visited table's memory. Limits.Memory is checked on the serial search's own
// figures, so the search fails where the serial search does; the workers
// keep what they compute ahead within what the cap leaves, and when the
// whole would pass the cap the workers stop and the search goes on alone.
// The search still looks up every state in its table, hashes again the
// states it leaves after several transitions (the contract check) and does
// its own bookkeeping, so the speedup is bounded by the share of the
// time the system's methods take: on a model whose methods cost little more
// than the search's table lookups, handing states between goroutines costs
// more than it saves (a state of lastzero-8 took 7 times as long with 2
// workers as alone).
//
// So whether the workers pay is measured, not assumed. The search explores
// its first 2,048 states alone, timing them, then starts the workers where
// it stands and times the states it visits with them (after a warm-up of
// 1,024, over 3,072 more); it keeps them only if a state then takes at most
// 0.85 of its time alone, and stops them for the rest of the search
// otherwise, or at once if, checked every 128 states, they have made it 3
// times as slow. On a system whose states are costly (a simulator), the
// stretch alone ends after 50 ms instead (at a multiple of 16 states), and
// the stretches with the workers shrink in proportion: half of it to warm
// up, as many timed. A search of fewer states never starts them. The
// decision depends on timing, never the result: the search decides
// everything else as it does alone. On the bundled models, whose methods
// are cheap, the workers stop 128 states after they start, and Workers 2
// takes 1.07-1.15 times Workers 1's time on lastzero-9 (BenchmarkStatefulWorkers);
// before the probe, lastzero-8 took 3.5 times as long.
package ts
