package threads

import (
	"errors"
	"fmt"
	"iter"

	"github.com/weftlab/weft/sim"
	"github.com/weftlab/weft/ts"
)

// DefaultMaxThreads is the number of thread slots of a program that does
// not set Program.MaxThreads: its Threads plus the spawned ones.
const DefaultMaxThreads = 8

// DefaultSpinLimit is the number of visible steps one thread may take in
// one execution before it is reported as spinning.
const DefaultSpinLimit = 1000

// Program is a concurrent program written as ordinary Go. Each function of
// Threads is a thread (thread i is ts.Tid i); a thread may start more with
// [T.Go]. Every call of a primitive of this package is one visible step;
// the code between calls is local and must be deterministic.
type Program struct {
	// Threads are the threads that run from the start; at least one.
	Threads []func(*T)
	// MaxThreads is the number of thread slots, Threads and spawned ones
	// together; 0 means max(DefaultMaxThreads, len(Threads)). A program
	// that spawns more is stopped with an error naming the spawn.
	MaxThreads int
	// Leaks makes a thread left waiting forever after thread 0 (main) has
	// returned a deadlock, as a goroutine leak checker would report it.
	// By default it is Idle, not a deadlock: in Go the program ends when
	// main returns, and the runtime reports "all goroutines are asleep"
	// only while main waits too.
	Leaks bool
	// SpinLimit is how many visible steps one thread may take in one
	// execution before the execution is a violation (a spin or livelock);
	// 0 means DefaultSpinLimit.
	SpinLimit int
}

// New returns the program whose only initial thread is main.
func New(main func(*T)) *Program { return &Program{Threads: []func(*T){main}} }

// System returns the program as a transition system whose states are the
// schedules that reach them (see package sim).
func (p *Program) System() (*System, error) {
	if p == nil || len(p.Threads) == 0 {
		return nil, fmt.Errorf("%w: threads: a program needs at least one thread", ts.ErrBadOptions)
	}
	for i, f := range p.Threads {
		if f == nil {
			return nil, fmt.Errorf("%w: threads: thread %d is nil", ts.ErrBadOptions, i)
		}
	}
	n := p.MaxThreads
	if n == 0 {
		n = max(DefaultMaxThreads, len(p.Threads))
	}
	if n < len(p.Threads) || n > maxSlots {
		return nil, fmt.Errorf("%w: threads: MaxThreads %d, want %d..%d", ts.ErrBadOptions, n, len(p.Threads), maxSlots)
	}
	if p.SpinLimit < 0 {
		return nil, fmt.Errorf("%w: threads: negative SpinLimit", ts.ErrBadOptions)
	}
	r := &runner{prog: p, n: n, spin: p.SpinLimit, names: map[ts.Obj]string{}, tnames: make([]string, n)}
	if r.spin == 0 {
		r.spin = DefaultSpinLimit
	}
	sys, err := sim.New(r, sim.Options{})
	if err != nil {
		return nil, err
	}
	return &System{System: sys, r: r, p: p}, nil
}

// MustSystem is System for a program known to be well formed; it panics
// on an error.
func (p *Program) MustSystem() *System {
	s, err := p.System()
	if err != nil {
		panic(err)
	}
	return s
}

// maxSlots keeps object numbers (slot<<objBits | index) below
// ts.InvariantObj.
const (
	objBits  = 16
	maxSlots = 1024
)

// spawnObj is the object every spawn writes and every spawned thread's
// start reads: spawns are ordered, and a start depends on its spawn.
const spawnObj ts.Obj = 0

// errStop unwinds a thread's coroutine when its execution is abandoned.
var errStop = errors.New("threads: execution stopped")

// kind is the kind of a pending operation.
type kind uint8

const (
	kStart kind = iota // a spawned thread's first step
	kRead
	kWrite
	kLock
	kUnlock
	kRLock
	kRUnlock
	kWaitRW    // a writer waiting for readers to leave
	kChan      // a channel send, receive or close; see chanOp
	kWaitChan  // waiting for a partner after kChan or kSelect queued
	kSelect    // a select over several cases
	kWgAdd     // WaitGroup.Add / Done
	kWgWait    // WaitGroup.Wait
	kCondWait  // Cond.Wait: release the lock, queue
	kCondWake  // Cond.Wait: woken, take the lock again
	kCondSig   // Signal / Broadcast
	kChoose    // a choice among n values
	kYieldOnly // an atomic or Var access: no blocking
)

// op is what a thread does next, known when it yields.
type op struct {
	kind kind
	obj  object
	step ts.Step
	outs int
	arg  int
	// desc is how the step reads in a trace; when it is empty, verb and
	// the object's name (built only when a trace is).
	desc string
	verb string
	// sel holds the select's cases, for kSelect and its wait.
	sel  []selCase
	dflt bool
}

// object is a primitive: it has a number and knows whether a thread's
// pending operation on it can proceed.
type object interface {
	objID() ts.Obj
	ready(r *runner, t *T) bool
}

// T is a thread's handle: pass it to every primitive. It is valid only in
// the thread it was given to.
type T struct {
	r       *runner
	id      ts.Tid
	name    string
	next    func() (struct{}, bool)
	stop    func()
	yield   func(struct{}) bool
	pending op
	done    bool
	// stopping: the execution was abandoned; the thread unwinds.
	stopping bool
	objs     int // objects created, for their numbers
	steps    int
	// results of the last step
	val    any
	ok     bool
	choice int
	woken  bool // a Cond waiter signalled / a queued channel op completed
	rcase  int  // the select case taken
	// closedSend: a queued send was completed by a close.
	closedSend bool
}

// ID returns the thread's number.
func (t *T) ID() ts.Tid { return t.id }

// Name sets the thread's name as traces and deadlock reports show it.
func (t *T) Name(name string) {
	t.name = name
	t.r.tnames[t.id] = name
}

// runner is the program as a sim.Simulator: one execution at a time.
type runner struct {
	prog   *Program
	n      int
	spin   int
	run    uint64 // which execution objects belong to
	ts     []*T
	funcs  []func(*T) // a slot's function once spawned
	nspawn int
	fail   error // the first violation of this execution
	// log holds the moves since Reset; stale: the coroutines were ended
	// and the execution must be replayed before it is used.
	log    []ts.Move
	stale  bool
	names  map[ts.Obj]string
	tnames []string
}

func (r *runner) Threads() int { return r.n }

// Reset stops every coroutine of the execution and starts a new one.
func (r *runner) Reset() {
	r.stopAll()
	r.stale = false
	r.log = r.log[:0]
	r.run++
	r.fail = nil
	r.nspawn = len(r.prog.Threads)
	r.ts = make([]*T, r.n)
	r.funcs = make([]func(*T), r.n)
	copy(r.funcs, r.prog.Threads)
	for i := range r.n {
		r.ts[i] = &T{r: r, id: ts.Tid(i)}
		if r.tnames[i] == "" {
			if i == 0 {
				r.tnames[i] = "main"
			} else {
				r.tnames[i] = fmt.Sprintf("g%d", i)
			}
		}
	}
	for i := range r.ts {
		t := r.ts[i]
		if i < len(r.prog.Threads) {
			r.launch(t)
		} else {
			t.pending = op{kind: kStart, step: ts.Step{Obj: spawnObj, Op: ts.Read, Sync: true}, desc: "start"}
		}
	}
}

// stopAll ends every coroutine, so that no goroutine outlives an
// execution. The runner replays its moves if asked about the execution
// again (see revive).
func (r *runner) stopAll() {
	if r.ts != nil {
		r.stale = true
	}
	for _, t := range r.ts {
		if t != nil && t.stop != nil {
			t.stop()
			t.stop = nil
		}
	}
}

// Close ends the coroutines of the current execution. A search leaves the
// last execution's threads suspended; Close (or the next search's Reset)
// ends them.
func (r *runner) Close() { r.stopAll() }

// launch starts t's coroutine and runs it to its first step.
func (r *runner) launch(t *T) {
	f := r.funcs[t.id]
	seq := func(yield func(struct{}) bool) {
		t.yield = yield
		defer func() {
			p := recover()
			t.done = true
			if p == nil || p == errStop { //nolint:errorlint // identity
				return
			}
			if v, ok := p.(violation); ok {
				r.failf(t, "%s", string(v))
				return
			}
			r.failf(t, "panic: %v", p)
		}()
		f(t)
	}
	t.next, t.stop = iter.Pull(seq)
	t.resume()
}

// violation is an assertion's message, raised as a panic to end the thread.
type violation string

func (r *runner) failf(t *T, format string, args ...any) {
	if r.fail == nil {
		r.fail = fmt.Errorf("thread %d (%s): %s", t.id, r.tnames[t.id], fmt.Sprintf(format, args...))
	}
}

// resume runs t until its next step or its end.
func (t *T) resume() {
	if _, ok := t.next(); !ok {
		t.done = true
		t.stop = nil
	}
}

// do parks the thread at o until the scheduler takes it.
func (t *T) do(o op) {
	if t.r == nil || t.r.ts == nil || t.r.ts[t.id] != t {
		panic("threads: a primitive was called with a T of another execution")
	}
	if t.yield == nil || t.done || t.stopping {
		panic(errStop)
	}
	t.pending = o
	if !t.yield(struct{}{}) {
		t.stopping = true
		panic(errStop)
	}
}

// revive replays the execution after stopAll ended its coroutines.
func (r *runner) revive() {
	log := append([]ts.Move(nil), r.log...)
	r.Reset()
	for _, m := range log {
		r.Step(m.Thread, m.Outcome)
	}
}

func (r *runner) Next(id ts.Tid) (ts.Step, ts.Status) {
	if r.stale {
		r.revive()
	}
	t := r.ts[id]
	if t.done {
		return ts.Step{}, ts.Finished
	}
	p := &t.pending
	if p.kind == kStart {
		if r.funcs[id] == nil {
			return p.step, ts.Idle
		}
		return p.step, ts.Enabled
	}
	if p.obj == nil || p.obj.ready(r, t) {
		return p.step, ts.Enabled
	}
	if id != 0 && r.ts[0].done && !r.prog.Leaks {
		return p.step, ts.Idle
	}
	return p.step, ts.Blocked
}

func (r *runner) Outcomes(id ts.Tid) int {
	if r.stale {
		r.revive()
	}
	t := r.ts[id]
	if t.done || t.pending.outs < 1 {
		return 1
	}
	return t.pending.outs
}

// Step takes t's pending operation, then runs t to its next one.
func (r *runner) Step(id ts.Tid, c int) {
	if r.stale {
		r.revive()
	}
	r.log = append(r.log, ts.Move{Thread: id, Outcome: c})
	t := r.ts[id]
	p := t.pending
	t.steps++
	switch p.kind {
	case kStart:
		r.launch(t)
		return
	case kChoose:
		t.choice = c
	default:
		if p.obj != nil {
			if a, ok := p.obj.(actor); ok {
				a.act(r, t, c)
			}
		}
	}
	if t.steps > r.spin && r.fail == nil {
		r.failf(t, "took %d visible steps in one execution: a spin loop or livelock (it keeps looping without a schedule that lets it finish); raise Program.SpinLimit if the loop is bounded", t.steps)
		t.stop()
		t.stop, t.done = nil, true
		return
	}
	t.resume()
}

// actor is an object whose operations change it when taken.
type actor interface {
	act(r *runner, t *T, c int)
}

// Check reports the execution's first violation: a failed assertion, a
// panic (send on a closed channel, unlock of an unlocked mutex, ...) or a
// spin.
func (r *runner) Check() error {
	if r.stale {
		r.revive()
	}
	return r.fail
}

// Describe says what thread id's next step does.
func (r *runner) Describe(id ts.Tid) string {
	if r.stale {
		r.revive()
	}
	t := r.ts[id]
	if t.done {
		return "finished"
	}
	if p := &t.pending; p.desc == "" && p.obj != nil {
		if n, ok := p.obj.(interface{ objName() string }); ok {
			return p.verb + " " + n.objName()
		}
	}
	return t.pending.desc
}

// ObjName names an object as its constructor was told.
func (r *runner) ObjName(o ts.Obj) string {
	if o == spawnObj {
		return "spawn"
	}
	if n, ok := r.names[o]; ok {
		return n
	}
	if o&(1<<objBits-1) == 0 {
		return fmt.Sprintf("choice of thread %d", o>>objBits-1)
	}
	return fmt.Sprintf("o%d", o)
}

// ThreadName names a thread: "main" for thread 0, "g<n>" for the others
// unless they called T.Name.
func (r *runner) ThreadName(id ts.Tid) string { return r.tnames[id] }

// Go starts f as a new thread. The spawn is a visible step; the new thread
// takes a first step (its start) before its own code runs.
func (t *T) Go(f func(*T)) {
	t.do(op{kind: kWrite, obj: spawner{}, step: ts.Step{Obj: spawnObj, Op: ts.Write, Sync: true}, desc: "go"})
	t.checkSpawn(f)
}

// spawner is the object of spawns.
type spawner struct{}

func (spawner) objID() ts.Obj              { return spawnObj }
func (spawner) ready(*runner, *T) bool     { return true }
func (spawner) act(r *runner, t *T, _ int) { t.val = nil }
func (t *T) checkSpawn(f func(*T)) {
	r := t.r
	if r.nspawn >= r.n {
		panic(violation(fmt.Sprintf("spawns more threads than Program.MaxThreads = %d", r.n)))
	}
	r.funcs[r.nspawn] = f
	r.nspawn++
}

// newObj numbers a new object of thread t and records its name.
func (t *T) newObj(name, def string) ts.Obj {
	t.objs++
	if t.objs >= 1<<objBits {
		panic("threads: too many objects in one thread")
	}
	o := ts.Obj((int(t.id)+1)<<objBits | t.objs)
	if name == "" {
		name = fmt.Sprintf("%s%d.%d", def, t.id, t.objs)
	}
	t.r.names[o] = name
	return o
}

// choiceObj is thread t's own object, which only its choices touch.
func (t *T) choiceObj() ts.Obj { return ts.Obj((int(t.id) + 1) << objBits) }

// Choose returns a value in 0..n-1 chosen by the search: every value is
// explored. It is one step (a choice with n outcomes) on an object of the
// thread's own, independent of every other thread.
func (t *T) Choose(n int) int {
	if n < 1 {
		panic(violation(fmt.Sprintf("Choose(%d): want n >= 1", n)))
	}
	t.do(op{kind: kChoose, step: ts.Step{Obj: t.choiceObj(), Op: ts.Write}, outs: n, desc: fmt.Sprintf("choose 0..%d", n-1)})
	return t.choice
}

// Assert fails the execution with the message when cond is false: a
// violation whose trace ends at this thread's last step.
func (t *T) Assert(cond bool, format string, args ...any) {
	if !cond {
		panic(violation(fmt.Sprintf(format, args...)))
	}
}

// Fail fails the execution with the message.
func (t *T) Fail(format string, args ...any) { panic(violation(fmt.Sprintf(format, args...))) }

// System is a program as a transition system: a [sim.System] over the
// program's executions, whose states are the schedules that reach them.
type System struct {
	*sim.System
	r *runner
	p *Program
}

// Fork implements [ts.Forker]: a System of its own for each worker of a
// search with several (ts.Options.Workers); the search closes it when it
// ends.
func (s *System) Fork() (ts.TransitionSystem[sim.State], error) {
	c, err := s.p.System()
	if err != nil {
		return nil, err
	}
	return c, nil
}

// SearchStats implements [ts.StatsReporter]. Every search asks for its
// figures when it starts and when it ends; the System takes the chance to
// end the coroutines of the execution it stands on, so that no goroutine
// outlives a search. If asked about that execution again, it replays it.
func (s *System) SearchStats() map[string]int64 {
	s.r.stopAll()
	return s.System.SearchStats()
}

// Close ends the coroutines of the execution the System stands on (a
// search does it when it ends; see SearchStats).
func (s *System) Close() { s.r.stopAll() }
