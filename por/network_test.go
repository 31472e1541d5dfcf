package por_test

import (
	"context"
	"testing"

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/sim"
	"github.com/weftlab/weft/sim/network"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// pinger: node 0 pings its peers once; a node answers a ping with a pong.
type pinger struct{ id, nodes, pings, pongs int }

func (p *pinger) Act(_ int, send func(int, string)) {
	for to := range p.nodes {
		if p.id == 0 && to != 0 {
			send(to, "ping")
		}
	}
}

func (p *pinger) Receive(from int, m string, send func(int, string)) {
	if m == "ping" {
		p.pings++
		send(from, "pong")
	} else {
		p.pongs++
	}
}

func (p *pinger) Hash() uint64 { return uint64(p.id)<<40 | uint64(p.pings)<<20 | uint64(p.pongs) }

// A reversal planned for one outcome of a delivery (the ping lost) was
// absorbed by a branch already planned with the same prefix, whose search
// then took the delivery with its other outcome: ODPOR missed the trace
// where both idle nodes act before both pings are lost (195 of 196 traces).
func TestODPORAbsorbedReversal(t *testing.T) {
	w, err := network.New(network.Config[string]{Nodes: 3,
		New:     func(id int) network.Node[string] { return &pinger{id: id, nodes: 3} },
		Actions: []network.Action{{Name: "ping", Budget: 1}}, Faults: network.Faults{Loss: 1},
		HashMsg: func(m string) uint64 { return uint64(len(m)) }})
	if err != nil {
		t.Fatal(err)
	}
	sys, err := w.HashedSystem(sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	odpor := func(ctx context.Context, s ts.TransitionSystem[sim.State], o ts.Options) (ts.Result, error) {
		return por.ODPOR(ctx, s, por.Options{Options: o})
	}
	rep := tstest.CheckOptimal(t, sys, odpor, tstest.ReductionOptions{Bound: ts.NoBound})
	if len(rep.Traces) != 196 || rep.Result.Executions != 196 {
		t.Errorf("%d traces, %d executions; want 196", len(rep.Traces), rep.Result.Executions)
	}
}
