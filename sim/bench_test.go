package sim_test

import (
	"context"
	"testing"

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/sim"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// benchProgram: three threads, each storing to a shared variable and
// reading it back: every interleaving is distinct for DFS.
func benchProgram() *tstest.Program {
	code := func(k int) []tstest.Instr {
		return []tstest.Instr{tstest.Store(0, k), tstest.Load(0, 0), tstest.Store(0, k)}
	}
	return &tstest.Program{Vars: []tstest.Var{{Name: "x"}}, Code: [][]tstest.Instr{code(1), code(2), code(3)}}
}

// The adapter's cost over the program searched directly: ts.Explore and
// ODPOR, replaying from Reset or restoring snapshots. Reports transitions/s
// and the adapter's own work per search transition.
func BenchmarkAdapter(b *testing.B) {
	p := benchProgram()
	for _, c := range []struct {
		name string
		sys  func() ts.TransitionSystem[sim.State]
	}{
		{"replay", func() ts.TransitionSystem[sim.State] { s, _ := sim.New(&progSim{p: p}, sim.Options{}); return s }},
		{"snapshots", func() ts.TransitionSystem[sim.State] {
			s, _ := sim.New(&snapSim{progSim{p: p}}, sim.Options{})
			return s
		}},
	} {
		for _, st := range []struct {
			name string
			run  func(ts.TransitionSystem[sim.State]) (ts.Result, error)
		}{
			{"dfs", func(s ts.TransitionSystem[sim.State]) (ts.Result, error) {
				return ts.Explore(context.Background(), s, ts.Options{})
			}},
			{"odpor", func(s ts.TransitionSystem[sim.State]) (ts.Result, error) {
				return por.ODPOR(context.Background(), s, por.Options{})
			}},
		} {
			b.Run(c.name+"/"+st.name, func(b *testing.B) {
				b.ReportAllocs()
				var trans, steps int64
				for b.Loop() {
					res, err := st.run(c.sys())
					if err != nil {
						b.Fatal(err)
					}
					trans += res.Transitions
					steps += res.Stats["sim.steps"] + res.Stats["sim.replayed"]
				}
				b.ReportMetric(float64(trans)/b.Elapsed().Seconds(), "transitions/s")
				b.ReportMetric(float64(steps)/float64(trans), "sim-steps/transition")
			})
		}
	}
	// The program itself, for the ratio.
	b.Run("bare/dfs", func(b *testing.B) {
		b.ReportAllocs()
		var trans int64
		for b.Loop() {
			res, _ := ts.Explore(context.Background(), p, ts.Options{})
			trans += res.Transitions
		}
		b.ReportMetric(float64(trans)/b.Elapsed().Seconds(), "transitions/s")
	})
}
