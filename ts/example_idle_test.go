package ts_test

import (
	"context"
	"fmt"

	"github.com/weftlab/weft/ts"
)

// service is a client that sends two requests over a one-slot channel
// (object 0) to a server that serves requests forever. Message passing is
// ordinary shared state: a send writes the channel and waits while it is
// full; a receive writes it (it takes the message) and waits while it is
// empty.
//
// A server waiting for the next request is not stuck: with no client left,
// that is how every run ends. It reports Idle, not Blocked, so that the end
// is a terminal state and not a deadlock. (To report no deadlocks at all,
// set ts.Options.IgnoreDeadlocks.)
type service struct{ blocked bool }

type serviceState struct {
	sent   uint8 // requests the client has sent (thread 0)
	served uint8 // requests the server has taken (thread 1)
	slot   uint8 // the channel: 0 empty, else the request's number
}

func (service) Init() serviceState { return serviceState{} }
func (service) Threads() int       { return 2 }

func (c service) Next(s serviceState, t ts.Tid) (ts.Step, ts.Status) {
	step := ts.Step{Obj: 0, Op: ts.Write}
	if t == 0 {
		switch {
		case s.sent == 2:
			return ts.Step{}, ts.Finished
		case s.slot != 0:
			return step, ts.Blocked // the channel is full
		}
		return step, ts.Enabled
	}
	switch {
	case s.slot != 0:
		return step, ts.Enabled
	case c.blocked:
		return step, ts.Blocked
	}
	return step, ts.Idle // waiting for a request is a normal ending
}

func (service) Apply(s serviceState, t ts.Tid) serviceState {
	if t == 0 {
		s.sent++
		s.slot = s.sent
	} else {
		s.served++
		s.slot = 0
	}
	return s
}

// An idle server: the run that serves every request ends normally, where a
// server reporting Blocked makes every run a deadlock.
func Example_idleServer() {
	ctx := context.Background()
	res, _ := ts.Explore(ctx, service{}, ts.Options{
		OnTerminal: func(s any, sched ts.Schedule) {
			fmt.Printf("served %d, schedule %v\n", s.(serviceState).served, sched)
		},
	})
	fmt.Println("Idle:", res)
	res, _ = ts.Explore(ctx, service{blocked: true}, ts.Options{})
	fmt.Println("Blocked:", res.Violation.Kind)
	// Output:
	// served 2, schedule [0 1 0 1]
	// Idle: no violation: 1 execution, 4 transitions
	// Blocked: deadlock
}
