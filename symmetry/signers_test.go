package symmetry_test

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/symmetry"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// signedProg is a gprog seen through a signer of its own: the signature of
// a thread is its group and the parts of its key that mask keeps (bit i:
// key[i+1], that is pc, the two registers, the failure, the locks held).
// It hides gprog's Canonical, so that Verify checks the signatures alone,
// and its Permuter (see permSigned), so that Verify must do without.
type signedProg struct {
	p    *gprog
	mask uint8
}

func (w signedProg) Init() gstate                                 { return w.p.Init() }
func (w signedProg) Threads() int                                 { return w.p.Threads() }
func (w signedProg) Next(s gstate, t ts.Tid) (ts.Step, ts.Status) { return w.p.Next(s, t) }
func (w signedProg) Apply(s gstate, t ts.Tid) gstate              { return w.p.Apply(s, t) }
func (w signedProg) Outcomes(s gstate, t ts.Tid) int              { return w.p.Outcomes(s, t) }
func (w signedProg) ApplyOutcome(s gstate, t ts.Tid, c int) gstate {
	return w.p.ApplyOutcome(s, t, c)
}
func (w signedProg) Check(s gstate) error     { return w.p.Check(s) }
func (w signedProg) Invariant(s gstate) error { return w.p.Invariant(s) }
func (w signedProg) InvariantReads() []ts.Obj { return w.p.InvariantReads() }
func (w signedProg) Hash(s gstate) uint64     { return w.p.Hash(s) }

func (w signedProg) Signature(s gstate, t ts.Tid) uint64 {
	k := w.p.key(s, t)
	h := fnv.New64a()
	h.Write(k[:1]) // the group, always
	for i := range 5 {
		if w.mask&(1<<i) != 0 {
			h.Write(k[i+1 : i+2])
		} else {
			h.Write([]byte{0})
		}
	}
	return h.Sum64()
}

// permSigned is signedProg with gprog's Permuter: it renames the threads'
// parts and lock owners, and leaves the variables alone, which is wrong
// where a gStoreTid has written a thread's id to one.
type permSigned struct{ signedProg }

func (w permSigned) Permute(s gstate, p []ts.Tid) gstate { return w.p.Permute(s, p) }

// tidProgs draws a program as gshape (or gwshape) does, and turns some of
// its stores into stores of the thread's id, which make identical code
// behave differently in different threads.
func tidProgs(t *rapid.T) *gprog {
	var p *gprog
	if rapid.Bool().Draw(t, "whole") {
		p = gwshape(t)
	} else {
		p = gshape(t)
	}
	for g := range p.code {
		for i, in := range p.code[g] {
			if in.kind == gStore && rapid.Bool().Draw(t, fmt.Sprint("tid", g, ".", i)) {
				p.code[g][i].kind = gStoreTid
			}
		}
	}
	return p
}

// signerMask draws what a signature keeps of a thread's key: everything
// (the right signer, when no thread stores its id) half of the time, any
// part of it otherwise.
func signerMask(t *rapid.T) uint8 {
	if rapid.Bool().Draw(t, "whole key") {
		return 31
	}
	return uint8(rapid.IntRange(0, 31).Draw(t, "mask"))
}

// verifyBig is large enough for Verify to visit every state of gshape's
// programs, and to compare every pair of futures.
var verifyBig = symmetry.VerifyOptions{MaxStates: 1 << 20, MaxPairs: 1 << 20}

// sympor runs DPOR with symmetry on sys and collects its outcomes up to
// gprog's canonical form.
func sympor(t *rapid.T, p *gprog, sys ts.TransitionSystem[gstate], base ts.Options) orbitOutcomes {
	return collect[gstate](t, p, base, withOpts(sys, symmetry.DPOR[gstate], symmetry.Options{}))
}

// The property that Verify's answer is worth something: on random programs
// with groups of identical threads, some of whose threads write their ids
// to shared variables, under random signers that keep some or all of a
// thread's local state (most of them wrong somewhere), whenever Verify
// accepts the signatures, sympor reaches what ts.Explore reaches:
//
//   - with Permuter, every terminal state and violation up to a renaming of
//     threads (gprog's canonical form, which renames the threads' parts and
//     not the variables);
//   - without it, Verify accepts no claim at all (it visits every state
//     here, so sympor prunes nothing);
//   - without it, under Observational, every violation (by kind; deadlocks
//     by what their state shows) and every terminal state up to what it
//     shows: the statuses and steps of its threads, as a multiset.
//
// Whatever else Verify returns is a *Mismatch or an *Unverified. Both
// accepted and pruning cases must occur, or the property says nothing.
func TestVerifiedSignersRandom(t *testing.T) {
	var accepted, pruned [3]int
	modes := [3]string{"with Permuter", "without Permuter", "observational"}
	rapid.Check(t, func(t *rapid.T) {
		p := tidProgs(t)
		w := signedProg{p: p, mask: signerMask(t)}
		base := ts.Options{IgnoreDeadlocks: rapid.Bool().Draw(t, "ignoreDeadlocks")}
		ref := collect[gstate](t, p, base, func(o ts.Options) (ts.Result, error) { return ts.Explore[gstate](context.Background(), p, o) })
		for mode, sys := range []ts.TransitionSystem[gstate]{permSigned{w}, w, w} {
			opt := verifyBig
			opt.Observational = mode == 2
			err := symmetry.Verify(sys, opt)
			if err != nil {
				if !errors.Is(err, symmetry.ErrAsymmetric) && !errors.Is(err, symmetry.ErrUnverified) {
					t.Fatalf("%s: Verify: %v", modes[mode], err)
				}
				continue
			}
			accepted[mode]++
			sp := sympor(t, p, sys, base)
			if sp.res.Stats["pruned"] > 0 {
				pruned[mode]++
			}
			switch mode {
			case 0:
				sameOrbits(t, modes[mode], ref, sp)
			case 1:
				if sp.res.Stats["pruned"] != 0 {
					t.Fatalf("%s: Verify accepted the signatures, and sympor pruned %d branches", modes[mode], sp.res.Stats["pruned"])
				}
				sameOrbits(t, modes[mode], ref, sp)
			case 2:
				sameShown(t, p, ref, sp)
			}
		}
	})
	t.Logf("accepted (with pruning): %s %d (%d), %s %d (%d), %s %d (%d)",
		modes[0], accepted[0], pruned[0], modes[1], accepted[1], pruned[1], modes[2], accepted[2], pruned[2])
	if pruned[0] == 0 || accepted[1] == 0 || pruned[2] == 0 {
		t.Errorf("too few accepted signers that prune for the property to say anything")
	}
}

// shown is what a terminal state of p shows: each thread's group, status
// and next step, sorted.
func shown(p *gprog, s gstate) string {
	var parts []string
	for t := range ts.Tid(p.Threads()) {
		step, st := p.Next(s, t)
		parts = append(parts, fmt.Sprintf("g%d %v %v", p.group[t], st, step))
	}
	slices.Sort(parts)
	return strings.Join(parts, "; ")
}

// sameShown compares two searches up to what their terminal states show:
// every violation kind of ref (a deadlock by what its state shows) and
// every terminal state's show must be found by red, and conversely.
func sameShown(t *rapid.T, p *gprog, ref, red orbitOutcomes) {
	t.Helper()
	keys := func(o orbitOutcomes) map[string]ts.Schedule {
		m := map[string]ts.Schedule{}
		for _, sched := range o.terminals {
			run, err := ts.Replay[gstate](p, sched)
			if err != nil {
				t.Fatalf("replay %v: %v", sched, err)
			}
			m["terminal "+shown(p, run.Final)] = sched
		}
		for k, sched := range o.violations {
			kind, _, _ := strings.Cut(k, ":")
			if strings.HasPrefix(k, "deadlock") {
				run, _ := ts.Replay[gstate](p, sched)
				kind = "deadlock " + shown(p, run.Final)
			}
			m[kind] = sched
		}
		return m
	}
	rk, dk := keys(ref), keys(red)
	for k, s := range rk {
		if _, ok := dk[k]; !ok {
			t.Errorf("observational: sympor misses %q, reached by %v", k, s)
		}
	}
	for k, s := range dk {
		if _, ok := rk[k]; !ok {
			t.Errorf("observational: sympor reaches %q (by %v), ts.Explore does not", k, s)
		}
	}
}

// describedSig signs a tstest program's thread by its class and the
// description of its next instruction: threads of one class at the same
// instruction claim to be interchangeable, whatever their registers and
// whatever they do next. The classes are drawn: threads of the same code,
// or all threads one class.
type describedSig struct {
	*tstest.Program
	class []int
}

func (p describedSig) Signature(s tstest.State, t ts.Tid) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d %s", p.class[t], p.Describe(s, t))
	return h.Sum64()
}

// The same property on random programs of the whole model (ts/tstest),
// which have no Permuter: some of their threads are given the same code,
// and signatures that see the next instruction only. Whenever Verify
// accepts them, it has seen no claim at all (it visits every state), so
// sympor prunes nothing and reaches exactly what ts.Explore reaches; under
// Observational, sympor reaches every violation (by kind; deadlocks by
// what their state shows) and every terminal state up to what it shows.
func TestVerifiedSignersTstest(t *testing.T) {
	var accepted, pruned [2]int
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{MaxThreads: 3, MaxSteps: 3}).Draw(t, "program")
		class := make([]int, p.Threads())
		same := rapid.IntRange(0, 2).Draw(t, "classes")
		for th := range class {
			switch {
			case same == 2:
				class[th] = 0 // one class: the signatures ignore the code
			case same == 1 && th > 0:
				p.Code[th] = slices.Clone(p.Code[0])
			default:
				class[th] = th
			}
		}
		sys := describedSig{p, class}
		ignore := rapid.Bool().Draw(t, "ignoreDeadlocks")
		explorer := func(ctx context.Context, sys ts.TransitionSystem[tstest.State], o ts.Options) (ts.Result, error) {
			return symmetry.DPOR(ctx, sys, symmetry.Options{Options: o})
		}
		for mode, observational := range []bool{false, true} {
			opt := verifyBig
			opt.Observational = observational
			err := symmetry.Verify[tstest.State](sys, opt)
			if err != nil {
				if !errors.Is(err, symmetry.ErrAsymmetric) && !errors.Is(err, symmetry.ErrUnverified) {
					t.Fatalf("observational %v: Verify: %v", observational, err)
				}
				continue
			}
			accepted[mode]++
			if !observational {
				rep := tstest.CheckReduction[tstest.State](t, sys, explorer, tstest.ReductionOptions{Bound: ts.NoBound, IgnoreDeadlocks: ignore})
				if n := rep.Reduction.Result.Stats["pruned"]; n != 0 {
					t.Fatalf("Verify accepted the signatures, and sympor pruned %d branches", n)
				}
				continue
			}
			ref := shownOutcomes(t, sys, ignore, func(o ts.Options) (ts.Result, error) {
				return ts.Explore[tstest.State](context.Background(), sys, o)
			})
			var res ts.Result
			red := shownOutcomes(t, sys, ignore, func(o ts.Options) (ts.Result, error) {
				var err error
				res, err = explorer(context.Background(), sys, o)
				return res, err
			})
			if res.Stats["pruned"] > 0 {
				pruned[mode]++
			}
			for k := range ref {
				if !red[k] {
					t.Errorf("observational: sympor misses %q", k)
				}
			}
			for k := range red {
				if !ref[k] {
					t.Errorf("observational: sympor reaches %q, ts.Explore does not", k)
				}
			}
		}
	})
	t.Logf("accepted: %d; observational: %d, %d of them pruning", accepted[0], accepted[1], pruned[1])
	if accepted[0] == 0 || pruned[1] == 0 {
		t.Errorf("too few accepted signers for the property to say anything")
	}
}

// shownOutcomes runs a search of a tstest program with KeepGoing and
// returns what it reached up to what the states show: each terminal state
// as its threads' statuses and kinds of accesses, as a multiset (the
// objects may be renamed), each violation by kind (a deadlock with what its
// state shows).
func shownOutcomes(t *rapid.T, sys describedSig, ignore bool, run func(ts.Options) (ts.Result, error)) map[string]bool {
	show := func(s tstest.State) string {
		var parts []string
		for th := range ts.Tid(sys.Threads()) {
			step, st := sys.Next(s, th)
			part := st.String()
			for i := range step.NumAccesses() {
				a := step.At(i)
				part += fmt.Sprintf(" %v/%v", a.Op, a.IsSync())
			}
			parts = append(parts, part)
		}
		slices.Sort(parts)
		return strings.Join(parts, "; ")
	}
	out := map[string]bool{}
	_, err := run(ts.Options{KeepGoing: true, IgnoreDeadlocks: ignore,
		OnTerminal: func(st any, _ ts.Schedule) { out["terminal "+show(st.(tstest.State))] = true },
		OnViolation: func(v *ts.Violation) {
			k := v.Kind.String()
			if v.Kind == ts.Deadlock {
				r, err := ts.Replay[tstest.State](sys, v.Trace.Schedule())
				if err != nil {
					t.Fatalf("replay: %v", err)
				}
				k += " " + show(r.Final)
			}
			out[k] = true
		}})
	if err != nil {
		t.Fatalf("search: %v", err)
	}
	return out
}
