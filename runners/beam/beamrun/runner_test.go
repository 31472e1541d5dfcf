package beamrun

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/weftlab/weft/cli"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
)

func TestMain(m *testing.M) {
	RegisterCatalog()
	flag.Parse()
	beam.Init()
	// prism logs every job at Info: keep the test output to failures.
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	os.Exit(m.Run())
}

// outcome is what a search gives that must not depend on where its units
// were explored.
type outcome struct {
	res       ts.Result
	first     string // the first violation's schedule
	terminals []string
}

func search(t *testing.T, model, strategy string, opt por.Options) outcome {
	t.Helper()
	target, err := cli.Lookup(model)
	if err != nil {
		t.Fatal(err)
	}
	var o outcome
	opt.OnTerminal = func(_ any, s ts.Schedule) { o.terminals = append(o.terminals, fmt.Sprint(s)) }
	o.res, err = target.Search(context.Background(), strategy, opt)
	if err != nil {
		t.Fatal(err)
	}
	if o.res.Violation != nil {
		o.first = fmt.Sprint(o.res.Violation.Trace.Schedule())
	}
	return o
}

func (o outcome) diff(got outcome) string {
	w, g := o.res, got.res
	switch {
	case w.Executions != g.Executions || w.Transitions != g.Transitions || w.Violations != g.Violations || w.Complete != g.Complete:
		return fmt.Sprintf("executions %d, transitions %d, violations %d, complete %v; want %d, %d, %d, %v",
			g.Executions, g.Transitions, g.Violations, g.Complete, w.Executions, w.Transitions, w.Violations, w.Complete)
	case o.first != got.first:
		return fmt.Sprintf("first violation %s, want %s", got.first, o.first)
	case !slices.Equal(o.terminals, got.terminals):
		return fmt.Sprintf("%d terminal states, want %d (or another order)", len(got.terminals), len(o.terminals))
	}
	return ""
}

func newRunner(t *testing.T, model string) *Runner {
	t.Helper()
	r, err := New(Options{System: model, Output: t.TempDir(), Execute: prism.Execute})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A search whose units run in Beam pipelines on prism (in this process)
// is the search on one machine: the same figures, first violation and
// terminal states in the same order.
func TestBeamIsSerial(t *testing.T) {
	cases := []struct {
		model, strategy string
		split           int
		unitTransitions int64
		keepGoing       bool
		short           bool
	}{
		{"lastzero-8", "odpor", 6, 0, false, true},
		{"lastzero-8", "dpor", 6, 0, false, true},
		{"lastzero-6", "sleep", 5, 0, false, true},
		{"aget-bug-3", "odpor", 8, 0, true, true},
		{"twophase-bug-2", "odpor", 4, 0, false, true}, // stops at the first violation
		{"lastzero-8", "odpor", 3, 1000, false, true},  // large units handed back
		{"lastzero-8", "dpor", 3, 1000, false, true},   // large units split further
		{"lastzero-12", "odpor", 10, 0, false, false},
		{"indexer-16", "odpor", 0, 0, false, false},
		{"indexer-16", "odpor", 0, 5000, false, false},
		{"bluetooth-3", "odpor", 8, 0, true, false},
	}
	for _, c := range cases {
		if testing.Short() && !c.short {
			continue
		}
		t.Run(fmt.Sprintf("%s/%s/%d", c.model, c.strategy, c.unitTransitions), func(t *testing.T) {
			var opt por.Options
			opt.KeepGoing = c.keepGoing
			want := search(t, c.model, c.strategy, opt)
			r := newRunner(t, c.model)
			opt.Runner, opt.SplitDepth, opt.SplitAfter, opt.UnitTransitions = r, c.split, -1, c.unitTransitions
			got := search(t, c.model, c.strategy, opt)
			if d := want.diff(got); d != "" {
				t.Fatalf("on Beam: %s", d)
			}
			l := r.Load()
			t.Logf("%d executions, %d terminal states, %d violations; %d rounds, %d units sent (%d B), %d explored (results %d B); the search took %d units, explored %d itself, split %d further, %d handed back",
				got.res.Executions, len(got.terminals), got.res.Violations, l.Rounds, l.Sent, l.UnitBytes, len(l.Units), l.ResultBytes,
				got.res.Stats["parallel-units"], got.res.Stats["parallel-misses"]+got.res.Stats["parallel-reruns"], got.res.Stats["parallel-split-further"], got.res.Stats["parallel-handed-back"])
			if l.Rounds == 0 || len(l.Units) == 0 || got.res.Stats["parallel-remote-units"] == 0 {
				t.Fatalf("no unit explored on Beam: %+v", got.res.Stats)
			}
			// An odpor unit too large is handed back part explored, others'
			// are dropped and split further.
			if c.unitTransitions > 0 && got.res.Stats["parallel-split-further"]+got.res.Stats["parallel-handed-back"] == 0 {
				t.Errorf("no unit split further or handed back at %d transitions", c.unitTransitions)
			}
			if c.unitTransitions > 0 && (c.strategy == "odpor") != (got.res.Stats["parallel-handed-back"] > 0) {
				t.Errorf("%s: %d units handed back", c.strategy, got.res.Stats["parallel-handed-back"])
			}
			if l.Duplicates != 0 {
				t.Errorf("%d duplicates without retries", l.Duplicates)
			}
		})
	}
}

// A unit whose result is written twice (a retried bundle) is counted once:
// the runner hands one result per unit to the search, and the search's
// result is the serial one.
func TestRetriedUnitCountedOnce(t *testing.T) {
	const model = "lastzero-6"
	want := search(t, model, "odpor", por.Options{})
	dir := t.TempDir()
	r, err := New(Options{System: model, Output: dir, Execute: prism.Execute, twice: true})
	if err != nil {
		t.Fatal(err)
	}
	var opt por.Options
	opt.Runner, opt.SplitDepth, opt.SplitAfter = r, 5, -1
	got := search(t, model, "odpor", opt)
	if d := want.diff(got); d != "" {
		t.Fatalf("with every result written twice: %s", d)
	}
	l := r.Load()
	if l.Duplicates != len(l.Units) || l.Duplicates == 0 {
		t.Fatalf("%d results dropped as duplicates, want one per unit explored (%d)", l.Duplicates, len(l.Units))
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("%d files left in the output directory after %d rounds, want none", len(left), l.Rounds)
	}
	// One round by hand: each unit's result comes back once.
	target, _ := cli.Lookup(model)
	rec := &recorder{}
	opt.Runner = rec
	if _, err := target.Search(context.Background(), "odpor", opt); err != nil {
		t.Fatal(err)
	}
	batch := rec.batches[0]
	res, err := r.RunUnits(context.Background(), batch)
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]string, len(res))
	for i, x := range res {
		keys[i] = x.Key()
	}
	sort.Strings(keys)
	want2 := make([]string, len(batch))
	for i, u := range batch {
		want2[i] = u.Key()
	}
	sort.Strings(want2)
	if !slices.Equal(keys, slices.Compact(want2)) {
		t.Fatalf("%d results for %d units: not one each", len(res), len(batch))
	}
}

// recorder is a UnitRunner that keeps the batches it is sent and explores
// nothing (the search explores them itself).
type recorder struct{ batches [][]por.Unit }

func (r *recorder) RunUnits(_ context.Context, units []por.Unit) ([]por.UnitResult, error) {
	r.batches = append(r.batches, slices.Clone(units))
	return nil, nil
}

// Bad options are errors that say what is wrong, before any pipeline runs.
func TestBadOptions(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		opt  Options
		want string
	}{
		{Options{Output: dir, Execute: prism.Execute}, "no System"},
		{Options{System: "no-such-model", Output: dir, Execute: prism.Execute}, `unknown model "no-such-model"`},
		{Options{System: "lastzero-99", Output: dir, Execute: prism.Execute}, "must be a whole number"},
		{Options{System: "lastzero-4", Execute: prism.Execute}, "no Output"},
		{Options{System: "lastzero-4", Output: "s4://bucket/dir", Execute: prism.Execute}, `scheme "s4" not registered`},
		{Options{System: "lastzero-4", Output: dir}, "no Execute"},
		{Options{System: "lastzero-4", Output: dir, Execute: prism.Execute, Shards: -1}, "negative Shards"},
	} {
		_, err := New(c.opt)
		if !errors.Is(err, ts.ErrBadOptions) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v): %v, want an error wrapping ts.ErrBadOptions saying %q", c.opt, err, c.want)
		}
	}
}

// A unit of another system fails the round with the worker's error.
func TestUnitOfAnotherSystem(t *testing.T) {
	rec := &recorder{}
	target, _ := cli.Lookup("lastzero-6")
	var opt por.Options
	opt.Runner, opt.SplitDepth, opt.SplitAfter = rec, 5, -1
	if _, err := target.Search(context.Background(), "odpor", opt); err != nil {
		t.Fatal(err)
	}
	r := newRunner(t, "lastzero-5")
	_, err := r.RunUnits(context.Background(), rec.batches[0])
	if err == nil || !strings.Contains(err.Error(), "round 1") || !strings.Contains(err.Error(), "malformed unit") {
		t.Fatalf("units of lastzero-6 on lastzero-5: %v, want the round's error naming the bad unit", err)
	}
}

// A round's file with a line that is not a record, or a record that holds
// no unit result, is an error naming the line.
func TestBadResultFile(t *testing.T) {
	r := newRunner(t, "lastzero-4")
	dir := t.TempDir()
	for _, c := range []struct{ content, want string }{
		{"{\"result\":\"AAEC\"}\n", "line 1 holds no unit result"},
		{"not json\n", "line 1: invalid character"},
	} {
		file := dir + "/round.jsonl"
		if err := os.WriteFile(file, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, _, err := r.read(context.Background(), file, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error saying %q", c.content, err, c.want)
		}
	}
	if _, _, _, err := r.read(context.Background(), dir+"/none.jsonl", 1); err == nil {
		t.Error("a missing round file read without error")
	}
}
