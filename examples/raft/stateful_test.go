package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/sim"
	"github.com/weftlab/weft/ts"
	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// watched is a scenario that records, at every state a search reaches,
// what the fingerprint stands for: every thread's next step, status and
// outcomes and the check's answer. Two states with one fingerprint and
// different answers mean the fingerprint misses state.
type watched struct {
	HashedScenario
	seen map[uint64]string
	bad  []string
}

func (w *watched) Apply(s sim.State, t ts.Tid) sim.State { return w.ApplyOutcome(s, t, 0) }

func (w *watched) ApplyOutcome(s sim.State, t ts.Tid, c int) sim.State {
	n := w.HashedScenario.ApplyOutcome(s, t, c)
	var b strings.Builder
	for u := range w.Threads() {
		step, st := w.Next(n, ts.Tid(u))
		fmt.Fprintf(&b, "%v %v %d;", step, st, w.Outcomes(n, ts.Tid(u)))
	}
	fmt.Fprint(&b, w.Check(n))
	h := w.Hash(n)
	if old, ok := w.seen[h]; !ok {
		w.seen[h] = b.String()
	} else if old != b.String() && len(w.bad) < 3 {
		w.bad = append(w.bad, fmt.Sprintf("hash %#x: %s and %s", h, old, b.String()))
	}
	return n
}

var long = flag.Bool("long", false, "compare the stateful searches with the stateless one on larger scenarios too (about a minute more)")

// outcome is what a search saw: the fingerprints of the terminal states and
// the violations' messages.
type outcome struct {
	terminals  map[uint64]bool
	violations map[string]bool
}

func collect(h sim.Hashed) (*outcome, ts.Options) {
	o := &outcome{map[uint64]bool{}, map[string]bool{}}
	return o, ts.Options{KeepGoing: true,
		OnTerminal:  func(s any, _ ts.Schedule) { o.terminals[h.Hash(s.(sim.State))] = true },
		OnViolation: func(v *ts.Violation) { o.violations[v.Err.Error()] = true }}
}

// The stateful searches merge states by the cluster's fingerprint; a
// fingerprint that missed state would make them skip behaviours. On every
// configuration the stateless DPOR exhausts here, with and without each bug
// and with a loss, the stateful searches (stateful DFS and SDPOR) must reach
// exactly the same terminal states and violations, and over the stateless
// search no two states with one fingerprint answer differently.
func TestStatefulMatchesStateless(t *testing.T) {
	cases := []struct {
		name  string
		cfg   Config
		moves []int
	}{
		{"1 election", Config{Campaigners: []int{0}, Proposers: []int{}}, nil},
		{"1 election, double vote", Config{Campaigners: []int{0}, Proposers: []int{}, Bug: DoubleVote}, nil},
		{"1 election, early apply", Config{Campaigners: []int{0}, Proposers: []int{}, Bug: EarlyApply}, nil},
		{"1 election, 1 loss per link", Config{Campaigners: []int{0}, Proposers: []int{}, Loss: 1}, nil},
		// nodes 1 and 2 campaign, node 3 answers both requests and node 1
		// wins.
		{"2 elections after node 1 won, double vote", Config{Campaigners: []int{0, 1}, Proposers: []int{}, Bug: DoubleVote}, []int{6, 7, 1, 3, 4}},
		{"2 elections after node 1 won", Config{Campaigners: []int{0, 1}, Proposers: []int{}}, []int{6, 7, 1, 3, 4}},
		{"2 elections and a proposal after node 3 proposed and node 1 campaigned, early apply", Config{Campaigners: []int{0, 2}, Proposers: []int{2}, Bug: EarlyApply}, []int{8, 4, 1, 8, 6}},
	}
	if *long {
		cases = append(cases, []struct {
			name  string
			cfg   Config
			moves []int
		}{
			// about 25 s each
			{"2 elections after node 3 voted twice, double vote", Config{Campaigners: []int{0, 1}, Proposers: []int{}, Bug: DoubleVote}, []int{6, 7, 1, 3}},
			{"2 elections after node 3 voted once", Config{Campaigners: []int{0, 1}, Proposers: []int{}}, []int{6, 7, 1, 3}},
		}...)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w, _, err := Cluster(c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			h, err := w.HashedSystem(sim.Options{})
			if err != nil {
				t.Fatal(err)
			}
			sc, err := AfterHashed(h, c.moves...)
			if err != nil {
				t.Fatal(err)
			}
			wt := &watched{HashedScenario: sc, seen: map[uint64]string{}}
			want, opt := collect(h)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			res, err := por.DPOR(ctx, wt, por.Options{Options: opt})
			if err != nil || !res.Complete {
				t.Fatalf("stateless: %v, %v", res, err)
			}
			if len(wt.bad) > 0 {
				t.Fatalf("the fingerprint misses state: %s", wt.bad)
			}
			for _, s := range []struct {
				name string
				f    func(o ts.Options) (ts.Result, error)
			}{
				{"dfs-stateful", func(o ts.Options) (ts.Result, error) { return ts.ExploreStateful(ctx, sc, o) }},
				{"sdpor", func(o ts.Options) (ts.Result, error) { return por.SDPOR(ctx, sc, por.Options{Options: o}) }},
			} {
				got, opt := collect(h)
				r, err := s.f(opt)
				if err != nil || !r.Complete {
					t.Fatalf("%s: %v, %v", s.name, r, err)
				}
				if !maps.Equal(got.terminals, want.terminals) || !maps.Equal(got.violations, want.violations) {
					t.Errorf("%s: %d terminal states, violations %v; stateless DPOR: %d, %v", s.name,
						len(got.terminals), slices.Sorted(maps.Keys(got.violations)), len(want.terminals), slices.Sorted(maps.Keys(want.violations)))
				}
				t.Logf("%s: %d states, %d terminal states, %d violations (stateless DPOR: %d executions)", s.name, r.States, len(got.terminals), len(got.violations), res.Executions)
			}
		})
	}
}

// A candidate that has a refusal differs from one that has none, though
// raft's status is the same: one more refusal loses the election. The
// fingerprint must tell them apart (no comparison above reaches such a
// pair of states); once the node is a follower again the votes no longer
// matter.
func TestFingerprintCountsVotes(t *testing.T) {
	send := func(int, *pb.Message) {}
	n := newNode(0, NoBug)
	n.Act(0, send)
	if n.rn.BasicStatus().RaftState != raft.StateCandidate {
		t.Fatal("node 1 does not campaign")
	}
	before := n.Hash()
	n.Receive(1, &pb.Message{Type: pb.MessageType_MsgVoteResp.Enum(), From: proto.Uint64(2), To: proto.Uint64(1),
		Term: proto.Uint64(n.rn.BasicStatus().GetTerm()), Reject: proto.Bool(true)}, send)
	if st := n.rn.BasicStatus(); st.RaftState != raft.StateCandidate {
		t.Fatalf("after one refusal node 1 is %v", st.RaftState)
	}
	if n.Hash() == before {
		t.Error("a candidate's refusal does not change the fingerprint")
	}
}
