package network_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/sim"
	"github.com/weftlab/weft/sim/network"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

type msg string

// pinger pings every peer on its action (if active) and answers every ping
// with a pong.
type pinger struct {
	id, nodes    int
	active       bool
	pings, pongs int
}

func (p *pinger) Act(_ int, send func(int, msg)) {
	for to := range p.nodes {
		if to != p.id && p.active {
			send(to, "ping")
		}
	}
}

func (p *pinger) Receive(from int, m msg, send func(int, msg)) {
	switch m {
	case "ping":
		p.pings++
		send(from, "pong")
	case "pong":
		p.pongs++
	}
}

func (p *pinger) Hash() uint64           { return uint64(p.id)<<40 | uint64(p.pings)<<20 | uint64(p.pongs) }
func (p *pinger) Snapshot() any          { return *p }
func (p *pinger) Restore(v any)          { *p = v.(pinger) }
func hashMsg(m msg) uint64               { return uint64(len(m)) }
func newPinger(id int) network.Node[msg] { return &pinger{id: id, nodes: 2, active: true} }

// pingNet is a network of nodes pingers, of which the first active ping.
func pingNet(t *testing.T, nodes, active int, faults network.Faults, check func([]network.Node[msg]) error) *network.Network[msg] {
	t.Helper()
	newNode := func(id int) network.Node[msg] { return &pinger{id: id, nodes: nodes, active: id < active} }
	w, err := network.New(network.Config[msg]{Nodes: nodes, New: newNode,
		Actions: []network.Action{{Name: "ping", Budget: 1}}, Faults: faults, Check: check, HashMsg: hashMsg})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// The network keeps the transition-system contract (independent
// deliveries commute, footprints are honest, statuses and outcome counts
// depend only on each thread's own moves), and every reduction reaches
// exactly the terminal states of the exhaustive search, with faults.
func TestContractAndReductions(t *testing.T) {
	for _, c := range []struct {
		nodes, active int
		faults        network.Faults
	}{
		{2, 2, network.Faults{}},
		{2, 2, network.Faults{Loss: 1}},
		{2, 2, network.Faults{Loss: 1, Duplication: 1, Reorder: 1}},
		{3, 1, network.Faults{}},
		{3, 1, network.Faults{Loss: 1}},
	} {
		name := fmt.Sprintf("%d nodes, %d pinging, %+v", c.nodes, c.active, c.faults)
		w := pingNet(t, c.nodes, c.active, c.faults, nil)
		sys, err := w.HashedSystem(sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		tstest.Conformance(t, sys, tstest.ConformanceOptions{MaxStates: 3000})
		for sname, f := range map[string]tstest.Explorer[sim.State]{
			"odpor": func(ctx context.Context, s ts.TransitionSystem[sim.State], o ts.Options) (ts.Result, error) {
				return por.ODPOR(ctx, s, por.Options{Options: o})
			},
			"dpor": func(ctx context.Context, s ts.TransitionSystem[sim.State], o ts.Options) (ts.Result, error) {
				return por.DPOR(ctx, s, por.Options{Options: o})
			},
			"icb": func(ctx context.Context, s ts.TransitionSystem[sim.State], o ts.Options) (ts.Result, error) {
				return cbound.ICB(ctx, s, cbound.Options{Options: o, Bound: cbound.Unbounded})
			},
		} {
			rep := tstest.CheckReduction(t, sys, f, tstest.ReductionOptions{Bound: ts.NoBound})
			if len(rep.Errors) > 0 || rep.ExpectedTerminals == 0 {
				t.Errorf("%s, %s: %d discrepancies, %d terminal states", name, sname, len(rep.Errors), rep.ExpectedTerminals)
			}
		}
		odpor := func(ctx context.Context, s ts.TransitionSystem[sim.State], o ts.Options) (ts.Result, error) {
			return por.ODPOR(ctx, s, por.Options{Options: o})
		}
		if rep := tstest.CheckOptimal(t, sys, odpor, tstest.ReductionOptions{Bound: ts.NoBound}); len(rep.Errors) > 0 {
			t.Errorf("%s: odpor not optimal", name)
		}
	}
}

// A duplicated ping makes node 1 answer twice: "at most one pong per ping"
// fails, only with duplication, and the trace names nodes and messages.
func TestDuplicationBug(t *testing.T) {
	onePong := func(nodes []network.Node[msg]) error {
		for i, nd := range nodes {
			if p := nd.(*pinger); p.pongs > len(nodes)-1 {
				return fmt.Errorf("node %d got %d pongs for %d pings", i, p.pongs, len(nodes)-1)
			}
		}
		return nil
	}
	clean := pingNet(t, 2, 2, network.Faults{Loss: 1, Reorder: 1}, onePong)
	sys, _ := clean.System(sim.Options{})
	if res, err := por.ODPOR(context.Background(), sys, por.Options{}); err != nil || res.Violation != nil || !res.Complete {
		t.Fatalf("without duplication: %v, %v", res, err)
	}
	w := pingNet(t, 2, 2, network.Faults{Duplication: 1}, onePong)
	sys, _ = w.System(sim.Options{})
	res, err := cbound.ICB(context.Background(), sys, cbound.Options{Bound: cbound.AtMost(3)})
	if err != nil || res.Violation == nil || res.Violation.Kind != ts.CheckFailure {
		t.Fatalf("with duplication: %v, %v", res, err)
	}
	text := res.Violation.Trace.Format(w)
	for _, want := range []string{"node 0: ping", "0→1: ping", "1→0: pong", "got 2 pongs", "(link 0→1)", "(node 0)"} {
		if !strings.Contains(text+res.Violation.Err.Error(), want) {
			t.Errorf("trace lacks %q:\n%s", want, text)
		}
	}
	if _, err := ts.Confirm[sim.State](sys, res.Violation, res.Violation.Trace.Schedule()); err != nil {
		t.Errorf("does not replay: %v", err)
	}
	// The adapter reads the network where the bug shows.
	sys.MoveTo(stateAt(t, sys, res.Violation.Trace.Schedule()))
	if a, b := w.Nodes()[0].(*pinger), w.Nodes()[1].(*pinger); a.pongs != 2 && b.pongs != 2 {
		t.Errorf("nodes at the violation: %+v, %+v", a, b)
	}
}

func stateAt(t *testing.T, sys *sim.System, sched ts.Schedule) sim.State {
	s := sys.Init()
	for _, m := range sched {
		s = sys.ApplyOutcome(s, m.Thread, m.Outcome)
	}
	return s
}

// A quiescent network is a normal ending, not a deadlock: every link thread
// is Idle when nothing is in flight.
func TestQuiescenceIsNormal(t *testing.T) {
	w := pingNet(t, 3, 1, network.Faults{}, nil)
	sys, _ := w.System(sim.Options{})
	res, err := ts.Explore(context.Background(), sys, ts.Options{})
	if err != nil || res.Violation != nil || res.Executions == 0 {
		t.Fatalf("got %v, %v", res, err)
	}
}

func TestBadConfig(t *testing.T) {
	for _, c := range []network.Config[msg]{
		{Nodes: 0, New: newPinger},
		{Nodes: 2},
		{Nodes: 2, New: newPinger, Faults: network.Faults{Loss: -1}},
		{Nodes: 2, New: newPinger, Actions: []network.Action{{Name: "x", Budget: -1}}},
		{Nodes: 2, New: newPinger, Actions: []network.Action{{Name: "x", Budget: 1, Nodes: []int{2}}}},
		{Nodes: 1, New: newPinger},
		{Nodes: 100, New: newPinger},
	} {
		if _, err := network.New(c); !errors.Is(err, ts.ErrBadOptions) {
			t.Errorf("%+v: %v", c, err)
		}
	}
	nohash, _ := network.New(network.Config[msg]{Nodes: 2, New: newPinger})
	if _, err := nohash.HashedSystem(sim.Options{}); !errors.Is(err, ts.ErrBadOptions) {
		t.Errorf("HashedSystem without HashMsg: %v", err)
	}
}
