package symmetry

import "github.com/weftlab/weft/ts"

// Canonicalizer is implemented by systems with declared thread symmetry: a
// group of permutations of the threads (rotations of a ring, all
// permutations of identical workers) acting on states.
//
// Canonical returns the representative of s's orbit and the permutation p
// that maps s onto it: thread t of s plays the part of thread p[t] in rep
// (rep is s with its threads renamed by p, together with everything that
// names a thread: lock owners, per-thread objects, thread ids in data).
//
// The contract, which [Verify] checks on a bounded state space, is that s and
// rep behave alike under the renaming: for every thread t,
//   - p is a permutation of 0..Threads()-1;
//   - Next(s, t) and Next(rep, p[t]) report the same status;
//   - Check(s) fails exactly when Check(rep) fails, and so does the
//     global Invariant, for a system that has one (it must be symmetric);
//   - Outcomes(s, t) = Outcomes(rep, p[t]), for a system with outcomes;
//   - Apply(s, t) and Apply(rep, p[t]) have the same canonical hash, when t
//     is enabled, and so do ApplyOutcome(s, t, c) and ApplyOutcome(rep,
//     p[t], c) for every outcome c.
//
// and that rep is a state Apply can be called on (it need not be
// reachable). Then two states with equal canonical hashes have futures equal
// up to a renaming of threads (the relation "equal canonical hash" is a
// bisimulation), which is all a search that stores one state per orbit needs.
// Nothing else is required: a canonicalizer that maps some symmetric states to
// different representatives is sound, it only saves less. A good one maps
// every state of an orbit to one representative (Canonical(σ(s)) = Canonical(s)
// for every σ of the group) and is idempotent (Canonical(rep) = rep).
//
// The usual implementation sorts the threads of each group of identical
// threads by their local state (with whatever names a thread, such as the
// locks it holds, in the sort key), or tries the few permutations of a small
// group (the N rotations of a ring) and keeps the least state.
type Canonicalizer[S any] interface {
	Canonical(s S) (rep S, p []ts.Tid)
}

// Permuter is implemented by systems that can rename their threads: Permute
// returns s with thread t's part moved to thread p[t], for a permutation p in
// the system's symmetry group (for a [Signer], the exchange of two threads
// with equal signatures, at the states of the future of the state where
// they have them). It is optional for the strategies: [Verify] uses it, with
// ts.Hasher, to check that the group acts as automorphisms (the permuted
// successor is the successor of the permuted state) and that Canonical is
// invariant under it, and it needs it to accept a Signer's claims: without
// it Verify cannot tell an exchange of threads from a change of data that
// nothing reads (see [Verify] and VerifyOptions.Observational).
type Permuter[S any] interface {
	Permute(s S, p []ts.Tid) S
}

// Signer is implemented by systems whose symmetric threads are discovered at
// each state rather than declared once (chapter 7 of Yang's thesis, where the
// signature is the thread's residual code and local state).
//
// Signature(s, t) summarizes what thread t will still do from s and its local
// state. The contract, which [Verify] checks on a bounded state space (with
// [Permuter]: without it, Verify can refute a claim but not confirm it): if two
// different threads a and b have equal signatures at s, swapping them is a
// symmetry at s: there is a renaming σ of states with σ(s) = s that exchanges
// a's and b's parts (and objects that belong to one of them, such as a
// per-thread buffer), leaves every other thread alone, and commutes with the
// system, outcome by outcome: σ(ApplyOutcome(u, x, c)) = ApplyOutcome(σ(u),
// τ(x), c) for τ the transposition of a and b and every outcome c, with
// matching statuses (Idle included), numbers of outcomes, steps (up to that
// renaming of objects, access by access), Check and Invariant results, on
// every state u reachable from s. The renaming of objects must map the
// objects the invariant reads (ts.Invariant's InvariantReads) to objects it
// reads, and the others to others, so that the transitions DPOR makes
// dependent for the invariant's sake are renamed into each other.
//
// Equal local states are not enough when a thread's identity enters the
// shared data (a message tagged with its id, a value it writes, a fork that
// only it and its neighbour use): such threads must get different
// signatures. Mixing the
// thread id into the signature is always sound; it only finds no symmetry.
// Signature is called for enabled threads only.
type Signer[S any] interface {
	Signature(s S, t ts.Tid) uint64
}

// Orbits wraps a system with declared symmetry so that its Hash is the hash
// of the canonical representative: a search that keys its visited states on
// Hash alone then stores one state per orbit. Every other method is the
// wrapped system's, and the states, threads and schedules are the wrapped
// system's own: a schedule found on Orbits replays on the original system.
//
// When it is sound: for searches that cut the search at a state whose hash
// they have seen and whose future from a state depends on the state alone,
// such as ts.ExploreStateful (which is what [Explore] runs) or a user's own
// breadth-first search: the state they skip has the same future, up to a
// renaming of threads, as the state they explored, so every terminal state,
// deadlock and failed check is reached up to that renaming, each by a
// schedule of real thread ids.
//
// When it is not: for searches that store more than the state, or that carry
// thread ids from one state to the next. A cache of (state, last thread)
// work items (cbound.ICB) would merge (u, a) with (σ(u), a), which is
// (u, σ⁻¹(a)), a different item: preemption counts and bounded coverage go
// wrong. Stateful DPOR (por.SDPOR) summarizes a visited state by the
// operations of named threads; sleep sets, backtrack sets and happens-before
// states name threads too. None of these may be given Orbits. Hash is also
// what searches use to notice an Apply that modifies its argument; under
// Orbits a modification that keeps the canonical form goes unnoticed.
//
// Canonical must not panic (a panic would be reported as a panic of the
// state whose hash was asked for, and its schedule would not replay on the
// original system).
type Orbits[S any] struct {
	Sys     ts.TransitionSystem[S]
	canon   Canonicalizer[S]
	hash    ts.Hasher[S]
	check   ts.Checker[S]
	chooser ts.Chooser[S]
	inv     ts.Invariant[S]
	desc    ts.Describer[S]
	names   ts.ObjNamer
}

// NewOrbits returns sys with the canonical hash. It returns ts.ErrNoHash or
// ErrNoSymmetry (wrapped in ts.ErrBadOptions) when sys lacks Hash or
// Canonical.
func NewOrbits[S any](sys ts.TransitionSystem[S]) (*Orbits[S], error) {
	o := &Orbits[S]{Sys: sys}
	o.hash, _ = sys.(ts.Hasher[S])
	o.canon, _ = sys.(Canonicalizer[S])
	if err := needs(o.hash != nil, o.canon != nil); err != nil {
		return nil, err
	}
	o.check, _ = sys.(ts.Checker[S])
	o.chooser, _ = sys.(ts.Chooser[S])
	o.inv, _ = sys.(ts.Invariant[S])
	o.desc, _ = sys.(ts.Describer[S])
	o.names, _ = sys.(ts.ObjNamer)
	return o, nil
}

// Init returns the wrapped system's initial state.
func (o *Orbits[S]) Init() S { return o.Sys.Init() }

// Threads returns the wrapped system's thread count.
func (o *Orbits[S]) Threads() int { return o.Sys.Threads() }

// Next returns the wrapped system's next step.
func (o *Orbits[S]) Next(s S, t ts.Tid) (ts.Step, ts.Status) { return o.Sys.Next(s, t) }

// Apply returns the wrapped system's successor.
func (o *Orbits[S]) Apply(s S, t ts.Tid) S { return o.Sys.Apply(s, t) }

// Hash returns the hash of s's canonical representative.
func (o *Orbits[S]) Hash(s S) uint64 {
	rep, _ := o.canon.Canonical(s)
	return o.hash.Hash(rep)
}

// Check returns the wrapped system's Check, or nil if it has none.
func (o *Orbits[S]) Check(s S) error {
	if o.check == nil {
		return nil
	}
	return o.check.Check(s)
}

// Outcomes returns the wrapped system's number of outcomes of thread t's
// next transition, or 1 if it has no Chooser.
func (o *Orbits[S]) Outcomes(s S, t ts.Tid) int {
	if o.chooser == nil {
		return 1
	}
	return o.chooser.Outcomes(s, t)
}

// ApplyOutcome returns the wrapped system's successor by outcome c.
func (o *Orbits[S]) ApplyOutcome(s S, t ts.Tid, c int) S {
	if o.chooser == nil {
		return o.Sys.Apply(s, t)
	}
	return o.chooser.ApplyOutcome(s, t, c)
}

// Invariant returns the wrapped system's Invariant, or nil if it has none.
func (o *Orbits[S]) Invariant(s S) error {
	if o.inv == nil {
		return nil
	}
	return o.inv.Invariant(s)
}

// InvariantReads returns the wrapped system's InvariantReads, or nil.
func (o *Orbits[S]) InvariantReads() []ts.Obj {
	if o.inv == nil {
		return nil
	}
	return o.inv.InvariantReads()
}

// Describe returns the wrapped system's description, or "".
func (o *Orbits[S]) Describe(s S, t ts.Tid) string {
	if o.desc == nil {
		return ""
	}
	return o.desc.Describe(s, t)
}

// ObjName returns the wrapped system's name for o, or "".
func (o *Orbits[S]) ObjName(obj ts.Obj) string {
	if o.names == nil {
		return ""
	}
	return o.names.ObjName(obj)
}
