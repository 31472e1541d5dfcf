package symmetry_test

import (
	"errors"
	"hash/fnv"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/symmetry"
	"github.com/weftlab/weft/ts"
)

// reversed declares a wrong permutation for the philosophers: it returns
// the right canonical form (the least rotation) but claims that the
// philosophers map onto it in reverse order, a reflection of the ring, which
// is no symmetry (philosopher i takes fork i first, then fork i+1).
type reversed struct{ *models.Philosophers }

func (p reversed) Canonical(s models.PhilosophersState) (models.PhilosophersState, []ts.Tid) {
	rep, _ := p.Philosophers.Canonical(s)
	n := p.Threads()
	perm := make([]ts.Tid, n)
	for t := range perm {
		perm[t] = ts.Tid(n - 1 - t)
	}
	return rep, perm
}

// bare is reversed without Permute: Verify can only compare successors.
type bare struct{ r reversed }

func (b bare) Init() models.PhilosophersState { return b.r.Init() }
func (b bare) Threads() int                   { return b.r.Threads() }
func (b bare) Next(s models.PhilosophersState, t ts.Tid) (ts.Step, ts.Status) {
	return b.r.Next(s, t)
}
func (b bare) Apply(s models.PhilosophersState, t ts.Tid) models.PhilosophersState {
	return b.r.Apply(s, t)
}
func (b bare) Hash(s models.PhilosophersState) uint64 { return b.r.Hash(s) }
func (b bare) Canonical(s models.PhilosophersState) (models.PhilosophersState, []ts.Tid) {
	return b.r.Canonical(s)
}

// Verify rejects a wrong declared permutation with the first mismatching
// state and thread.
//
// With Permute (which the philosophers implement for rotations only), the
// first check that fails is the automorphism one, at the initial state:
// thread 0 agrees (its image 2 is where a rotation by 2 takes it), thread 1
// does not: the claimed permutation [2 1 0] keeps it in place, and its
// successor, rotated, is not the successor of its image.
//
// Without Permute, only the successors can be compared. At the initial
// state, and after philosopher 0 takes fork 0, the reflection happens to
// agree with a rotation for every thread. After philosopher 1 takes fork 1
// (schedule [1]) the canonical form is that state rotated by 1 (philosopher
// 2 holds fork 2), and philosopher 0, about to take fork 0, is claimed to be
// philosopher 2 of it, who is about to take its second fork: the two
// successors (two philosophers with one fork each; one with two forks) are
// in different orbits.
func TestVerifyRejectsWrongPermutation(t *testing.T) {
	for _, tc := range []struct {
		name          string
		sys           ts.TransitionSystem[models.PhilosophersState]
		sched         ts.Schedule
		thread, image ts.Tid
	}{
		{"with Permute", reversed{models.NewPhilosophers(3)}, nil, 1, 1},
		{"without Permute", bare{reversed{models.NewPhilosophers(3)}}, ts.ScheduleOf(1), 0, 2},
	} {
		err := symmetry.Verify(tc.sys, symmetry.VerifyOptions{})
		var m *symmetry.Mismatch
		if !errors.As(err, &m) || !errors.Is(err, symmetry.ErrAsymmetric) {
			t.Fatalf("%s: Verify accepted the reflection: %v", tc.name, err)
		}
		if !slices.Equal(m.Schedule, tc.sched) || m.Thread != tc.thread || m.Image != tc.image {
			t.Errorf("%s: got %v; want the mismatch at schedule %v, thread %d, image %d", tc.name, m, tc.sched, tc.thread, tc.image)
		}
	}
}

// pcSigned gives philosophers signatures from the kind of their next step,
// claiming that two philosophers about to take a fork are interchangeable:
// they are not, their forks differ.
type pcSigned struct{ *models.Philosophers }

func (p pcSigned) Signature(s models.PhilosophersState, t ts.Tid) uint64 {
	step, _ := p.Next(s, t)
	return uint64(step.Op)
}

// Verify rejects wrong signatures: at the initial state philosophers 0 and 1
// have equal ones; exchanging them maps fork 0 to fork 1 (their first
// steps), but after philosopher 0 takes fork 0 (schedule [0]) its next step
// is lock(fork[1]) where its image would lock fork[2], so no renaming of
// forks is consistent.
func TestVerifyRejectsWrongSignature(t *testing.T) {
	err := symmetry.Verify[models.PhilosophersState](pcSigned{models.NewPhilosophers(3)}, symmetry.VerifyOptions{})
	var m *symmetry.Mismatch
	if !errors.As(err, &m) {
		t.Fatalf("Verify accepted signatures that ignore the forks: %v", err)
	}
	if !slices.Equal(m.Schedule, ts.ScheduleOf(0)) || m.Thread != 0 || m.Image != 1 {
		t.Errorf("got %v; want the mismatch at schedule [0], thread 0, image 1", m)
	}
}

// acrossGroups declares all permutations of a gprog's threads symmetries,
// ignoring that its groups run different code.
type acrossGroups struct{ *gprog }

func (p acrossGroups) Canonical(s gstate) (gstate, []ts.Tid) {
	n := p.Threads()
	order := make([]ts.Tid, n)
	for t := range order {
		order[t] = ts.Tid(t)
	}
	slices.SortStableFunc(order, func(a, b ts.Tid) int {
		ka, kb := p.key(s, a), p.key(s, b)
		return slices.Compare(ka[1:], kb[1:]) // without the group
	})
	perm := make([]ts.Tid, n)
	for pos, t := range order {
		perm[t] = ts.Tid(pos)
	}
	return p.Permute(s, perm), perm
}

// noOwners permutes a gprog's threads but leaves the lock owners alone.
type noOwners struct{ *gprog }

func (p noOwners) Permute(s gstate, perm []ts.Tid) gstate {
	r := p.gprog.Permute(s, perm)
	r.owner = s.owner
	return r
}

func (p noOwners) Canonical(s gstate) (gstate, []ts.Tid) {
	_, perm := p.gprog.Canonical(s)
	return p.Permute(s, perm), perm
}

// noRegs gives signatures that forget the registers.
type noRegs struct{ *gprog }

func (p noRegs) Signature(s gstate, t ts.Tid) uint64 {
	h := fnv.New64a()
	h.Write([]byte{byte(p.group[t]), s.pc[t], s.fail[t]})
	return h.Sum64()
}

// Two identical threads take and release lock l, load x (initially 0) and
// store what they loaded to y; a third sets x to 1. The loaders can be at
// the same instruction with different registers, and one can hold the lock
// while the other waits.
func loaders() *gprog {
	code := []ginstr{{kind: gAcquire, x: 0}, {kind: gRelease, x: 0}, {kind: gLoad, r: 0, x: 0}, {kind: gStoreReg, x: 1, r: 0}}
	return &gprog{vars: 2, locks: 1, mod: 3, group: []int{0, 0, 1},
		code: [][]ginstr{code, {{kind: gStore, x: 0, k: 1}}}}
}

// Verify rejects each of the wrong declarations, and accepts the right ones.
func TestVerifyRejectsGprog(t *testing.T) {
	p := loaders()
	if err := symmetry.Verify[gstate](p, symmetry.VerifyOptions{}); err != nil {
		t.Fatalf("the right declarations: %v", err)
	}
	for name, sys := range map[string]ts.TransitionSystem[gstate]{
		"across groups": acrossGroups{p},
		"no owners":     noOwners{p},
		"no registers":  noRegs{p},
	} {
		err := symmetry.Verify(sys, symmetry.VerifyOptions{})
		var m *symmetry.Mismatch
		if !errors.As(err, &m) {
			t.Errorf("%s: Verify accepted it: %v", name, err)
			continue
		}
		if _, rerr := ts.Replay[gstate](p, m.Schedule); rerr != nil {
			t.Errorf("%s: the mismatch's schedule %v does not replay: %v", name, m.Schedule, rerr)
		}
		t.Logf("%s: %v", name, m)
	}
}

// Verify accepts the declared and discovered symmetry of random symmetric
// programs.
func TestVerifyRandom(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := gshape(t)
		if err := symmetry.Verify[gstate](p, symmetry.VerifyOptions{MaxStates: 500}); err != nil {
			t.Fatalf("%v", err)
		}
	})
}

// Canonicalization is idempotent and invariant under the symmetry group, on
// states reached by random walks: Canonical(Permute(s, π)) = Canonical(s)
// for π drawn with rapid.Permutation (within groups for gprog; rotations for
// the philosophers), and the canonical form of a canonical form is itself.
func TestCanonicalProperties(t *testing.T) {
	t.Run("gprog", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) {
			p := gshape(t)
			s := walk(t, p)
			var perm []ts.Tid = identity(p.Threads())
			for g := range p.code {
				var members []ts.Tid
				for u, gg := range p.group {
					if gg == g {
						members = append(members, ts.Tid(u))
					}
				}
				shuffled := rapid.Permutation(members).Draw(t, "perm")
				for i, u := range members {
					perm[u] = shuffled[i]
				}
			}
			canonProps[gstate](t, p, s, perm)
		})
	})
	models3 := func(name string, n int, check func(t *rapid.T, n int)) {
		t.Run(name, func(t *testing.T) { rapid.Check(t, func(t *rapid.T) { check(t, n) }) })
	}
	models3("philosophers", 5, func(t *rapid.T, n int) {
		p := models.NewPhilosophers(rapid.IntRange(2, n).Draw(t, "n"))
		r := rapid.IntRange(0, p.Threads()-1).Draw(t, "rotation")
		perm := make([]ts.Tid, p.Threads())
		for u := range perm {
			perm[u] = ts.Tid((u + r) % p.Threads())
		}
		canonProps[models.PhilosophersState](t, p, walk[models.PhilosophersState](t, p), perm)
	})
	models3("locks3", 3, func(t *rapid.T, _ int) {
		p := models.NewLocks3(0)
		canonProps[models.Locks3State](t, p, walk[models.Locks3State](t, p), rapid.Permutation(identity(3)).Draw(t, "perm"))
	})
	models3("pfscan", 5, func(t *rapid.T, n int) {
		p := models.NewPFScan(rapid.IntRange(1, n).Draw(t, "n"))
		canonProps[models.PFScanState](t, p, walk[models.PFScanState](t, p), rapid.Permutation(identity(p.Threads())).Draw(t, "perm"))
	})
	models3("aget", 5, func(t *rapid.T, n int) {
		p := models.NewAGet(rapid.IntRange(1, n).Draw(t, "n"))
		canonProps[models.AGetState](t, p, walk[models.AGetState](t, p), rapid.Permutation(identity(p.Threads())).Draw(t, "perm"))
	})
}

type permSystem[S any] interface {
	symSystem[S]
	symmetry.Permuter[S]
}

func canonProps[S any](t *rapid.T, sys permSystem[S], s S, perm []ts.Tid) {
	rep, p := sys.Canonical(s)
	if sys.Hash(sys.Permute(s, p)) != sys.Hash(rep) {
		t.Fatalf("Canonical's permutation %v does not give its representative", p)
	}
	if rep2, _ := sys.Canonical(rep); sys.Hash(rep2) != sys.Hash(rep) {
		t.Fatalf("Canonical is not idempotent")
	}
	moved := sys.Permute(s, perm)
	if rep3, _ := sys.Canonical(moved); sys.Hash(rep3) != sys.Hash(rep) {
		t.Fatalf("Canonical is not invariant under %v", perm)
	}
	// The permutation is an automorphism: the permuted successor is the
	// successor of the permuted state.
	for u := range ts.Tid(sys.Threads()) {
		_, st := sys.Next(s, u)
		_, st2 := sys.Next(moved, perm[u])
		if st != st2 {
			t.Fatalf("thread %d is %v, its image %d is %v", u, st, perm[u], st2)
		}
		if st == ts.Enabled && sys.Hash(sys.Permute(sys.Apply(s, u), perm)) != sys.Hash(sys.Apply(moved, perm[u])) {
			t.Fatalf("permuting by %v does not commute with thread %d's transition", perm, u)
		}
	}
}

// walk draws a state by a random walk from the initial state.
func walk[S any](t *rapid.T, sys ts.TransitionSystem[S]) S {
	s := sys.Init()
	steps := rapid.IntRange(0, 30).Draw(t, "steps")
	for range steps {
		var enabled []ts.Tid
		for u := range ts.Tid(sys.Threads()) {
			if _, st := sys.Next(s, u); st == ts.Enabled {
				enabled = append(enabled, u)
			}
		}
		if len(enabled) == 0 {
			break
		}
		s = sys.Apply(s, rapid.SampledFrom(enabled).Draw(t, "thread"))
	}
	return s
}

func identity(n int) []ts.Tid {
	p := make([]ts.Tid, n)
	for i := range p {
		p[i] = ts.Tid(i)
	}
	return p
}
