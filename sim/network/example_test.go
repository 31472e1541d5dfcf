package network_test

import (
	"context"
	"fmt"
	"slices"

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/sim"
	"github.com/weftlab/weft/sim/network"
	"github.com/weftlab/weft/ts"
)

// echo: node 0 sends "ping" to node 1 on its action; node 1 answers every
// ping with "pong"; node 0 counts the pongs.
type echo struct{ id, pongs int }

func (e *echo) Act(_ int, send func(int, string)) { send(1, "ping") }
func (e *echo) Receive(from int, m string, send func(int, string)) {
	if m == "ping" {
		send(from, "pong")
	} else {
		e.pongs++
	}
}

// Every way a ping and its answer can go over links that may each lose one
// message or deliver one twice: node 0 ends with 0 to 3 pongs (a ping
// delivered twice draws two pongs, one of which may be delivered twice), and
// the network, with nothing left in flight, ends normally.
func Example() {
	w, err := network.New(network.Config[string]{Nodes: 2,
		New:     func(id int) network.Node[string] { return &echo{id: id} },
		Actions: []network.Action{{Name: "ping", Budget: 1, Nodes: []int{0}}},
		Faults:  network.Faults{Loss: 1, Duplication: 1},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	sys, _ := w.System(sim.Options{})
	var pongs []int
	res, err := por.ODPOR(context.Background(), sys, por.Options{Options: ts.Options{
		OnTerminal: func(s any, _ ts.Schedule) {
			sys.MoveTo(s.(sim.State))
			if p := w.Nodes()[0].(*echo).pongs; !slices.Contains(pongs, p) {
				pongs = append(pongs, p)
			}
		},
	}})
	slices.Sort(pongs)
	fmt.Println("pongs at node 0:", pongs)
	fmt.Println(res.Violation == nil, res.Complete, err)
	// Output:
	// pongs at node 0: [0 1 2 3]
	// true true <nil>
}
