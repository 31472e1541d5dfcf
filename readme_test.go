package weft_test

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/cli"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// The README's "Testing your own reduction" snippets, word for word but for
// myExplore, which is ODPOR here: they must pass as shown (run them longer
// with -rapid.checks=3000).

func myExplore[S any](ctx context.Context, sys ts.TransitionSystem[S], opt ts.Options) (ts.Result, error) {
	return por.ODPOR(ctx, sys, por.Options{Options: opt})
}

func TestMyReduction(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{MaxThreads: 3}).Draw(t, "program")
		tstest.CheckReduction(t, p, myExplore[tstest.State], tstest.ReductionOptions{Bound: ts.NoBound})
	})
}

func TestMyReductionIsOptimal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{NoAsserts: true}).Draw(t, "program")
		tstest.CheckOptimal(t, p, myExplore[tstest.State], tstest.ReductionOptions{Bound: ts.NoBound})
	})
}

// The README's excerpt of `go run ./cmd/weft` is the command's output, but
// for the times: every figure and verdict of each line it shows.
func TestReadmeTableExcerpt(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "The first prints one line per bundled model")
	if !ok {
		t.Fatal("README: the table's excerpt is gone")
	}
	_, block, _ := strings.Cut(after, "```\n")
	block, _, _ = strings.Cut(block, "```")
	var out, errb bytes.Buffer
	if code := cli.Main(nil, &out, &errb, cli.Bundled()...); code != 1 {
		t.Fatalf("weft exited %d, want 1 (bundled models have bugs): %s", code, errb.String())
	}
	got := map[string]string{}
	for _, l := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(l); len(f) > 6 {
			got[f[0]] = withoutTime(f)
		}
	}
	lines := 0
	for _, l := range strings.Split(strings.TrimSpace(block), "\n")[1:] {
		f := strings.Fields(l)
		if len(f) < 7 {
			t.Fatalf("README: a line of the excerpt is not a row: %q", l)
		}
		lines++
		if want := withoutTime(f); got[f[0]] != want {
			t.Errorf("README shows %q, the command prints %q", want, got[f[0]])
		}
	}
	if lines < 5 {
		t.Errorf("README's excerpt has %d rows", lines)
	}
}

// withoutTime joins a row's fields but its time, the sixth.
func withoutTime(f []string) string {
	return strings.Join(append(slices.Clone(f[:5]), f[6:]...), " ")
}
