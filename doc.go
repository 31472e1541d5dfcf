// Package weft finds concurrency bugs by exploring the thread schedules of a
// concurrent system systematically.
//
// A user wraps a model, a protocol simulator or a data structure as a
// [ts.TransitionSystem] and hands it to a search strategy. weft returns
// either a violation (a failed assertion, a deadlock, a data race or a panic)
// with a schedule that replays it, or a coverage statement: what was explored,
// and whether the search was complete.
//
// # Quick start
//
//	type counter struct{} // two threads: r := n; n := r + 1
//	type state struct {
//		pc  [2]uint8
//		reg [2]int
//		n   int
//	}
//
//	func (counter) Init() state  { return state{} }
//	func (counter) Threads() int { return 2 }
//	func (counter) Next(s state, t ts.Tid) (ts.Step, ts.Status) {
//		switch s.pc[t] {
//		case 0:
//			return ts.Step{Obj: 0, Op: ts.Read}, ts.Enabled
//		case 1:
//			return ts.Step{Obj: 0, Op: ts.Write}, ts.Enabled
//		}
//		return ts.Step{}, ts.Finished
//	}
//	func (counter) Apply(s state, t ts.Tid) state {
//		if s.pc[t] == 0 {
//			s.reg[t] = s.n
//		} else {
//			s.n = s.reg[t] + 1
//		}
//		s.pc[t]++
//		return s
//	}
//	func (counter) Check(s state) error {
//		if s.pc == [2]uint8{2, 2} && s.n != 2 {
//			return fmt.Errorf("lost update: n = %d", s.n)
//		}
//		return nil
//	}
//
//	res, err := ts.Explore(ctx, counter{}, ts.Options{})
//	// res.Violation.Trace replays the lost update.
//
// # Packages
//
//   - [github.com/weftlab/weft/ts]: the model (TransitionSystem, Step,
//     Result, Violation, Trace), Replay, and ts.Explore, the plain exhaustive
//     search every reduction is tested against.
//   - [github.com/weftlab/weft/ts/tstest]: conformance checks for a user's
//     system, random systems, and the property that a reduction reaches the
//     same terminal states and violations as ts.Explore.
//   - [github.com/weftlab/weft/hb]: happens-before: canonical events, HB
//     states with incremental hashing, vector clocks, the data-race detector.
//
// Strategies live in sibling packages, each a function of the same shape as
// ts.Explore:
//
//   - [github.com/weftlab/weft/cbound]: iterative context bounding (the
//     first bug with the fewest preemptions), sync-only scheduling with race
//     checks, and partial-order reduction for context-bounded search over
//     happens-before states.
//   - [github.com/weftlab/weft/por]: partial-order reduction without bounds:
//     sleep sets, DPOR, optimal DPOR with wakeup trees, stateful DPOR.
//   - [github.com/weftlab/weft/transact]: Lipton movers and transaction-based
//     search with commit point completion.
//   - [github.com/weftlab/weft/symmetry]: thread symmetry, declared (one
//     state per orbit) or discovered (DPOR over interchangeable threads).
//   - [github.com/weftlab/weft/mat]: mutually atomic transactions.
//
// # Which strategy
//
// For the first bug with the fewest preemptions, [ICB] (any system; Hash on
// a cyclic one) or, on an acyclic system, [ICBPOR], which explores one
// execution per trace within each bound. For a proof over every schedule
// of an acyclic system, [ODPOR] (one execution per trace; the default of
// wefttest and the command), or [SDPOR] when the system has Hash and its
// states reconverge. A cyclic system needs Hash: [DFSStateful], or [CPC]
// and [Cycle] for lock-based programs (fewer states; deadlocks not
// promised). Interchangeable threads: [Sym] (a canonical form) or [SymPOR]
// (thread signatures). A proof within a preemption bound: [CBPOR2]. Data
// races: [SyncOnly]. The README's table gives the cost of each on the
// bundled models.
//
// # Strategies as values
//
// Every strategy is also a [Strategy] value, made by a constructor ([DFS],
// [ODPOR], [ICB], [ICBPOR], [Sym], ... one per strategy; [Strategies] lists
// them), that carries its options and says what it is: [Strategy.Model]
// (what of the model it takes), [Strategy.Preserves], [Strategy.Needs] and
// [Strategy.Bound]. [Run] runs any of them the same way, after [Validate]
// has checked what can be checked before a search (Hash, a canonical form,
// thread signatures). Sound compositions are built from values:
// [Strategy.WithBound] (a bound on the strategies that keep one soundly),
// [Transactions] (any explorer on the transaction view) and [Symmetric]
// (symmetry under stateful search, or DPOR over interchangeable threads);
// the unsound ones are refused when built, with the reason, by an error
// wrapping ts.ErrBadOptions.
//
//	s, err := weft.ICBPOR().WithBound(3)
//	res, err := weft.Run(ctx, counter{}, s, ts.Options{})
//
// # Tests and the command
//
// [github.com/weftlab/weft/wefttest] runs a search in a Go test and fails it
// with the counterexample (fewest preemptions) and a replay token that
// reruns exactly that schedule. The command [github.com/weftlab/weft/cmd/weft]
// runs any strategy on the bundled models; it is
// [github.com/weftlab/weft/cli], which a program of a user's own calls with
// its systems.
package weft
