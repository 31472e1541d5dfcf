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

// Defaults of VerifyOptions.
const (
	DefaultVerifyStates = 2000
	DefaultVerifyDepth  = 6
	DefaultVerifyPairs  = 2000
)

// VerifyOptions bound the work of Verify.
type VerifyOptions struct {
	// MaxStates caps the states checked, breadth first from the initial
	// state; 0 means DefaultVerifyStates. States are told apart by Hash when
	// the system has one; otherwise every schedule is a new state.
	MaxStates int
	// MaxDepth caps how far the futures of two threads with equal
	// signatures are compared in lockstep; 0 means DefaultVerifyDepth.
	MaxDepth int
	// MaxPairs caps the pairs of states compared for one pair of threads;
	// 0 means DefaultVerifyPairs.
	MaxPairs int
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

// Verify checks the symmetry a system declares on a bounded prefix of its
// state space, breadth first, and returns the first *Mismatch it finds (the
// shortest schedule, then the lowest thread), or nil. It checks whatever the
// system implements:
//
//   - Canonicalizer (with ts.Hasher): at every state s, with (rep, p) =
//     Canonical(s): p is a permutation; Check(s) and Check(rep) agree; for
//     every thread t, Next(s, t) and Next(rep, p[t]) report the same status,
//     and for enabled t, Apply(s, t) and Apply(rep, p[t]) have the same
//     canonical hash. These are exactly the conditions under which storing
//     one state per canonical hash is sound (see Canonicalizer).
//   - Permuter as well: Permute(s, p) is rep, and the permuted successor is
//     the successor of the permuted state: Permute(Apply(s, t), p) equals
//     Apply(Permute(s, p), p[t]) (compared by Hash).
//   - Signer: at every state s, for every two enabled threads a ≠ b with equal
//     signatures, the futures of s with a and b exchanged are compared in
//     lockstep up to MaxDepth transitions: for each schedule w from s, the
//     state u reached by w and the state v reached by w with a and b
//     exchanged must show the same statuses and check results, steps equal
//     up to one consistent renaming of objects, and, with Permuter, v must
//     be u with a and b exchanged.
//
// A system that implements none of the three is reported with ErrNoSymmetry;
// Canonicalizer without ts.Hasher with ts.ErrNoHash. A panic in user code is
// reported as a Mismatch naming the call.
func Verify[S any](sys ts.TransitionSystem[S], opt VerifyOptions) (err error) {
	v := &verifier[S]{sys: sys, opt: opt}
	v.hasher, _ = sys.(ts.Hasher[S])
	v.canon, _ = sys.(Canonicalizer[S])
	v.perm, _ = sys.(Permuter[S])
	v.signer, _ = sys.(Signer[S])
	v.checker, _ = sys.(ts.Checker[S])
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
	n, err := search.Threads(sys)
	if err != nil {
		return err
	}
	v.n = n
	defer func() {
		if p := recover(); p != nil {
			err = &Mismatch{Schedule: v.where.Clone(), Thread: v.thread, Image: -1, Detail: fmt.Sprintf("%s panicked: %v", v.call, p)}
		}
	}()
	return v.run()
}

type verifier[S any] struct {
	sys     ts.TransitionSystem[S]
	hasher  ts.Hasher[S]
	canon   Canonicalizer[S]
	perm    Permuter[S]
	signer  Signer[S]
	checker ts.Checker[S]
	opt     VerifyOptions
	n       int

	// where user code runs, for a panic
	where  ts.Schedule
	thread ts.Tid
	call   string
}

type vnode[S any] struct {
	s     S
	sched ts.Schedule
}

func (v *verifier[S]) enter(sched ts.Schedule, t ts.Tid, call string) {
	v.where, v.thread, v.call = sched, t, call
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
		if v.failed(nd.s, nd.sched) {
			continue
		}
		for t := range ts.Tid(v.n) {
			v.enter(nd.sched, t, "Next")
			if _, st := v.sys.Next(nd.s, t); st != ts.Enabled {
				continue
			}
			v.enter(nd.sched, t, "Apply")
			c := v.sys.Apply(nd.s, t)
			sched := append(nd.sched.Clone(), ts.Move{Thread: t})
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
	return nil
}

func (v *verifier[S]) failed(s S, sched ts.Schedule) bool {
	if v.checker == nil {
		return false
	}
	v.enter(sched, -1, "Check")
	return v.checker.Check(s) != nil
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
	if v.failed(s, sched) != v.failed(rep, sched) {
		return mis(-1, -1, "Check fails on one of the state and its canonical form only")
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
		st1, s1 := v.sys.Next(s, t)
		v.enter(sched, img, "Next (of the canonical form)")
		st2, s2 := v.sys.Next(rep, img)
		if s1 != s2 {
			return mis(t, img, "thread %d is %v but its image %d in the canonical form is %v", t, s1, img, s2)
		}
		if s1 != ts.Enabled {
			continue
		}
		_, _ = st1, st2
		after := append(sched.Clone(), ts.Move{Thread: t})
		v.enter(sched, t, "Apply")
		c1 := v.sys.Apply(s, t)
		v.enter(sched, img, "Apply (to the canonical form)")
		c2 := v.sys.Apply(rep, img)
		if v.canonHash(c1, after) != v.canonHash(c2, after) {
			return mis(t, img, "the successor by thread %d and the canonical form's successor by thread %d are in different orbits", t, img)
		}
		if v.perm != nil {
			v.enter(after, -1, "Permute")
			a := v.perm.Permute(c1, p)
			if v.hash(a, after) != v.hash(c2, after) {
				return mis(t, img, "the permuted successor is not the successor of the permuted state (permutation %v)", p)
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
			if enabled[a] && enabled[b] && sigs[a] == sigs[b] {
				if m := v.lockstep(s, sched, a, b); m != nil {
					return m
				}
			}
		}
	}
	return nil
}

type vpair[S any] struct {
	u, v  S
	sched ts.Schedule // from the initial state to u
	depth int
}

// lockstep explores the futures of s breadth first in pairs (u, v), v being
// reached by u's schedule from s with a and b exchanged, and compares them.
func (v *verifier[S]) lockstep(s S, sched ts.Schedule, a, b ts.Tid) error {
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
	objs, back := map[ts.Obj]ts.Obj{}, map[ts.Obj]ts.Obj{}
	queue := []vpair[S]{{u: s, v: s, sched: sched}}
	type key struct{ u, v uint64 }
	seen := map[key]bool{}
	for pairs := 0; len(queue) > 0 && pairs < v.opt.MaxPairs; pairs++ {
		pr := queue[0]
		queue = queue[1:]
		mis := func(t ts.Tid, format string, args ...any) error {
			return &Mismatch{Schedule: pr.sched.Clone(), Thread: t, Image: tau(t),
				Detail: fmt.Sprintf("threads %d and %d have equal signatures after %v, but ", a, b, sched) + fmt.Sprintf(format, args...)}
		}
		fu, fv := v.failed(pr.u, pr.sched), v.failed(pr.v, pr.sched)
		if fu != fv {
			return mis(-1, "Check fails on only one side of the exchange")
		}
		if perm != nil {
			v.enter(pr.sched, -1, "Permute")
			if v.hash(v.perm.Permute(pr.u, perm), pr.sched) != v.hash(pr.v, pr.sched) {
				return mis(-1, "the state with %d and %d exchanged is not the state reached with them exchanged", a, b)
			}
		}
		if fu {
			continue
		}
		for x := range ts.Tid(v.n) {
			y := tau(x)
			v.enter(pr.sched, x, "Next")
			step1, st1 := v.sys.Next(pr.u, x)
			v.enter(pr.sched, y, "Next (exchanged)")
			step2, st2 := v.sys.Next(pr.v, y)
			if st1 != st2 {
				return mis(x, "thread %d is %v and its image %d is %v", x, st1, y, st2)
			}
			if st1 == ts.Finished {
				continue
			}
			if step1.Op != step2.Op || step1.Sync != step2.Sync {
				return mis(x, "thread %d's next step is %v and its image's %v", x, step1, step2)
			}
			o2, ok2 := objs[step1.Obj]
			o1, ok1 := back[step2.Obj]
			if ok2 && o2 != step2.Obj || ok1 && o1 != step1.Obj {
				return mis(x, "thread %d's next step is %v and its image's %v: no consistent renaming of objects", x, step1, step2)
			}
			objs[step1.Obj], back[step2.Obj] = step2.Obj, step1.Obj
			if st1 != ts.Enabled || pr.depth >= v.opt.MaxDepth {
				continue
			}
			next := append(pr.sched.Clone(), ts.Move{Thread: x})
			v.enter(pr.sched, x, "Apply")
			cu := v.sys.Apply(pr.u, x)
			v.enter(pr.sched, y, "Apply (exchanged)")
			cv := v.sys.Apply(pr.v, y)
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
	return nil
}
