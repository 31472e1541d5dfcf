package transact

import (
	"fmt"

	"github.com/weftlab/weft/ts"
)

// Mover is the mover type of a transition in Lipton's theory of reduction,
// as section 3 of Levin, Palmer, Qadeer and Rajamani defines it: a right
// mover commutes to the right of every transition of another thread, a left
// mover to the left, a both mover both ways, and a non-mover neither.
type Mover uint8

const (
	// NonMover commutes neither way: an access to a shared object that other
	// threads touch without a common lock. It commits a transaction.
	NonMover Mover = iota
	// RightMover commutes to the right of every other thread's transition:
	// a lock acquire.
	RightMover
	// LeftMover commutes to the left of every other thread's transition: a
	// lock release.
	LeftMover
	// BothMover is a right and a left mover: a thread-local step, or an
	// access to an object every thread touches only while holding one common
	// lock. It keeps the thread's phase.
	BothMover
)

var moverNames = [...]string{NonMover: "non-mover", RightMover: "right mover", LeftMover: "left mover", BothMover: "both mover"}

func (m Mover) String() string {
	if int(m) < len(moverNames) {
		return moverNames[m]
	}
	return fmt.Sprintf("Mover(%d)", uint8(m))
}

// Right reports whether m is a right mover (both movers included).
func (m Mover) Right() bool { return m == RightMover || m == BothMover }

// Left reports whether m is a left mover (both movers included).
func (m Mover) Left() bool { return m == LeftMover || m == BothMover }

// Valid reports whether m is one of the four mover types.
func (m Mover) Valid() bool { return m <= BothMover }

// Movers is implemented by systems that declare the mover type of each
// thread's next transition. A system that does not implement it has its
// movers inferred from its lock discipline (see [Infer]).
//
// Mover(s, t) is the mover type of thread t's next transition at s. The
// search asks it for enabled threads, and also for blocked and finished ones:
//   - For a blocked thread it is the type of the step the thread waits to
//     take; a step that is not a left mover ends the thread's transaction
//     (the thread is outside any transaction while it waits for it).
//   - For a finished thread it says how the thread ended. NonMover (or
//     RightMover): the thread exited, which completes its transaction, as a
//     return is a global step in the paper's Zing programs. LeftMover or
//     BothMover: the thread is stuck inside its transaction for good, like
//     assume(false) in the paper; only the provisos against the ignoring
//     problem (CPC's completion, cycle detection's dead-end rule) then let
//     other threads run there.
//
// For a transition of several outcomes, the type is that of every outcome.
// A step that writes an object the system's global invariant reads is taken
// for a non-mover whatever Mover says.
//
// The declarations must satisfy the four properties of the paper's section
// 3, and the fifth of [MoverError] (a right mover never makes another
// thread Idle), for the reduction to be sound; check them on a small
// instance with [VerifyMovers]. Mover is called often: keep it cheap, and it
// must be a deterministic function of (s, t) that another thread's
// transition changes only as the properties allow.
type Movers[S any] interface {
	Mover(s S, t ts.Tid) Mover
}

// WithMovers returns sys with its movers declared by mover: a system that
// implements [Movers] with mover and forwards every other method, and the
// capabilities ts.Checker, ts.Chooser, ts.Invariant, ts.Describer and
// ts.ObjNamer, to sys (as one outcome per transition, and an invariant that
// holds and reads nothing, where sys has none). It implements ts.Hasher
// exactly when sys does.
func WithMovers[S any](sys ts.TransitionSystem[S], mover func(s S, t ts.Tid) Mover) ts.TransitionSystem[S] {
	d := declared[S]{TransitionSystem: sys, mover: mover}
	d.checker, _ = sys.(ts.Checker[S])
	d.chooser, _ = sys.(ts.Chooser[S])
	d.inv, _ = sys.(ts.Invariant[S])
	d.describer, _ = sys.(ts.Describer[S])
	d.namer, _ = sys.(ts.ObjNamer)
	if h, ok := sys.(ts.Hasher[S]); ok {
		return &declaredHash[S]{declared: d, hasher: h}
	}
	return &d
}

// declared is a system with declared movers; it forwards the optional
// capabilities whose absence and a trivial implementation mean the same:
// Check returning nil, one outcome, an invariant that holds and reads
// nothing, Describe returning "", ObjName returning "". Dropping one instead
// would make every search of the wrapped system silently lose outcomes or
// invariant failures.
type declared[S any] struct {
	ts.TransitionSystem[S]
	mover     func(S, ts.Tid) Mover
	checker   ts.Checker[S]
	chooser   ts.Chooser[S]
	inv       ts.Invariant[S]
	describer ts.Describer[S]
	namer     ts.ObjNamer
}

func (d *declared[S]) Mover(s S, t ts.Tid) Mover { return d.mover(s, t) }

func (d *declared[S]) Check(s S) error {
	if d.checker == nil {
		return nil
	}
	return d.checker.Check(s)
}

func (d *declared[S]) Outcomes(s S, t ts.Tid) int {
	if d.chooser == nil {
		return 1
	}
	return d.chooser.Outcomes(s, t)
}

func (d *declared[S]) ApplyOutcome(s S, t ts.Tid, c int) S {
	if d.chooser == nil {
		return d.TransitionSystem.Apply(s, t)
	}
	return d.chooser.ApplyOutcome(s, t, c)
}

func (d *declared[S]) Invariant(s S) error {
	if d.inv == nil {
		return nil
	}
	return d.inv.Invariant(s)
}

func (d *declared[S]) InvariantReads() []ts.Obj {
	if d.inv == nil {
		return nil
	}
	return d.inv.InvariantReads()
}

func (d *declared[S]) Describe(s S, t ts.Tid) string {
	if d.describer == nil {
		return ""
	}
	return d.describer.Describe(s, t)
}

func (d *declared[S]) ObjName(o ts.Obj) string {
	if d.namer == nil {
		return ""
	}
	return d.namer.ObjName(o)
}

// declaredHash is declared for a system with Hash.
type declaredHash[S any] struct {
	declared[S]
	hasher ts.Hasher[S]
}

func (d *declaredHash[S]) Hash(s S) uint64 { return d.hasher.Hash(s) }

// moverFunc gives the mover type of thread t's next transition at s, whose
// step and status the caller has read already.
type moverFunc[S any] func(s S, t ts.Tid, step ts.Step, st ts.Status) Mover
