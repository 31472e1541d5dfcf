package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/weftlab/weft/ts/tstest"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata")

// cmd runs the command on the bundled models and the given systems, quietly.
func cmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return cmdOn(t, Bundled(), args...)
}

func cmdOn(t *testing.T, systems []System, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(context.Background(), append([]string{"-q"}, args...), &out, &errb, systems...)
	return code, out.String(), errb.String()
}

// cmdJSON runs the command with -json and decodes its one line.
func cmdJSON(t *testing.T, want int, args ...string) Report {
	t.Helper()
	code, out, errs := cmd(t, append(args, "-json")...)
	if code != want {
		t.Fatalf("weft %v: exit %d, want %d: %s", args, code, want, errs)
	}
	var r Report
	if err := json.Unmarshal([]byte(out), &r); err != nil || strings.Count(out, "\n") != 1 {
		t.Fatalf("weft %v: bad JSON %q: %v", args, out, err)
	}
	return r
}

// The figures the foundation issue names, and the exit status with them.
func TestJSONFigures(t *testing.T) {
	for _, c := range []struct {
		model string
		execs int64
	}{{"inspect-2.3.1", 6}, {"locks3", 6}} {
		r := cmdJSON(t, 0, "-model", c.model, "-strategy", "dfs")
		if r.Executions != c.execs || !r.Complete || r.Violation != nil || r.Transitions == 0 || r.Verdict != "ok" || r.Violations != 0 {
			t.Errorf("%s: %+v, want %d executions, complete, no violation", c.model, r, c.execs)
		}
	}
	r := cmdJSON(t, 1, "-model", "philosophers-3", "-strategy", "dfs")
	if r.Violation == nil || r.Violation.Kind != "deadlock" || len(r.Violation.Schedule) != 3 || r.Verdict != "violation" || r.Violations != 1 {
		t.Fatalf("philosophers-3: %+v, want a deadlock with a 3-step schedule", r)
	}
	r = cmdJSON(t, 1, "-model", "philosophers-3", "-strategy", "icb")
	if r.Violation == nil || r.Violation.Preemptions != 1 || r.Bound == nil || *r.Bound != 2 {
		t.Fatalf("philosophers-3 under icb: %+v, want the deadlock with 1 preemption, bound 2", r.Violation)
	}
	r = cmdJSON(t, 0, "-model", "peterson", "-strategy", "dfs-stateful")
	if r.States == 0 || !r.Complete || r.Violation != nil || r.Bound != nil {
		t.Errorf("peterson: %+v, want a complete stateful search without violation", r)
	}
}

// The JSON schema, field by field, against golden files: a change to the
// schema shows here (go test ./cli -run Golden -update rewrites them).
func TestJSONGolden(t *testing.T) {
	for _, c := range []struct {
		file string
		args []string
	}{
		{"lost-update-icb.json", []string{"-model", "lost-update", "-strategy", "icb"}},
		{"twophase-bug-2-odpor.json", []string{"-model", "twophase-bug-2", "-strategy", "odpor"}},
		{"locks3-icb-por-keep-going.json", []string{"-model", "locks3", "-strategy", "icb-por", "-keep-going"}},
	} {
		_, out, errs := cmd(t, append(c.args, "-json")...)
		var r Report
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v: %v: %s", c.args, err, errs)
		}
		r.Seconds = 0
		got, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		// The field names and order are the line's, as printed.
		var fields, goldFields []string
		for _, l := range strings.Split(string(got), "\n") {
			if f, _, ok := strings.Cut(strings.TrimSpace(l), ":"); ok {
				fields = append(fields, f)
			}
		}
		path := filepath.Join("testdata", c.file)
		if *update {
			if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(want), "\n") {
			if f, _, ok := strings.Cut(strings.TrimSpace(l), ":"); ok {
				goldFields = append(goldFields, f)
			}
		}
		if string(got)+"\n" != string(want) {
			t.Errorf("%v: JSON differs from %s:\n%s", c.args, path, got)
		}
		if !slices.Equal(fields, goldFields) {
			t.Errorf("%v: fields %v, want %v", c.args, fields, goldFields)
		}
		for _, f := range fields {
			if f != strings.ToLower(f) {
				t.Errorf("field %s is not lower case", f)
			}
		}
	}
}

// Text mode says what the JSON says: the verdict with its figures, the
// coverage per bound, the violation count under -keep-going and the replay
// schedule.
func TestTextHasTheJSONFacts(t *testing.T) {
	for _, args := range [][]string{
		{"-model", "philosophers-3", "-strategy", "icb"},
		{"-model", "philosophers-3", "-strategy", "odpor", "-keep-going"},
		{"-model", "locks3", "-strategy", "icb-por"},
		{"-model", "cpc-fig1", "-strategy", "cpc"},
	} {
		r := cmdJSON(t, map[bool]int{true: 1, false: 0}[args[1] != "locks3"], args...)
		_, out, _ := cmd(t, args...)
		want := []string{thousands(r.Executions)[:1], " executions", " transitions"}
		if r.Violation != nil {
			want = append(want, "replay: "+r.Violation.Replay+"\n", r.Violation.Kind)
		}
		for _, c := range r.Coverage {
			want = append(want, "bound "+itoa(c.Bound)+": "+counted(c.Executions, "execution")+", "+counted(c.TerminalStates, "terminal state"))
		}
		if slices.Contains(args, "-keep-going") {
			want = append(want, "violations: "+itoa64(r.Violations)+"\n")
		}
		for _, n := range r.NotLookedFor {
			want = append(want, n+"s")
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("weft %v: text lacks %q:\n%s", args, w, out)
			}
		}
	}
}

func itoa(n int) string     { return thousandsless(int64(n)) }
func itoa64(n int64) string { return thousandsless(n) }
func thousandsless(n int64) string {
	return strings.ReplaceAll(thousands(n), ",", "")
}

func TestTraceAndDOT(t *testing.T) {
	code, out, _ := cmd(t, "-model", "lost-update", "-strategy", "icb", "-trace")
	if code != 1 || !strings.Contains(out, "check failure") || !strings.Contains(out, "* ") || !strings.Contains(out, "counter") {
		t.Errorf("trace: exit %d\n%s", code, out)
	}
	for model, want := range map[string]int{"lost-update": 1, "locks3": 0} { // violating, and last execution
		code, out, errs := cmd(t, "-model", model, "-strategy", "dfs", "-dot")
		if code != want || !strings.HasPrefix(out, "digraph") || !strings.Contains(out, "->") {
			t.Errorf("%s -dot: exit %d: %s\n%s", model, code, errs, out)
		}
	}
}

func TestSummary(t *testing.T) {
	if testing.Short() {
		t.Skip("explores every model")
	}
	code, out, errs := cmd(t)
	if code != 1 { // the bundled models include bugs
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, m := range Bundled() {
		if !strings.Contains(out, m.displayName(m.def)) {
			t.Errorf("summary lacks %s:\n%s", m.name, out)
		}
	}
	if strings.Contains(out, "error") || strings.Contains(out, "bound 3") {
		t.Errorf("summary has errors, or another bound than the default:\n%s", out)
	}
	// The same in JSON, a line per model.
	code, out, errs = cmd(t, "-json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 1 || len(lines) != len(Bundled()) {
		t.Fatalf("-json: exit %d, %d lines: %s", code, len(lines), errs)
	}
	for _, l := range lines {
		var r Report
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Schema != Schema || r.Verdict == "error" {
			t.Errorf("%s: %v", l, err)
		}
	}
}

func TestList(t *testing.T) {
	code, out, _ := cmd(t, "-list")
	if code != 0 || !strings.Contains(out, "philosophers") || !strings.Contains(out, "icb-sync-only") || !strings.Contains(out, "tx:NAME") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

// Bad command lines exit with status 2 and say what is wrong, once.
func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-model", "nosuch"}, "unknown model"},
		{[]string{"-strategy", "nosuch"}, "unknown strategy"},
		{[]string{"-model", "philosophers-99"}, "must be a whole number in 2..8"},
		{[]string{"-model", "philosophers-x"}, "must be a whole number"},
		{[]string{"-model", "locks3-4"}, "takes no parameter"},
		{[]string{"-strategy", "icb", "-bound", "-1"}, "bad bound"},
		{[]string{"-strategy", "dfs", "-bound", "2"}, "dfs takes no preemption bound: use CBDFS"},
		{[]string{"-strategy", "odpor", "-bound", "2"}, "partial-order reduction under a preemption bound is unsound"},
		{[]string{"-bound", "2"}, "-bound needs a bounded -strategy"},
		{[]string{"-model", "peterson", "-strategy", "dfs"}, "cannot run on peterson-1: it does not terminate on a cyclic model"},
		{[]string{"-model", "twophase-1", "-strategy", "mat"}, "cannot run on twophase-1: it needs the basic model"},
		{[]string{"-model", "lost-update", "-strategy", "sym"}, "cannot run on lost-update: it needs a model that declares its symmetry"},
		{[]string{"-trace"}, "need -model"},
		{[]string{"-max-transitions", "-5"}, "must not be negative"},
		{[]string{"-sync-only"}, "goes with -strategy icb"},
		{[]string{"-sync-only", "-strategy", "odpor"}, "goes with -strategy icb"},
		{[]string{"stray"}, "unexpected argument"},
		{[]string{"-nosuchflag"}, "flag provided but not defined"},
		// Incompatible flags.
		{[]string{"-model", "locks3", "-json", "-dot"}, "-json and -dot are two outputs"},
		{[]string{"-model", "locks3", "-json", "-trace"}, "-json has the trace already"},
		{[]string{"-model", "locks3", "-dot", "-trace"}, "-dot and -trace are two outputs"},
		{[]string{"-model", "locks3", "-strategy", "dfs,odpor", "-trace"}, "take one strategy"},
		{[]string{"-list", "-model", "locks3"}, "-list takes no other flag (-model)"},
		{[]string{"-strategy", "tx:cpc"}, "unknown strategy"},
		{[]string{"-workers", "-1"}, "bad -workers -1"},
		{[]string{"-workers", "2"}, "-workers needs -strategy odpor, dpor, sleep or dfs-stateful"},
		{[]string{"-workers", "2", "-strategy", "icb"}, "-workers goes with a strategy that splits its search (odpor, dpor, sleep, dfs-stateful), not icb"},
	} {
		code, _, errs := cmd(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("weft %v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
		for _, line := range strings.Split(strings.TrimSpace(errs), "\n") {
			if strings.Count(line, "weft: ") > 1 {
				t.Errorf("weft %v: doubled prefix in %q", c.args, line)
			}
		}
	}
}

// -h prints every flag once, each default said once, and the exit status;
// it exits with 0.
func TestHelp(t *testing.T) {
	code, out, errs := cmd(t, "-h")
	if code != 0 || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	for _, want := range []string{"Exit status: 0 when no violation is found", "1 when a violation is found", "2 for bad usage and", "-bound bound", "(default 2)", "not_looked_for"} {
		if !strings.Contains(errs, want) {
			t.Errorf("-h lacks %q:\n%s", want, errs)
		}
	}
	// A flag's text is its line and the indented lines after it.
	for _, flagText := range strings.Split(errs, "\n  -")[1:] {
		if strings.Count(flagText, "default") > 1 {
			t.Errorf("a default said twice: %q", flagText)
		}
	}
}

// A search cut short by a limit says so, and exits 0 (no violation found).
func TestBudget(t *testing.T) {
	r := cmdJSON(t, 0, "-model", "philosophers-4", "-strategy", "dfs", "-max-executions", "10", "-keep-going")
	if r.Complete || r.Executions != 10 || r.Verdict != "incomplete" {
		t.Errorf("%+v: want 10 executions, incomplete", r)
	}
	r = cmdJSON(t, 0, "-model", "locks3", "-strategy", "dfs", "-max-executions", "2")
	if r.Complete || r.Verdict != "incomplete" {
		t.Errorf("%+v: want incomplete", r)
	}
}

// -timeout is a budget per search: in a comparison, a strategy that uses it
// up leaves the next one its own.
func TestTimeoutPerSearch(t *testing.T) {
	code, out, errs := cmd(t, "-model", "filesystem-16", "-strategy", "sleep,dfs", "-timeout", "20ms")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && f[0] == "transitions" && (f[1] == "0" || f[2] == "0") {
			t.Errorf("a strategy got no budget:\n%s", out)
		}
	}
	if !strings.Contains(out, "transitions") {
		t.Errorf("no transitions row:\n%s", out)
	}
}

// A comparison exits with 1 when a strategy finds a violation, and prints
// a line of JSON per strategy.
func TestCompare(t *testing.T) {
	code, out, _ := cmd(t, "-model", "philosophers-3", "-strategy", "icb,cb-por2", "-bound", "1")
	if code != 1 || !strings.Contains(out, "deadlock, 1 preemption") || !strings.Contains(out, "executions, bound 0") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	code, out, _ = cmd(t, "-model", "locks3", "-strategy", "dfs,tx:odpor", "-json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || !strings.Contains(lines[1], `"strategy":"tx:odpor"`) {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// A clean run of a strategy that explores one execution per Mazurkiewicz
// trace ends with a coverage statement: locks3 has 3! traces, pfscan-3 522
// (equal to the terminal happens-before classes, as por's tests assert).
func TestCoverageStatement(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-model", "locks3", "-strategy", "icb-por", "-bound", "2"}, "no bug within 2 preemptions: 6 distinct partial orders explored\n"},
		{[]string{"-model", "pfscan-3", "-strategy", "odpor"}, "no bug in any schedule: 522 distinct partial orders explored\n"},
		{[]string{"-model", "inspect-2.3.1", "-strategy", "cb-por2", "-bound", "1"}, "no bug within 1 preemption: 3 distinct partial orders explored\n"},
	} {
		code, out, errs := cmd(t, tc.args...)
		if code != 0 || !strings.HasSuffix(out, tc.want) {
			t.Errorf("weft %v: exit %d, %s\n%s; want it to end with %q", tc.args, code, errs, out, tc.want)
		}
	}
	// Not after a violation, nor for a strategy that may explore a trace twice.
	for _, args := range [][]string{
		{"-model", "philosophers-3", "-strategy", "odpor"},
		{"-model", "pfscan-3", "-strategy", "dpor"},
	} {
		if _, out, _ := cmd(t, args...); strings.Contains(out, "partial orders") {
			t.Errorf("weft %v:\n%s", args, out)
		}
	}
}

// cpc and cycle run transactions whole and do not promise to meet every
// deadlock: on philosophers-3, which deadlocks, they say so instead of a
// bare "ok", in the text and in the JSON.
func TestTransactionsSayDeadlocksAreNotLookedFor(t *testing.T) {
	for _, strat := range []string{"cpc", "cycle", "tx:dfs-stateful"} {
		code, out, errs := cmd(t, "-model", "philosophers-3", "-strategy", strat)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", strat, code, errs)
		}
		if !strings.Contains(out, "deadlocks not looked for") {
			t.Errorf("%s: %q does not say deadlocks were not looked for", strat, out)
		}
		r := cmdJSON(t, 0, "-model", "philosophers-3", "-strategy", strat)
		if len(r.Finds) == 0 || slices.Contains(r.Finds, "deadlock") || !slices.Contains(r.NotLookedFor, "deadlock") {
			t.Errorf("%s -json: finds %v, not looked for %v; want no deadlock", strat, r.Finds, r.NotLookedFor)
		}
	}
}

// Errors exit with 2, with one "weft:" and the reason; under -json the line
// says "error".
func TestErrorsExit2(t *testing.T) {
	broken := []System{Model[[]int]("broken", tstest.Broken(tstest.MutatesState, true))}
	for _, args := range [][]string{{"-model", "broken", "-strategy", "dfs"}, {"-model", "broken"}} {
		code, out, errs := cmdOn(t, broken, args...)
		if code != 2 || out != "" || !strings.Contains(errs, "Apply modified its argument") {
			t.Errorf("weft %v: exit %d, %q, %q", args, code, out, errs)
		}
		if strings.Count(errs, "weft: ") != 1 {
			t.Errorf("weft %v: %q", args, errs)
		}
		code, out, _ = cmdOn(t, broken, append(args, "-json")...)
		var r Report
		if err := json.Unmarshal([]byte(out), &r); code != 2 || err != nil || r.Verdict != "error" || !strings.Contains(r.Error, "Apply modified") || strings.Contains(r.Error, "weft: ") {
			t.Errorf("weft %v -json: exit %d, %+v, %v", args, code, r, err)
		}
	}
	// A strategy that refuses what a user's system uses: an error, said once.
	code, _, errs := cmdOn(t, broken, "-model", "broken", "-strategy", "sym")
	if code != 2 || !strings.Contains(errs, "needs a model that declares its symmetry") {
		t.Errorf("sym: exit %d, %q", code, errs)
	}
	// An interrupted search shows what it had, and exits with 2.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code = Run(ctx, []string{"-q", "-model", "locks3", "-strategy", "dfs"}, &out, &errb, Bundled()...)
	if code != 2 || !strings.Contains(out.String(), "locks3, dfs: ") || !strings.Contains(errb.String(), "context canceled") {
		t.Errorf("cancelled: exit %d, %q, %q", code, out.String(), errb.String())
	}
}

// -workers changes nothing a search reports, on every bundled model that a
// splitting strategy takes, with and without KeepGoing and under each kind
// of limit: the whole JSON report but the time and the parallel search's
// own figures.
func TestWorkersSameOnEveryModel(t *testing.T) {
	limits := [][]string{{"-max-transitions", "3000"}, {"-max-executions", "37", "-max-transitions", "40000"}, {"-keep-going", "-max-transitions", "40000"}}
	if testing.Short() {
		limits = limits[:1]
	}
	strip := func(r Report) string {
		r.Seconds = 0
		for k := range r.Stats {
			if strings.HasPrefix(k, "parallel-") || k == "feasibility-replays" {
				delete(r.Stats, k) // a worker may replay what the serial search need not
			}
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	report := func(args ...string) (Report, bool) {
		code, out, _ := cmd(t, append(args, "-json")...)
		var r Report
		if code == 2 || json.Unmarshal([]byte(out), &r) != nil {
			return r, false // refused (a cyclic model, say)
		}
		return r, true
	}
	compared, split := 0, 0
	for _, m := range Bundled() {
		for _, s := range []string{"odpor", "dpor", "sleep"} {
			for _, lim := range limits {
				args := append([]string{"-model", m.Name(), "-strategy", s}, lim...)
				one, ok := report(args...)
				if !ok {
					continue
				}
				for _, w := range []string{"2", "3"} {
					par, ok := report(append(args, "-workers", w)...)
					if par.Stats["parallel-units"] > 0 {
						split++
					}
					if a, b := strip(one), strip(par); !ok || a != b {
						t.Errorf("weft %v -workers %s:\n%s\nwant\n%s", args, w, b, a)
					}
				}
				compared++
			}
		}
	}
	t.Logf("%d searches compared with 2 and 3 workers; %d of the parallel ones split into units", compared, split)
	if compared < 50 || split < compared/4 {
		t.Errorf("%d searches compared, %d parallel ones split: want at least 50, and a quarter of those split", compared, split)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 48828: "48,828", 3108105: "3,108,105", -1234: "-1,234"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// -workers gives the same verdict and figures as one goroutine.
func TestWorkers(t *testing.T) {
	for _, strategy := range []string{"odpor", "dpor", "sleep"} {
		_, one, _ := cmd(t, "-model", "lastzero-5", "-strategy", strategy, "-q")
		code, four, errs := cmd(t, "-model", "lastzero-5", "-strategy", strategy, "-q", "-workers", "4")
		strip := func(s string) string { return regexp.MustCompile(`\([0-9.]+[mµn]?s\)`).ReplaceAllString(s, "") }
		if code != 0 || strip(one) != strip(four) {
			t.Errorf("%s: exit %d, stderr %q, output\n%s\nwant\n%s", strategy, code, errs, four, one)
		}
	}
}
