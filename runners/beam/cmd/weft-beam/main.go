// Command weft-beam explores a model with a search of package por whose
// units run on Apache Beam: one pipeline per batch of units, on the runner
// Beam's --runner flag names (prism, in this process, by default; flink,
// spark, dataflow on a cluster). It prints the search's result as weft
// does, and where the units went.
//
//	weft-beam -model lastzero-12 -strategy odpor -split-depth 10
//	weft-beam -model indexer-16 -runner flink -endpoint localhost:8099 -output /shared/weft
//
// The binary is also the workers' (a Go pipeline's workers run the
// driver's binary): it registers weft's bundled models before beam.Init,
// which a worker never returns from.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/weftlab/weft/cli"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/runners/beam/beamrun"
	"github.com/weftlab/weft/ts"
)

// config is the command's own flags (Beam's are on the same command line).
type config struct {
	model, strategy, output, runner string
	splitDepth, shards              int
	splitAfter, unitTransitions     int64
	keepGoing, terminals, compare   bool
	keep, verbose                   bool
	timeout                         time.Duration
}

// inProcess are the runners that run the pipeline in this process, whose
// output can be a temporary directory.
var inProcess = []string{"", "prism", "PrismRunner", "direct", "DirectRunner"}

// known are the runner names beamx registers: beam.Run ends the process on
// any other.
var known = append(slices.Clone(inProcess), "dataflow", "DataflowRunner", "flink", "FlinkRunner",
	"spark", "SparkRunner", "universal", "dot")

func main() {
	beamrun.RegisterCatalog()
	var c config
	flag.StringVar(&c.model, "model", "", "the model, as weft -list names it: lastzero-12, indexer-16, ...")
	flag.StringVar(&c.strategy, "strategy", "odpor", "sleep, dpor or odpor")
	flag.IntVar(&c.splitDepth, "split-depth", 0, "the prefix length at which the search splits into units (0: por's default, 12)")
	flag.Int64Var(&c.splitAfter, "split-after", -1, "transitions explored before the search splits (-1: from the start; 0: por's default, 50,000)")
	flag.Int64Var(&c.unitTransitions, "unit-transitions", 0, "hand back (odpor) or split further (dpor, sleep) a unit whose exploration passes this many transitions (0: never)")
	flag.IntVar(&c.shards, "shards", 1, "parts a round's units are dealt into, each its own Create and reshuffle (prism runs one bundle per part, concurrently)")
	flag.StringVar(&c.output, "output", "", "directory for each round's results, which every worker can write and this program read (default: a temporary directory, for an in-process runner)")
	flag.BoolVar(&c.keepGoing, "keep-going", false, "explore past violations and count them")
	flag.BoolVar(&c.terminals, "terminals", true, "count terminal states (units then ship their schedules back)")
	flag.BoolVar(&c.compare, "compare", false, "also run the search on this machine alone and check that the results are equal")
	flag.BoolVar(&c.keep, "keep", false, "keep each round's result file")
	flag.BoolVar(&c.verbose, "v", false, "keep Beam's log (Info level)")
	flag.DurationVar(&c.timeout, "timeout", 0, "stop the search after this long (0: none)")
	flag.Parse()
	beam.Init()
	c.runner = *runners.Runner
	os.Exit(run(context.Background(), c, os.Stdout, os.Stderr))
}

func run(ctx context.Context, c config, stdout, stderr io.Writer) int {
	fail := func(format string, args ...any) int {
		fmt.Fprintf(stderr, "weft-beam: "+format+"\n", args...)
		return 2
	}
	if !c.verbose {
		slog.SetDefault(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	}
	if c.model == "" {
		return fail("-model is required (weft -list names the models)")
	}
	if !slices.Contains(known, c.runner) {
		return fail("unknown --runner %q: one of %s", c.runner, strings.Join(known[1:], ", "))
	}
	target, err := cli.Lookup(c.model)
	if err != nil {
		return fail("%v", err)
	}
	if c.output == "" {
		if !slices.Contains(inProcess, c.runner) {
			return fail("-output is required with --runner %s: a directory every worker can write and this program read (gs://bucket/dir on Dataflow)", c.runner)
		}
		dir, err := os.MkdirTemp("", "weft-beam-")
		if err != nil {
			return fail("%v", err)
		}
		defer os.RemoveAll(dir)
		c.output = dir
	}
	r, err := beamrun.New(beamrun.Options{System: target.Name(), Output: c.output, Execute: beamx.RunWithMetrics, Shards: c.shards, Keep: c.keep})
	if err != nil {
		return fail("%v", err)
	}
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	var opt por.Options
	opt.KeepGoing = c.keepGoing
	opt.SplitDepth, opt.SplitAfter, opt.UnitTransitions = c.splitDepth, c.splitAfter, c.unitTransitions
	var terminals int64
	if c.terminals {
		opt.OnTerminal = func(any, ts.Schedule) { terminals++ }
	}
	opt.Runner = r
	start := time.Now()
	res, err := target.Search(ctx, c.strategy, opt)
	elapsed := time.Since(start)
	if err != nil {
		fmt.Fprintf(stderr, "weft-beam: %s: %v\n", target.Name(), err)
		return 2
	}
	runnerName := c.runner
	if runnerName == "" {
		runnerName = "prism"
	}
	fmt.Fprintf(stdout, "%s, %s on beam (%s): %v (%v)\n", target.Name(), c.strategy, runnerName, res, elapsed.Round(time.Millisecond))
	fmt.Fprintf(stdout, "violations: %d\n", res.Violations)
	if c.terminals {
		fmt.Fprintf(stdout, "terminal states: %d\n", terminals)
	}
	if v := res.Violation; v != nil {
		fmt.Fprintf(stdout, "replay: %v\n", v.Trace.Schedule())
	}
	printLoad(stdout, r.Load(), res)
	code := 0
	if res.Violation != nil {
		code = 1
	}
	if c.compare {
		opt.Runner = nil
		var alone int64
		if c.terminals {
			opt.OnTerminal = func(any, ts.Schedule) { alone++ }
		}
		start := time.Now()
		want, err := target.Search(ctx, c.strategy, opt)
		if err != nil {
			return fail("%s alone: %v", target.Name(), err)
		}
		same := want.Executions == res.Executions && want.Transitions == res.Transitions &&
			want.Violations == res.Violations && alone == terminals &&
			(want.Violation == nil) == (res.Violation == nil) &&
			(want.Violation == nil || slices.Equal(want.Violation.Trace.Schedule(), res.Violation.Trace.Schedule()))
		if !same {
			fmt.Fprintf(stdout, "on this machine alone: %v, %d terminal states: NOT the same\n", want, alone)
			return 2
		}
		fmt.Fprintf(stdout, "on this machine alone: the same (%v)\n", time.Since(start).Round(time.Millisecond))
	}
	return code
}

// printLoad prints what was shipped and how the work spread.
func printLoad(w io.Writer, l beamrun.Load, res ts.Result) {
	fmt.Fprintf(w, "units: %d taken by the search, %d of them explored by the search itself, %d split further, %d handed back part explored; %d sent in %d rounds (%v in rounds, %v a round; %d repeated in a batch, sent once), %d explored on beam, %d transitions of them not used\n",
		res.Stats["parallel-units"], res.Stats["parallel-misses"]+res.Stats["parallel-reruns"], res.Stats["parallel-split-further"], res.Stats["parallel-handed-back"], l.Sent, l.Rounds,
		l.Elapsed.Round(time.Millisecond), avg(l.Elapsed, l.Rounds), l.Repeated, len(l.Units), res.Stats["parallel-wasted-transitions"])
	if len(l.Units) == 0 {
		return
	}
	fmt.Fprintf(w, "shipped: %d B a unit, %d B a result (mean), %d duplicate results dropped\n",
		l.UnitBytes/int64(l.Sent), l.ResultBytes/int64(len(l.Units)), l.Duplicates)
	trans := make([]int64, len(l.Units))
	wall := make([]int64, len(l.Units))
	type group struct {
		units       int
		transitions int64
		wall        time.Duration
	}
	bundles := map[string]*group{}
	workers := map[string]*group{}
	for i, u := range l.Units {
		trans[i], wall[i] = u.Transitions, int64(u.Elapsed)
		for _, g := range []struct {
			m   map[string]*group
			key string
		}{{bundles, u.Bundle}, {workers, u.Worker}} {
			if g.m[g.key] == nil {
				g.m[g.key] = &group{}
			}
			x := g.m[g.key]
			x.units++
			x.transitions += u.Transitions
			x.wall += u.Elapsed
		}
	}
	fmt.Fprintf(w, "per unit: transitions %s; wall time %s\n", spread(trans, nil), spread(wall, func(v int64) string { return time.Duration(v).Round(time.Microsecond).String() }))
	for _, g := range []struct {
		name string
		m    map[string]*group
	}{{"bundle", bundles}, {"worker", workers}} {
		var units, tr, wl []int64
		for _, x := range g.m {
			units = append(units, int64(x.units))
			tr = append(tr, x.transitions)
			wl = append(wl, int64(x.wall))
		}
		fmt.Fprintf(w, "per %s (%d): units %s; transitions %s; wall time %s\n", g.name, len(g.m), spread(units, nil), spread(tr, nil),
			spread(wl, func(v int64) string { return time.Duration(v).Round(time.Microsecond).String() }))
	}
	// How far the rounds' work could be spread: a round lasts at least its
	// largest bundle (in transitions, which timing noise does not move).
	largest := map[int]map[string]int64{}
	var total, critical int64
	for _, u := range l.Units {
		if largest[u.Round] == nil {
			largest[u.Round] = map[string]int64{}
		}
		largest[u.Round][u.Bundle] += u.Transitions
		total += u.Transitions
	}
	for _, b := range largest {
		var m int64
		for _, t := range b {
			m = max(m, t)
		}
		critical += m
	}
	fmt.Fprintf(w, "balance: %.2f (the rounds' transitions over the sum of each round's largest bundle: the speedup bound with a worker per bundle)\n",
		float64(total)/float64(critical))
}

// spread formats the minimum, median and maximum of xs.
func spread(xs []int64, format func(int64) string) string {
	if format == nil {
		format = func(v int64) string { return fmt.Sprint(v) }
	}
	s := slices.Clone(xs)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return fmt.Sprintf("min %s, median %s, max %s", format(s[0]), format(s[len(s)/2]), format(s[len(s)-1]))
}

func avg(d time.Duration, n int) time.Duration {
	if n == 0 {
		return 0
	}
	return (d / time.Duration(n)).Round(time.Millisecond)
}
