package models

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/weftlab/weft/ts"
)

// TestSpinStates checks that the Promela models in testdata/promela (which
// scripts/spin-compare.sh times SPIN on) are the bundled models: SPIN's
// exhaustive search without reduction stores as many states, and takes as
// many transitions, as ts.ExploreStateful. It needs SPIN and gcc
// (scripts/install-spin.sh installs Debian's spin) and skips without them.
func TestSpinStates(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles SPIN verifiers with gcc (about a second each): not with -short")
	}
	for _, tool := range []string{"spin", "gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (scripts/install-spin.sh installs SPIN): the Promela models are not checked", tool)
		}
	}
	for _, tc := range []struct {
		model string
		n     int
		weft  func(n int) (ts.Result, error)
	}{
		{"philosophers", 3, philosophersStateful},
		{"philosophers", 4, philosophersStateful},
		{"lastzero", 3, lastzeroStateful},
		{"lastzero", 4, lastzeroStateful},
	} {
		t.Run(fmt.Sprintf("%s-%d", tc.model, tc.n), func(t *testing.T) {
			t.Parallel()
			res, err := tc.weft(tc.n)
			if err != nil || !res.Complete {
				t.Fatalf("ts.ExploreStateful: %v, %v", res, err)
			}
			states, transitions := spinSearch(t, tc.model, tc.n)
			if states != res.States || transitions != res.Transitions {
				t.Errorf("SPIN: %d states, %d transitions; ts.ExploreStateful: %d states, %d transitions",
					states, transitions, res.States, res.Transitions)
			}
		})
	}
}

func philosophersStateful(n int) (ts.Result, error) {
	return ts.ExploreStateful(context.Background(), NewPhilosophers(n), ts.Options{KeepGoing: true})
}

func lastzeroStateful(n int) (ts.Result, error) {
	return ts.ExploreStateful(context.Background(), NewLastzero(n), ts.Options{KeepGoing: true})
}

var (
	spinStored      = regexp.MustCompile(`(?m)^\s*(\d+) states, stored`)
	spinTransitions = regexp.MustCompile(`(?m)^\s*(\d+) transitions \(= stored\+matched\)`)
	spinTruncated   = regexp.MustCompile(`max search depth too small|Bit statespace|out of memory|MEMLIM`)
)

// spinSearch runs SPIN's exhaustive search of testdata/promela/model.pml at
// N = n without partial-order reduction and returns the states it stored
// and the transitions it took. The flags are scripts/spin-compare.sh's:
// spin -o1 -o2 -o3 keeps every variable and statement as written (no
// dead-variable resetting, no statement merging), -DNOREDUCE turns off
// partial-order reduction, -E accepts the deadlocks as end states.
func spinSearch(t *testing.T, model string, n int) (states, transitions int64) {
	t.Helper()
	src, err := filepath.Abs(filepath.Join("..", "..", "testdata", "promela", model+".pml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run := func(name string, args ...string) string {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return string(out)
	}
	run("spin", "-o1", "-o2", "-o3", "-DN="+strconv.Itoa(n), "-a", src)
	run("gcc", "-O0", "-DNOREDUCE", "-DSAFETY", "-o", "pan", "pan.c")
	out := run(filepath.Join(dir, "pan"), "-E", "-n", "-m10000", "-w16")
	if spinTruncated.MatchString(out) {
		t.Fatalf("SPIN's search was not exhaustive:\n%s", out)
	}
	s, tr := spinStored.FindStringSubmatch(out), spinTransitions.FindStringSubmatch(out)
	if s == nil || tr == nil {
		t.Fatalf("no state or transition count in SPIN's output:\n%s", out)
	}
	states, _ = strconv.ParseInt(s[1], 10, 64)
	transitions, _ = strconv.ParseInt(tr[1], 10, 64)
	// SPIN counts storing the initial state as a transition; weft counts
	// the steps taken.
	return states, transitions - 1
}
