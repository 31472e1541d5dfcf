package cbound

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

type benchStrategy[S any] func(context.Context, ts.TransitionSystem[S], Options) (ts.Result, error)

func strategies[S any]() []struct {
	name string
	f    benchStrategy[S]
} {
	return []struct {
		name string
		f    benchStrategy[S]
	}{{"icb", ICB[S]}, {"cb-dfs", DFS[S]}, {"cb-por1", HBSearch[S]}, {"cb-por2", POR[S]}}
}

// benchModel runs every strategy on sys at bound c and reports transitions/s,
// executions and, for cb-por2, the cost of Mark.
func benchModel[S any](b *testing.B, name string, sys ts.TransitionSystem[S], c int) {
	for _, st := range strategies[S]() {
		b.Run(fmt.Sprintf("%s/c=%d/%s", name, c, st.name), func(b *testing.B) {
			b.ReportAllocs()
			opt := Options{Bound: AtMost(c), timeMark: true, Options: ts.Options{KeepGoing: true}}
			var res ts.Result
			var err error
			for b.Loop() {
				res, err = st.f(context.Background(), sys, opt)
				if err != nil {
					b.Fatal(err)
				}
			}
			secs := b.Elapsed().Seconds()
			b.ReportMetric(float64(res.Transitions)*float64(b.N)/secs, "transitions/s")
			b.ReportMetric(float64(res.Executions), "executions")
			if res.States > 0 {
				b.ReportMetric(float64(res.States), "states")
			}
			if marks := res.Stats["mark.calls"]; marks > 0 {
				b.ReportMetric(float64(res.Stats["mark.nanos"])/float64(marks), "ns/mark")
				b.ReportMetric(float64(res.Stats["cb.subproblems"])/float64(marks), "cb-subproblems/mark")
				b.ReportMetric(float64(res.Stats["enabled.replays"])/float64(marks), "replays/mark")
			}
		})
	}
}

// benchProgram is a fixed random-looking program: three threads of four
// visible steps over two variables and a lock.
func benchProgram() *tstest.Program {
	return &tstest.Program{
		Vars:  []tstest.Var{{Name: "x"}, {Name: "y"}},
		Locks: []string{"l"},
		Code: [][]tstest.Instr{
			{tstest.Store(0, 1), tstest.Load(0, 1), tstest.Acquire(0), tstest.StoreReg(1, 0, 1), tstest.Release(0)},
			{tstest.Load(0, 0), tstest.Store(1, 2), tstest.Acquire(0), tstest.Load(1, 1), tstest.Release(0)},
			{tstest.Store(1, 3), tstest.Load(0, 0), tstest.Store(0, 2), tstest.Load(1, 1)},
		},
	}
}

func BenchmarkStrategies(b *testing.B) {
	for c := 1; c <= 2; c++ {
		benchModel[models.BluetoothState](b, "bluetooth", models.NewBluetooth(1), c)
		benchModel[models.PhilosophersState](b, "philosophers", models.NewPhilosophers(3), c)
		benchModel[models.InspectExample1State](b, "inspect-example1", models.NewInspectExample1(4), c)
		benchModel[models.Locks3State](b, "locks3", models.NewLocks3(0), c)
		benchModel[models.WSQState](b, "wsq", models.NewWSQ(1), c)
		benchModel[tstest.State](b, "program", benchProgram(), c)
	}
	benchModel[models.WSQState](b, "wsq", models.NewWSQ(1), 4)
}

// BenchmarkWholeModels runs the strategies on the bundled models of the
// whole model (steps of several objects, outcomes, idle threads, an
// invariant).
func BenchmarkWholeModels(b *testing.B) {
	benchModel[models.TwoPhaseState](b, "twophase-2", models.NewTwoPhase(2), 2)
	benchModel[models.ABPState](b, "abp-1", models.NewABP(1), 2)
}

// BenchmarkMark reports the amortized cost of CB computation per Mark call
// of cb-por2 (Algorithm 2) as the bound grows: the paper's complexity
// argument has it constant per call, the DP's subproblems being shared
// across calls through the memo.
func BenchmarkMark(b *testing.B) {
	for c := 0; c <= 4; c++ {
		b.Run(fmt.Sprintf("wsq/c=%d", c), func(b *testing.B) {
			b.ReportAllocs()
			var res ts.Result
			for b.Loop() {
				var err error
				res, err = POR(context.Background(), models.NewWSQ(1), Options{Bound: AtMost(c), timeMark: true})
				if err != nil {
					b.Fatal(err)
				}
			}
			marks := float64(res.Stats["mark.calls"])
			b.ReportMetric(marks, "marks")
			b.ReportMetric(float64(res.Stats["mark.nanos"])/marks, "ns/mark")
			b.ReportMetric(float64(res.Stats["cb.subproblems"])/marks, "cb-subproblems/mark")
		})
	}
}

// chain returns n threads of k steps each; step i of every thread writes
// the shared variable when i is even and its own variable when i is odd, so
// steps are by turns conflicting and independent.
func chain(n, k int) *tstest.Program {
	p := &tstest.Program{}
	p.Vars = append(p.Vars, tstest.Var{Name: "s"})
	for t := range n {
		p.Vars = append(p.Vars, tstest.Var{Name: fmt.Sprintf("p%d", t)})
		var code []tstest.Instr
		for i := range k {
			if i%2 == 0 {
				code = append(code, tstest.Store(0, 1))
			} else {
				code = append(code, tstest.Store(1+t, 1))
			}
		}
		p.Code = append(p.Code, code)
	}
	return p
}

// BenchmarkPolynomial shows the executions with at most c preemptions
// growing polynomially in the steps per thread k (ICB paper, Theorem 1: at
// most C(nk, c)·(nb+c)! of them), and the fitted exponent of executions
// against k, by least squares on log-log, for cb-dfs (every execution) and
// cb-por2 (one per terminal HB class).
func BenchmarkPolynomial(b *testing.B) {
	for _, n := range []int{2, 3} {
		for c := 1; c <= 2; c++ {
			for _, st := range []struct {
				name string
				f    benchStrategy[tstest.State]
			}{{"cb-dfs", DFS[tstest.State]}, {"cb-por2", POR[tstest.State]}} {
				b.Run(fmt.Sprintf("n=%d/c=%d/%s", n, c, st.name), func(b *testing.B) {
					var xs, ys []float64
					var line string
					for b.Loop() {
						xs, ys, line = xs[:0], ys[:0], ""
						for k := 2; k <= 12; k++ {
							res, err := st.f(context.Background(), chain(n, k), Options{Bound: AtMost(c)})
							if err != nil {
								b.Fatal(err)
							}
							xs = append(xs, math.Log(float64(k)))
							ys = append(ys, math.Log(float64(res.Executions)))
							line += fmt.Sprintf(" %d", res.Executions)
						}
					}
					slope := fitSlope(xs, ys)
					b.Logf("%s n=%d c=%d executions for k=2..12:%s; fitted exponent %.2f", st.name, n, c, line, slope)
					b.ReportMetric(slope, "exponent")
				})
			}
		}
	}
}

// fitSlope returns the least-squares slope of ys against xs.
func fitSlope(xs, ys []float64) float64 {
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx += xs[i]
		sy += ys[i]
		sxx += xs[i] * xs[i]
		sxy += xs[i] * ys[i]
	}
	m := float64(len(xs))
	return (m*sxy - sx*sy) / (m*sxx - sx*sx)
}

// cb-por1 and cb-por2 store every new happens-before state (a table entry,
// amortized, and for cb-por1 the state's frame) and allocate nothing else
// per transition: their allocations stay below k per stored state (k = 1.7
// for cb-por1, 0.25 for cb-por2, plus a fixed 440: the search's setup, its
// scratch HB states' stacks of event hashes included), and the test makes sure
// that one allocation per transition would break that bound. (cb-por1 takes
// about one transition per stored state and cb-por2 a quarter, the enabled
// sets of prefixes read off the stack or learned rather than replayed.)
func TestHBAllocsPerState(t *testing.T) {
	ctx := context.Background()
	check := func(name string, k float64, run func() ts.Result) {
		t.Helper()
		var res ts.Result
		a := testing.AllocsPerRun(2, func() { res = run() })
		t.Logf("%s: %.0f allocations, %d states, %d transitions", name, a, res.States, res.Transitions)
		bound := k*float64(res.States) + 440
		if a > bound || a+float64(res.Transitions) <= bound {
			t.Errorf("%s: %.0f allocations for %d states and %d transitions (bound %.0f)", name, a, res.States, res.Transitions, bound)
		}
	}
	k := []float64{1.7, 0.25}
	for i, st := range strategies[models.PhilosophersState]()[2:] {
		sys := models.NewPhilosophers(5)
		check("philosophers-5/"+st.name, k[i], func() ts.Result {
			res, _ := st.f(ctx, sys, Options{Bound: 2, Options: ts.Options{KeepGoing: true}})
			return res
		})
	}
	for i, st := range strategies[models.WSQState]()[2:] {
		sys := models.NewWSQ(1)
		check("wsq/"+st.name, k[i], func() ts.Result {
			res, _ := st.f(ctx, sys, Options{Bound: 2, Options: ts.Options{KeepGoing: true}})
			return res
		})
	}
}
