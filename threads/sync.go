package threads

import (
	"fmt"

	"github.com/weftlab/weft/ts"
)

// base is what every primitive has: its number, the execution it belongs
// to and its name.
type base struct {
	id   ts.Obj
	r    *runner
	run  uint64
	name string
}

func (b *base) objID() ts.Obj   { return b.id }
func (b *base) objName() string { return b.name }

func (b *base) init(t *T, name, def string) {
	b.id = t.newObj(name, def)
	b.r, b.run = t.r, t.r.run
	b.name = t.r.names[b.id]
}

func (b *base) use(t *T) {
	if b.r == nil {
		panic(violation("a primitive's zero value was used: make it with its New function inside the program"))
	}
	if b.r != t.r || b.run != t.r.run {
		panic(violation(fmt.Sprintf("%s was created outside this execution; create objects inside the program's threads", b.name)))
	}
}

// Mutex is sync.Mutex. Lock is an acquire step, Unlock a release step.
type Mutex struct {
	base
	held   bool
	holder ts.Tid
}

// NewMutex returns an unlocked mutex named name ("" for a generated name).
func NewMutex(t *T, name string) *Mutex {
	m := &Mutex{}
	m.init(t, name, "mu")
	return m
}

func (m *Mutex) ready(_ *runner, t *T) bool { return t.pending.kind != kLock || !m.held }

func (m *Mutex) act(r *runner, t *T, _ int) {
	switch t.pending.kind {
	case kLock:
		m.held, m.holder = true, t.id
	case kUnlock:
		switch {
		case !m.held:
			r.failf(t, "fatal error: sync: unlock of unlocked mutex %s", m.name)
		case m.holder != t.id:
			// Go allows it; the model does not: strategies assume that a
			// lock is released by the thread that holds it.
			r.failf(t, "unlock of mutex %s held by thread %d: unlocking another thread's lock is outside the model", m.name, m.holder)
		}
		m.held = false
	}
}

// Lock locks m, blocking while another thread holds it.
func (m *Mutex) Lock(t *T) {
	m.use(t)
	t.do(op{kind: kLock, obj: m, step: ts.Step{Obj: m.id, Op: ts.Acquire}, verb: "lock"})
}

// Unlock unlocks m; unlocking an unlocked mutex is a violation, as it is a
// fatal error in Go.
func (m *Mutex) Unlock(t *T) {
	m.use(t)
	t.do(op{kind: kUnlock, obj: m, step: ts.Step{Obj: m.id, Op: ts.Release}, verb: "unlock"})
	t.stopIfFailed()
}

// stopHere ends the thread after a violation it caused.
func (t *T) stopHere() { panic(errStop) }

// RWMutex is sync.RWMutex, writer-preferring as Go's is: once a writer
// waits, new readers block (so a reader that locks twice while a writer
// waits deadlocks, as in Go). Every operation is a synchronizing write of
// the one object (not an acquire or release: several readers hold it at
// once), so two readers are dependent (a reader count changes).
type RWMutex struct {
	base
	readers int
	writer  bool // held by a writer
	waiting bool // a writer waits for the readers to leave
}

// NewRWMutex returns an unlocked RWMutex.
func NewRWMutex(t *T, name string) *RWMutex {
	m := &RWMutex{}
	m.init(t, name, "rw")
	return m
}

func (m *RWMutex) ready(_ *runner, t *T) bool {
	switch t.pending.kind {
	case kLock:
		return !m.writer && !m.waiting
	case kRLock:
		return !m.writer && !m.waiting
	case kWaitRW:
		return m.readers == 0
	}
	return true
}

func (m *RWMutex) act(r *runner, t *T, _ int) {
	switch t.pending.kind {
	case kLock:
		if m.readers == 0 {
			m.writer = true
			t.ok = true
		} else {
			m.waiting = true
			t.ok = false
		}
	case kWaitRW:
		m.waiting, m.writer = false, true
	case kRLock:
		m.readers++
	case kUnlock:
		if !m.writer {
			r.failf(t, "fatal error: sync: Unlock of unlocked RWMutex %s", m.name)
		}
		m.writer = false
	case kRUnlock:
		if m.readers == 0 {
			r.failf(t, "fatal error: sync: RUnlock of unlocked RWMutex %s", m.name)
		}
		m.readers--
	}
}

// Lock locks m for writing: one step when no reader holds it, else a
// second step once the readers have left.
func (m *RWMutex) Lock(t *T) {
	m.use(t)
	t.do(op{kind: kLock, obj: m, step: ts.Step{Obj: m.id, Op: ts.Write, Sync: true}, verb: "lock"})
	if !t.ok {
		t.do(op{kind: kWaitRW, obj: m, step: ts.Step{Obj: m.id, Op: ts.Write, Sync: true}, desc: "lock " + m.name + " (waits for readers)"})
	}
}

// Unlock unlocks m for writing.
func (m *RWMutex) Unlock(t *T) {
	m.use(t)
	t.do(op{kind: kUnlock, obj: m, step: ts.Step{Obj: m.id, Op: ts.Write, Sync: true}, verb: "unlock"})
}

// RLock locks m for reading.
func (m *RWMutex) RLock(t *T) {
	m.use(t)
	t.do(op{kind: kRLock, obj: m, step: ts.Step{Obj: m.id, Op: ts.Write, Sync: true}, desc: "rlock " + m.name})
}

// RUnlock undoes one RLock.
func (m *RWMutex) RUnlock(t *T) {
	m.use(t)
	t.do(op{kind: kRUnlock, obj: m, step: ts.Step{Obj: m.id, Op: ts.Write, Sync: true}, desc: "runlock " + m.name})
}

// WaitGroup is sync.WaitGroup. Add and Done are writes, Wait a read that
// blocks until the counter is zero (synchronization accesses).
type WaitGroup struct {
	base
	n int
}

// NewWaitGroup returns a WaitGroup with a zero counter.
func NewWaitGroup(t *T, name string) *WaitGroup {
	w := &WaitGroup{}
	w.init(t, name, "wg")
	return w
}

func (w *WaitGroup) ready(_ *runner, t *T) bool { return t.pending.kind != kWgWait || w.n == 0 }

func (w *WaitGroup) act(r *runner, t *T, _ int) {
	if t.pending.kind == kWgAdd {
		w.n += t.pending.arg
		if w.n < 0 {
			r.failf(t, "panic: sync: negative WaitGroup counter (%s)", w.name)
		}
	}
}

// Add adds delta to the counter; a negative counter is a violation (a
// panic in Go).
func (w *WaitGroup) Add(t *T, delta int) {
	w.use(t)
	t.do(op{kind: kWgAdd, obj: w, step: ts.Step{Obj: w.id, Op: ts.Write, Sync: true}, desc: fmt.Sprintf("%s.Add(%d)", w.name, delta), arg: delta})
	if w.n < 0 {
		t.stopHere()
	}
}

// Done is Add(-1).
func (w *WaitGroup) Done(t *T) { w.Add(t, -1) }

// Wait blocks until the counter is zero.
func (w *WaitGroup) Wait(t *T) {
	w.use(t)
	t.do(op{kind: kWgWait, obj: w, step: ts.Step{Obj: w.id, Op: ts.Read, Sync: true}, desc: w.name + ".Wait"})
}

// Cond is sync.Cond over a Mutex. Wait is two steps: unlock and queue,
// then (once signalled) lock again.
type Cond struct {
	base
	L       *Mutex
	waiters []*T
	also    []ts.Access // the wake step's second access
}

// NewCond returns a condition variable over l.
func NewCond(t *T, name string, l *Mutex) *Cond {
	c := &Cond{L: l}
	c.init(t, name, "cond")
	c.also = []ts.Access{{Obj: l.id, Op: ts.Acquire}}
	return c
}

func (c *Cond) ready(_ *runner, t *T) bool {
	if t.pending.kind == kCondWake {
		return t.woken && !c.L.held
	}
	return true
}

func (c *Cond) act(r *runner, t *T, _ int) {
	switch t.pending.kind {
	case kCondWait:
		if !c.L.held {
			r.failf(t, "fatal error: sync: unlock of unlocked mutex %s (Cond.Wait without the lock)", c.L.name)
		}
		c.L.held = false
		t.woken = false
		c.waiters = append(c.waiters, t)
	case kCondWake:
		c.L.held, c.L.holder = true, t.id
	case kCondSig:
		n := 1
		if t.pending.arg == 2 { // Broadcast
			n = len(c.waiters)
		}
		for ; n > 0 && len(c.waiters) > 0; n-- {
			c.waiters[0].woken = true
			c.waiters = c.waiters[1:]
		}
	}
}

// Wait unlocks c.L, waits for a Signal or Broadcast, and locks c.L again.
// There are no spurious wakeups.
func (c *Cond) Wait(t *T) {
	c.use(t)
	t.do(op{kind: kCondWait, obj: c, step: ts.Step{Obj: c.id, Op: ts.Write, Sync: true, Also: []ts.Access{{Obj: c.L.id, Op: ts.Release}}}, desc: c.name + ".Wait (unlock " + c.L.name + ")"})
	if t.r.fail != nil {
		t.stopHere()
	}
	t.do(op{kind: kCondWake, obj: c, step: ts.Step{Obj: c.id, Op: ts.Read, Sync: true, Also: c.also}, desc: c.name + ".Wait (woken, lock " + c.L.name + ")"})
}

// Signal wakes the longest waiting thread, if any.
func (c *Cond) Signal(t *T) {
	c.use(t)
	t.do(op{kind: kCondSig, obj: c, step: ts.Step{Obj: c.id, Op: ts.Write, Sync: true}, arg: 1, desc: c.name + ".Signal"})
}

// Broadcast wakes every waiting thread.
func (c *Cond) Broadcast(t *T) {
	c.use(t)
	t.do(op{kind: kCondSig, obj: c, step: ts.Step{Obj: c.id, Op: ts.Write, Sync: true}, arg: 2, desc: c.name + ".Broadcast"})
}

// Once is sync.Once: the first Do runs f while later ones wait for it to
// return. Do is a lock, a check and an unlock.
type Once struct {
	m    *Mutex
	done bool
}

// NewOnce returns a Once.
func NewOnce(t *T, name string) *Once {
	if name == "" {
		name = fmt.Sprintf("once%d.%d", t.id, t.objs+1)
	}
	return &Once{m: NewMutex(t, name)}
}

// Do calls f if no Do has called it yet in this execution.
func (o *Once) Do(t *T, f func()) {
	o.m.Lock(t)
	defer o.m.Unlock(t)
	if !o.done {
		defer func() { o.done = true }()
		f()
	}
}
