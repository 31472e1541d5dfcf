package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/sim"
	"github.com/weftlab/weft/ts"
)

// One election, no proposal: raft is safe in every schedule (630 traces,
// every terminal state checked), and the adapter's figures reach the
// result.
func TestOneElection(t *testing.T) {
	_, sys, err := Cluster(Config{Campaigners: []int{0}, Proposers: []int{}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := por.ODPOR(context.Background(), sys, por.Options{})
	if err != nil || !res.Complete || res.Violation != nil || res.Executions != 630 {
		t.Fatalf("got %v, %v; want 630 executions, no violation", res, err)
	}
	if res.Stats["sim.steps"] == 0 || res.Stats["sim.resets"] == 0 {
		t.Errorf("stats %v", res.Stats)
	}
}

// A node that grants every vote lets two candidates of one term win. From
// the start the space of two elections is too big to reach the bug in a
// test's time (see the README's table), so the search starts where both
// nodes have campaigned; the trace names the nodes and raft's messages,
// and replays.
func TestDoubleVote(t *testing.T) {
	w, sys, err := Cluster(Config{Campaigners: []int{0, 1}, Proposers: []int{}, Bug: DoubleVote})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := After(sys, 6, 7)
	if err != nil {
		t.Fatal(err)
	}
	res, err := por.ODPOR(context.Background(), sc, por.Options{})
	if err != nil || res.Violation == nil || res.Violation.Kind != ts.CheckFailure || !strings.Contains(res.Violation.Err.Error(), "election safety") {
		t.Fatalf("got %v, %v; want an election safety violation", res, err)
	}
	if _, err := ts.Confirm[sim.State](sc, res.Violation, res.Violation.Trace.Schedule()); err != nil {
		t.Errorf("the violation does not replay: %v", err)
	}
	text := res.Violation.Trace.Format(w)
	for _, want := range []string{"MsgVote", "MsgVoteResp", "0→2", "2→1"} {
		if !strings.Contains(text, want) {
			t.Errorf("trace lacks %q:\n%s", want, text)
		}
	}
	// Without the bug, the same scenario shows no violation.
	_, clean, _ := Cluster(Config{Campaigners: []int{0, 1}, Proposers: []int{}})
	sc, _ = After(clean, 6, 7)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if res, err := por.ODPOR(ctx, sc, por.Options{}); res.Violation != nil {
		t.Errorf("clean raft: %v, %v", res, err)
	}
}

// A node that applies entries when it appends them, before they commit:
// as leader it applies its own proposal, which a leader of the next term
// (elected by the node that never saw it) does not have. The search starts
// where node 3 has won an election, proposed, and node 1 has campaigned.
func TestEarlyApply(t *testing.T) {
	w, sys, err := Cluster(Config{Campaigners: []int{0, 2}, Proposers: []int{2}, Bug: EarlyApply})
	if err != nil {
		t.Fatal(err)
	}
	// node 3 campaigns; its request reaches node 1 (link 2→0); the vote
	// comes back (link 0→2); node 3 proposes; node 1 campaigns.
	sc, err := After(sys, 8, 4, 1, 8, 6)
	if err != nil {
		t.Fatal(err)
	}
	res, err := por.ODPOR(context.Background(), sc, por.Options{})
	if err != nil || res.Violation == nil || !strings.Contains(res.Violation.Err.Error(), "leader completeness") {
		t.Fatalf("got %v, %v; want a leader completeness violation", res, err)
	}
	if _, err := ts.Confirm[sim.State](sc, res.Violation, res.Violation.Trace.Schedule()); err != nil {
		t.Errorf("the violation does not replay: %v", err)
	}
	if text := res.Violation.Trace.Format(w); !strings.Contains(text, "MsgVoteResp") {
		t.Errorf("trace:\n%s", text)
	}
	// Without the bug, the same scenario shows no violation in the time a
	// test has.
	_, clean, _ := Cluster(Config{Campaigners: []int{0, 2}, Proposers: []int{2}})
	sc, _ = After(clean, 8, 4, 1, 8, 6)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if res, err := por.ODPOR(ctx, sc, por.Options{}); res.Violation != nil {
		t.Errorf("clean raft: %v, %v", res, err)
	}
}

// With fingerprints the whole space of two elections is exhausted, so both
// bugs are found from the initial state too, by the stateful DFS, and the
// violations replay; without the bug the same configurations are exhausted
// without a violation (the larger one, about 10 s, only with -long).
func TestBugsFromTheStart(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Campaigners: []int{0, 1}, Proposers: []int{}, Bug: DoubleVote}, "election safety"},
		{Config{Campaigners: []int{0, 2}, Proposers: []int{2}, Bug: EarlyApply}, "leader completeness"},
	} {
		w, _, err := Cluster(c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		h, err := w.HashedSystem(sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := ts.ExploreStateful(context.Background(), h, ts.Options{})
		if err != nil || res.Violation == nil || !strings.Contains(res.Violation.Err.Error(), c.want) {
			t.Fatalf("%v: got %v, %v; want %s", c.cfg.Bug, res, err, c.want)
		}
		if _, err := ts.Confirm[sim.State](h, res.Violation, res.Violation.Trace.Schedule()); err != nil {
			t.Errorf("%v: the violation does not replay: %v", c.cfg.Bug, err)
		}
		t.Logf("%v: %v after %d states\n%s", c.cfg.Bug, res.Violation.Err, res.States, res.Violation.Trace.Format(w))

		if !*long && len(c.cfg.Proposers) > 0 {
			continue
		}
		c.cfg.Bug = NoBug
		w, _, _ = Cluster(c.cfg)
		h, _ = w.HashedSystem(sim.Options{})
		res, err = ts.ExploreStateful(context.Background(), h, ts.Options{})
		if err != nil || !res.Complete || res.Violation != nil {
			t.Errorf("%v without the bug: %v, %v; want no violation", c.cfg, res, err)
		}
	}
}
