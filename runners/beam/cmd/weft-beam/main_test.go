package main

import (
	"context"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/weftlab/weft/runners/beam/beamrun"
)

func TestMain(m *testing.M) {
	beamrun.RegisterCatalog()
	flag.Parse()
	beam.Init()
	os.Exit(m.Run())
}

// The command runs a search on prism in this process and prints the
// result, the load figures, and the check against the search alone.
func TestRun(t *testing.T) {
	var out, errs strings.Builder
	c := config{model: "aget-bug-3", strategy: "odpor", splitDepth: 8, splitAfter: -1, keepGoing: true, terminals: true, compare: true}
	if code := run(context.Background(), c, &out, &errs); code != 1 {
		t.Fatalf("exit code %d, want 1 (a violation); stderr:\n%s", code, errs.String())
	}
	for _, want := range []string{
		"aget-bug-3, odpor on beam (prism): check failure",
		"violations: 7044\n",
		"terminal states: 90\n",
		"replay: [",
		"0 duplicate results dropped",
		"per bundle (",
		"on this machine alone: the same",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// Bad flags are errors before any pipeline runs.
func TestBadFlags(t *testing.T) {
	for _, c := range []struct {
		c    config
		want string
	}{
		{config{strategy: "odpor"}, "-model is required"},
		{config{model: "lastzero-4", strategy: "odpor", runner: "flinc"}, `unknown --runner "flinc"`},
		{config{model: "lastzero-4", strategy: "odpor", runner: "flink"}, "-output is required with --runner flink"},
		{config{model: "nosuch", strategy: "odpor"}, `unknown model "nosuch"`},
		{config{model: "lastzero-4", strategy: "icb"}, `strategy "icb" does not split into units`},
	} {
		var out, errs strings.Builder
		if code := run(context.Background(), c.c, &out, &errs); code != 2 || !strings.Contains(errs.String(), c.want) {
			t.Errorf("%+v: exit %d, stderr %q; want 2 and %q", c.c, code, errs.String(), c.want)
		}
	}
}
