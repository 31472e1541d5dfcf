// Package transact explores a system by transactions: Lipton's reduction,
// with movers declared by the system or inferred from its lock discipline,
// and the answers to the ignoring problem of Levin, Palmer, Qadeer and
// Rajamani, "Sound transaction-based reduction without cycle detection"
// (SPIN 2005; MSR-TR-2005-40).
//
// # Movers and transactions
//
// A right mover commutes to the right of every other thread's transition (a
// lock acquire), a left mover to the left (a release), a both mover both
// ways (a thread-local step, an access to an object always protected by one
// lock) and a non-mover neither. A transaction is right movers, one
// committing action (not a right mover), then left movers; exploring
// interleavings of whole transactions finds every assertion failure
// (Theorem 1 of the paper). A system declares its movers by implementing
// [Movers] (or through [WithMovers]); otherwise [Infer] computes its lock
// discipline by one exhaustive pass over its states (the cost of a stateful
// search, for small systems) and [Discipline.Mover] applies the paper's
// rules. [VerifyMovers] checks the four mover properties of the paper's
// section 3, and a fifth that Idle threads need, on every reachable state of
// a small instance and names the step, the threads and the schedule of a
// breach: use it in a test whenever movers are declared by hand.
//
// # Strategies
//
// [Explore] is Figure 6 of the paper: a stateful depth-first search (it needs
// ts.Hasher and handles cyclic state spaces) over the system instrumented
// with a phase bit per thread (p' = RM && (p || !LM); a both mover, and so a
// local step, keeps it), the phase bits being part of the state key. It runs
// the thread that reached a state on through its transaction and schedules
// all threads where the transaction ends (line L7: past the commit, the next
// step is not a left mover; or the thread exited or waits Idle), or where
// Options.Proviso forces them:
//
//   - CPC (strategy name "cpc"), commit point completion: a state of a
//     committed transaction from which the search found no path to a state
//     where all threads ran is forced when popped (line L18); with
//     Options.Refine, the optional `&& !q.RM` of line L19 forces the commit
//     point rather than the states after it reached by right movers.
//   - Cycle ("cycle"): a transition that closes a cycle on the search stack in
//     the post-commit part of a transaction forces all threads at its source,
//     and so does a post-commit dead end (the thread has no transition: cycle
//     detection alone misses Figure 2 with assume(false)).
//   - None ("unsound"): the reduction of Figure 5, which forces nothing. It is
//     unsound (it misses the failures of Figures 1, 2 with assume(false), 3
//     and 8) and is here for comparison only.
//
// Result.States counts instrumented states (a state with its phase bits);
// Result.Transitions counts the inference pass's transitions and the
// search's; Result.Stats holds the distinct states, the transaction ends,
// the forced states and the inference pass's figures; Options.OnForce
// reports each forced state. The pass keeps to the options' limits and
// reports an execution that never ends as the search would, an error
// wrapping ts.ErrDepth with its thread and schedule.
//
// [View] transforms a system into one whose transitions are whole
// transactions, with each transaction's read and write sets as bitsets
// ([View.Footprint]), so that any explorer runs coarsened. Its steps are all
// one write of [TransactionObj], so that explorers that judge dependence by
// steps stay sound; see View for what that means.
//
// # The whole model
//
// transact takes every part of the ts model: steps of several objects,
// transitions of several outcomes, Idle threads and global invariants.
//
// Steps of several objects. A step is a right mover only if each of its
// accesses is one, and a left mover only if each is one ([Discipline]
// applies the paper's rules per access): a both mover only if every access
// is, and an acquire that also touches a racy object, or that releases
// another lock, is a non-mover. Two steps commute object by object, so a
// step commutes with another thread's as the weakest of its accesses does.
// An access counts as made with the locks the thread held before the step:
// a lock the step itself takes protects none of its other accesses.
//
// Outcomes. The outcomes of a transition (ts.Chooser) are the paper's
// choices, which weft's threads otherwise do not have: the search takes
// every outcome of the running thread's transition from each record in
// turn (the choice index of Figure 6), so a choice inside a transaction
// branches it, and the schedule records the outcome taken, which ts.Replay
// reproduces. A mover type is declared for a step, all its outcomes at
// once, and the properties below must hold for every outcome.
//
// Idle threads. A state where no thread is enabled and every waiting thread
// is Idle is a normal end, reported to OnTerminal and not as a deadlock
// (nor is any end under IgnoreDeadlocks). A thread that waits Idle ends its
// transaction there, whatever its phase, and every thread runs there: it
// may wait for good, and a run that ends with it waiting can only be
// reached if the others run after its last steps. That needs a fifth mover
// property besides the paper's four: a right mover never makes another
// thread Idle (a waiter Idle after it was Idle before it). Then the right
// movers that Lipton's reordering moves to the end of an execution, past
// the others' steps, leave each waiter Idle at the point where its own
// steps end, where the search lets the others in. Inferred movers have it
// by construction (a write of an object some thread was seen waiting Idle
// for is never a right mover); VerifyMovers checks it.
//
// Invariants. A step that writes an object the invariant (ts.Invariant)
// reads is a non-mover, whatever the movers declare (search.Model marks it
// as a write of ts.InvariantObj). Lipton's reordering swaps a mover with a
// step of another thread next to it; a mover writes none of the
// invariant's objects, so each swap keeps the sequence of values those
// objects take along the execution, and the step that makes the invariant
// fail goes wrong, in the paper's sense, in the reordered execution too:
// the search, which checks Check and the invariant at every state it visits
// (inside transactions too), reaches a state with the same values of those
// objects, where the invariant, which depends on them only, fails with the
// same message. The reduction
// preserves an invariant only at states where its objects change; making
// every such step a commit makes each of them a point the search visits in
// every order it explores. The View, which shows transaction boundaries
// only, relies on the same: a transaction has at most one such step, its
// commit, so the objects keep their values before it and after it.
//
// # What is preserved
//
// Provided the movers satisfy the five properties ([MoverError]; inferred
// movers do, declared ones can be checked with [VerifyMovers]):
//   - Failed checks: every Check failure that a thread's own transition
//     causes (the paper's thread going wrong) and that ts.ExploreStateful
//     finds, cpc and cycle find.
//   - Invariant failures: every one ts.ExploreStateful finds, by message.
//   - Terminal states where no thread is Blocked: every one
//     ts.ExploreStateful reaches, whether the threads finished or wait Idle
//     (with declared movers, a thread whose end is declared stuck, a left or
//     both mover, may be missed there as a Blocked one may).
//
// The property tests check these on thousands of random programs of the
// whole model (several objects, outcomes, idle threads, invariants, locks,
// awaits, assertions), on random cyclic programs with local loops,
// nondeterministic exits and dead ends, with inferred movers and with
// random declarations that VerifyMovers accepts, and on the bundled
// protocols (two-phase commit, the alternating-bit protocol) and their
// bugs, and on random programs with value-dependent steps
// (ts.ValueDependent: a compare-and-swap that fails is a Read): Infer sees
// every step every thread takes at every reachable state, with its actual
// access, so an object is read-only only if no reachable step writes it,
// and a cas that sometimes succeeds makes its object written.
// Everything reported is real, deadlocks included, but deadlocks may be
// missed: a thread paused in the right-mover part of its transaction (after
// an acquire) never lets another thread run there while it is enabled or
// Blocked, so the dining philosophers' deadlock is not found. Data races are
// not looked for.
//
// # Where weft differs from the paper
//
//   - The paper's choices are the outcomes of a transition (ts.Chooser);
//     the bundled figures have none: `if (*)` there is a chooser thread
//     whose choice precedes the commit. Figures 2 and 8 then have one commit
//     point per branch, and on Figure 8 cpc forces once per commit point,
//     cycle once per loop entered (TestFig8ForcePoints asserts the points);
//     the paper's "once versus twice" needs a choice made after the commit.
//   - weft has no separate local steps; a both mover keeps the phase exactly
//     as the paper's T_L steps do, so local steps are declared both movers
//     (LM = RM = true on the record).
//   - Line L7 is evaluated for the thread whatever its status: a blocked
//     thread whose next step is not a left mover is outside any transaction
//     (as the paper's N(t) says), and so is a finished thread that exited,
//     in either phase: the paper's return is a step that commits, which
//     weft does not take, so the phase cannot say it (otherwise a thread
//     that takes a lock and finishes holding it would keep every other
//     thread from running after its acquire). An Idle thread ends its
//     transaction in either phase too (see above); the paper has no Idle
//     threads. Whether a finished thread exited or is stuck (assume(false))
//     the transition system cannot say (both are ts.Finished): Movers.Mover
//     declares it (NonMover: exited; BothMover: stuck). Inferred movers take
//     every finished thread for exited, which makes the unsound search find
//     Figure 2 with assume(false); the figures' tests declare it stuck.
//   - The paper lets the other threads go on from a state where a thread has
//     gone wrong; weft stops at a violating state. So a violating successor
//     leaves the CPC bit unset (more forcing), and cycle detection treats a
//     post-commit step into a violation as a dead end, forcing at its source;
//     the View ends a transaction before a step that fails, so that the
//     others run there.
//   - The table and the stack share one record per state, holding the CPC bit
//     (L11 and L23 read later updates); the Update records of line L25 are
//     frames of the same state, whose CPC bit is already set. The peek at
//     line L22 is guarded for the empty stack.
//   - Terminal and violating states are not pushed: what lines L17-L23 would
//     do for them is done at once (a terminal state gets Xend by the
//     proviso's rule; a violating one keeps CPC unset).
//   - The phase bits make one state of the system count once per phase
//     vector it is reached with, so the instrumented states can outnumber
//     ts.ExploreStateful's states when little is reduced
//     (TestPhaseBitsCanOutnumberStates); the distinct states
//     (Stats[StatPlainStates]) never do.
package transact
