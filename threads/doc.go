// Package threads explores concurrent Go code written as ordinary Go: each
// thread is a function that uses this package's primitives, and a
// [Program] is a [ts.TransitionSystem] (through package sim) that every
// stateless weft strategy explores, and the random searches of package
// random sample.
//
//	p := threads.New(func(t *threads.T) {
//		mu := threads.NewMutex(t, "mu")
//		n := threads.NewVar(t, "n", 0)
//		t.Go(func(t *threads.T) { mu.Lock(t); n.Store(t, n.Load(t)+1); mu.Unlock(t) })
//		mu.Lock(t)
//		n.Store(t, n.Load(t)+1)
//		mu.Unlock(t)
//	})
//	res, err := weft.Run(ctx, p.MustSystem(), weft.ODPOR(), ts.Options{})
//
// In a test, wefttest.Check(t, p.MustSystem(), wefttest.Options{}) runs the
// search and prints a replayable counterexample.
//
// # What is modelled
//
// Every call of a primitive is one visible step; the code between two calls
// is local to the thread. The primitives are [Mutex], [RWMutex] (writer
// preferring, as Go's), [WaitGroup], [Cond] (no spurious wakeups), [Once],
// [Var] (a plain variable), [Atomic] and [AtomicInt] (Load, Store, Swap,
// CompareAndSwap, Add; a CompareAndSwap is a write whether or not it
// succeeds), [Chan] (buffered and unbuffered Send, Recv, Recv2, Close) with
// [Select] over several cases (one step over every channel of its cases;
// every choice among ready cases is explored as an outcome; [Default]),
// [T.Go] (spawn), [T.Choose] (a value chosen by the search: a step with n
// outcomes, for timeouts, errors and inputs) and [T.Assert] / [T.Fail].
//
// Memory is sequentially consistent: the Go memory model's weaker
// behaviours (a racy read seeing a stale or torn value) are not explored;
// races are reported instead (below). Objects must be made with their New
// function inside the program (each execution makes them afresh, and their
// numbers come from the thread that made them, so they do not depend on
// the schedule). Go memory that is not a primitive (a slice, a map, a
// struct) may be shared only while the sharing is ordered by
// synchronization (a lock held, a channel handoff): the search does not see
// it, and a reduction assumes it does not race.
//
// # How it runs
//
// Threads are coroutines ([iter.Pull]) driven by the search on the
// caller's goroutine: no real scheduler, no goroutine running concurrently
// with another. A state is the schedule that reached it: the adapter of
// package sim starts a new execution (every coroutine of the previous one
// is ended) and replays the schedule to return to a state, and checks that
// every replay makes the same steps. The [System] ends the coroutines of
// the last execution when a search collects its figures at its end, so no
// goroutine outlives a search; after [ts.Replay] or a strategy that refuses
// the system after starting it, call [System.Close].
//
// Spawned threads take slots numbered after Program.Threads, in the order
// of their spawns (up to Program.MaxThreads). A slot not yet spawned is
// Idle; a spawned thread's first step is its start.
//
// # What is detected
//
//   - Assertion failures and panics in thread code, and Go's run-time
//     panics and fatal errors on the primitives: send on a closed channel,
//     close of a closed channel, negative WaitGroup counter, unlock of an
//     unlocked mutex: a violation of kind ts.CheckFailure naming the thread.
//   - Deadlocks: a thread waiting on a mutex, channel, WaitGroup or Cond is
//     Blocked, and an end with no thread enabled and one Blocked is a
//     deadlock, reported with each thread's name and what it waits for.
//     As in Go, where the program ends when main returns, a thread left
//     waiting after thread 0 (main) has returned is Idle, not deadlocked: a
//     server waiting for requests. Program.Leaks reports it as a deadlock
//     instead (a goroutine leak, a blocking bug the Go bug studies count:
//     a send no one will receive). Unlike Go, the other threads go on
//     running after main returns, so a violation that needs them to run
//     after main's end is reported too.
//   - Data races on [Var]s, by the race-detecting strategy weft.SyncOnly
//     (context bounding that schedules only at synchronization accesses):
//     two accesses of different threads, one a write, not ordered by
//     synchronization (locks, channels, atomics, WaitGroup, Cond, spawn).
//     The other strategies find a race only through its consequences (an
//     assertion that fails).
//   - Non-determinism: thread code whose steps depend on a clock, a map's
//     iteration order, random numbers or goroutines of its own makes a
//     replay go another way; the search stops with an error wrapping
//     ts.ErrNondeterministic that gives the schedule and the step where it
//     diverged. (Code that is non-deterministic only in what it computes
//     locally, not in the steps it takes, is not caught.) Primitives must
//     be called only from their thread's own function: one called from a
//     goroutine the program started is outside the model.
//   - Spins: a thread that takes more than Program.SpinLimit visible steps
//     in one execution (a loop of atomic loads waiting for a flag no one
//     sets, a livelock) ends the execution with a violation naming the
//     thread.
//
// # Limits
//
//   - A loop with no visible step never returns control to the search: it
//     hangs, as it would hang a real program. Neither can be told from a
//     long computation.
//   - The spin limit also cuts schedules that are only unfair: a thread
//     that spins on a flag another thread would set, scheduled alone, is
//     reported once it passes the limit. Wait with a channel, a Cond or a
//     WaitGroup, or raise SpinLimit for a bounded retry loop.
//   - Mutexes are released by the thread that holds them (Go allows
//     another goroutine to; here it is a violation), since the reductions
//     treat a lock as held from its Acquire to its Release.
//   - A select does not queue on its channels while it waits (Go's does):
//     a partner that completed it through one channel would change what an
//     operation on another of its channels does, which no reduction can
//     see. It proceeds once one of its cases can, so it meets plain Sends
//     and Recvs, buffers and closes as in Go, but two selects that could
//     only meet each other on an unbuffered channel are reported as a
//     deadlock.
//   - Go's random choice among ready select cases is explored
//     exhaustively: a select whose outcome k names a case that is not ready
//     takes the next ready one, so some outcomes repeat another.
//   - Every operation on a channel, an RWMutex or a WaitGroup writes the
//     object: two receives from one channel, two readers of an RWMutex are
//     dependent. Atomic and Var loads are reads and commute.
//   - Stateful strategies (which need a state fingerprint) refuse programs:
//     a coroutine's state cannot be hashed or copied, which is also why
//     returning to a state replays it from the start. A visible step costs
//     about twenty times a step of a hand-written state machine (see
//     BenchmarkVisibleAccess), most of it starting the coroutines of each
//     new execution.
//
// Package [github.com/weftlab/weft/threads/gobugs] is a suite of kernels
// of real Go concurrency bugs written with this package.
package threads
