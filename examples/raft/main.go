// Command raft checks the etcd raft library (go.etcd.io/raft/v3) with weft:
// three RawNodes over MemoryStorage, wrapped as a message-passing network,
// searched for election safety, state machine safety, leader completeness
// and log matching violations. Without arguments it prints the table of
// the README: executions, transitions and time per strategy as the
// elections, proposals and losses grow.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/sim"
	"github.com/weftlab/weft/ts"
)

// run is one strategy on the cluster's system; the stateful ones take
// the fingerprinted system.
type run struct {
	name string
	f    func(context.Context, *sim.System, ts.Options) (ts.Result, error)
	h    func(context.Context, sim.Hashed, ts.Options) (ts.Result, error)
}

var runs = []run{
	{name: "dfs-stateful", h: func(ctx context.Context, s sim.Hashed, o ts.Options) (ts.Result, error) {
		return ts.ExploreStateful(ctx, s, o)
	}},
	{name: "sdpor", h: func(ctx context.Context, s sim.Hashed, o ts.Options) (ts.Result, error) {
		return por.SDPOR(ctx, s, por.Options{Options: o})
	}},
	{name: "dfs", f: func(ctx context.Context, s *sim.System, o ts.Options) (ts.Result, error) {
		return ts.Explore(ctx, s, o)
	}},
	{name: "dpor", f: func(ctx context.Context, s *sim.System, o ts.Options) (ts.Result, error) {
		return por.DPOR(ctx, s, por.Options{Options: o})
	}},
	{name: "odpor", f: func(ctx context.Context, s *sim.System, o ts.Options) (ts.Result, error) {
		return por.ODPOR(ctx, s, por.Options{Options: o})
	}},
	{name: "icb", f: func(ctx context.Context, s *sim.System, o ts.Options) (ts.Result, error) {
		return cbound.ICB(ctx, s, cbound.Options{Options: o, Bound: cbound.Unbounded})
	}},
}

// configs are the rows of the table, smallest first.
var configs = []struct {
	name string
	cfg  Config
}{
	{"1 election", Config{Campaigners: []int{0}, Proposers: []int{}}},
	{"1 election, 1 proposal", Config{Campaigners: []int{0}, Proposers: []int{0}}},
	{"2 elections", Config{Campaigners: []int{0, 1}, Proposers: []int{}}},
	{"2 elections, 1 proposal", Config{Campaigners: []int{0, 1}, Proposers: []int{0}}},
	{"1 election, 1 proposal, 1 loss per link", Config{Campaigners: []int{0}, Proposers: []int{0}, Loss: 1}},
	{"2 elections, 2 proposals", Config{Campaigners: []int{0, 1}, Proposers: []int{0, 1}}},
	{"3 elections, 1 proposal", Config{Campaigners: []int{0, 1, 2}, Proposers: []int{0}}},
	{"2 elections, 1 proposal, 1 loss per link", Config{Campaigners: []int{0, 1}, Proposers: []int{0}, Loss: 1}},
}

func main() {
	timeout := flag.Duration("timeout", 60*time.Second, "time limit per search")
	only := flag.String("strategy", "dfs-stateful,sdpor,odpor,dpor", "strategies to run, comma-separated (also dfs, icb)")
	config := flag.String("config", "", "run only the configurations named exactly so, separated by semicolons (default: every one)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the searches to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		defer pprof.StopCPUProfile()
	}
	fmt.Println("| configuration | strategy | executions | states | transitions | sim steps (replayed) | resets | time | result |")
	fmt.Println("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
	for _, c := range configs {
		if *config != "" && !strings.Contains(";"+*config+";", ";"+c.name+";") {
			continue
		}
		for _, r := range runs {
			if !strings.Contains(","+*only+",", ","+r.name+",") {
				continue
			}
			w, sys, err := Cluster(c.cfg)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			ctx, cancel := context.WithTimeout(context.Background(), *timeout)
			start := time.Now()
			var res ts.Result
			if r.h != nil {
				var h sim.Hashed
				if h, err = w.HashedSystem(sim.Options{}); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(2)
				}
				sys = h.System
				res, err = r.h(ctx, h, ts.Options{})
			} else {
				res, err = r.f(ctx, sys, ts.Options{})
			}
			d := time.Since(start)
			cancel()
			verdict := "no violation"
			switch {
			case err != nil && ctx.Err() != nil:
				verdict = fmt.Sprintf("stopped at %v", *timeout)
			case err != nil:
				verdict = err.Error()
			case res.Violation != nil:
				verdict = res.Violation.Err.Error()
			}
			st := sys.Stats()
			states := "-"
			if r.h != nil {
				states = fmt.Sprint(res.States)
			}
			fmt.Printf("| %s | %s | %d | %s | %d | %d (%d) | %d | %.2fs | %s |\n", c.name, r.name, res.Executions, states, res.Transitions,
				st.Steps+st.Replayed, st.Replayed, st.Resets, d.Seconds(), verdict)
		}
	}
}
