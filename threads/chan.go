package threads

import (
	"fmt"

	"github.com/weftlab/weft/ts"
)

// Chan is a Go channel of capacity Cap (0: unbuffered). Every operation is
// one step that writes the channel (a synchronization access) and does
// what Go's runtime does at that moment: hand the value to a waiting
// partner, use the buffer, or queue the thread. A queued thread takes a
// second step, a read of the channel, once a partner (or a close) has
// completed its operation; until then it is Blocked.
type Chan[V any] struct{ chanCore }

// chanCore is a channel with untyped values, shared by every Chan.
type chanCore struct {
	base
	cap          int
	buf          []any
	closed       bool
	recvq, sendq []waiter
}

// waiter is a queued thread: its value (a sender's) and its select case
// (-1 for a plain operation).
type waiter struct {
	t  *T
	cs int
	v  any
}

// NewChan returns a channel of capacity n.
func NewChan[V any](t *T, name string, n int) *Chan[V] {
	if n < 0 {
		panic(violation(fmt.Sprintf("makechan: size %d out of range", n)))
	}
	c := &Chan[V]{}
	c.cap = n
	c.init(t, name, "ch")
	return c
}

// Cap returns the channel's capacity.
func (c *Chan[V]) Cap() int { return c.cap }

const (
	chSend = iota
	chRecv
	chClose
)

func (c *chanCore) ready(_ *runner, t *T) bool {
	if t.pending.kind == kWaitChan {
		return t.woken
	}
	return true
}

func (c *chanCore) act(r *runner, t *T, _ int) {
	if t.pending.kind == kWaitChan {
		return // completed by a partner already
	}
	switch t.pending.arg {
	case chSend:
		c.send(r, t, -1, t.val)
	case chRecv:
		c.recv(r, t, -1)
	case chClose:
		if c.closed {
			r.failf(t, "panic: close of closed channel %s", c.name)
			t.woken = true
			return
		}
		c.closed = true
		for _, w := range c.recvq {
			w.t.complete(w.cs, nil, false)
		}
		for _, w := range c.sendq {
			w.t.complete(w.cs, nil, false)
			w.t.closedSend = true
		}
		c.recvq, c.sendq = nil, nil
		t.woken = true
	}
}

// canSend reports whether a send completes now (or panics: closed).
func (c *chanCore) canSend() bool { return c.closed || len(c.recvq) > 0 || len(c.buf) < c.cap }

// canRecv reports whether a receive completes now.
func (c *chanCore) canRecv() bool { return c.closed || len(c.buf) > 0 || len(c.sendq) > 0 }

// send does t's send of v (case cs): completes it or queues t.
func (c *chanCore) send(r *runner, t *T, cs int, v any) {
	switch {
	case c.closed:
		r.failf(t, "panic: send on closed channel %s", c.name)
		t.complete(cs, nil, false)
	case len(c.recvq) > 0:
		w := c.recvq[0]
		c.recvq = c.recvq[1:]
		w.t.complete(w.cs, v, true)
		t.complete(cs, nil, true)
	case len(c.buf) < c.cap:
		c.buf = append(c.buf, v)
		t.complete(cs, nil, true)
	default:
		c.sendq = append(c.sendq, waiter{t, cs, v})
		t.woken = false
	}
}

// recv does t's receive (case cs): completes it or queues t.
func (c *chanCore) recv(_ *runner, t *T, cs int) {
	switch {
	case len(c.buf) > 0:
		v := c.buf[0]
		c.buf = c.buf[1:]
		if len(c.sendq) > 0 {
			w := c.sendq[0]
			c.sendq = c.sendq[1:]
			c.buf = append(c.buf, w.v)
			w.t.complete(w.cs, nil, true)
		}
		t.complete(cs, v, true)
	case len(c.sendq) > 0:
		w := c.sendq[0]
		c.sendq = c.sendq[1:]
		w.t.complete(w.cs, nil, true)
		t.complete(cs, w.v, true)
	case c.closed:
		t.complete(cs, nil, false)
	default:
		c.recvq = append(c.recvq, waiter{t: t, cs: cs})
		t.woken = false
	}
}

// complete ends t's channel operation (its case cs of a select) with the
// value received; a select's other queued cases are withdrawn.
func (t *T) complete(cs int, v any, ok bool) {
	t.val, t.ok, t.woken, t.rcase = v, ok, true, cs
	if cs >= 0 {
		for _, k := range t.pending.sel {
			if k.c != nil {
				k.c.dequeue(t)
			}
		}
	}
}

func (c *chanCore) dequeue(t *T) {
	c.recvq = drop(c.recvq, t)
	c.sendq = drop(c.sendq, t)
}

func drop(q []waiter, t *T) []waiter {
	out := q[:0]
	for _, w := range q {
		if w.t != t {
			out = append(out, w)
		}
	}
	return out
}

func (t *T) chanOp(c *chanCore, what int, verb string) {
	c.use(t)
	t.closedSend = false
	t.do(op{kind: kChan, obj: c, arg: what, step: ts.Step{Obj: c.id, Op: ts.Write, Sync: true}, verb: verb})
	if !t.woken {
		t.do(op{kind: kWaitChan, obj: c, arg: what, step: ts.Step{Obj: c.id, Op: ts.Read, Sync: true}, verb: "wait to " + verb})
	}
	if t.r.fail != nil && (t.closedSend || (what == chSend && !t.ok) || what == chClose) {
		t.stopIfFailed()
	}
	if t.closedSend {
		panic(violation("panic: send on closed channel " + c.name))
	}
}

// stopIfFailed ends the thread once its operation has failed the execution.
func (t *T) stopIfFailed() {
	if t.r.fail != nil {
		t.stopHere()
	}
}

// Send sends v, blocking until a receiver takes it (unbuffered) or there
// is room. A send on a closed channel is a violation (a panic in Go).
func (c *Chan[V]) Send(t *T, v V) {
	t.val = v
	t.chanOp(&c.chanCore, chSend, "send on")
}

// Recv receives a value, blocking until there is one; on a closed, empty
// channel it returns the zero value.
func (c *Chan[V]) Recv(t *T) V {
	v, _ := c.Recv2(t)
	return v
}

// Recv2 is Recv that also reports whether the value came from a send
// (false: the channel is closed and empty), as v, ok := <-c.
func (c *Chan[V]) Recv2(t *T) (V, bool) {
	t.chanOp(&c.chanCore, chRecv, "receive from")
	var v V
	if t.ok {
		v = t.val.(V)
	}
	return v, t.ok
}

// Close closes the channel; closing a closed channel is a violation.
func (c *Chan[V]) Close(t *T) { t.chanOp(&c.chanCore, chClose, "close") }

// Case is one case of a [Select]: made by Chan.SendCase, Chan.RecvCase
// or [Default].
type Case struct {
	c    *chanCore
	send bool
	v    any
	got  func(v any, ok bool)
	dflt bool
}

// selCase is a case as the select's step keeps it.
type selCase = Case

// SendCase is the case "c <- v".
func (c *Chan[V]) SendCase(v V) Case { return Case{c: &c.chanCore, send: true, v: v} }

// RecvCase is the case "v, ok := <-c": when it is taken, the value and ok
// are stored in *v and *ok (either may be nil).
func (c *Chan[V]) RecvCase(v *V, ok *bool) Case {
	return Case{c: &c.chanCore, got: func(x any, k bool) {
		if v != nil {
			var z V
			if k {
				z = x.(V)
			}
			*v = z
		}
		if ok != nil {
			*ok = k
		}
	}}
}

// Default is the default case: Select takes it when no other case can
// proceed.
func Default() Case { return Case{dflt: true} }

// selector is the object of a select: its cases' channels.
type selector struct{ cases []Case }

func (s selector) objID() ts.Obj { return s.cases[0].c.id }

// ready: a select can go when one of its cases can, or it has a default.
// A select never queues on its channels: a partner that completed a
// queued select through one channel would change what an operation on
// another of its channels does, and the two would not commute.
func (s selector) ready(_ *runner, t *T) bool {
	if t.pending.dflt {
		return true
	}
	for _, cs := range s.cases {
		if cs.send && cs.c.canSend() || !cs.send && cs.c.canRecv() {
			return true
		}
	}
	return false
}

// act takes the select: outcome k prefers case k, else the next ready case
// after it (Go chooses among ready cases at random; every choice is
// explored).
func (s selector) act(r *runner, t *T, k int) {
	n := len(s.cases)
	for i := range n {
		j := (k + i) % n
		cs := s.cases[j]
		if cs.send && cs.c.canSend() {
			cs.c.send(r, t, j, cs.v)
			return
		}
		if !cs.send && cs.c.canRecv() {
			cs.c.recv(r, t, j)
			return
		}
	}
	t.complete(-1, nil, false) // the default: ready said there is one
}

// blockForever is the object of a select with no case: never ready.
type blockForever struct{ id ts.Obj }

func (b blockForever) objID() ts.Obj        { return b.id }
func (blockForever) ready(*runner, *T) bool { return false }

// Select is Go's select statement: it takes one case that can proceed
// (every choice among several is explored), else the [Default] case if
// there is one, else blocks until one can. It returns the index of the
// case taken in cases. The select is one step that writes every channel of
// its cases. A select with no case blocks forever.
//
// A blocked select does not queue on its channels (see the package
// documentation): it proceeds when a case can, which for an unbuffered
// channel means that a Send or Recv (not another select) waits on it. Two
// selects that could only meet each other on an unbuffered channel are
// reported as a deadlock, where Go would pair them.
func Select(t *T, cases ...Case) int {
	var chans []Case
	idx := make([]int, 0, len(cases))
	def := -1
	for i, c := range cases {
		if c.dflt {
			def = i
			continue
		}
		if c.c == nil {
			continue // a nil channel's case never proceeds
		}
		c.c.use(t)
		chans = append(chans, c)
		idx = append(idx, i)
	}
	if len(chans) == 0 {
		if def >= 0 {
			return def
		}
		t.do(op{kind: kChan, obj: blockForever{t.choiceObj()}, step: ts.Step{Obj: t.choiceObj(), Op: ts.Read}, desc: "select {} (blocks forever)"})
		return -1
	}
	w := ts.Step{Obj: chans[0].c.id, Op: ts.Write, Sync: true}
	desc := "select on " + chans[0].c.name
	seen := map[ts.Obj]bool{w.Obj: true}
	for _, c := range chans[1:] {
		if seen[c.c.id] {
			continue
		}
		seen[c.c.id] = true
		w.Also = append(w.Also, ts.Access{Obj: c.c.id, Op: ts.Write, Sync: true})
		desc += ", " + c.c.name
	}
	if def >= 0 {
		desc += ", default"
	}
	sel := selector{chans}
	t.closedSend = false
	t.do(op{kind: kSelect, obj: sel, step: w, outs: len(chans), sel: chans, dflt: def >= 0, desc: desc})
	if t.rcase < 0 {
		return def
	}
	cs := chans[t.rcase]
	if cs.send && (t.closedSend || !t.ok) {
		t.stopIfFailed()
		panic(violation("panic: send on closed channel " + cs.c.name))
	}
	if cs.got != nil {
		cs.got(t.val, t.ok)
	}
	return idx[t.rcase]
}
