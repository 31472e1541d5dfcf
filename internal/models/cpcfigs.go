package models

// The figures of Levin, Palmer, Qadeer and Rajamani, "Sound transaction-based
// reduction without cycle detection" (SPIN 2005; MSR-TR-2005-40): small cyclic
// programs on which a transaction-based reduction that stores states but
// ignores the ignoring problem misses an assertion failure, and on which
// Commit Point Completion (CPC) and cycle detection find it.
//
// The five programs run on one interpreter, CPCFig, over an explicit list of
// labelled statements per thread (CPCStmt). Each statement is one transition,
// local ones included (skip, a loop test, a branch on a local): the
// reductions of the paper treat thread-local steps (its T_L) as both movers
// and need to see them one by one. A local statement is reported as an access
// to the thread's own local object, which no other thread touches, so it is
// independent of every other thread's steps.
//
// Each statement has a CPCKind, from which the paper's lock-discipline rule
// gives its mover type (CPCKind.Mover): acq(m) is a right mover, rel(m) a
// left mover, an access to a thread-local variable or to a shared variable
// consistently protected by a lock a both mover, any other shared access a
// non-mover. A transaction is right movers, one committing action (not a right
// mover), then left movers; the state right after the committing action is a
// commit point, and so is every state of a committed transaction reached by a
// pure left mover (a left mover that is not a both mover, such as rel(m)).
//
// # Nondeterministic choice
//
// The paper's threads may choose locally (`if (*)`, its T_L with a Choice);
// a weft thread is deterministic, and the only nondeterminism is which thread
// moves. Figures 2 and 8 therefore resolve `if (*)` with a chooser thread E
// whose one statement is `coin = 1`, racing T1's first statement `c := coin`
// (T1 before E reads 0 and takes the then-branch, T1 after E reads 1 and takes
// the else-branch); T1's `if (*)` then branches on its local c. Both accesses
// to coin are non-movers. The choice is made before T1's transaction commits
// at `g = 1`, as it must be: a deterministic T1 reaches one branch only from
// any state after the commit, so a choice made after it could only come from
// another thread's step, which ends the transaction and would let the
// reduction schedule T2 there. The price: each figure has two commit points
// (one per value of c) where the paper has one. See NewCPCFig2 and
// NewCPCFig8 for what that changes.
//
// # Assertions and assume(false)
//
// `assert(e)` reads the shared variable of e; when e is false the thread goes
// wrong (the paper's local store `wrong`): it makes no more transitions and
// Check reports the failure. `assume(false)` is a statement no execution gets
// past: the thread is Finished there, for good. It is a dead end, not a
// deadlock: the thread waits for nothing another thread could change, so
// reporting it as Blocked would be a false deadlock. `return`, and the end of
// a thread's list, also make it Finished.

import (
	"fmt"
	"strings"

	"github.com/weftlab/weft/transact"
	"github.com/weftlab/weft/ts"
)

// CPCKind is the kind of a statement of the CPC figures.
type CPCKind uint8

const (
	// CPCLocal touches only the thread's own state (skip, a loop test, a
	// branch on a local): a both mover (the paper's T_L, which keeps the
	// phase).
	CPCLocal CPCKind = iota
	// CPCProtected accesses a shared variable that every thread accesses
	// only while holding the same lock: a both mover.
	CPCProtected
	// CPCAcquire is acq(m): a right mover.
	CPCAcquire
	// CPCRelease is rel(m): a left mover.
	CPCRelease
	// CPCShared accesses a shared variable not consistently protected by a
	// lock: a non-mover.
	CPCShared
	// CPCStop is return or assume(false): not a transition; a thread whose
	// next statement it is has finished.
	CPCStop
)

var cpcKindNames = [...]string{
	CPCLocal: "local", CPCProtected: "protected", CPCAcquire: "acquire",
	CPCRelease: "release", CPCShared: "shared", CPCStop: "stop",
}

func (k CPCKind) String() string {
	if int(k) < len(cpcKindNames) {
		return cpcKindNames[k]
	}
	return fmt.Sprintf("CPCKind(%d)", uint8(k))
}

// Mover returns the mover type the paper's lock discipline gives a statement
// of kind k. A CPCStop statement is no transition; it reports a both mover.
func (k CPCKind) Mover() transact.Mover {
	switch k {
	case CPCAcquire:
		return transact.RightMover
	case CPCRelease:
		return transact.LeftMover
	case CPCShared:
		return transact.NonMover
	default:
		return transact.BothMover
	}
}

// cpcAction is what a statement does.
type cpcAction uint8

const (
	cpcSkip    cpcAction = iota // goto Next
	cpcBranch                   // if the register is 0 goto Next else goto Alt
	cpcWrite                    // Obj = Val
	cpcLoad                     // register = Obj
	cpcAssert                   // assert(Obj == Val)
	cpcAcquire                  // acq(Obj)
	cpcRelease                  // rel(Obj)
	cpcStop                     // return, assume(false): no transition
)

// CPCStmt is one labelled statement of a thread of a CPC figure.
type CPCStmt struct {
	Label string  // the figure's label, "L0"
	Text  string  // the statement, "g = 1"
	Kind  CPCKind // what it accesses, which gives its mover type
	Obj   ts.Obj  // the object it accesses: a shared one, or the thread's local object
	Op    ts.Op   // how it accesses Obj
	Val   int8    // the value written, or the value an assertion expects
	// Next is the index of the statement after it; for a branch, the one
	// taken when the thread's register c is 0 (the then-branch). Alt is the
	// one taken when c is not 0 (the else-branch).
	Next, Alt int8
	act       cpcAction
}

// Sizes of a CPC figure.
const (
	cpcMaxThreads = 3 // threads of a figure
	cpcMaxShared  = 3 // shared objects (variables and locks) of a figure
)

// CPCFig is one of the figures of the CPC paper, run by an interpreter over
// each thread's statement list. See NewCPCFig1, NewCPCFig2,
// NewCPCFig2Assume, NewCPCFig3 and NewCPCFig8 for the programs and their
// facts. Objects: the figure's shared variables and locks first, then one
// local object per thread (ObjName says which is which).
type CPCFig struct {
	name    string
	threads []string    // "T1", "T2", ...
	shared  []string    // shared object names
	prog    [][]CPCStmt // each thread's statements
}

// CPCFigState is a state of a CPCFig: each thread's next statement and
// register, the shared objects' values, and the failed assertion if any.
type CPCFigState struct {
	PC  [cpcMaxThreads]int8 // index of each thread's next statement; its list's length when done
	Reg [cpcMaxThreads]int8 // each thread's local register c
	// Mem holds the shared variables' values; a lock holds its owner's
	// thread id + 1, or 0 when free.
	Mem   [cpcMaxShared]int8
	Wrong int8 // the thread whose assertion failed, + 1; 0 when none
	Got   int8 // the value the failed assertion read
}

// cpcBuilder builds the statements of thread t of a figure whose shared
// objects number nshared: local objects follow them, one per thread.
type cpcBuilder struct {
	nshared int
	t       int // the thread being built
}

func (b cpcBuilder) local() ts.Obj { return ts.Obj(b.nshared + b.t) }

func (b cpcBuilder) skip(label, text string, next int8) CPCStmt {
	return CPCStmt{Label: label, Text: text, Kind: CPCLocal, Obj: b.local(), Op: ts.Write, Next: next, act: cpcSkip}
}

func (b cpcBuilder) branch(label, text string, then, els int8) CPCStmt {
	return CPCStmt{Label: label, Text: text, Kind: CPCLocal, Obj: b.local(), Op: ts.Write, Next: then, Alt: els, act: cpcBranch}
}

func (b cpcBuilder) stop(label, text string) CPCStmt {
	return CPCStmt{Label: label, Text: text, Kind: CPCStop, Obj: b.local(), Op: ts.Write, act: cpcStop}
}

func (b cpcBuilder) write(label, text string, k CPCKind, x ts.Obj, v, next int8) CPCStmt {
	return CPCStmt{Label: label, Text: text, Kind: k, Obj: x, Op: ts.Write, Val: v, Next: next, act: cpcWrite}
}

func (b cpcBuilder) load(label, text string, k CPCKind, x ts.Obj, next int8) CPCStmt {
	return CPCStmt{Label: label, Text: text, Kind: k, Obj: x, Op: ts.Read, Next: next, act: cpcLoad}
}

func (b cpcBuilder) assert(label, text string, k CPCKind, x ts.Obj, v, next int8) CPCStmt {
	return CPCStmt{Label: label, Text: text, Kind: k, Obj: x, Op: ts.Read, Val: v, Next: next, act: cpcAssert}
}

func (b cpcBuilder) acq(label, text string, m ts.Obj, next int8) CPCStmt {
	return CPCStmt{Label: label, Text: text, Kind: CPCAcquire, Obj: m, Op: ts.Acquire, Next: next, act: cpcAcquire}
}

func (b cpcBuilder) rel(label, text string, m ts.Obj, next int8) CPCStmt {
	return CPCStmt{Label: label, Text: text, Kind: CPCRelease, Obj: m, Op: ts.Release, Next: next, act: cpcRelease}
}

// cpcT2Assert is thread T2 of Figures 1, 2 and 8: M0: assert(g == 0);
// M1: return. g is object 0.
func cpcT2Assert(b cpcBuilder) []CPCStmt {
	return []CPCStmt{
		b.assert("M0", "assert(g == 0)", CPCShared, 0, 0, 1),
		b.stop("M1", "return"),
	}
}

// ---------------------------------------------------------------------------
// cpc-fig1

// NewCPCFig1 returns Figure 1 of the CPC paper, the ignoring problem. It has
// no parameter: n is ignored.
//
//	int g = 0;
//	T1: L0: g = 1;  L1: skip;  L2: while (true) { L3: skip; }  L4: return;
//	T2: M0: assert(g == 0);  M1: return;
//
// Threads: T1 = 0, T2 = 1. Objects: g = 0, T1's local object = 1, T2's = 2.
//
// Movers: L0 (a write of the unprotected g) and M0 (a read of it) are
// non-movers; L1, L2, L3 are local, both movers. T1's transaction commits at
// L0; the commit point is the state after L0 (T1 at L1, g = 1). It never
// completes: the loop L2-L3 is local for ever.
//
// The bug: T2 goes wrong when it runs after L0. A reduction that schedules
// other threads only when a transaction ends runs T1's loop alone, closes the
// cycle L2, L3, L2 on a stored state and stops: it misses the failure. CPC
// finds it: the commit point is still unmarked when popped (its transaction
// never completes), so all threads are scheduled there. Cycle detection finds
// it by forcing all threads where the loop closes its cycle.
//
// Facts (under ts.ExploreStateful): the assertion failure is reachable, with
// 1 preemption at least (T1 never finishes, so T2 runs after L0 only by
// preempting it), schedule 0, 1; 11 distinct states with KeepGoing (3
// violating: T2 wrong with T1 at L1, L2 or L3; no terminal state). Cyclic: ts.Explore returns an error wrapping
// ts.ErrDepth.
func NewCPCFig1(n int) *CPCFig {
	b := cpcBuilder{nshared: 1}
	t1 := []CPCStmt{
		b.write("L0", "g = 1", CPCShared, 0, 1, 1),
		b.skip("L1", "skip", 2),
		b.skip("L2", "while (true)", 3),
		b.skip("L3", "skip", 2),
		b.stop("L4", "return"),
	}
	b.t = 1
	return &CPCFig{name: CPCFig1Info.Name, threads: []string{"T1", "T2"}, shared: []string{"g"},
		prog: [][]CPCStmt{t1, cpcT2Assert(b)}}
}

// CPCFig1Info describes NewCPCFig1.
var CPCFig1Info = Info{
	Name:    "cpc-fig1",
	Summary: "the ignoring problem: a local loop after a commit hides T2's assertion failure",
	Source:  "Levin, Palmer, Qadeer, Rajamani, Sound transaction-based reduction without cycle detection (SPIN 2005), Figure 1",
	Cyclic:  true,
}

// ---------------------------------------------------------------------------
// cpc-fig2

// NewCPCFig2 returns Figure 2 of the CPC paper: cycle detection is not
// necessary. It has no parameter: n is ignored.
//
//	int g = 0;
//	T1: L0: g = 1;  L1: skip;
//	    L2: if (*) { L3: while (true) { L4: skip; } }
//	    L6: return;
//	T2: M0: assert(g == 0);  M1: return;
//
// with `if (*)` resolved by a chooser thread (see the package's notes on
// nondeterministic choice): T1 first runs Lc: c := coin, E runs `coin = 1`,
// and L2 takes the then-branch (the loop) when c is 0, else returns.
// Threads: T1 = 0, T2 = 1, E = 2. Objects: g = 0, coin = 1, the local objects
// of T1, T2, E = 2, 3, 4.
//
// Movers: Lc, E's write, L0 and M0 are non-movers (unprotected shared
// accesses); L1, L2, L3, L4 are local, both movers. T1's transaction commits
// at L0: the commit point is the state after L0. In the paper the one commit
// point gets marked through the branch that returns, so CPC never forces
// there, and the reduction schedules T2 once T1 has returned: no cycle
// detection is needed. Here the choice precedes the commit, so there are two
// commit points: the one with c = 1 completes (T1 returns; the transaction
// ends and T2 is scheduled: even the unsound reduction finds the bug there),
// the one with c = 0 never completes and CPC forces all threads at it.
// (Lc, a non-mover followed by the non-mover L0, is a transaction of its
// own that ends at once, so all threads are scheduled after it.)
//
// The bug: T2 goes wrong when it runs after L0. Facts (under
// ts.ExploreStateful): the failure is reachable with 0 preemptions (E; then
// T1 to its return; then T2: schedule 2, 0, 0, 0, 0, 1); 43 distinct states
// with KeepGoing (11 violating; 1 terminal that passes Check: T1 returned
// and T2 done). Cyclic: ts.Explore returns an
// error wrapping ts.ErrDepth.
func NewCPCFig2(n int) *CPCFig {
	b := cpcBuilder{nshared: 2}
	t1 := []CPCStmt{
		b.load("Lc", "c := coin", CPCShared, 1, 1),
		b.write("L0", "g = 1", CPCShared, 0, 1, 2),
		b.skip("L1", "skip", 3),
		b.branch("L2", "if (*)", 4, 6),
		b.skip("L3", "while (true)", 5),
		b.skip("L4", "skip", 4),
		b.stop("L6", "return"),
	}
	b.t = 1
	t2 := cpcT2Assert(b)
	b.t = 2
	e := []CPCStmt{b.write("E0", "coin = 1", CPCShared, 1, 1, 1)}
	return &CPCFig{name: CPCFig2Info.Name, threads: []string{"T1", "T2", "E"}, shared: []string{"g", "coin"},
		prog: [][]CPCStmt{t1, t2, e}}
}

// CPCFig2Info describes NewCPCFig2.
var CPCFig2Info = Info{
	Name:    "cpc-fig2",
	Summary: "one branch of T1 loops, the other returns: found without cycle detection",
	Source:  "Levin, Palmer, Qadeer, Rajamani, Sound transaction-based reduction without cycle detection (SPIN 2005), Figure 2",
	Cyclic:  true,
}

// ---------------------------------------------------------------------------
// cpc-fig2-assume

// NewCPCFig2Assume returns the variant of Figure 2 of the CPC paper in which
// the whole `if` (L2 to L6) is replaced by assume(false): cycle detection is
// not sufficient. It has no parameter: n is ignored.
//
//	int g = 0;
//	T1: L0: g = 1;  L1: skip;  L2: assume(false);
//	T2: M0: assert(g == 0);  M1: return;
//
// Threads: T1 = 0, T2 = 1. Objects: g = 0, T1's local object = 1, T2's = 2.
// T1 is Finished at L2 (a dead end, not a deadlock: see the package's notes).
//
// Movers: L0 and M0 are non-movers, L1 is local (both mover). T1's
// transaction commits at L0 (the commit point is the state after L0) and
// never completes: T1 stops at L2. There is no cycle, so cycle detection
// alone never forces other threads; a reduction that schedules other threads
// only when a transaction ends misses the bug. CPC finds it: the state after
// L1 has no successor, its CPC bit is false when popped, so all threads are
// scheduled there (line L18 of the paper's Figure 6). Cycle detection needs
// an extra dead-end rule (force all threads at a post-commit state with no
// successor).
//
// The bug: T2 goes wrong when it runs after L0. Facts: acyclic. Under
// ts.Explore: 3 executions, 2 of them violations (T2 after L0 or after L1),
// 1 terminal state that passes Check (T2 first); the failure needs 0 preemptions (T1 to L2, where it has
// finished; then T2: schedule 0, 0, 1). Under ts.ExploreStateful: 8
// distinct states with KeepGoing (2 violating, 1 terminal that passes).
func NewCPCFig2Assume(n int) *CPCFig {
	b := cpcBuilder{nshared: 1}
	t1 := []CPCStmt{
		b.write("L0", "g = 1", CPCShared, 0, 1, 1),
		b.skip("L1", "skip", 2),
		b.stop("L2", "assume(false)"),
	}
	b.t = 1
	return &CPCFig{name: CPCFig2AssumeInfo.Name, threads: []string{"T1", "T2"}, shared: []string{"g"},
		prog: [][]CPCStmt{t1, cpcT2Assert(b)}}
}

// CPCFig2AssumeInfo describes NewCPCFig2Assume.
var CPCFig2AssumeInfo = Info{
	Name:    "cpc-fig2-assume",
	Summary: "T1 commits then stops at assume(false): no cycle, yet the reduction must force T2",
	Source:  "Levin, Palmer, Qadeer, Rajamani, Sound transaction-based reduction without cycle detection (SPIN 2005), Figure 2 with L2-L6 replaced by assume(false) (section 1)",
}

// ---------------------------------------------------------------------------
// cpc-fig3

// NewCPCFig3 returns Figure 3 of the CPC paper, CPC in the presence of left
// movers. It has no parameter: n is ignored.
//
//	Mutex m; int x = 0;  /* guarded by m */  int y = 0;  /* not guarded */
//	T1: L0: acq(m);  L1: y := 42;  L2: x := 1;  L3: rel(m);
//	    L4: while (true) { skip; }
//	T2: M0: acq(m);  M1: assert(x == 0);  M2: rel(m);
//	T3: N0: y = 10;
//
// Threads: T1 = 0, T2 = 1, T3 = 2. Objects: m = 0, x = 1, y = 2, the local
// objects of T1, T2, T3 = 3, 4, 5. L4 is one local statement that loops to
// itself.
//
// Movers: L0 and M0 (acq) are right movers; L3 and M2 (rel) are left movers;
// L2 and M1 (x is protected by m) and L4 (local) are both movers; L1 and N0
// (y is not protected) are non-movers. T1's transaction: L0 (pre-commit), L1
// commits, then L2, L3 and the loop are left movers or local: it never
// completes. Commit points: the state after L1 (the committing action) and
// the state after L3 (reached by rel(m), a pure left mover). Forcing all
// threads at the first does not reveal the bug (T2 is blocked on m, T3's
// write of y is harmless); forcing them at the second does.
//
// The bug: T2 goes wrong when it acquires m after T1's L3 (x = 1). A
// reduction that schedules other threads only when a transaction ends misses
// it; CPC finds it at the commit point after L3.
//
// Facts (under ts.ExploreStateful): the failure is reachable, with 1
// preemption at least (T1 never finishes), schedule 0, 0, 0, 0, 1, 1; 36
// distinct states with KeepGoing (3 violating, no terminal state). Cyclic:
// ts.Explore returns an error wrapping ts.ErrDepth.
func NewCPCFig3(n int) *CPCFig {
	const m, x, y = 0, 1, 2
	b := cpcBuilder{nshared: 3}
	t1 := []CPCStmt{
		b.acq("L0", "acq(m)", m, 1),
		b.write("L1", "y := 42", CPCShared, y, 42, 2),
		b.write("L2", "x := 1", CPCProtected, x, 1, 3),
		b.rel("L3", "rel(m)", m, 4),
		b.skip("L4", "while (true) { skip; }", 4),
	}
	b.t = 1
	t2 := []CPCStmt{
		b.acq("M0", "acq(m)", m, 1),
		b.assert("M1", "assert(x == 0)", CPCProtected, x, 0, 2),
		b.rel("M2", "rel(m)", m, 3),
	}
	b.t = 2
	t3 := []CPCStmt{b.write("N0", "y = 10", CPCShared, y, 10, 1)}
	return &CPCFig{name: CPCFig3Info.Name, threads: []string{"T1", "T2", "T3"}, shared: []string{"m", "x", "y"},
		prog: [][]CPCStmt{t1, t2, t3}}
}

// CPCFig3Info describes NewCPCFig3.
var CPCFig3Info = Info{
	Name:    "cpc-fig3",
	Summary: "a commit point after a release: T2's assertion fails only if forced there",
	Source:  "Levin, Palmer, Qadeer, Rajamani, Sound transaction-based reduction without cycle detection (SPIN 2005), Figure 3",
	Cyclic:  true,
}

// ---------------------------------------------------------------------------
// cpc-fig8

// NewCPCFig8 returns Figure 8 of the CPC paper (its appendix B), which
// tells CPC from SCC-based algorithms. It has no parameter: n is ignored.
//
//	int g = 0;
//	T1: L0: g = 1;  L1: skip;
//	    L2: if (*) { L3: while (true) { L4: skip; } }
//	        else   { L5: while (true) { L6: skip; } }
//	    L8: return;
//	T2: M0: assert(g == 0);  M1: return;
//
// (The figure labels both the if and the first while L2; here the first
// loop is L3-L4 and the second L5-L6.) `if (*)` is resolved by a chooser
// thread as in NewCPCFig2: T1 first runs Lc: c := coin, E runs `coin = 1`.
// Threads: T1 = 0, T2 = 1, E = 2. Objects: g = 0, coin = 1, the local objects
// of T1, T2, E = 2, 3, 4. L8 is unreachable.
//
// Movers: Lc, E's write, L0 and M0 are non-movers; L1 to L6 are local, both
// movers. T1's transaction commits at L0 and never completes, in either
// branch. In the paper the one commit point (T1 at L1) is where CPC forces
// all threads, once, while cycle detection (and Valmari's SCC algorithm)
// forces them once per loop, in each branch's terminal cycle. Here the
// choice precedes the commit, so there are two commit points, one per
// branch: CPC forces at each, cycle detection once in each loop; the
// once-versus-per-loop contrast needs a thread-local choice, which weft's
// deterministic threads do not have. What stays: a reduction that schedules
// other threads only when a transaction ends misses the bug, and CPC and
// cycle detection find it.
//
// The bug: T2 goes wrong when it runs after L0. Facts (under
// ts.ExploreStateful): the failure is reachable, with 1 preemption at least
// (T1 never finishes), schedule 0, 0, 1; 46 distinct states with KeepGoing
// (12 violating, no terminal state). Cyclic: ts.Explore returns an error
// wrapping ts.ErrDepth.
func NewCPCFig8(n int) *CPCFig {
	b := cpcBuilder{nshared: 2}
	t1 := []CPCStmt{
		b.load("Lc", "c := coin", CPCShared, 1, 1),
		b.write("L0", "g = 1", CPCShared, 0, 1, 2),
		b.skip("L1", "skip", 3),
		b.branch("L2", "if (*)", 4, 6),
		b.skip("L3", "while (true)", 5),
		b.skip("L4", "skip", 4),
		b.skip("L5", "while (true)", 7),
		b.skip("L6", "skip", 6),
		b.stop("L8", "return"),
	}
	b.t = 1
	t2 := cpcT2Assert(b)
	b.t = 2
	e := []CPCStmt{b.write("E0", "coin = 1", CPCShared, 1, 1, 1)}
	return &CPCFig{name: CPCFig8Info.Name, threads: []string{"T1", "T2", "E"}, shared: []string{"g", "coin"},
		prog: [][]CPCStmt{t1, t2, e}}
}

// CPCFig8Info describes NewCPCFig8.
var CPCFig8Info = Info{
	Name:    "cpc-fig8",
	Summary: "both branches of T1 loop after the commit: CPC forces at the commit point, SCC/cycle detection per loop",
	Source:  "Levin, Palmer, Qadeer, Rajamani, Sound transaction-based reduction without cycle detection (SPIN 2005), Figure 8 (appendix B)",
	Cyclic:  true,
}

// ---------------------------------------------------------------------------
// the interpreter

// Name returns the figure's command-line name, "cpc-fig1".
func (p *CPCFig) Name() string { return p.name }

// Program returns thread t's statements, in order; CPCFigState.PC indexes
// them. The slice is a copy.
func (p *CPCFig) Program(t ts.Tid) []CPCStmt { return append([]CPCStmt(nil), p.prog[t]...) }

// Stmt returns thread t's next statement at s, and false when t has run past
// the end of its list or gone wrong.
func (p *CPCFig) Stmt(s CPCFigState, t ts.Tid) (CPCStmt, bool) {
	pc := int(s.PC[t])
	if s.Wrong == int8(t)+1 || pc >= len(p.prog[t]) {
		return CPCStmt{}, false
	}
	return p.prog[t][pc], true
}

// Mover returns the mover type of thread t's next statement at s, which
// makes a CPCFig a transact.Movers: the figures declare their movers as the
// paper gives them. A thread with no next statement ends its transaction or
// not as the paper tells apart what ts cannot (both are Finished): a return,
// or the end of its code, is a visible exit (a non-mover: in Zing thread exit
// is a global step), while assume(false) leaves it stuck inside its
// transaction (a both mover), and so does a thread gone wrong.
func (p *CPCFig) Mover(s CPCFigState, t ts.Tid) transact.Mover {
	if s.Wrong == int8(t)+1 {
		return transact.BothMover
	}
	pc := int(s.PC[t])
	if pc >= len(p.prog[t]) {
		return transact.NonMover
	}
	st := p.prog[t][pc]
	if st.Kind == CPCStop {
		if strings.HasPrefix(st.Text, "assume") {
			return transact.BothMover
		}
		return transact.NonMover
	}
	return st.Kind.Mover()
}

func (p *CPCFig) Init() CPCFigState { return CPCFigState{} }
func (p *CPCFig) Threads() int      { return len(p.prog) }

func (p *CPCFig) Next(s CPCFigState, t ts.Tid) (ts.Step, ts.Status) {
	st, ok := p.Stmt(s, t)
	if !ok {
		return ts.Step{Obj: ts.Obj(len(p.shared) + int(t)), Op: ts.Write}, ts.Finished
	}
	step := ts.Step{Obj: st.Obj, Op: st.Op}
	switch {
	case st.act == cpcStop:
		return step, ts.Finished
	case st.act == cpcAcquire && s.Mem[st.Obj] != 0:
		return step, ts.Blocked
	}
	return step, ts.Enabled
}

func (p *CPCFig) Apply(s CPCFigState, t ts.Tid) CPCFigState {
	st, ok := p.Stmt(s, t)
	if !ok || st.act == cpcStop {
		panic(fmt.Sprintf("%s: thread %d has finished", p.name, t))
	}
	next := st.Next
	switch st.act {
	case cpcBranch:
		if s.Reg[t] != 0 {
			next = st.Alt
		}
	case cpcWrite:
		s.Mem[st.Obj] = st.Val
	case cpcLoad:
		s.Reg[t] = s.Mem[st.Obj]
	case cpcAssert:
		if v := s.Mem[st.Obj]; v != st.Val {
			s.Wrong, s.Got = int8(t)+1, v
			return s // the thread has gone wrong: it stays at its assertion
		}
	case cpcAcquire:
		if s.Mem[st.Obj] != 0 {
			panic(fmt.Sprintf("%s: thread %d acquires %s, held by thread %d", p.name, t, p.ObjName(st.Obj), s.Mem[st.Obj]-1))
		}
		s.Mem[st.Obj] = int8(t) + 1
	case cpcRelease:
		s.Mem[st.Obj] = 0
	}
	s.PC[t] = next
	return s
}

// Check reports the failed assertion of a thread that has gone wrong.
func (p *CPCFig) Check(s CPCFigState) error {
	if s.Wrong == 0 {
		return nil
	}
	t := ts.Tid(s.Wrong - 1)
	st := p.prog[t][s.PC[t]]
	return fmt.Errorf("%s: %s: %s failed: %s is %d", p.threads[t], st.Label, st.Text, p.ObjName(st.Obj), s.Got)
}

func (p *CPCFig) Hash(s CPCFigState) uint64 {
	h := hashInts(0, s.PC[:]...)
	h = hashInts(h, s.Reg[:]...)
	h = hashInts(h, s.Mem[:]...)
	return hashInts(h, s.Wrong, s.Got)
}

// Describe returns thread t's next statement with its label, "L0: g = 1".
func (p *CPCFig) Describe(s CPCFigState, t ts.Tid) string {
	st, ok := p.Stmt(s, t)
	if !ok {
		return "(finished)"
	}
	return st.Label + ": " + st.Text
}

// ObjName names the shared objects as the figure does and the local objects
// "T1.local" and so on.
func (p *CPCFig) ObjName(o ts.Obj) string {
	switch {
	case o >= 0 && int(o) < len(p.shared):
		return p.shared[o]
	case int(o) >= len(p.shared) && int(o) < len(p.shared)+len(p.threads):
		return p.threads[int(o)-len(p.shared)] + ".local"
	}
	return fmt.Sprintf("o%d", o)
}
