package symmetry_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/weftlab/weft/symmetry"
	"github.com/weftlab/weft/ts"
)

// flags is n identical threads; each raises a flag of its own (or, by the
// second outcome of its first transition, leaves it down) and then lowers
// it. The property "not every flag is up" fails only at an intermediate
// state, after every thread has raised its flag and before any lowers it:
// every terminal state has every flag down. The flags are distinct objects,
// so every step is independent of every other thread's, and one execution
// per choice of the coins covers every terminal state: a partial-order
// reduction is tempted to skip the failing state. Declared as an invariant
// that reads the flags, it makes the raising steps dependent, and no
// reduction may skip it; as a check it may be skipped (ts.Checker says so).
type flags struct {
	n       int
	asCheck bool
}

type flagsState struct{ pc, flag [4]uint8 }

func (f flags) Init() flagsState { return flagsState{} }
func (f flags) Threads() int     { return f.n }

func (f flags) Next(s flagsState, t ts.Tid) (ts.Step, ts.Status) {
	if s.pc[t] >= 2 {
		return ts.Step{}, ts.Finished
	}
	return ts.Step{Obj: ts.Obj(t), Op: ts.Write}, ts.Enabled
}

func (f flags) Outcomes(s flagsState, t ts.Tid) int {
	if s.pc[t] == 0 {
		return 2 // raise the flag, or leave it down
	}
	return 1
}

func (f flags) Apply(s flagsState, t ts.Tid) flagsState { return f.ApplyOutcome(s, t, 0) }

func (f flags) ApplyOutcome(s flagsState, t ts.Tid, c int) flagsState {
	if s.pc[t] == 0 && c == 0 {
		s.flag[t] = 1
	} else {
		s.flag[t] = 0
	}
	s.pc[t]++
	return s
}

func (f flags) allUp(s flagsState) error {
	for t := range f.n {
		if s.flag[t] == 0 {
			return nil
		}
	}
	return fmt.Errorf("every flag is up")
}

func (f flags) Check(s flagsState) error {
	if f.asCheck {
		return f.allUp(s)
	}
	return nil
}

func (f flags) Invariant(s flagsState) error {
	if f.asCheck {
		return nil
	}
	return f.allUp(s)
}

func (f flags) InvariantReads() []ts.Obj {
	if f.asCheck {
		return nil
	}
	return identityObjs(f.n)
}

func identityObjs(n int) []ts.Obj {
	objs := make([]ts.Obj, n)
	for i := range objs {
		objs[i] = ts.Obj(i)
	}
	return objs
}

func (f flags) key(s flagsState, t ts.Tid) int { return int(s.pc[t])*2 + int(s.flag[t]) }

func (f flags) Hash(s flagsState) uint64 {
	h := uint64(0)
	for t := range ts.Tid(f.n) {
		h = h*8 + uint64(f.key(s, t))
	}
	return h
}

func (f flags) Signature(s flagsState, t ts.Tid) uint64 { return uint64(f.key(s, t)) }

func (f flags) Permute(s flagsState, p []ts.Tid) flagsState {
	var r flagsState
	for t := range f.n {
		r.pc[p[t]], r.flag[p[t]] = s.pc[t], s.flag[t]
	}
	return r
}

// Canonical sorts the threads by (pc, flag).
func (f flags) Canonical(s flagsState) (flagsState, []ts.Tid) {
	order := identity(f.n)
	slices.SortStableFunc(order, func(a, b ts.Tid) int { return f.key(s, a) - f.key(s, b) })
	p := make([]ts.Tid, f.n)
	for i, t := range order {
		p[t] = ts.Tid(i)
	}
	return f.Permute(s, p), p
}

// An invariant that fails only at an intermediate state is found by sympor
// (and by dpor and sym), with a schedule that replays to it; every orbit and
// violation of ts.Explore is reached. As a check, the same property is
// found by ts.Explore and skipped by the reductions, which is what makes
// the invariant's case a test: without the invariant's read set the raising
// steps are independent, and one execution covers every terminal state.
func TestSymporInvariantAtAnIntermediateState(t *testing.T) {
	ctx := context.Background()
	for n := 2; n <= 4; n++ {
		sys := flags{n: n}
		if err := symmetry.Verify[flagsState](sys, symmetry.VerifyOptions{}); err != nil {
			t.Errorf("flags-%d: Verify: %v", n, err)
		}
		for name, run := range map[string]strategy[flagsState]{"sym": symmetry.Explore[flagsState], "sympor": symmetry.DPOR[flagsState],
			"dpor": func(ctx context.Context, sys ts.TransitionSystem[flagsState], o symmetry.Options) (ts.Result, error) {
				o.NoSymmetry = true
				return symmetry.DPOR(ctx, sys, o)
			}} {
			res, err := run(ctx, sys, symmetry.Options{})
			if err != nil || res.Violation == nil || res.Violation.Kind != ts.InvariantFailure {
				t.Errorf("flags-%d, %s: %v, %v; want the invariant failure", n, name, res, err)
				continue
			}
			if rv, err := ts.Confirm[flagsState](sys, res.Violation, res.Violation.Trace.Schedule()); err != nil || rv.Kind != ts.InvariantFailure {
				t.Errorf("flags-%d, %s: the schedule %v does not replay to the failure: %v", n, name, res.Violation.Trace.Schedule(), err)
			}
		}
		ref := collect(t, sys, ts.Options{}, func(o ts.Options) (ts.Result, error) { return ts.Explore[flagsState](ctx, sys, o) })
		sp := collect(t, sys, ts.Options{}, withOpts[flagsState](sys, symmetry.DPOR[flagsState], symmetry.Options{}))
		sameOrbits(t, fmt.Sprint("sympor, flags-", n), ref, sp)
		plain := collect(t, sys, ts.Options{}, withOpts[flagsState](sys, symmetry.DPOR[flagsState], symmetry.Options{NoSymmetry: true}))
		sameOrbits(t, fmt.Sprint("dpor, flags-", n), ref, plain)
		if sp.res.Executions >= plain.res.Executions {
			t.Errorf("flags-%d: sympor explores %d executions, dpor %d", n, sp.res.Executions, plain.res.Executions)
		}

		check := flags{n: n, asCheck: true}
		if res, err := ts.Explore[flagsState](ctx, check, ts.Options{}); err != nil || res.Violation == nil {
			t.Fatalf("flags-%d as a check: ts.Explore finds nothing: %v, %v", n, res, err)
		}
		for _, o := range []symmetry.Options{{}, {NoSymmetry: true}} {
			// One execution per choice of the coins, in one order.
			if res, err := symmetry.DPOR[flagsState](ctx, check, o); err != nil || res.Violation != nil || res.Executions != 1<<n {
				t.Errorf("flags-%d as a check, symmetry off %v: %v, %v; want %d executions that do not see the failing state", n, o.NoSymmetry, res, err, 1<<n)
			}
		}
	}
}

// mailroom is c identical clients and s identical servers. A client sends
// one message over a lossy link: one step of two objects (it writes the
// queue and the count of messages delivered) with two outcomes, delivered
// or lost. A server waits for a message, Idle, and takes it: one step that
// writes the queue and the count served. Servers never finish: a run ends
// when every client has sent and the queue is empty, with the servers idle,
// a normal end. The invariant, over the queue and both counts, is served +
// queued = delivered. Variants: blocking servers (Blocked rather than Idle:
// every end is a deadlock), and dup, whose take has a second outcome that
// serves a message without dequeuing it (a duplicate), which breaks the
// invariant.
type mailroom struct {
	clients, servers int
	blocking, dup    bool
}

type mailState struct {
	sent                     [4]uint8 // per client: 0 not yet, 1 delivered, 2 lost
	queue, served, delivered uint8
}

const (
	mailQueue ts.Obj = iota
	mailServed
	mailDelivered
)

var (
	writeDelivered = []ts.Access{{Obj: mailDelivered, Op: ts.Write}}
	writeServed    = []ts.Access{{Obj: mailServed, Op: ts.Write}}
)

func (m mailroom) Init() mailState { return mailState{} }
func (m mailroom) Threads() int    { return m.clients + m.servers }

func (m mailroom) client(t ts.Tid) bool { return int(t) < m.clients }

func (m mailroom) Next(s mailState, t ts.Tid) (ts.Step, ts.Status) {
	if m.client(t) {
		if s.sent[t] != 0 {
			return ts.Step{}, ts.Finished
		}
		return ts.Step{Obj: mailQueue, Op: ts.Write, Also: writeDelivered}, ts.Enabled
	}
	st := ts.Enabled
	if s.queue == 0 {
		st = ts.Idle
		if m.blocking {
			st = ts.Blocked
		}
	}
	return ts.Step{Obj: mailQueue, Op: ts.Write, Also: writeServed}, st
}

func (m mailroom) Outcomes(s mailState, t ts.Tid) int {
	if (m.client(t) && s.sent[t] == 0) || (!m.client(t) && m.dup) {
		return 2
	}
	return 1
}

func (m mailroom) Apply(s mailState, t ts.Tid) mailState { return m.ApplyOutcome(s, t, 0) }

func (m mailroom) ApplyOutcome(s mailState, t ts.Tid, c int) mailState {
	switch {
	case m.client(t) && c == 0:
		s.sent[t], s.queue, s.delivered = 1, s.queue+1, s.delivered+1
	case m.client(t):
		s.sent[t] = 2
	case c == 0:
		s.queue, s.served = s.queue-1, s.served+1
	default: // a duplicate: served, and still queued
		s.served++
	}
	return s
}

func (m mailroom) Invariant(s mailState) error {
	if s.served+s.queue != s.delivered {
		return fmt.Errorf("served %d + queued %d != delivered %d", s.served, s.queue, s.delivered)
	}
	return nil
}

func (m mailroom) InvariantReads() []ts.Obj { return []ts.Obj{mailQueue, mailServed, mailDelivered} }

func (m mailroom) Hash(s mailState) uint64 {
	h := uint64(s.queue)<<16 | uint64(s.served)<<8 | uint64(s.delivered)
	for t := range m.clients {
		h = h<<2 | uint64(s.sent[t])
	}
	return h
}

// Signature is a client's progress; the servers have no local state.
func (m mailroom) Signature(s mailState, t ts.Tid) uint64 {
	if m.client(t) {
		return uint64(s.sent[t])
	}
	return 100
}

func (m mailroom) Permute(s mailState, p []ts.Tid) mailState {
	r := s
	for t := range m.clients {
		r.sent[p[t]] = s.sent[t]
	}
	return r
}

// Canonical sorts the clients by progress; the servers stay in place.
func (m mailroom) Canonical(s mailState) (mailState, []ts.Tid) {
	order := identity(m.clients)
	slices.SortStableFunc(order, func(a, b ts.Tid) int { return int(s.sent[a]) - int(s.sent[b]) })
	p := identity(m.Threads())
	for i, t := range order {
		p[t] = ts.Tid(i)
	}
	return m.Permute(s, p), p
}

// Idle servers, lossy sends, steps of two objects and an invariant, under
// sympor, dpor and sym: every terminal orbit and violation of ts.Explore,
// and nothing else. Idle servers end runs normally; blocked ones deadlock
// at every end, unless deadlocks are ignored; a duplicating server breaks
// the invariant, found with the duplicate (outcome 1 of a server) in the
// schedule. Symmetry saves executions wherever the servers or the clients
// are interchangeable.
func TestSymporIdleServers(t *testing.T) {
	ctx := context.Background()
	for _, m := range []mailroom{{clients: 2, servers: 2}, {clients: 3, servers: 2}, {clients: 2, servers: 3},
		{clients: 3, servers: 2, blocking: true}, {clients: 2, servers: 2, dup: true}} {
		for _, ignore := range []bool{false, true} {
			name := fmt.Sprintf("%+v, ignore deadlocks %v", m, ignore)
			if err := symmetry.Verify[mailState](m, symmetry.VerifyOptions{}); err != nil {
				t.Errorf("%s: Verify: %v", name, err)
			}
			base := ts.Options{IgnoreDeadlocks: ignore}
			ref := collect(t, m, base, func(o ts.Options) (ts.Result, error) { return ts.Explore[mailState](ctx, m, o) })
			sym := collect(t, m, base, withOpts[mailState](m, symmetry.Explore[mailState], symmetry.Options{}))
			sameOrbits(t, "sym, "+name, ref, sym)
			sp := collect(t, m, base, withOpts[mailState](m, symmetry.DPOR[mailState], symmetry.Options{}))
			sameOrbits(t, "sympor, "+name, ref, sp)
			plain := collect(t, m, base, withOpts[mailState](m, symmetry.DPOR[mailState], symmetry.Options{NoSymmetry: true}))
			sameOrbits(t, "dpor, "+name, ref, plain)
			if sp.res.Executions >= plain.res.Executions {
				t.Errorf("%s: sympor explores %d executions, dpor %d", name, sp.res.Executions, plain.res.Executions)
			}
			deadlocks, invariants := 0, 0
			for k := range ref.violations {
				switch {
				case len(k) > 8 && k[:8] == "deadlock":
					deadlocks++
				default:
					invariants++
				}
			}
			switch {
			case m.blocking && !ignore && (deadlocks == 0 || len(ref.terminals) != deadlocks):
				t.Errorf("%s: %d deadlocks among %d terminal orbits; every end should be one", name, deadlocks, len(ref.terminals))
			case (!m.blocking || ignore) && deadlocks > 0:
				t.Errorf("%s: %d deadlocks", name, deadlocks)
			case m.dup != (invariants > 0):
				t.Errorf("%s: %d invariant failures", name, invariants)
			}
			t.Logf("%s: %d terminal orbits, %d violations; executions: sympor %d, dpor %d, ts.Explore %d",
				name, len(ref.terminals), len(ref.violations), sp.res.Executions, plain.res.Executions, ref.res.Executions)
		}
	}
	res, err := symmetry.DPOR[mailState](ctx, mailroom{clients: 2, servers: 2, dup: true}, symmetry.Options{})
	if err != nil || res.Violation == nil || res.Violation.Kind != ts.InvariantFailure {
		t.Fatalf("dup: %v, %v", res, err)
	}
	sched := res.Violation.Trace.Schedule()
	if last := sched[len(sched)-1]; last.Thread < 2 || last.Outcome != 1 {
		t.Errorf("dup: the failure's schedule %v does not end with a server's duplicate", sched)
	}
}
