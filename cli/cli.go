// Package cli is the weft command as a library: cmd/weft is a main that
// calls [Main] with weft's bundled models, and a program of a user's own
// calls it with its systems:
//
//	func main() {
//		os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr,
//			cli.Model("counter", counter{}).Describe("two threads increment n"),
//			cli.Family("ring", 3, 2, 8, newRing)))
//	}
//
// Then "go run . -model counter -trace" explores the user's counter with
// the default strategy, and every flag of the command works on it (see
// weft -h, and -list for the strategies).
//
// # What it prints
//
// With no -model, every model with the best strategy for it, as a table;
// with -model, one search (or, with -strategy a,b, several side by side):
// the verdict, the coverage per bound of an iterative strategy, the
// violation's replay schedule, and with -trace its steps. -json prints the
// same facts as JSON, one [Report] a line per search; the schema is
// Report's, its version [Schema]. -dot prints the happens-before graph of
// the violating (or last) execution as Graphviz DOT.
//
// # Exit status
//
//   - 0: no violation found (the verdict says whether the search was
//     complete, or stopped at a limit or -timeout);
//   - 1: a violation was found (by any of the searches, for a table);
//   - 2: bad usage, or an error: a model that breaks the contract or that
//     the strategy refuses, a cancelled search, a failed write.
//
// -h prints the usage and exits with 0.
//
// # The default strategy
//
// With no -strategy, a model gets optimal DPOR (odpor) if it uses the whole
// model, iterative context bounding (icb) if it is cyclic and has Hash,
// stateful search (dfs-stateful) if it is cyclic without Hash, odpor if it
// has more than six threads, and icb-por otherwise. A user's system is
// taken to use the whole model (odpor) unless marked [System.Cyclic]. The
// bounded strategies keep to weft.DefaultBound preemptions unless -bound
// says otherwise.
//
// # Memory
//
// Main leaves the collector as the program set it. cmd/weft keeps a 64 MB
// ballast, from the first collection on, unless GOGC or GOMEMLIMIT is set
// (see its documentation): without
// it, a short search with -workers collected its small, growing heap over
// and over on the cores it kept busy (lastzero-12 with 2 workers: 1.19x
// the speed of one, 1.54x with the ballast). A program of your own can do
// the same before it calls Main.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/weftlab/weft"
	"github.com/weftlab/weft/estimate"
	"github.com/weftlab/weft/hb"
	"github.com/weftlab/weft/mat"
	"github.com/weftlab/weft/random"
	"github.com/weftlab/weft/ts"
)

// Main runs the command with the arguments args (without the program's
// name) on systems, and returns the exit status. An interrupt (Ctrl-C)
// cancels the search under way, whose partial result is printed.
func Main(args []string, stdout, stderr io.Writer, systems ...System) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return Run(ctx, args, stdout, stderr, systems...)
}

// Run is Main under a context of the caller's: cancelling it cancels the
// search under way.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, systems ...System) int {
	c, code := parse(args, stderr, systems)
	if c == nil {
		return code
	}
	c.stdout, c.stderr = stdout, stderr
	if c.list {
		list(stdout, systems)
		return 0
	}
	if c.model == "" {
		return c.summary(ctx, systems)
	}
	m, n, err := lookup(systems, c.model)
	if err != nil {
		return usage(stderr, "%v", err)
	}
	if len(c.strategies) > 1 {
		return c.compare(ctx, m, n)
	}
	return c.single(ctx, m, n)
}

// summaryBudget caps each model's search in the no-argument run, so that the
// table comes back in seconds; a model cut short says so in its verdict.
const summaryBudget = 2_000_000

// command is a parsed command line.
type command struct {
	model                string
	strategies           []weft.Strategy // none: the best for each model
	bound                int             // -1: not given
	list, trace, dot, js bool
	html                 string // file for the HTML view, or ""
	keepGoing            bool
	maxTrans, maxExec    int64
	depth                int
	timeout              time.Duration
	quiet                bool
	runs                 int64  // -runs, for the samplers
	seed                 uint64 // -seed, for the samplers and -estimate's probes
	pctDepth             int    // -pct-depth, for pct
	estimate             bool   // -estimate
	workers              int    // -workers
	stdout, stderr       io.Writer
}

const usageHead = `usage: weft [flags]

With no flags weft explores every model with the best strategy for it and
prints a table; with -model it explores one model and prints the verdict.

Flags:
`

const usageTail = `
Exit status: 0 when no violation is found (the verdict says whether the
search was complete), 1 when a violation is found, 2 for bad usage and
errors (a broken model, a strategy that refuses the model, a cancelled
search). -h exits with 0.

-json prints one JSON object a line per search, with lower-case fields:
schema, model, strategy, bound, verdict ("violation", "ok", "incomplete",
"skipped", "error"), complete, executions, transitions, states, seconds,
finds, not_looked_for, violations (the count), violation (kind, message,
thread, preemptions, replay, schedule, steps with their accesses' op
names), coverage, stats, error. The schema is documented with
github.com/weftlab/weft/cli.Report.
`

// parse reads the command line. It returns nil and the exit status when
// the command is done (-h, or bad usage).
func parse(args []string, stderr io.Writer, systems []System) (*command, int) {
	fs := flag.NewFlagSet("weft", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := &command{bound: -1}
	var strategy string
	var syncOnly bool
	fs.StringVar(&c.model, "model", "", "explore one `model` (name or name-N; see -list); default: every model")
	fs.StringVar(&strategy, "strategy", "", "search `strategy`, or several separated by commas to compare them (see -list); default: the best one for each model")
	fs.Var(boundFlag{&c.bound}, "bound", fmt.Sprintf("preemption `bound` C for the bounded strategies (default %d)", weft.DefaultBound))
	fs.BoolVar(&syncOnly, "sync-only", false, "schedule only before synchronization steps and check every execution for data races (with -strategy icb: icb-sync-only)")
	fs.BoolVar(&c.list, "list", false, "list the models and strategies")
	fs.BoolVar(&c.trace, "trace", false, "print the violating schedule's steps, one a line")
	fs.BoolVar(&c.dot, "dot", false, "print the happens-before graph of the violating (or last) execution as Graphviz DOT")
	fs.StringVar(&c.html, "html", "", "write the violating (or last) execution as a self-contained HTML page to `file` (threads as lanes, happens-before arrows)")
	fs.BoolVar(&c.js, "json", false, "print each search as one line of JSON (schema below)")
	fs.BoolVar(&c.keepGoing, "keep-going", false, "explore past violations and count them all")
	fs.Int64Var(&c.maxTrans, "max-transitions", 0, "stop each search after `n` transitions; 0: no limit, but 2,000,000 a model in the table of every model")
	fs.Int64Var(&c.maxExec, "max-executions", 0, "stop each search after `n` executions; 0: no limit")
	fs.IntVar(&c.depth, "depth", 0, "longest execution allowed; 0: "+thousands(ts.DefaultMaxDepth))
	fs.DurationVar(&c.timeout, "timeout", 0, "stop each search after `d`, a budget like the limits; 0: no limit")
	fs.BoolVar(&c.quiet, "q", false, "no progress reports on stderr")
	fs.Int64Var(&c.runs, "runs", weft.DefaultRuns, "runs a sampler (random, pct, urw) takes; 0: until -timeout or a limit (0 when one is given and -runs is not)")
	fs.Uint64Var(&c.seed, "seed", 0, "`seed` of a sampler's runs and of -estimate's probes: the same seed samples the same runs")
	fs.IntVar(&c.pctDepth, "pct-depth", 0, fmt.Sprintf("bug depth `d` pct looks for (-depth is the longest execution); 0: %d", random.DefaultDepth))
	fs.IntVar(&c.workers, "workers", 0, "explore with `n` goroutines (odpor, dpor, sleep: no more than GOMAXPROCS; dfs-stateful keeps them only where it measures a gain; the result is the same as with one)")
	fs.BoolVar(&c.estimate, "estimate", false, "estimate the size of the search first (dfs, sleep, dpor, odpor; a sampler's runs), print it, and add the share done and the time left to progress reports")
	fs.Usage = func() {
		fmt.Fprint(stderr, usageHead)
		fs.PrintDefaults()
		fmt.Fprint(stderr, usageTail)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, 0
		}
		return nil, 2
	}
	if fs.NArg() > 0 {
		return nil, usage(stderr, "unexpected argument %q (flags start with -)", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if set["bound"] && c.bound < 0 {
		return nil, usage(stderr, "bad bound %d: a preemption bound is 0 or more", c.bound)
	}
	if c.maxTrans < 0 || c.maxExec < 0 || c.depth < 0 || c.timeout < 0 || c.runs < 0 {
		return nil, usage(stderr, "limits must not be negative")
	}
	if c.list {
		for name := range set {
			if name != "list" && name != "q" {
				return nil, usage(stderr, "-list takes no other flag (-%s)", name)
			}
		}
		return c, 0
	}
	// Flags that ask for two outputs, or for one that does not exist.
	switch {
	case c.js && c.dot:
		return nil, usage(stderr, "-json and -dot are two outputs: choose one")
	case c.js && c.trace:
		return nil, usage(stderr, "-json has the trace already (violation.steps): drop -trace")
	case c.dot && c.trace:
		return nil, usage(stderr, "-dot and -trace are two outputs: choose one")
	case c.model == "" && (c.trace || c.dot || c.html != ""):
		return nil, usage(stderr, "-trace, -dot and -html need -model")
	case strings.Contains(strategy, ",") && (c.trace || c.dot || c.html != ""):
		return nil, usage(stderr, "-trace, -dot and -html take one strategy")
	}
	if c.estimate && (c.model == "" || strings.Contains(strategy, ",")) {
		return nil, usage(stderr, "-estimate takes -model and one strategy")
	}
	if c.workers < 0 {
		return nil, usage(stderr, "bad -workers %d: a worker count is 0 or more", c.workers)
	}
	if set["pct-depth"] && c.pctDepth < 1 {
		return nil, usage(stderr, "bad -pct-depth %d: a bug depth is 1 or more", c.pctDepth)
	}
	if strategy == "" {
		switch {
		case set["runs"] || set["seed"] || set["pct-depth"]:
			return nil, usage(stderr, "-runs, -seed and -pct-depth go with -strategy random, pct or urw")
		case set["bound"]:
			return nil, usage(stderr, "-bound needs a bounded -strategy")
		case c.workers > 1:
			return nil, usage(stderr, "-workers needs -strategy odpor, dpor, sleep or dfs-stateful")
		case syncOnly:
			return nil, usage(stderr, "-sync-only goes with -strategy icb")
		}
		return c, 0
	}
	for _, name := range strings.Split(strategy, ",") {
		s, err := weft.Lookup(name)
		if err != nil {
			return nil, usage(stderr, "unknown strategy %q (weft -list shows the strategies)", name)
		}
		if syncOnly {
			if s != weft.ICB() {
				return nil, usage(stderr, "-sync-only goes with -strategy icb")
			}
			s = weft.SyncOnly()
		}
		if set["bound"] {
			if s, err = s.WithBound(c.bound); err != nil {
				return nil, usage(stderr, "%s", strings.TrimPrefix(message(err), "bad options: "))
			}
		}
		if s, err = c.sampling(s, set); err != nil {
			return nil, usage(stderr, "%s", strings.TrimPrefix(message(err), "bad options: "))
		}
		if c.workers > 1 && !s.Splits() {
			return nil, usage(stderr, "-workers goes with a strategy that splits its search (odpor, dpor, sleep, dfs-stateful), not %s", s.Name())
		}
		c.strategies = append(c.strategies, s)
	}
	return c, 0
}

// sampling gives a sampler the flags' runs, seed and depth; another
// strategy given them is an error.
func (c *command) sampling(s weft.Strategy, set map[string]bool) (weft.Strategy, error) {
	if !s.IsSampler() {
		if set["runs"] || set["seed"] || set["pct-depth"] {
			return s, fmt.Errorf("-runs, -seed and -pct-depth go with -strategy random, pct or urw, not %s", s.Name())
		}
		return s, nil
	}
	runs := c.runs
	if !set["runs"] && (c.timeout > 0 || c.maxExec > 0 || c.maxTrans > 0) {
		runs = 0 // the budget given is the budget
	}
	var err error
	if s, err = s.WithRuns(runs); err != nil {
		return s, err
	}
	if s, err = s.WithSeed(c.seed); err != nil {
		return s, err
	}
	if set["pct-depth"] {
		return s.WithDepth(c.pctDepth)
	}
	return s, nil
}

// message is an error's text without the "weft: " prefixes its wrapped
// parts repeat: the command prints one.
func message(err error) string {
	return strings.ReplaceAll(err.Error(), "weft: ", "")
}

func usage(stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "weft: "+format+"\n", args...)
	return 2
}

// errorf prints an error of a search and returns 2.
func (c *command) errorf(format string, args ...any) int {
	fmt.Fprintf(c.stderr, "weft: "+format+"\n", args...)
	return 2
}

func list(w io.Writer, cat []System) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tN\tDESCRIPTION")
	for _, m := range cat {
		n := "-"
		if m.param != "" {
			n = fmt.Sprintf("%s, default %d, %s", m.param, m.def, m.paramRange())
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", m.name, n, m.summary)
	}
	fmt.Fprintln(tw, "\t\t")
	fmt.Fprintln(tw, "STRATEGY\tBOUND\tDESCRIPTION")
	for _, s := range weft.Strategies() {
		b := "-"
		if s.Bounded() {
			b = "-bound C"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name(), b, s.Summary())
	}
	for _, s := range weft.Samplers() {
		b := "-runs N"
		if s == weft.PCT() {
			b = "-runs N -pct-depth d"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name(), b, s.Summary())
	}
	fmt.Fprintln(tw, "tx:NAME\tas NAME\tstrategy NAME on the transaction view (whole transactions as steps; not cpc, cycle, unsound, sym, sympor, mat, icb-sync-only)")
	tw.Flush()
}

// shortError is an error for a table cell: without the schedule and detail
// a *ts.SystemError carries, and cut to one short line.
func shortError(err error) string {
	msg := message(err)
	var se *ts.SystemError
	if errors.As(err, &se) {
		msg = message(se.Err)
		if se.Thread >= 0 {
			msg = fmt.Sprintf("%s (thread %d)", msg, se.Thread)
		}
	}
	if i := strings.Index(msg, " (schedule "); i >= 0 {
		msg = msg[:i]
	}
	if len(msg) > 80 {
		msg = msg[:77] + "..."
	}
	return msg
}

// searchContext returns the context of one search: ctx, with the -timeout
// budget if there is one.
func (c *command) searchContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.timeout > 0 {
		return context.WithTimeout(ctx, c.timeout)
	}
	return context.WithCancel(ctx)
}

// options builds the search options of the flags.
func (c *command) options(name string, budget int64) ts.Options {
	return c.optionsWith(name, budget, nil)
}

// optionsWith is options with progress reports that say, by est, what
// share is done and how long is left.
func (c *command) optionsWith(name string, budget int64, est *estimate.Estimate) ts.Options {
	opt := ts.Options{
		Limits:    ts.Limits{Transitions: c.maxTrans, Executions: c.maxExec, Depth: c.depth},
		KeepGoing: c.keepGoing,
		Workers:   c.workers,
	}
	if opt.Limits.Transitions == 0 {
		opt.Limits.Transitions = budget
	}
	if !c.quiet {
		// Explicit: some searches take a zero interval as the 1 ms minimum
		// rather than ts.Options' documented one second.
		opt.ProgressEvery = time.Second
		start := time.Now()
		stderr := c.stderr
		opt.Progress = func(r ts.Result) {
			more := ""
			if e := r.Estimated; e != nil {
				more = fmt.Sprintf(", %.1f%% of ~%s", 100*e.Fraction, thousands(int64(e.Executions)))
				if e.ETA >= 0 {
					more += fmt.Sprintf(", about %v left", e.ETA.Round(time.Second))
				}
			}
			fmt.Fprintf(stderr, "weft: %s: %s, %s, %s, %v%s\n",
				name, counted(r.Executions, "execution"), counted(r.Transitions, "transition"), counted(r.States, "state"), time.Since(start).Round(time.Second), more)
		}
		if est != nil {
			opt.Progress = estimate.Progress(*est, opt.Progress)
		}
	}
	return opt
}

// search runs one search under the flags' budget. A -timeout that expires
// is a budget, not an error: the partial result says it is incomplete.
func (c *command) search(ctx context.Context, inst instance, s weft.Strategy, opt ts.Options) (ts.Result, time.Duration, error) {
	start := time.Now()
	sctx, cancel := c.searchContext(ctx)
	res, err := inst.run(sctx, s, opt)
	cancel()
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		err = nil
	}
	return res, time.Since(start), err
}

// strategyFor returns the strategy the command line gives, or the best one
// for the model.
func (c *command) strategyFor(m System, inst instance) weft.Strategy {
	if len(c.strategies) > 0 {
		return c.strategies[0]
	}
	return bestStrategy(m, inst)
}

// encode prints one Report as a line of JSON.
func (c *command) encode(r Report) error {
	return json.NewEncoder(c.stdout).Encode(r)
}

func (c *command) summary(ctx context.Context, cat []System) int {
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	if !c.js {
		fmt.Fprintln(tw, "model\tstrategy\texecutions\ttransitions\tstates\ttime\tverdict\t")
	}
	code := 0
	for _, m := range cat {
		n := m.def
		inst := m.build(n)
		name := m.displayName(n)
		s := c.strategyFor(m, inst)
		if why := unfit(s, m, inst); why != "" {
			if c.js {
				if err := c.encode(skipped(name, s, why)); err != nil {
					return c.errorf("%v", err)
				}
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t\t\t\t\tskipped: %s\t\n", name, s.Name(), why)
			continue
		}
		res, elapsed, err := c.search(ctx, inst, s, c.options(name, summaryBudget))
		verdict := verdictOf(res)
		switch {
		case errors.Is(err, mat.ErrNotStraightLine):
			verdict, err = "not applicable: threads not straight-line", nil
		case err != nil:
			verdict = "error: " + shortError(err)
			code = 2
		case res.Violation != nil && code == 0:
			code = 1
		}
		if c.js {
			r := report(name, s, res, err, elapsed, inst.names())
			if verdict == "not applicable: threads not straight-line" {
				r.Verdict, r.Error = "skipped", "threads not straight-line"
			}
			if err := c.encode(r); err != nil {
				return c.errorf("%v", err)
			}
		} else {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%s\t\n", name, s.Name(), res.Executions, res.Transitions, res.States,
				roundDuration(elapsed), verdict)
		}
		if ctx.Err() != nil {
			code = 2
			break
		}
	}
	if err := tw.Flush(); err != nil {
		return c.errorf("%v", err)
	}
	return code
}

// verdictOf says in a few words what a search found, and what it did not
// look for.
func verdictOf(r ts.Result) string {
	if v := r.Violation; v != nil {
		return fmt.Sprintf("%v, %s", v.Kind, counted(int64(v.Trace.Preemptions), "preemption"))
	}
	verdict := "ok so far (stopped at a limit)"
	switch {
	case r.Complete && r.Bound != ts.NoBound:
		verdict = fmt.Sprintf("ok within bound %d", r.Bound)
	case r.Complete:
		verdict = "ok"
	}
	return verdict + notLookedFor(r)
}

// notLookedFor is " (deadlocks not looked for)" and the like, or "".
func notLookedFor(r ts.Result) string {
	if r.Finds == 0 {
		return ""
	}
	if miss := r.Finds.Missing(); miss != "" {
		return " (" + miss + " not looked for)"
	}
	return ""
}

func (c *command) single(ctx context.Context, m System, n int) int {
	inst := m.build(n)
	name := m.displayName(n)
	s := c.strategyFor(m, inst)
	if why := unfit(s, m, inst); why != "" {
		return usage(c.stderr, "strategy %s cannot run on %s: it %s", s.Name(), name, why)
	}
	text := !c.js && !c.dot
	var est *estimate.Estimate
	var estimated estimate.Estimate
	if c.estimate {
		e, err := c.estimateOf(ctx, inst, s)
		estimated = e
		if err != nil {
			return c.errorf("%s: -estimate: %s", name, message(err))
		}
		if e.Executions > 0 {
			est = &e // else no share done to report
		}
		if text {
			fmt.Fprintf(c.stdout, "%s, %s: estimate: %v\n", name, s.Name(), describeEstimate(e, s))
		}
	}
	opt := c.optionsWith(name, 0, est)
	if text && s == weft.MAT() {
		// What mat computes first, before the search.
		if err := inst.matReport(c.stdout, opt.Limits); err != nil && !errors.Is(err, mat.ErrNotStraightLine) {
			return c.errorf("%s: %s", name, message(err))
		}
	}
	var last ts.Schedule
	if c.dot || c.html != "" {
		opt.OnTerminal = func(_ any, s ts.Schedule) { last = append(last[:0], s...) }
	}
	res, elapsed, err := c.search(ctx, inst, s, opt)
	if err != nil {
		fmt.Fprintf(c.stderr, "weft: %s: %s\n", name, message(err))
		// An interrupted search still shows what it had found.
		if !c.js && !errors.Is(err, context.Canceled) {
			return 2
		}
	}
	code := 0
	switch {
	case err != nil:
		code = 2
	case res.Violation != nil:
		code = 1
	}
	if c.html != "" && err == nil {
		if e := c.writeHTML(inst, res, last); e != nil {
			return c.errorf("%s: -html: %s", name, message(e))
		}
	}
	switch {
	case c.js:
		r := report(name, s, res, err, elapsed, inst.names())
		if c.estimate {
			r.Estimate = estimateReport(estimated, s)
		}
		if e := c.encode(r); e != nil {
			return c.errorf("%v", e)
		}
	case c.dot:
		tr, e := dotTrace(inst, res, last)
		if e != nil {
			return c.errorf("%s: %s", name, message(e))
		}
		var waits []ts.Waiter
		var dl *ts.DeadlockError
		if res.Violation != nil && errors.As(res.Violation.Err, &dl) {
			waits = dl.Waiting
		}
		if e := hb.WriteDotWaits(c.stdout, tr, inst.names(), waits); e != nil {
			return c.errorf("%v", e)
		}
	default:
		fmt.Fprintf(c.stdout, "%s, %s: %v (%v)\n", name, s.Name(), res, roundDuration(elapsed))
		for _, cv := range res.Coverage {
			fmt.Fprintf(c.stdout, "  bound %d: %s, %s\n", cv.Bound, counted(cv.Executions, "execution"), counted(cv.TerminalStates, "terminal state"))
		}
		if c.keepGoing {
			fmt.Fprintf(c.stdout, "violations: %d\n", res.Violations)
		}
		if sr := sampleReport(res); sr != nil {
			terminals := "distinct terminal states not counted (no Hash)"
			if sr.TerminalStates != nil {
				terminals = thousands(*sr.TerminalStates) + " distinct terminal states"
			}
			fmt.Fprintf(c.stdout, "sampled: %s runs (seed %d), %s distinct schedules, %s distinct traces, %s, longest run %d transitions\n",
				thousands(sr.Runs), sr.Seed, thousands(sr.Schedules), thousands(sr.Traces), terminals, sr.LongestRun)
			fmt.Fprintf(c.stdout, "guarantee: %s\n", sr.Guarantee)
		}
		if v := res.Violation; v != nil {
			if miss := res.Finds.Missing(); res.Finds != 0 && miss != "" {
				fmt.Fprintf(c.stdout, "not looked for: %s\n", miss) // res says so only when clean
			}
			fmt.Fprintf(c.stdout, "replay: %v\n", v.Trace.Schedule())
			if c.trace {
				fmt.Fprint(c.stdout, v.Trace.Format(inst.names()))
			}
		} else if s.OnePerTrace() {
			if line := coverageStatement(res); line != "" {
				fmt.Fprintln(c.stdout, line)
			}
		}
	}
	return code
}

// coverageStatement says what a clean, complete run of a strategy that
// explores one execution per Mazurkiewicz trace has shown, or "".
func coverageStatement(res ts.Result) string {
	if res.Violation != nil || !res.Complete {
		return ""
	}
	if n := len(res.Coverage); n > 0 {
		c := res.Coverage[n-1]
		return fmt.Sprintf("no bug within %s: %s explored%s", counted(int64(c.Bound), "preemption"), counted(c.Executions, "distinct partial order"), notLookedFor(res))
	}
	return fmt.Sprintf("no bug in any schedule: %s explored%s", counted(res.Executions, "distinct partial order"), notLookedFor(res))
}

// thousands writes n with commas between groups of three digits.
// counted writes n with thousands separators and the noun, in the plural
// unless n is 1.
func counted(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return thousands(n) + " " + noun + "s"
}

func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// writeHTML writes the page of the execution -dot would draw to c.html.
func (c *command) writeHTML(inst instance, res ts.Result, last ts.Schedule) error {
	tr, err := dotTrace(inst, res, last)
	if err != nil {
		return err
	}
	f, err := os.Create(c.html)
	if err != nil {
		return err
	}
	if err := hb.WriteHTML(f, tr, inst.names(), res.Violation); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// dotTrace picks the execution -dot draws: the violating one, else the last.
func dotTrace(inst instance, res ts.Result, last ts.Schedule) (ts.Trace, error) {
	if res.Violation != nil {
		return res.Violation.Trace, nil
	}
	if last == nil {
		return ts.Trace{}, errors.New("no execution to draw")
	}
	return inst.replay(last)
}

// roundDuration keeps three significant figures or so.
func roundDuration(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

// compare runs several strategies on one model and prints their figures side
// by side, with the executions per preemption bound where they report
// coverage: the layout of the cbpor paper's Table 1.
func (c *command) compare(ctx context.Context, m System, n int) int {
	name := m.displayName(n)
	results := make([]ts.Result, len(c.strategies))
	code := 0
	for i, s := range c.strategies {
		inst := m.build(n)
		if why := unfit(s, m, inst); why != "" {
			return usage(c.stderr, "strategy %s cannot run on %s: it %s", s.Name(), name, why)
		}
		res, elapsed, err := c.search(ctx, inst, s, c.options(name+" "+s.Name(), 0))
		if err != nil {
			fmt.Fprintf(c.stderr, "weft: %s, %s: %s\n", name, s.Name(), message(err))
			if !c.js {
				return 2
			}
			code = 2
		} else if res.Violation != nil && code == 0 {
			code = 1
		}
		if c.js {
			if e := c.encode(report(name, s, res, err, elapsed, inst.names())); e != nil {
				return c.errorf("%v", e)
			}
		}
		results[i] = res
	}
	if c.js {
		return code
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\t", name)
	for _, s := range c.strategies {
		fmt.Fprintf(tw, "%s\t", s.Name())
	}
	fmt.Fprintln(tw)
	maxBound := -1
	for _, r := range results {
		maxBound = max(maxBound, len(r.Coverage)-1)
	}
	for b := 0; b <= maxBound; b++ {
		fmt.Fprintf(tw, "executions, bound %d\t", b)
		for _, r := range results {
			if b < len(r.Coverage) {
				fmt.Fprintf(tw, "%d\t", r.Coverage[b].Executions)
			} else {
				fmt.Fprint(tw, "-\t")
			}
		}
		fmt.Fprintln(tw)
	}
	row := func(label string, get func(ts.Result) string) {
		fmt.Fprintf(tw, "%s\t", label)
		for _, r := range results {
			fmt.Fprintf(tw, "%s\t", get(r))
		}
		fmt.Fprintln(tw)
	}
	row("executions", func(r ts.Result) string { return fmt.Sprint(r.Executions) })
	row("transitions", func(r ts.Result) string { return fmt.Sprint(r.Transitions) })
	row("states", func(r ts.Result) string { return fmt.Sprint(r.States) })
	row("violations", func(r ts.Result) string { return fmt.Sprint(r.Violations) })
	row("verdict", verdictOf)
	if err := tw.Flush(); err != nil {
		return c.errorf("%v", err)
	}
	return code
}

// boundFlag is -bound: an int that is -1 until set, printed empty then, so
// that the usage shows the real default and not the sentinel.
type boundFlag struct{ p *int }

func (b boundFlag) String() string {
	if b.p == nil || *b.p < 0 {
		return ""
	}
	return strconv.Itoa(*b.p)
}

func (b boundFlag) Set(s string) error {
	v, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("not a number")
	}
	*b.p = v
	return nil
}

// estimateTree is the tree package estimate estimates for strategy s, if
// any: ts.Explore's for dfs, the sleep-set tree (one execution per trace)
// for sleep, dpor and odpor.
func estimateTree(s weft.Strategy) (estimate.Tree, bool) {
	switch s {
	case weft.DFS():
		return estimate.DFS, true
	case weft.Sleep(), weft.DPOR(), weft.ODPOR():
		return estimate.Sleep, true
	}
	return 0, false
}

// estimateOf estimates the executions of strategy s on inst: by probes for
// the strategies estimateTree knows, by the run count for a sampler.
func (c *command) estimateOf(ctx context.Context, inst instance, s weft.Strategy) (estimate.Estimate, error) {
	if s.IsSampler() {
		if s.Runs() == 0 {
			return estimate.Estimate{}, errors.New("a sampler without -runs has no size to estimate (its budget is time or a limit)")
		}
		return estimate.Estimate{Executions: float64(s.Runs())}, nil
	}
	tree, ok := estimateTree(s)
	if !ok {
		return estimate.Estimate{}, fmt.Errorf("no estimate for %s: only dfs, sleep, dpor, odpor and the samplers have one (package estimate says why)", s.Name())
	}
	return inst.estimate(ctx, estimate.Options{Tree: tree, Seed: c.seed, Limits: ts.Limits{Depth: c.depth}})
}

// describeEstimate says what was estimated, for strategy s.
func describeEstimate(e estimate.Estimate, s weft.Strategy) string {
	switch {
	case s.IsSampler():
		return fmt.Sprintf("%s runs", thousands(int64(e.Executions)))
	case s == weft.DPOR():
		return e.String() + "; the traces, which dpor explores at least"
	case s == weft.ODPOR():
		return e.String() + "; executions are the traces, transitions an upper bound"
	}
	return e.String()
}
