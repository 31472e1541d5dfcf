package ts_test

import (
	"context"
	"fmt"
	"slices"

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
)

// lossy is a sender that sends one message over a link that may lose it
// (object 0), and a receiver that waits for it with a timeout.
//
// Loss is a choice of the environment: the send is one transition with two
// outcomes, delivered and lost (ts.Chooser). The timeout is a choice too,
// but it cannot be an outcome of the receive: a thread waiting for an empty
// link takes no transition at all, and the number of outcomes of a thread's
// step may not depend on other threads. So the receiver makes the choice in
// a step of its own, on a private object (1), before it waits: keep waiting
// (then receive, Idle while the link is empty) or give up. That step is
// independent of everything, so the search places it before the send, after
// it, and after a lost message alike: every moment a real timer could fire.
type lossy struct{}

type lossyState struct {
	sent, lost bool
	link       bool  // a message in flight
	recv       uint8 // receiver: 0 timer, 1 waiting, 2 received, 3 gave up
}

func (lossy) Init() lossyState { return lossyState{} }
func (lossy) Threads() int     { return 2 }

func (lossy) Next(s lossyState, t ts.Tid) (ts.Step, ts.Status) {
	if t == 0 {
		if s.sent {
			return ts.Step{}, ts.Finished
		}
		return ts.Step{Obj: 0, Op: ts.Write}, ts.Enabled
	}
	switch s.recv {
	case 0:
		return ts.Step{Obj: 1, Op: ts.Write}, ts.Enabled
	case 1:
		if !s.link {
			return ts.Step{Obj: 0, Op: ts.Write}, ts.Idle
		}
		return ts.Step{Obj: 0, Op: ts.Write}, ts.Enabled
	}
	return ts.Step{}, ts.Finished
}

// Outcomes: the send and the timer have two each, fixed by the thread's own
// progress.
func (lossy) Outcomes(s lossyState, t ts.Tid) int {
	if (t == 0 && !s.sent) || (t == 1 && s.recv == 0) {
		return 2
	}
	return 1
}

func (l lossy) Apply(s lossyState, t ts.Tid) lossyState { return l.ApplyOutcome(s, t, 0) }

func (lossy) ApplyOutcome(s lossyState, t ts.Tid, c int) lossyState {
	switch {
	case t == 0:
		s.sent, s.lost, s.link = true, c == 1, c == 0
	case s.recv == 0 && c == 1:
		s.recv = 3
	case s.recv == 0:
		s.recv = 1
	default:
		s.link, s.recv = false, 2
	}
	return s
}

func (s lossyState) String() string {
	sender := "delivered"
	if s.lost {
		sender = "lost"
	}
	receiver := [...]string{1: "still waiting (idle)", 2: "received", 3: "timed out"}[s.recv]
	if s.recv == 3 && s.link {
		receiver += ", the message arrives late"
	}
	return sender + ": " + receiver
}

// Message loss and a timeout as choices: every combination is explored, and
// the schedule records the outcomes taken ("thread/outcome"; outcome 0 is
// not written).
func Example_timeout() {
	var ends []string
	res, _ := ts.Explore(context.Background(), lossy{}, ts.Options{
		OnTerminal: func(s any, sched ts.Schedule) {
			ends = append(ends, fmt.Sprintf("%v  %v", s, sched))
		},
	})
	slices.Sort(ends)
	for _, e := range ends {
		fmt.Println(e)
	}
	fmt.Println(res)

	// The timer and the send are independent: a reduction explores one
	// order per combination of outcomes.
	res, _ = por.ODPOR(context.Background(), lossy{}, por.Options{})
	fmt.Println("odpor:", res)
	// Output:
	// delivered: received  [0 1 1]
	// delivered: received  [1 0 1]
	// delivered: timed out, the message arrives late  [0 1/1]
	// delivered: timed out, the message arrives late  [1/1 0]
	// lost: still waiting (idle)  [0/1 1]
	// lost: still waiting (idle)  [1 0/1]
	// lost: timed out  [0/1 1/1]
	// lost: timed out  [1/1 0/1]
	// no violation: 8 executions, 14 transitions
	// odpor: no violation: 4 executions, 9 transitions
}
