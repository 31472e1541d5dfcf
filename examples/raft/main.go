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
	"strings"
	"time"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/sim"
	"github.com/weftlab/weft/ts"
)

// run is one strategy on the cluster's system.
type run struct {
	name string
	f    func(context.Context, *sim.System, ts.Options) (ts.Result, error)
}

var runs = []run{
	{"dfs", func(ctx context.Context, s *sim.System, o ts.Options) (ts.Result, error) {
		return ts.Explore(ctx, s, o)
	}},
	{"dpor", func(ctx context.Context, s *sim.System, o ts.Options) (ts.Result, error) {
		return por.DPOR(ctx, s, por.Options{Options: o})
	}},
	{"odpor", func(ctx context.Context, s *sim.System, o ts.Options) (ts.Result, error) {
		return por.ODPOR(ctx, s, por.Options{Options: o})
	}},
	{"icb", func(ctx context.Context, s *sim.System, o ts.Options) (ts.Result, error) {
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
}

func main() {
	timeout := flag.Duration("timeout", 60*time.Second, "time limit per search")
	only := flag.String("strategy", "odpor,dpor,icb,dfs", "strategies to run, comma-separated")
	flag.Parse()
	fmt.Println("| configuration | strategy | executions | transitions | sim steps (replayed) | resets | time | result |")
	fmt.Println("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |")
	for _, c := range configs {
		for _, r := range runs {
			if !strings.Contains(","+*only+",", ","+r.name+",") {
				continue
			}
			_, sys, err := Cluster(c.cfg)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			ctx, cancel := context.WithTimeout(context.Background(), *timeout)
			start := time.Now()
			res, err := r.f(ctx, sys, ts.Options{})
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
			fmt.Printf("| %s | %s | %d | %d | %d (%d) | %d | %.2fs | %s |\n", c.name, r.name, res.Executions, res.Transitions,
				st.Steps+st.Replayed, st.Replayed, st.Resets, d.Seconds(), verdict)
		}
	}
}
