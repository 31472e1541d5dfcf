package sim_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/sim"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
	"pgregory.net/rapid"
)

// progSim is a random program run as a mutable simulator: it holds the
// current state and replaces it in Step, as a real simulator changes itself.
type progSim struct {
	p   *tstest.Program
	cur tstest.State
}

func (s *progSim) Threads() int                       { return s.p.Threads() }
func (s *progSim) Reset()                             { s.cur = s.p.Init() }
func (s *progSim) Next(t ts.Tid) (ts.Step, ts.Status) { return s.p.Next(s.cur, t) }
func (s *progSim) Step(t ts.Tid, c int)               { s.cur = s.p.ApplyOutcome(s.cur, t, c) }
func (s *progSim) Outcomes(t ts.Tid) int              { return s.p.Outcomes(s.cur, t) }
func (s *progSim) Check() error                       { return s.p.Check(s.cur) }
func (s *progSim) Invariant() error                   { return s.p.Invariant(s.cur) }
func (s *progSim) InvariantReads() []ts.Obj           { return s.p.InvariantReads() }
func (s *progSim) Hash() uint64                       { return s.p.Hash(s.cur) }
func (s *progSim) Describe(t ts.Tid) string           { return s.p.Describe(s.cur, t) }
func (s *progSim) ObjName(o ts.Obj) string            { return s.p.ObjName(o) }
func (s *progSim) ValueDependentObjs() []ts.Obj       { return s.p.ValueDependentObjs() }
func (s *progSim) state() tstest.State                { return s.cur }
func (s *progSim) setState(st tstest.State)           { s.cur = st }
func (s *snapSim) Snapshot() any                      { return s.state() }
func (s *snapSim) Restore(v any)                      { s.setState(v.(tstest.State)) }

// snapSim can also save and restore its state.
type snapSim struct{ progSim }

// run is one search of a system with the state type S.
type run[S any] func(context.Context, ts.TransitionSystem[S], ts.Options) (ts.Result, error)

type strategy struct {
	name     string
	stateful bool
	prog     run[tstest.State]
	sim      run[sim.State]
}

func strategies() []strategy {
	mk := func(name string, stateful bool, f func(context.Context, any, ts.Options) (ts.Result, error)) strategy {
		return strategy{name: name, stateful: stateful,
			prog: func(ctx context.Context, s ts.TransitionSystem[tstest.State], o ts.Options) (ts.Result, error) {
				return f(ctx, s, o)
			},
			sim: func(ctx context.Context, s ts.TransitionSystem[sim.State], o ts.Options) (ts.Result, error) {
				return f(ctx, s, o)
			},
		}
	}
	return []strategy{
		mk("dfs", false, func(ctx context.Context, s any, o ts.Options) (ts.Result, error) { return explore(ctx, s, o, false) }),
		mk("dfs-stateful", true, func(ctx context.Context, s any, o ts.Options) (ts.Result, error) { return explore(ctx, s, o, true) }),
		mk("odpor", false, func(ctx context.Context, s any, o ts.Options) (ts.Result, error) {
			return dispatch(s, func(p ts.TransitionSystem[tstest.State]) (ts.Result, error) {
				return por.ODPOR(ctx, p, por.Options{Options: o})
			}, func(p ts.TransitionSystem[sim.State]) (ts.Result, error) {
				return por.ODPOR(ctx, p, por.Options{Options: o})
			})
		}),
		mk("dpor", false, func(ctx context.Context, s any, o ts.Options) (ts.Result, error) {
			return dispatch(s, func(p ts.TransitionSystem[tstest.State]) (ts.Result, error) {
				return por.DPOR(ctx, p, por.Options{Options: o})
			}, func(p ts.TransitionSystem[sim.State]) (ts.Result, error) {
				return por.DPOR(ctx, p, por.Options{Options: o})
			})
		}),
		mk("sdpor", true, func(ctx context.Context, s any, o ts.Options) (ts.Result, error) {
			return dispatch(s, func(p ts.TransitionSystem[tstest.State]) (ts.Result, error) {
				return por.SDPOR(ctx, p, por.Options{Options: o})
			}, func(p ts.TransitionSystem[sim.State]) (ts.Result, error) {
				return por.SDPOR(ctx, p, por.Options{Options: o})
			})
		}),
		mk("icb", false, func(ctx context.Context, s any, o ts.Options) (ts.Result, error) {
			co := cbound.Options{Options: o, Bound: cbound.AtMost(2)}
			return dispatch(s, func(p ts.TransitionSystem[tstest.State]) (ts.Result, error) {
				return cbound.ICB(ctx, p, co)
			}, func(p ts.TransitionSystem[sim.State]) (ts.Result, error) { return cbound.ICB(ctx, p, co) })
		}),
	}
}

func explore(ctx context.Context, s any, o ts.Options, stateful bool) (ts.Result, error) {
	f := ts.Explore[tstest.State]
	g := ts.Explore[sim.State]
	if stateful {
		f, g = ts.ExploreStateful[tstest.State], ts.ExploreStateful[sim.State]
	}
	return dispatch(s, func(p ts.TransitionSystem[tstest.State]) (ts.Result, error) { return f(ctx, p, o) },
		func(p ts.TransitionSystem[sim.State]) (ts.Result, error) { return g(ctx, p, o) })
}

func dispatch(s any, f func(ts.TransitionSystem[tstest.State]) (ts.Result, error), g func(ts.TransitionSystem[sim.State]) (ts.Result, error)) (ts.Result, error) {
	if p, ok := s.(ts.TransitionSystem[tstest.State]); ok {
		return f(p)
	}
	return g(s.(ts.TransitionSystem[sim.State]))
}

// adapters returns the program as a simulator in each of the adapter's
// configurations: replay from Reset, snapshots at every branching state,
// snapshots every third transition.
func adapters(t *rapid.T, p *tstest.Program) []struct {
	name string
	sys  sim.Hashed
} {
	var out []struct {
		name string
		sys  sim.Hashed
	}
	add := func(name string, s interface {
		sim.Simulator
		sim.Hasher
	}, o sim.Options) {
		h, err := sim.NewHashed(s, o)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, struct {
			name string
			sys  sim.Hashed
		}{name, h})
	}
	add("replay", &progSim{p: p}, sim.Options{})
	add("snapshots", &snapSim{progSim{p: p}}, sim.Options{})
	add("snapshots-every-3", &snapSim{progSim{p: p}}, sim.Options{CheckpointEvery: 3})
	return out
}

// outcomeOf is what a search found, in a form that compares across state
// types: its figures, the schedules of the terminal states and the
// violations.
func outcomeOf(res ts.Result, err error, terminals []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "err=%v complete=%v exec=%d trans=%d states=%d finds=%v\n", err, res.Complete, res.Executions, res.Transitions, res.States, res.Finds)
	if v := res.Violation; v != nil {
		fmt.Fprintf(&b, "violation %v %v %v\n", v.Kind, v.Err, v.Trace.Schedule())
	}
	slices.Sort(terminals)
	b.WriteString(strings.Join(terminals, "\n"))
	return b.String()
}

// The adapter is transparent: on random programs of the whole model (steps
// of several objects, outcomes, idle threads, invariants, compare-and-swaps
// that fail as reads), every strategy
// does exactly the same search of the program run as a mutable simulator as
// of the program itself: the same figures, terminal states, violations and
// schedules, with or without snapshots.
func TestAdapterIsTransparent(t *testing.T) { transparent(t, tstest.GenOptions{}) }

// The same with compare-and-swaps that fail as reads (ts.ValueDependent,
// which the adapter forwards).
func TestAdapterIsTransparentCAS(t *testing.T) { transparent(t, tstest.GenOptions{CASReads: true}) }

func transparent(t *testing.T, gen tstest.GenOptions) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(gen).Draw(t, "program")
		keep := rapid.Bool().Draw(t, "keepGoing")
		for _, s := range strategies() {
			var progTerms []string
			o := ts.Options{KeepGoing: keep, OnTerminal: func(_ any, sched ts.Schedule) { progTerms = append(progTerms, sched.String()) }}
			res, err := s.prog(context.Background(), p, o)
			want := outcomeOf(res, err, progTerms)
			for _, a := range adapters(t, p) {
				var simTerms []string
				o := ts.Options{KeepGoing: keep, OnTerminal: func(_ any, sched ts.Schedule) { simTerms = append(simTerms, sched.String()) }}
				// The program implements Hash, which some strategies use
				// when they find it (icb caches states): compare like with
				// like.
				var sys ts.TransitionSystem[sim.State] = a.sys
				if !s.stateful && s.name != "icb" && rapid.Bool().Draw(t, "unhashed") {
					sys = a.sys.System // the same search without the capability
				}
				res, err := s.sim(context.Background(), sys, o)
				if got := outcomeOf(res, err, simTerms); got != want {
					t.Fatalf("%s, %s:\nprogram: %s\nsimulator: %s", s.name, a.name, want, got)
				}
				if v := res.Violation; v != nil {
					if _, err := ts.Confirm[sim.State](sys, v, v.Trace.Schedule()); err != nil {
						t.Fatalf("%s, %s: the violation does not replay: %v", s.name, a.name, err)
					}
				}
			}
		}
	})
}
