package symmetry

import (
	"errors"
	"fmt"

	"github.com/weftlab/weft/internal/search"
	"github.com/weftlab/weft/ts"
)

// ErrAsymmetric is wrapped by the *Mismatch that Verify returns when a
// declared symmetry does not hold.
var ErrAsymmetric = errors.New("symmetry: declared symmetry does not hold")

// ErrUnverified is wrapped by the *Unverified that Verify returns when the
// system claims a symmetry that Verify cannot check.
var ErrUnverified = errors.New("symmetry: declared symmetry cannot be verified")

// Defaults of VerifyOptions.
const (
	DefaultVerifyStates = 2000
	DefaultVerifyDepth  = 6
	DefaultVerifyPairs  = 2000
)

// VerifyOptions bound the work of Verify, and say whether it accepts
// claims it can check only by what the system shows.
type VerifyOptions struct {
	// MaxStates caps the states checked, breadth first from the initial
	// state, and, for a Signer with Permuter, the states checked for each
	// exchange of two threads, breadth first from the states where it is
	// claimed; 0 means DefaultVerifyStates. States are told apart by Hash
	// when the system has one; otherwise every schedule is a new state.
	MaxStates int
	// MaxDepth caps how far the futures of two threads with equal
	// signatures are compared in lockstep when the system implements
	// Permuter and ts.Hasher; 0 means DefaultVerifyDepth. Without them the
	// futures are compared to their ends, and MaxDepth plays no part.
	MaxDepth int
	// MaxPairs caps the pairs of states compared for one pair of threads
	// at one state; 0 means DefaultVerifyPairs. Without Permuter, a
	// comparison that this cap cuts short is reported as *Unverified.
	MaxPairs int
	// Observational makes Verify accept, for a Signer without Permuter, two
	// threads with equal signatures whose futures, exchanged, nothing the
	// system shows tells apart to the end of every execution (see Verify).
	// It is off by default: such a claim is then reported as *Unverified,
	// because Verify cannot tell a renaming of threads from a change of
	// data that nothing reads, and the search that trusts the claim may
	// then miss terminal states (not failed checks, invariant failures or
	// deadlocks) that differ in that data.
	Observational bool
}

// Mismatch is a place where a declared symmetry fails: the state reached by
// Schedule, the thread whose behaviour differs from its image's, and what
// differs.
type Mismatch struct {
	// Schedule leads from the initial state to the state where the
	// mismatch shows.
	Schedule ts.Schedule
	// Thread is the thread whose status, step or successor differs from
	// that of Image, or -1 when the mismatch is about the state (its check,
	// a permutation that is not one).
	Thread ts.Tid
	// Image is the thread Thread is mapped to (p[Thread] under Canonical,
	// the symmetric partner for signatures), or -1.
	Image ts.Tid
	// Detail says what differs, in words.
	Detail string
}

func (m *Mismatch) Error() string {
	return fmt.Sprintf("symmetry: declared symmetry does not hold: thread %d (image %d): %s (schedule %v)", m.Thread, m.Image, m.Detail, m.Schedule)
}

// Unwrap returns ErrAsymmetric.
func (m *Mismatch) Unwrap() error { return ErrAsymmetric }

// Unverified is a claim of symmetry that Verify could not check: threads A
// and B have equal signatures at the state reached by Schedule, and Verify
// found no difference between their futures, but cannot vouch that
// exchanging them is a renaming of threads. Detail says why and how to let
// Verify check it.
type Unverified struct {
	// Schedule leads from the initial state to the state where A and B
	// have equal signatures (the first such claim, breadth first).
	Schedule ts.Schedule
	// A and B are the threads claimed interchangeable, A < B.
	A, B ts.Tid
	// Detail says why the claim is not verified and what to do, in words.
	Detail string
}

func (u *Unverified) Error() string {
	return fmt.Sprintf("symmetry: declared symmetry cannot be verified: threads %d and %d have equal signatures after %v, but %s", u.A, u.B, u.Schedule, u.Detail)
}

// Unwrap returns ErrUnverified.
func (u *Unverified) Unwrap() error { return ErrUnverified }

// Verify checks the symmetry a system declares on a bounded prefix of its
// state space, breadth first (every enabled thread with every outcome of its
// transition), and returns the first *Mismatch it finds (in the order of
// the states it visits, then of the threads), an *Unverified for a claim it
// cannot check, or nil. It checks whatever the system implements:
//
//   - Canonicalizer (with ts.Hasher): at every state s, with (rep, p) =
//     Canonical(s): p is a permutation; Check(s) and Check(rep) agree, and
//     so do Invariant(s) and Invariant(rep) (the invariant is symmetric);
//     for every thread t, Next(s, t) and Next(rep, p[t]) report the same
//     status, and, unless t is finished, Outcomes(s, t) and Outcomes(rep,
//     p[t]) agree; for enabled t and every outcome c, the successors of s by
//     (t, c) and of rep by (p[t], c) have the same canonical hash. These are
//     exactly the conditions under which storing one state per canonical
//     hash is sound (see Canonicalizer).
//   - Permuter as well: Permute(s, p) is rep, and the permuted successor is
//     the successor of the permuted state: Permute(ApplyOutcome(s, t, c), p)
//     equals ApplyOutcome(Permute(s, p), p[t], c) (compared by Hash).
//   - Signer: at every state s, every two enabled threads a ≠ b with equal
//     signatures claim that exchanging them is a symmetry at s. Their
//     futures from s are compared in lockstep, every outcome of each: for
//     each schedule w from s, the state u reached by w and the state v
//     reached by w with a and b exchanged must show the same statuses,
//     numbers of outcomes, check and invariant results, and steps equal up
//     to one consistent renaming of objects (access by access, in the order
//     the steps list them) that maps the objects the invariant reads
//     (InvariantReads) to objects it reads and the others to others.
//   - Signer with Permuter (and ts.Hasher): with τ the exchange of a and b,
//     v must also be Permute(u, τ) (by Hash), in the lockstep above up to
//     MaxDepth transitions; beyond it, at every state u reachable from s
//     (up to MaxStates states per exchange, breadth first from each claim,
//     remembered across claims), Permute(·, τ) must commute with every
//     transition: Check, Invariant, statuses, numbers of outcomes and the
//     kinds of the accesses agree on u and Permute(u, τ), and
//     Permute(ApplyOutcome(u, x, c), τ) is ApplyOutcome(Permute(u, τ), τ(x),
//     c). A renaming that fails shows at the transition where it fails,
//     however far from the claim.
//   - Signer without Permuter: the lockstep goes on to the end of every
//     execution (MaxDepth plays no part, MaxPairs caps it; with ts.Hasher
//     every pair of states is compared once). A difference the system
//     shows, however late, is a *Mismatch. But Verify cannot tell an
//     exchange of two threads from a change of data that nothing reads
//     (writers that write different values to a variable no check reads),
//     so a claim it cannot refute is reported as *Unverified (the first,
//     breadth first, once every state is checked), unless Observational
//     accepts it; a comparison that MaxPairs cuts short is *Unverified even
//     then.
//
// What nil means. For a Canonicalizer, the conditions above hold at every
// state visited. For a claim of a Signer with Permuter, the exchange is an
// automorphism (the renaming σ of Signer's contract, σ = Permute(·, τ)) on
// the states of s's future that Verify reached; when the states reachable
// from the claims of that exchange number at most MaxStates, Verify reaches
// all of them and the claim holds, except that the renaming of objects is
// checked to be consistent only within MaxDepth transitions of the claim
// (beyond, each step's accesses are compared alone). For a claim accepted
// under Observational, nothing the system shows tells the two futures
// apart, to the end of every execution: a search that skips one of them
// loses no failed check, invariant failure or deadlock that it would not
// lose under a true symmetry, and reaches every terminal state only up to
// that indistinguishability (a terminal state that differs from those it
// reaches in data that nothing reads may be left out). Verify cannot check
// claims made only at states beyond the MaxStates it visits, nor, with
// Permuter, transitions beyond the MaxStates states per exchange; nil says
// nothing of those, and does not say whether a bound was reached.
//
// The states where a check or the invariant fails are checked but not
// explored further, as the searches do. A system that implements none of
// the three is reported with ErrNoSymmetry; Canonicalizer without ts.Hasher
// with ts.ErrNoHash; a system whose Threads or InvariantReads is out of
// range or panics with an error wrapping ts.ErrBadSystem. A panic in user
// code is reported as a Mismatch naming the call. A Permuter without
// ts.Hasher is not used (Verify compares states by Hash).
func Verify[S any](sys ts.TransitionSystem[S], opt VerifyOptions) (err error) {
	v := &verifier[S]{sys: sys, opt: opt}
	v.hasher, _ = sys.(ts.Hasher[S])
	v.canon, _ = sys.(Canonicalizer[S])
	v.perm, _ = sys.(Permuter[S])
	v.signer, _ = sys.(Signer[S])
	if v.hasher == nil {
		v.perm = nil // states are compared by Hash
	}
	if v.canon == nil && v.signer == nil {
		return fmt.Errorf("%w: %w", ts.ErrBadOptions, ErrNoSymmetry)
	}
	if v.canon != nil && v.hasher == nil {
		return fmt.Errorf("%w: %w", ts.ErrBadOptions, ts.ErrNoHash)
	}
	if opt.MaxStates < 0 || opt.MaxDepth < 0 || opt.MaxPairs < 0 {
		return fmt.Errorf("%w: negative verify bound %+v", ts.ErrBadOptions, opt)
	}
	if v.opt.MaxStates == 0 {
		v.opt.MaxStates = DefaultVerifyStates
	}
	if v.opt.MaxDepth == 0 {
		v.opt.MaxDepth = DefaultVerifyDepth
	}
	if v.opt.MaxPairs == 0 {
		v.opt.MaxPairs = DefaultVerifyPairs
	}
	m, err := search.NewModel(sys)
	if err != nil {
		return err
	}
	v.m, v.n = m, m.N
	defer func() {
		if p := recover(); p != nil {
			err = &Mismatch{Schedule: v.where.Clone(), Thread: v.thread, Image: -1, Detail: fmt.Sprintf("%s panicked: %v", v.call, p)}
		}
	}()
	return v.run()
}

type verifier[S any] struct {
	sys    ts.TransitionSystem[S]
	m      *search.Model[S]
	hasher ts.Hasher[S]
	canon  Canonicalizer[S]
	perm   Permuter[S]
	signer Signer[S]
	opt    VerifyOptions
	n      int

	// where user code runs, for a panic
	where  ts.Schedule
	thread ts.Tid
	call   string

	// the first claim of symmetry that could not be checked, or nil
	unverified *Unverified
	// per exchange of two threads (with Permuter), the states whose
	// transitions have been checked to commute with it
	renamed map[[2]ts.Tid]map[uint64]bool
}

type vnode[S any] struct {
	s     S
	sched ts.Schedule
}

func (v *verifier[S]) enter(sched ts.Schedule, t ts.Tid, call string) {
	v.where, v.thread, v.call = sched, t, call
}

// moves returns the moves of the enabled threads at s, every outcome of
// each.
func (v *verifier[S]) moves(s S, sched ts.Schedule) []ts.Move {
	var mvs []ts.Move
	for t := range ts.Tid(v.n) {
		v.enter(sched, t, "Next")
		if _, st := v.sys.Next(s, t); st != ts.Enabled {
			continue
		}
		for c := range v.outcomes(s, sched, t) {
			mvs = append(mvs, ts.Move{Thread: t, Outcome: c})
		}
	}
	return mvs
}

func (v *verifier[S]) outcomes(s S, sched ts.Schedule, t ts.Tid) int {
	v.enter(sched, t, "Outcomes")
	return v.m.Outcomes(s, t)
}

func (v *verifier[S]) apply(s S, sched ts.Schedule, mv ts.Move, call string) S {
	v.enter(sched, mv.Thread, call)
	return v.m.Apply(s, mv)
}

func (v *verifier[S]) run() error {
	v.enter(nil, -1, "Init")
	queue := []vnode[S]{{s: v.sys.Init()}}
	seen := map[uint64]bool{}
	if v.hasher != nil {
		seen[v.hasher.Hash(queue[0].s)] = true
	}
	for checked := 0; len(queue) > 0 && checked < v.opt.MaxStates; checked++ {
		nd := queue[0]
		queue = queue[1:]
		if m := v.state(nd.s, nd.sched); m != nil {
			return m
		}
		if v.checkFails(nd.s, nd.sched) || v.invariantFails(nd.s, nd.sched) {
			continue
		}
		for _, mv := range v.moves(nd.s, nd.sched) {
			c := v.apply(nd.s, nd.sched, mv, "Apply")
			sched := append(nd.sched.Clone(), mv)
			if v.hasher != nil {
				v.enter(sched, -1, "Hash")
				h := v.hasher.Hash(c)
				if seen[h] {
					continue
				}
				seen[h] = true
			}
			queue = append(queue, vnode[S]{s: c, sched: sched})
		}
	}
	if v.unverified != nil {
		return v.unverified
	}
	return nil
}

func (v *verifier[S]) checkFails(s S, sched ts.Schedule) bool {
	if v.m.Checker == nil {
		return false
	}
	v.enter(sched, -1, "Check")
	return v.m.Checker.Check(s) != nil
}

func (v *verifier[S]) invariantFails(s S, sched ts.Schedule) bool {
	if v.m.Invariant == nil {
		return false
	}
	v.enter(sched, -1, "Invariant")
	return v.m.Invariant.Invariant(s) != nil
}

// agree compares what Check and Invariant say of two states that must be
// alike, and describes the difference ("" if none); side names the second
// state.
func (v *verifier[S]) agree(a, b S, sched ts.Schedule, side string) string {
	switch ca, cb := v.checkFails(a, sched), v.checkFails(b, sched); {
	case ca && !cb:
		return "Check fails on the state but not on " + side
	case cb && !ca:
		return "Check fails on " + side + " but not on the state"
	}
	const why = " (a symmetric invariant fails on both or neither)"
	switch ia, ib := v.invariantFails(a, sched), v.invariantFails(b, sched); {
	case ia && !ib:
		return "the invariant fails on the state but not on " + side + why
	case ib && !ia:
		return "the invariant fails on " + side + " but not on the state" + why
	}
	return ""
}

func (v *verifier[S]) hash(s S, sched ts.Schedule) uint64 {
	v.enter(sched, -1, "Hash")
	return v.hasher.Hash(s)
}

func (v *verifier[S]) canonHash(s S, sched ts.Schedule) uint64 {
	v.enter(sched, -1, "Canonical")
	rep, _ := v.canon.Canonical(s)
	return v.hash(rep, sched)
}

// state checks the declared symmetry at s.
func (v *verifier[S]) state(s S, sched ts.Schedule) error {
	if v.canon != nil {
		if m := v.canonical(s, sched); m != nil {
			return m
		}
	}
	if v.signer != nil {
		return v.signatures(s, sched)
	}
	return nil
}

func (v *verifier[S]) canonical(s S, sched ts.Schedule) error {
	mis := func(t, img ts.Tid, format string, args ...any) error {
		return &Mismatch{Schedule: sched.Clone(), Thread: t, Image: img, Detail: fmt.Sprintf(format, args...)}
	}
	v.enter(sched, -1, "Canonical")
	rep, p := v.canon.Canonical(s)
	if len(p) != v.n {
		return mis(-1, -1, "Canonical returned a permutation of %d threads, want %d", len(p), v.n)
	}
	used := make([]bool, v.n)
	for t, u := range p {
		if u < 0 || int(u) >= v.n || used[u] {
			return mis(ts.Tid(t), -1, "Canonical returned %v, not a permutation", p)
		}
		used[u] = true
	}
	if d := v.agree(s, rep, sched, "its canonical form"); d != "" {
		return mis(-1, -1, "%s", d)
	}
	if v.perm != nil {
		v.enter(sched, -1, "Permute")
		if v.hash(v.perm.Permute(s, p), sched) != v.hash(rep, sched) {
			return mis(-1, -1, "Permute(s, %v) is not the canonical form Canonical returned", p)
		}
	}
	for t := range ts.Tid(v.n) {
		img := p[t]
		v.enter(sched, t, "Next")
		_, s1 := v.sys.Next(s, t)
		v.enter(sched, img, "Next (of the canonical form)")
		_, s2 := v.sys.Next(rep, img)
		if s1 != s2 {
			return mis(t, img, "thread %d is %v but its image %d in the canonical form is %v", t, s1, img, s2)
		}
		if s1 == ts.Finished {
			continue
		}
		k1, k2 := v.outcomes(s, sched, t), v.outcomes(rep, sched, img)
		if k1 != k2 {
			return mis(t, img, "thread %d's transition has %d outcomes but its image %d's in the canonical form has %d", t, k1, img, k2)
		}
		if s1 != ts.Enabled {
			continue
		}
		for c := range k1 {
			after := append(sched.Clone(), ts.Move{Thread: t, Outcome: c})
			c1 := v.apply(s, sched, ts.Move{Thread: t, Outcome: c}, "Apply")
			c2 := v.apply(rep, sched, ts.Move{Thread: img, Outcome: c}, "Apply (to the canonical form)")
			if v.canonHash(c1, after) != v.canonHash(c2, after) {
				return mis(t, img, "the successor by thread %d (outcome %d) and the canonical form's successor by thread %d (outcome %d) are in different orbits", t, c, img, c)
			}
			if v.perm != nil {
				v.enter(after, -1, "Permute")
				a := v.perm.Permute(c1, p)
				if v.hash(a, after) != v.hash(c2, after) {
					return mis(t, img, "the permuted successor (outcome %d) is not the successor of the permuted state (permutation %v)", c, p)
				}
			}
		}
	}
	return nil
}

// signatures compares, for every two enabled threads with equal signatures
// at s, the futures of s with the two exchanged.
func (v *verifier[S]) signatures(s S, sched ts.Schedule) error {
	sigs := make([]uint64, v.n)
	enabled := make([]bool, v.n)
	for t := range ts.Tid(v.n) {
		v.enter(sched, t, "Next")
		if _, st := v.sys.Next(s, t); st == ts.Enabled {
			enabled[t] = true
			v.enter(sched, t, "Signature")
			sigs[t] = v.signer.Signature(s, t)
		}
	}
	for a := range ts.Tid(v.n) {
		for b := a + 1; int(b) < v.n; b++ {
			if !enabled[a] || !enabled[b] || sigs[a] != sigs[b] {
				continue
			}
			complete, m := v.lockstep(s, sched, a, b)
			if m != nil {
				return m
			}
			if v.perm != nil {
				if m := v.commutes(s, sched, a, b); m != nil {
					return m
				}
			}
			if v.perm == nil && v.unverified == nil {
				v.unverify(sched, a, b, complete)
			}
		}
	}
	return nil
}

// unverify records the claim that threads a and b are interchangeable at
// the state reached by sched, which, without Permuter, the comparison of
// their futures (complete or cut short by MaxPairs) could check only by what
// the system shows, unless Observational accepts it.
func (v *verifier[S]) unverify(sched ts.Schedule, a, b ts.Tid, complete bool) {
	need := "Permuter"
	if v.hasher == nil {
		need = "Permuter and ts.Hasher"
	}
	var why string
	switch {
	case !v.opt.Observational:
		why = "without " + need + " Verify can compare their futures only by what the system shows " +
			"(statuses, steps, outcomes, Check, Invariant), which cannot tell an exchange of two threads from a change of data that nothing reads: " +
			"DPOR, which explores one of the two, may then miss terminal states that differ in such data; " +
			"implement " + need + ", or set VerifyOptions.Observational to accept futures between which the system shows no difference"
	case complete:
		return
	default:
		why = fmt.Sprintf("comparing their futures, with them exchanged, did not reach the end of every execution within %d pairs of states; "+
			"raise VerifyOptions.MaxPairs, or implement %s", v.opt.MaxPairs, need)
		if v.hasher == nil {
			why += " (without ts.Hasher every schedule is a pair of its own)"
		}
	}
	v.unverified = &Unverified{Schedule: sched.Clone(), A: a, B: b, Detail: why}
}

// commutes checks, with Permuter, that exchanging threads a and b (Permute
// by their transposition τ) commutes with every transition of every state
// reachable from s: at each such state u, with u' = Permute(u, τ), Check
// and Invariant agree on u and u'; every thread x and its image τ(x) have
// the same status, steps of the same shape (accesses of the same kinds, to
// objects the invariant reads or not alike) and as many outcomes; and for
// every outcome c, Permute(ApplyOutcome(u, x, c), τ) is
// ApplyOutcome(u', τ(x), c) (by Hash). With Permute(s, τ) = s, which
// lockstep checks, this makes the exchange an automorphism of s's future
// (by induction on the schedule), which is what the claim means; a
// renaming that fails shows at the transition where it fails, however far
// from the claim. The states checked for one exchange are remembered
// across claims and capped at MaxStates, breadth first from each claim.
func (v *verifier[S]) commutes(s S, sched ts.Schedule, a, b ts.Tid) error {
	tau := make([]ts.Tid, v.n)
	for t := range tau {
		tau[t] = ts.Tid(t)
	}
	tau[a], tau[b] = b, a
	if v.renamed == nil {
		v.renamed = map[[2]ts.Tid]map[uint64]bool{}
	}
	seen := v.renamed[[2]ts.Tid{a, b}]
	if seen == nil {
		seen = map[uint64]bool{}
		v.renamed[[2]ts.Tid{a, b}] = seen
	}
	h := v.hash(s, sched)
	if seen[h] {
		return nil
	}
	seen[h] = true
	queue := []vnode[S]{{s: s, sched: sched}}
	for len(queue) > 0 {
		nd := queue[0]
		queue = queue[1:]
		mis := func(x ts.Tid, format string, args ...any) error {
			img := ts.Tid(-1)
			if x >= 0 {
				img = tau[x]
			}
			return &Mismatch{Schedule: nd.sched.Clone(), Thread: x, Image: img,
				Detail: fmt.Sprintf("threads %d and %d have equal signatures after %v, but ", a, b, sched) + fmt.Sprintf(format, args...)}
		}
		v.enter(nd.sched, -1, "Permute")
		pu := v.perm.Permute(nd.s, tau)
		if d := v.agree(nd.s, pu, nd.sched, "the state with them exchanged (Permute)"); d != "" {
			return mis(-1, "%s", d)
		}
		if v.checkFails(nd.s, nd.sched) || v.invariantFails(nd.s, nd.sched) {
			continue
		}
		for x := range ts.Tid(v.n) {
			y := tau[x]
			v.enter(nd.sched, x, "Next")
			step1, st1 := v.sys.Next(nd.s, x)
			v.enter(nd.sched, y, "Next (of the state with them exchanged)")
			step2, st2 := v.sys.Next(pu, y)
			if st1 != st2 {
				return mis(x, "thread %d is %v and its image %d in the state with them exchanged is %v", x, st1, y, st2)
			}
			if st1 == ts.Finished {
				continue
			}
			if d := sameShape(v.m.Inv, step1, step2); d != "" {
				return mis(x, "thread %d's next step is %v and its image's in the state with them exchanged %v: %s", x, step1, step2, d)
			}
			k1, k2 := v.outcomes(nd.s, nd.sched, x), v.outcomes(pu, nd.sched, y)
			if k1 != k2 {
				return mis(x, "thread %d's transition has %d outcomes and its image %d's in the state with them exchanged has %d", x, k1, y, k2)
			}
			if st1 != ts.Enabled {
				continue
			}
			for c := range k1 {
				next := append(nd.sched.Clone(), ts.Move{Thread: x, Outcome: c})
				cu := v.apply(nd.s, nd.sched, ts.Move{Thread: x, Outcome: c}, "Apply")
				cv := v.apply(pu, nd.sched, ts.Move{Thread: y, Outcome: c}, "Apply (to the state with them exchanged)")
				v.enter(next, -1, "Permute")
				if v.hash(v.perm.Permute(cu, tau), next) != v.hash(cv, next) {
					return mis(x, "the successor by thread %d (outcome %d) with %d and %d exchanged is not the successor by thread %d of the state with them exchanged", x, c, a, b, y)
				}
				if h := v.hash(cu, next); !seen[h] && len(seen) < v.opt.MaxStates {
					seen[h] = true
					queue = append(queue, vnode[S]{s: cu, sched: next})
				}
			}
		}
	}
	return nil
}

// sameShape describes why two steps that must be images of each other under
// some renaming of objects cannot be, looking at each access alone ("" if
// they can): their numbers of accesses, kinds, and whether the invariant
// reads their objects.
func sameShape(inv *ts.InvariantWrites, s1, s2 ts.Step) string {
	if s1.NumAccesses() != s2.NumAccesses() {
		return fmt.Sprintf("they touch %d and %d objects", s1.NumAccesses(), s2.NumAccesses())
	}
	for i := range s1.NumAccesses() {
		a1, a2 := s1.At(i), s2.At(i)
		if a1.Op != a2.Op || a1.IsSync() != a2.IsSync() {
			return fmt.Sprintf("they differ in access %d", i)
		}
		if inv.Reads(a1.Obj) != inv.Reads(a2.Obj) {
			return fmt.Sprintf("the invariant reads one of objects %d and %d and not the other", a1.Obj, a2.Obj)
		}
	}
	return ""
}

type vpair[S any] struct {
	u, v  S
	sched ts.Schedule // from the initial state to u
	depth int
}

// renaming is the renaming of objects that a swap of two threads induces,
// built as the lockstep comparison meets the objects.
type renaming struct {
	to, from map[ts.Obj]ts.Obj
}

// match extends the renaming with the accesses of two steps that must be
// images of each other, and describes why they cannot be ("" if they can).
func (r *renaming) match(inv *ts.InvariantWrites, s1, s2 ts.Step) string {
	if s1.NumAccesses() != s2.NumAccesses() {
		return fmt.Sprintf("they touch %d and %d objects", s1.NumAccesses(), s2.NumAccesses())
	}
	for i := range s1.NumAccesses() {
		a1, a2 := s1.At(i), s2.At(i)
		if a1.Op != a2.Op || a1.IsSync() != a2.IsSync() {
			return fmt.Sprintf("they differ in access %d", i)
		}
		o2, ok2 := r.to[a1.Obj]
		o1, ok1 := r.from[a2.Obj]
		if ok2 && o2 != a2.Obj || ok1 && o1 != a1.Obj {
			return "no consistent renaming of objects"
		}
		if inv.Reads(a1.Obj) != inv.Reads(a2.Obj) {
			read, other := a1.Obj, a2.Obj
			if !inv.Reads(read) {
				read, other = other, read
			}
			return fmt.Sprintf("the renaming of objects maps object %d, which the invariant reads, and object %d, which it does not, onto each other", read, other)
		}
		r.to[a1.Obj], r.from[a2.Obj] = a2.Obj, a1.Obj
	}
	return ""
}

// lockstep explores the futures of s breadth first in pairs (u, v), v being
// reached by u's schedule from s with a and b exchanged, and compares them:
// up to MaxDepth transitions with Permuter (which shows a difference at the
// transition where it arises), to the ends of the executions without. It
// reports whether it compared every pair it met (it did not stop at
// MaxPairs, nor at MaxDepth with a pair whose threads could still move),
// and the first mismatch.
func (v *verifier[S]) lockstep(s S, sched ts.Schedule, a, b ts.Tid) (complete bool, err error) {
	tau := func(x ts.Tid) ts.Tid {
		switch x {
		case a:
			return b
		case b:
			return a
		}
		return x
	}
	var perm []ts.Tid
	if v.perm != nil {
		perm = make([]ts.Tid, v.n)
		for t := range perm {
			perm[t] = tau(ts.Tid(t))
		}
	}
	objs := renaming{to: map[ts.Obj]ts.Obj{}, from: map[ts.Obj]ts.Obj{}}
	queue := []vpair[S]{{u: s, v: s, sched: sched}}
	type key struct{ u, v uint64 }
	seen := map[key]bool{}
	complete = true
	for pairs := 0; len(queue) > 0; pairs++ {
		if pairs == v.opt.MaxPairs {
			return false, nil
		}
		pr := queue[0]
		queue = queue[1:]
		mis := func(t ts.Tid, format string, args ...any) error {
			return &Mismatch{Schedule: pr.sched.Clone(), Thread: t, Image: tau(t),
				Detail: fmt.Sprintf("threads %d and %d have equal signatures after %v, but ", a, b, sched) + fmt.Sprintf(format, args...)}
		}
		if d := v.agree(pr.u, pr.v, pr.sched, "the state reached with them exchanged"); d != "" {
			return false, mis(-1, "%s", d)
		}
		if perm != nil {
			v.enter(pr.sched, -1, "Permute")
			if v.hash(v.perm.Permute(pr.u, perm), pr.sched) != v.hash(pr.v, pr.sched) {
				return false, mis(-1, "the state with %d and %d exchanged is not the state reached with them exchanged", a, b)
			}
		}
		if v.checkFails(pr.u, pr.sched) || v.invariantFails(pr.u, pr.sched) {
			continue
		}
		for x := range ts.Tid(v.n) {
			y := tau(x)
			v.enter(pr.sched, x, "Next")
			step1, st1 := v.sys.Next(pr.u, x)
			v.enter(pr.sched, y, "Next (exchanged)")
			step2, st2 := v.sys.Next(pr.v, y)
			if st1 != st2 {
				return false, mis(x, "thread %d is %v and its image %d is %v", x, st1, y, st2)
			}
			if st1 == ts.Finished {
				continue
			}
			if d := objs.match(v.m.Inv, step1, step2); d != "" {
				return false, mis(x, "thread %d's next step is %v and its image's %v: %s", x, step1, step2, d)
			}
			k1, k2 := v.outcomes(pr.u, pr.sched, x), v.outcomes(pr.v, pr.sched, y)
			if k1 != k2 {
				return false, mis(x, "thread %d's transition has %d outcomes and its image %d's has %d", x, k1, y, k2)
			}
			if st1 != ts.Enabled {
				continue
			}
			if perm != nil && pr.depth >= v.opt.MaxDepth {
				complete = false
				continue
			}
			for c := range k1 {
				next := append(pr.sched.Clone(), ts.Move{Thread: x, Outcome: c})
				cu := v.apply(pr.u, pr.sched, ts.Move{Thread: x, Outcome: c}, "Apply")
				cv := v.apply(pr.v, pr.sched, ts.Move{Thread: y, Outcome: c}, "Apply (exchanged)")
				if v.hasher != nil {
					k := key{v.hash(cu, next), v.hash(cv, next)}
					if seen[k] {
						continue
					}
					seen[k] = true
				}
				queue = append(queue, vpair[S]{u: cu, v: cv, sched: next, depth: pr.depth + 1})
			}
		}
	}
	return complete, nil
}
