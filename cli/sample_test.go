package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// The samplers run from the command line: a found bug exits 1 with its
// replay schedule, JSON says what was sampled and the guarantee, and the
// flags that belong to samplers are refused elsewhere.
func TestSamplers(t *testing.T) {
	r := cmdJSON(t, 1, "-model", "wsq-bug2", "-strategy", "pct", "-pct-depth", "2", "-runs", "2000", "-seed", "3")
	if r.Verdict != "violation" || r.Violation == nil || r.Sampled == nil || r.Sampled.Depth != 2 || r.Sampled.Seed != 3 ||
		r.Sampled.PerRun <= 0 || !strings.Contains(r.Sampled.Guarantee, "depth 2") {
		t.Fatalf("%+v %+v", r, r.Sampled)
	}
	r = cmdJSON(t, 0, "-model", "pfscan-3", "-strategy", "urw", "-runs", "50")
	if r.Verdict != "incomplete" || r.Executions != 50 || r.Sampled == nil || r.Sampled.Runs != 50 || r.Complete {
		t.Fatalf("%+v", r)
	}
	r = cmdJSON(t, 0, "-model", "pfscan-3", "-strategy", "random", "-max-executions", "20")
	if r.Executions != 20 || r.Sampled == nil {
		t.Fatalf("a limit as the budget: %+v", r)
	}
	code, out, _ := cmd(t, "-model", "pfscan-3", "-strategy", "random", "-runs", "30")
	if code != 0 || !strings.Contains(out, "sampled: 30 runs (seed 0)") || !strings.Contains(out, "guarantee: random walk") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	for _, args := range [][]string{
		{"-model", "pfscan-3", "-strategy", "odpor", "-runs", "5"},
		{"-model", "pfscan-3", "-strategy", "random", "-pct-depth", "2"},
		{"-model", "pfscan-3", "-strategy", "pct", "-pct-depth", "0"},
		{"-model", "pfscan-3", "-strategy", "pct", "-runs", "-1"},
		{"-model", "pfscan-3", "-seed", "1"},
		{"-model", "pfscan-3", "-strategy", "pct", "-bound", "1"},
		{"-strategy", "odpor", "-estimate"},
		{"-model", "pfscan-3", "-strategy", "odpor,dpor", "-estimate"},
	} {
		if code, _, errs := cmd(t, args...); code != 2 || errs == "" {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
	}
}

// -estimate prints the size before the search (here counted exactly), puts
// it in the JSON, adds the share done to progress lines, and refuses a
// strategy it has no tree for.
func TestEstimate(t *testing.T) {
	code, out, _ := cmd(t, "-model", "pfscan-3", "-strategy", "odpor", "-estimate")
	first, _, _ := strings.Cut(out, "\n")
	if code != 0 || first != "pfscan-3, odpor: estimate: 522 executions, 10,455 transitions (sleep-set tree, counted exactly by one probe); executions are the traces, transitions an upper bound" {
		t.Errorf("exit %d:\n%s", code, out)
	}
	r := cmdJSON(t, 1, "-model", "philosophers-3", "-strategy", "dfs", "-estimate", "-keep-going")
	if r.Estimate == nil || r.Estimate.Tree != "dfs tree" || r.Estimate.Executions != float64(r.Executions) {
		t.Errorf("%+v, estimate %+v", r, r.Estimate)
	}
	if code, _, errs := cmd(t, "-model", "pfscan-3", "-strategy", "icb", "-estimate"); code != 2 || !strings.Contains(errs, "no estimate for icb") {
		t.Errorf("icb: exit %d, %q", code, errs)
	}
	// Progress lines with the share done (a 1 ms interval, and a slow model
	// would be needed to be sure of one: only the format is checked when
	// one comes).
	var outb, errb bytes.Buffer
	Run(context.Background(), []string{"-model", "pfscan-4", "-strategy", "odpor", "-estimate"}, &outb, &errb, Bundled()...)
	for _, line := range strings.Split(strings.TrimSpace(errb.String()), "\n") {
		if line != "" && !strings.Contains(line, "% of ~") {
			t.Errorf("progress line without the share done: %q", line)
		}
	}
}
