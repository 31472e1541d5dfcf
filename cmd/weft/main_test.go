package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func weft(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), append([]string{"-q"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

type jsonResult struct {
	Model       string `json:"model"`
	Executions  int64  `json:"executions"`
	Transitions int64  `json:"transitions"`
	States      int64  `json:"states"`
	Complete    bool   `json:"complete"`
	Violation   *struct {
		Kind        string                 `json:"kind"`
		Schedule    []struct{ Thread int } `json:"schedule"`
		Preemptions int                    `json:"preemptions"`
	} `json:"violation"`
}

func weftJSON(t *testing.T, args ...string) jsonResult {
	t.Helper()
	code, out, errs := weft(t, append(args, "-json")...)
	if code != 0 {
		t.Fatalf("weft %v: exit %d: %s", args, code, errs)
	}
	var r jsonResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("weft %v: bad JSON %q: %v", args, out, err)
	}
	return r
}

// The figures the foundation issue names.
func TestJSONFigures(t *testing.T) {
	for _, c := range []struct {
		model string
		execs int64
	}{{"inspect-2.3.1", 6}, {"locks3", 6}} {
		r := weftJSON(t, "-model", c.model, "-strategy", "dfs")
		if r.Executions != c.execs || !r.Complete || r.Violation != nil || r.Transitions == 0 {
			t.Errorf("%s: %+v, want %d executions, complete, no violation", c.model, r, c.execs)
		}
	}
	r := weftJSON(t, "-model", "philosophers-3", "-strategy", "dfs")
	if r.Violation == nil || r.Violation.Kind != "deadlock" || len(r.Violation.Schedule) != 3 {
		t.Fatalf("philosophers-3: %+v, want a deadlock with a 3-step schedule", r)
	}
	r = weftJSON(t, "-model", "philosophers-3", "-strategy", "icb")
	if r.Violation == nil || r.Violation.Preemptions != 1 {
		t.Fatalf("philosophers-3 under icb: %+v, want the deadlock with 1 preemption", r.Violation)
	}
	r = weftJSON(t, "-model", "peterson", "-strategy", "dfs-stateful")
	if r.States == 0 || !r.Complete || r.Violation != nil {
		t.Errorf("peterson: %+v, want a complete stateful search without violation", r)
	}
}

func TestTraceAndDOT(t *testing.T) {
	code, out, _ := weft(t, "-model", "lost-update", "-strategy", "icb", "-trace")
	if code != 0 || !strings.Contains(out, "check failure") || !strings.Contains(out, "* ") || !strings.Contains(out, "counter") {
		t.Errorf("trace: exit %d\n%s", code, out)
	}
	for _, model := range []string{"lost-update", "locks3"} { // violating, and last execution
		code, out, errs := weft(t, "-model", model, "-strategy", "dfs", "-dot")
		if code != 0 || !strings.HasPrefix(out, "digraph") || !strings.Contains(out, "->") {
			t.Errorf("%s -dot: exit %d: %s\n%s", model, code, errs, out)
		}
	}
}

func TestSummary(t *testing.T) {
	if testing.Short() {
		t.Skip("explores every model")
	}
	code, out, errs := weft(t)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, m := range catalog() {
		if !strings.Contains(out, displayName(m.info, m.info.Default)) {
			t.Errorf("summary lacks %s:\n%s", m.info.Name, out)
		}
	}
	if strings.Contains(out, "error") {
		t.Errorf("summary has errors:\n%s", out)
	}
}

func TestList(t *testing.T) {
	code, out, _ := weft(t, "-list")
	if code != 0 || !strings.Contains(out, "philosophers") || !strings.Contains(out, "icb") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

// Bad command lines exit with status 2 and say what is wrong.
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
		{[]string{"-strategy", "dfs", "-bound", "2"}, "takes no preemption bound"},
		{[]string{"-model", "peterson", "-strategy", "dfs"}, "cannot run on peterson-1: it does not terminate on a cyclic model"},
		{[]string{"-trace"}, "need -model"},
		{[]string{"-max-transitions", "-5"}, "must not be negative"},
		{[]string{"-sync-only"}, "goes with -strategy icb"},
		{[]string{"stray"}, "unexpected argument"},
		{[]string{"-nosuchflag"}, "flag provided but not defined"},
	} {
		code, _, errs := weft(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("weft %v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
}

// A search cut short by a limit says so.
func TestBudget(t *testing.T) {
	r := weftJSON(t, "-model", "philosophers-4", "-strategy", "dfs", "-max-executions", "10", "-keep-going")
	if r.Complete || r.Executions != 10 {
		t.Errorf("%+v: want 10 executions, incomplete", r)
	}
}

// -timeout is a budget per search: in a comparison, a strategy that uses it
// up leaves the next one its own.
func TestTimeoutPerSearch(t *testing.T) {
	code, out, errs := weft(t, "-model", "filesystem-16", "-strategy", "sleep,dfs", "-timeout", "20ms")
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
		{[]string{"-model", "inspect-2.3.1", "-strategy", "cb-por2", "-bound", "1"}, "no bug within 1 preemptions: 3 distinct partial orders explored\n"},
	} {
		code, out, errs := weft(t, tc.args...)
		if code != 0 || !strings.HasSuffix(out, tc.want) {
			t.Errorf("weft %v: exit %d, %s\n%s; want it to end with %q", tc.args, code, errs, out, tc.want)
		}
	}
	// Not after a violation, nor for a strategy that may explore a trace twice.
	for _, args := range [][]string{
		{"-model", "philosophers-3", "-strategy", "odpor"},
		{"-model", "pfscan-3", "-strategy", "dpor"},
	} {
		if _, out, _ := weft(t, args...); strings.Contains(out, "partial orders") {
			t.Errorf("weft %v:\n%s", args, out)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 48828: "48,828", 3108105: "3,108,105", -1234: "-1,234"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
