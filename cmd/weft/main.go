// Command weft explores weft's bundled models with any strategy and prints
// results, traces and happens-before graphs.
//
// With no arguments it explores every bundled model with the best strategy
// available for it and prints one table. With -model it explores one model
// and prints the verdict; -trace, -dot and -json choose what else to print.
// Run weft -list for the models and strategies, weft -h for the flags.
//
// Exit status: 0 when the searches ran (whatever they found: a violation is a
// result), 1 when a search failed (a broken model, a cancelled search), 2 for
// bad command-line input.
package main

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

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/mat"
	"github.com/weftlab/weft/ts"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// summaryBudget caps each model's search in the no-argument run, so that the
// table comes back in seconds; a model cut short says so in its verdict.
const summaryBudget = 2_000_000

type flags struct {
	model, strategy      string
	bound                int
	list, trace, dot, js bool
	keepGoing, syncOnly  bool
	maxTrans, maxExec    int64
	depth                int
	timeout              time.Duration
	quiet                bool
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("weft", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f flags
	fs.StringVar(&f.model, "model", "", "explore one `model` (name or name-N; see -list); default: every model")
	fs.StringVar(&f.strategy, "strategy", "", "search `strategy` (see -list); default: the best one for each model")
	f.bound = -1
	fs.Var(boundFlag{&f.bound}, "bound", "preemption `bound` C for the bounded strategies (default 2)")
	fs.BoolVar(&f.syncOnly, "sync-only", false, "schedule only before synchronization steps and check every execution for data races (icb)")
	fs.BoolVar(&f.list, "list", false, "list the models and strategies")
	fs.BoolVar(&f.trace, "trace", false, "print the violating schedule, one step a line")
	fs.BoolVar(&f.dot, "dot", false, "print the happens-before graph of the violating (or last) execution as Graphviz DOT")
	fs.BoolVar(&f.js, "json", false, "print the result as JSON")
	fs.BoolVar(&f.keepGoing, "keep-going", false, "explore past violations and count them all")
	fs.Int64Var(&f.maxTrans, "max-transitions", 0, "stop after `n` transitions (0: no limit; the summary run uses 2,000,000 a model)")
	fs.Int64Var(&f.maxExec, "max-executions", 0, "stop after `n` executions (0: no limit)")
	fs.IntVar(&f.depth, "depth", 0, "longest execution allowed (0: 10,000)")
	fs.DurationVar(&f.timeout, "timeout", 0, "stop each search after `d` (0: no limit); with several strategies or models, each gets d")
	fs.BoolVar(&f.quiet, "q", false, "no progress reports on stderr")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: weft [flags]\n\nWith no flags weft explores every bundled model and prints a table.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		return usage(stderr, "unexpected argument %q (flags start with -)", fs.Arg(0))
	}
	boundSet := false
	fs.Visit(func(fl *flag.Flag) { boundSet = boundSet || fl.Name == "bound" })
	if boundSet && f.bound < 0 {
		return usage(stderr, "bad bound %d: a preemption bound is 0 or more", f.bound)
	}
	if f.maxTrans < 0 || f.maxExec < 0 || f.depth < 0 || f.timeout < 0 {
		return usage(stderr, "limits must not be negative")
	}
	cat := catalog()
	if f.list {
		list(stdout, cat)
		return 0
	}
	if f.strategy != "" {
		for _, name := range strings.Split(f.strategy, ",") {
			s, ok := findStrategy(name)
			if !ok {
				return usage(stderr, "unknown strategy %q (weft -list shows the strategies)", name)
			}
			if boundSet && !s.bounded {
				return usage(stderr, "strategy %s takes no preemption bound", s.name)
			}
		}
	} else if boundSet {
		return usage(stderr, "-bound needs a bounded -strategy")
	}
	if f.syncOnly && f.strategy != "icb" {
		return usage(stderr, "-sync-only goes with -strategy icb")
	}
	if f.model == "" {
		if f.trace || f.dot || f.js {
			return usage(stderr, "-trace, -dot and -json need -model")
		}
		return summary(ctx, stdout, stderr, cat, f)
	}
	m, n, err := lookup(cat, f.model)
	if err != nil {
		return usage(stderr, "%v", err)
	}
	if strings.Contains(f.strategy, ",") {
		if f.trace || f.dot || f.js {
			return usage(stderr, "-trace, -dot and -json take one strategy")
		}
		return compare(ctx, stdout, stderr, m, n, f)
	}
	return single(ctx, stdout, stderr, m, n, f)
}

// searchContext returns the context of one search: ctx, with the -timeout
// budget if there is one.
func (f flags) searchContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if f.timeout > 0 {
		return context.WithTimeout(ctx, f.timeout)
	}
	return context.WithCancel(ctx)
}

func usage(stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "weft: "+format+"\n", args...)
	return 2
}

func list(w io.Writer, cat []model) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tN\tDESCRIPTION")
	for _, m := range cat {
		n := "-"
		if m.info.Param != "" {
			n = fmt.Sprintf("%s, default %d, %s", m.info.Param, m.info.Default, paramRange(m.info))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", m.info.Name, n, m.info.Summary)
	}
	fmt.Fprintln(tw, "\t\t")
	fmt.Fprintln(tw, "STRATEGY\tBOUND\tDESCRIPTION")
	for _, s := range strategies {
		b := "-"
		if s.bounded {
			b = "-bound C"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.name, b, s.summary)
	}
	tw.Flush()
}

// shortError is an error for a table cell: without the schedule and detail
// a *ts.SystemError carries, and cut to one short line.
func shortError(err error) string {
	msg := err.Error()
	var se *ts.SystemError
	if errors.As(err, &se) {
		msg = se.Err.Error()
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

// summaryBound is the preemption bound of the no-argument run: the ICB
// paper found every bug of its benchmarks within 3 preemptions.
const summaryBound = 3

// bestStrategy picks the strategy the no-argument run uses for a model:
// iterative context bounding over cb-por where it suits (the first bug comes
// with the fewest preemptions, one execution per HB class), ICB with its
// cache of visited work items on cyclic models, and optimal DPOR on the wide
// models whose many threads are mostly independent (no bound is needed when
// the classes are few).
func bestStrategy(info models.Info, inst instance) string {
	switch {
	case info.Extended:
		return "odpor" // complete, and takes the whole model
	case info.Cyclic && inst.hashed():
		return "icb"
	case info.Cyclic:
		return "dfs-stateful"
	case inst.threads() > 6:
		return "odpor"
	}
	return "icb-por"
}

// options builds the search options of the flags.
func (f flags) options(stderr io.Writer, name string, budget int64) ts.Options {
	opt := ts.Options{
		Limits:    ts.Limits{Transitions: f.maxTrans, Executions: f.maxExec, Depth: f.depth},
		KeepGoing: f.keepGoing,
	}
	if opt.Limits.Transitions == 0 {
		opt.Limits.Transitions = budget
	}
	if !f.quiet {
		start := time.Now()
		opt.Progress = func(r ts.Result) {
			fmt.Fprintf(stderr, "weft: %s: %d executions, %d transitions, %d states, %v\n",
				name, r.Executions, r.Transitions, r.States, time.Since(start).Round(time.Second))
		}
	}
	return opt
}

func summary(ctx context.Context, stdout, stderr io.Writer, cat []model, f flags) int {
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "model\tstrategy\texecutions\ttransitions\tstates\ttime\tverdict\t")
	code := 0
	for _, m := range cat {
		n := m.info.Default
		inst := m.build(n)
		name := displayName(m.info, n)
		strat := f.strategy
		if strat == "" {
			strat = bestStrategy(m.info, inst)
		}
		s, _ := findStrategy(strat)
		if why := unfit(s, m.info, inst); why != "" {
			fmt.Fprintf(tw, "%s\t%s\t\t\t\t\tskipped: %s\t\n", name, strat, why)
			continue
		}
		bound := f.bound
		if bound < 0 && s.bounded {
			bound = summaryBound
		}
		cfg := config{strategy: strat, bound: bound, syncOnly: f.syncOnly, opt: f.options(stderr, name, summaryBudget)}
		start := time.Now()
		sctx, cancel := f.searchContext(ctx)
		res, err := inst.explore(sctx, cfg)
		cancel()
		elapsed := time.Since(start)
		if errors.Is(err, context.DeadlineExceeded) {
			err = nil
		}
		verdict := verdictOf(res)
		switch {
		case errors.Is(err, mat.ErrNotStraightLine):
			verdict = "not applicable: threads not straight-line"
		case err != nil:
			verdict = "error: " + shortError(err)
			code = 1
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%s\t\n", name, strat, res.Executions, res.Transitions, res.States,
			roundDuration(elapsed), verdict)
		if ctx.Err() != nil {
			break
		}
	}
	tw.Flush()
	return code
}

// verdictOf says in a few words what a search found, and what it did not
// look for.
func verdictOf(r ts.Result) string {
	if v := r.Violation; v != nil {
		return fmt.Sprintf("%v, %d preemptions", v.Kind, v.Trace.Preemptions)
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

func single(ctx context.Context, stdout, stderr io.Writer, m model, n int, f flags) int {
	inst := m.build(n)
	name := displayName(m.info, n)
	strat := f.strategy
	if strat == "" {
		strat = bestStrategy(m.info, inst)
	}
	if s, _ := findStrategy(strat); unfit(s, m.info, inst) != "" {
		return usage(stderr, "strategy %s cannot run on %s: it %s", strat, name, unfit(s, m.info, inst))
	}
	var last ts.Schedule
	cfg := config{strategy: strat, bound: f.bound, syncOnly: f.syncOnly, opt: f.options(stderr, name, 0)}
	if !f.js && !f.dot {
		cfg.report = stdout
	}
	if f.dot {
		cfg.opt.OnTerminal = func(_ any, s ts.Schedule) { last = append(last[:0], s...) }
	}
	start := time.Now()
	sctx, cancel := f.searchContext(ctx)
	defer cancel()
	res, err := inst.explore(sctx, cfg)
	elapsed := time.Since(start)
	if errors.Is(err, context.DeadlineExceeded) {
		err = nil // -timeout is a budget: the partial result says it is incomplete
	}
	if err != nil {
		fmt.Fprintf(stderr, "weft: %s: %v\n", name, err)
		if !f.js && !errors.Is(err, context.Canceled) {
			return 1
		}
	}
	switch {
	case f.js:
		out := struct {
			Model    string  `json:"model"`
			Strategy string  `json:"strategy"`
			Seconds  float64 `json:"seconds"`
			Error    string  `json:"error,omitempty"`
			ts.Result
		}{Model: name, Strategy: strat, Seconds: elapsed.Seconds(), Result: res}
		if err != nil {
			out.Error = err.Error()
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if e := enc.Encode(out); e != nil {
			fmt.Fprintf(stderr, "weft: %v\n", e)
			return 1
		}
	case f.dot:
		tr, e := dotTrace(inst, res, last)
		if e != nil {
			fmt.Fprintf(stderr, "weft: %s: %v\n", name, e)
			return 1
		}
		if e := writeDOT(stdout, tr, inst.names(), name); e != nil {
			fmt.Fprintf(stderr, "weft: %v\n", e)
			return 1
		}
	default:
		fmt.Fprintf(stdout, "%s, %s: %v (%v)\n", name, strat, res, roundDuration(elapsed))
		for _, c := range res.Coverage {
			fmt.Fprintf(stdout, "  bound %d: %d executions, %d terminal states\n", c.Bound, c.Executions, c.TerminalStates)
		}
		if s, _ := findStrategy(strat); s.traces && err == nil {
			if line := coverageStatement(res); line != "" {
				fmt.Fprintln(stdout, line)
			}
		}
		if f.trace && res.Violation != nil {
			fmt.Fprint(stdout, res.Violation.Trace.Format(inst.names()))
		}
	}
	if err != nil {
		return 1
	}
	return 0
}

// coverageStatement says what a clean, complete run of a strategy that
// explores one execution per Mazurkiewicz trace has shown, or "".
func coverageStatement(res ts.Result) string {
	if res.Violation != nil || !res.Complete {
		return ""
	}
	if n := len(res.Coverage); n > 0 {
		c := res.Coverage[n-1]
		return fmt.Sprintf("no bug within %d preemptions: %s distinct partial orders explored%s", c.Bound, thousands(c.Executions), notLookedFor(res))
	}
	return fmt.Sprintf("no bug in any schedule: %s distinct partial orders explored%s", thousands(res.Executions), notLookedFor(res))
}

// thousands writes n with commas between groups of three digits.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
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
func compare(ctx context.Context, stdout, stderr io.Writer, m model, n int, f flags) int {
	name := displayName(m.info, n)
	names := strings.Split(f.strategy, ",")
	results := make([]ts.Result, len(names))
	for i, strat := range names {
		inst := m.build(n)
		if s, _ := findStrategy(strat); unfit(s, m.info, inst) != "" {
			return usage(stderr, "strategy %s cannot run on %s: it %s", strat, name, unfit(s, m.info, inst))
		}
		cfg := config{strategy: strat, bound: f.bound, syncOnly: f.syncOnly, opt: f.options(stderr, name+" "+strat, 0)}
		sctx, cancel := f.searchContext(ctx)
		res, err := inst.explore(sctx, cfg)
		cancel()
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			fmt.Fprintf(stderr, "weft: %s, %s: %v\n", name, strat, err)
			return 1
		}
		results[i] = res
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\t", name)
	for _, strat := range names {
		fmt.Fprintf(tw, "%s\t", strat)
	}
	fmt.Fprintln(tw)
	maxBound := -1
	for _, r := range results {
		maxBound = max(maxBound, len(r.Coverage)-1)
	}
	for c := 0; c <= maxBound; c++ {
		fmt.Fprintf(tw, "executions, bound %d\t", c)
		for _, r := range results {
			if c < len(r.Coverage) {
				fmt.Fprintf(tw, "%d\t", r.Coverage[c].Executions)
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
	row("verdict", verdictOf)
	tw.Flush()
	return 0
}

// boundFlag is -bound: an int that is -1 until set, printed empty then, so
// that the usage shows the real default (2) and not the sentinel.
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
