package symmetry_test

import (
	"context"
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/symmetry"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// symSystem is what the up-to-symmetry comparison needs of a system.
type symSystem[S any] interface {
	ts.TransitionSystem[S]
	ts.Hasher[S]
	symmetry.Canonicalizer[S]
}

// tb is what the helpers need of a test: *testing.T and *rapid.T.
type tb interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

type strategy[S any] func(context.Context, ts.TransitionSystem[S], symmetry.Options) (ts.Result, error)

// orbitOutcomes is what a search reached, up to symmetry: the canonical
// hashes of its terminal states, and its violations by kind and canonical
// key (the message of a failed check, which gprog makes symmetric; the
// canonical hash of a deadlocked state).
type orbitOutcomes struct {
	terminals  map[uint64]ts.Schedule
	violations map[string]ts.Schedule
	res        ts.Result
}

func canonHash[S any](sys symSystem[S], s S) uint64 {
	rep, _ := sys.Canonical(s)
	return sys.Hash(rep)
}

// collect runs a search with KeepGoing (and base's IgnoreDeadlocks) and
// records its outcomes up to symmetry, checking that every schedule it
// reports is a schedule of the original system that reaches what it
// reported.
func collect[S any](t tb, sys symSystem[S], base ts.Options, run func(ts.Options) (ts.Result, error)) orbitOutcomes {
	t.Helper()
	out := orbitOutcomes{terminals: map[uint64]ts.Schedule{}, violations: map[string]ts.Schedule{}}
	var problems []string
	opt := ts.Options{KeepGoing: true, IgnoreDeadlocks: base.IgnoreDeadlocks,
		OnTerminal: func(st any, sched ts.Schedule) {
			s := st.(S)
			run, err := ts.Replay[S](sys, sched)
			if err != nil || sys.Hash(run.Final) != sys.Hash(s) {
				problems = append(problems, fmt.Sprintf("terminal schedule %v does not replay to its state (%v)", sched, err))
			}
			out.terminals[canonHash(sys, s)] = sched.Clone()
		},
		OnViolation: func(v *ts.Violation) {
			sched := v.Trace.Schedule()
			if _, err := ts.ConfirmWith[S](sys, v, sched, ts.Options{IgnoreDeadlocks: base.IgnoreDeadlocks}); err != nil {
				problems = append(problems, fmt.Sprintf("violation %v does not replay: %v", v, err))
				return
			}
			out.violations[violationKey(sys, v)] = sched
		},
	}
	res, err := run(opt)
	if err != nil {
		t.Fatalf("search failed: %v", err)
	}
	if !res.Complete {
		t.Fatalf("search incomplete: %v", res)
	}
	for _, p := range problems {
		t.Errorf("%s", p)
	}
	out.res = res
	return out
}

func violationKey[S any](sys symSystem[S], v *ts.Violation) string {
	if v.Kind == ts.Deadlock {
		run, _ := ts.Replay[S](sys, v.Trace.Schedule())
		return fmt.Sprintf("deadlock %#x", canonHash(sys, run.Final))
	}
	return fmt.Sprintf("%v: %v", v.Kind, v.Err)
}

// sameOrbits reports every orbit one search reached and the other did not.
func sameOrbits(t tb, name string, ref, red orbitOutcomes) {
	t.Helper()
	for h, s := range ref.terminals {
		if _, ok := red.terminals[h]; !ok {
			t.Errorf("%s misses the terminal orbit %#x, reached by %v", name, h, s)
		}
	}
	for h, s := range red.terminals {
		if _, ok := ref.terminals[h]; !ok {
			t.Errorf("%s reaches terminal orbit %#x (by %v), ts.Explore does not", name, h, s)
		}
	}
	for k, s := range ref.violations {
		if _, ok := red.violations[k]; !ok {
			t.Errorf("%s misses the violation %s, shown by %v", name, k, s)
		}
	}
	for k, s := range red.violations {
		if _, ok := ref.violations[k]; !ok {
			t.Errorf("%s reports %s (by %v), ts.Explore does not", name, k, s)
		}
	}
}

func withOpts[S any](sys ts.TransitionSystem[S], f strategy[S], opt symmetry.Options) func(ts.Options) (ts.Result, error) {
	return func(o ts.Options) (ts.Result, error) {
		opt.Options = o
		return f(context.Background(), sys, opt)
	}
}

// On random programs with groups of identical threads, sym and sympor reach
// every terminal state and violation of ts.Explore up to a permutation of
// the threads within groups, and nothing else; every schedule they report
// replays on the original system.
func TestSymmetricRandom(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := gshape(t)
		ref := collect[gstate](t, p, ts.Options{}, func(o ts.Options) (ts.Result, error) { return ts.Explore[gstate](context.Background(), p, o) })
		sym := collect[gstate](t, p, ts.Options{}, withOpts[gstate](p, symmetry.Explore[gstate], symmetry.Options{}))
		sameOrbits(t, "sym", ref, sym)
		plain := collect[gstate](t, p, ts.Options{}, withOpts[gstate](p, symmetry.DPOR[gstate], symmetry.Options{NoSymmetry: true}))
		sameOrbits(t, "dpor", ref, plain)
		sp := collect[gstate](t, p, ts.Options{}, withOpts[gstate](p, symmetry.DPOR[gstate], symmetry.Options{}))
		sameOrbits(t, "sympor", ref, sp)
		if sp.res.Executions > plain.res.Executions {
			t.Errorf("sympor explores %d executions, dpor %d", sp.res.Executions, plain.res.Executions)
		}
	})
}

// Without symmetry, DPOR is a sound reduction: on random programs it
// reaches exactly the terminal states and violations of ts.Explore.
func TestPlainDPORRandom(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		shape := tstest.GenOptions{}.Core()
		if rapid.Bool().Draw(t, "four") {
			shape = tstest.GenOptions{MaxThreads: 4, MaxSteps: 2}.Core()
		}
		p := tstest.Programs(shape).Draw(t, "program")
		rep := tstest.CheckReduction[tstest.State](t, p, func(ctx context.Context, sys ts.TransitionSystem[tstest.State], o ts.Options) (ts.Result, error) {
			return symmetry.DPOR(ctx, sys, symmetry.Options{Options: o, NoSymmetry: true})
		}, tstest.ReductionOptions{Bound: ts.NoBound})
		if rep.Reduction.Result.Executions > rep.Reference.Result.Executions {
			t.Errorf("dpor explores %d executions, ts.Explore %d", rep.Reduction.Result.Executions, rep.Reference.Result.Executions)
		}
	})
}

// gshape draws a random symmetric program small enough for ts.Explore: up
// to 3 threads of up to 3 visible steps, 4 of up to 2, or 5 of 1.
func gshape(t *rapid.T) *gprog {
	switch rapid.IntRange(0, 2).Draw(t, "shape") {
	case 0:
		return gprogs(3, 3).Draw(t, "program")
	case 1:
		return gprogs(4, 2).Draw(t, "program")
	}
	return gprogs(5, 1).Draw(t, "program")
}
