// Package tstest is weft's test kit, for users and for weft's own tests, in
// the spirit of testing/fstest and go/analysis/analysistest: it checks that a
// system keeps the ts.TransitionSystem contract, generates small random
// concurrent programs, and checks that a reduction reaches what the
// exhaustive search reaches.
//
// The helpers take a [TB], the two methods of testing.TB they use, so they
// accept a *testing.T as well as a *rapid.T inside rapid.Check.
//
// # Conformance
//
// [Conformance] explores a bounded prefix of a system's state space and
// reports every breach of the contract it sees: nondeterminism, an Apply that
// modifies its argument, invalid steps, a finished thread that comes back, a
// step changed by another thread's transition, independent steps that do not
// commute, panics. Run it on every system before trusting a search on it:
// reductions rely on exactly these properties. [CheckConformance] returns
// the breaches instead, as errors naming the thread and the schedule.
//
// # Broken systems
//
// [Broken] returns tiny systems that break the contract in one way each
// ([Breaches]: an Apply that modifies its argument, a Next that is not a
// function of the state, a thread count that changes), with or without
// ts.Hasher, and [Breach.Noticed] says whether a search's error shows it
// noticed. Every weft strategy is tested on them; test yours the same way.
//
// # Random programs
//
// [Program] is a small interpreter of concurrent programs (shared variables,
// locks, fetch-add and compare-and-swap, await, forward branches and
// assertions over registers) that implements ts.TransitionSystem with every
// capability. [Programs] generates random ones for rapid, shaped by
// [GenOptions]; a failing program prints as a listing (String) and as Go
// source that rebuilds it (GoString, which rapid logs). Programs also make
// compact hand-written fixtures. With Program.CASReads a compare-and-swap
// that fails is a Read and the program implements ts.ValueDependent;
// GenOptions.CASReads draws such programs (and draws compare-and-swaps
// more often), for the strategies that take them. [Conformance] accepts
// exactly the step changes ts.ValueDependent allows (ts.StepVariant).
//
// # Testing a reduction
//
// [CheckReduction] runs the reference search (ts.Explore, or
// ts.ExploreStateful) and the reduction, both with KeepGoing, and reports
// every terminal state or violation that one reaches and the other does not;
// with a preemption bound, the reduction must reach exactly what some
// schedule within the bound reaches. [Reference], [Collect] and [Compare]
// are its pieces, for tests that assert exact counts.
//
// A property test of a reduction, here a bounded strategy whose options
// embed ts.Options:
//
//	func TestReduction(t *testing.T) {
//		rapid.Check(t, func(t *rapid.T) {
//			p := tstest.Programs(tstest.GenOptions{}).Draw(t, "program")
//			bound := rapid.IntRange(0, 2).Draw(t, "bound")
//			explore := func(ctx context.Context, sys ts.TransitionSystem[tstest.State], o ts.Options) (ts.Result, error) {
//				return mystrategy.Explore(ctx, sys, mystrategy.Options{Options: o, Bound: bound})
//			}
//			rep := tstest.CheckReduction(t, p, explore, tstest.ReductionOptions{Bound: bound})
//			if rep.Reduction.Result.Executions > rep.Reference.Result.Executions {
//				t.Errorf("more executions than ts.Explore")
//			}
//		})
//	}
//
// [CheckOptimal] checks what a reduction that promises optimality adds:
// exactly one execution per Mazurkiewicz trace of the complete executions
// (within the bound), none explored twice, none missed. [TraceKey] gives the
// trace of a schedule (its happens-before state). Optimality is defined on
// systems whose checks do not fail: draw programs with NoAsserts.
//
// Test the system under the reduction with Conformance first: a reduction
// is only sound on systems that keep the contract.
package tstest
