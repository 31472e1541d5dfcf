package ts

import (
	"bytes"
	"container/heap"
	"encoding/binary"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// The parallel stateful search (ExploreStateful with Options.Workers > 1).
//
// The serial depth-first search stays the one source of truth: it runs on
// the caller's goroutine (the walker) and makes every decision, every count
// and every callback exactly as it does alone. What the workers do is the
// expensive part of its work on a state, ahead of it: each thread's Next,
// Outcomes and the checks (the state's "look"), and each move's Apply and the
// resulting state's Hash (its "kids"). The walker takes those answers where
// it would have called the system itself, and calls the system itself where
// an answer is missing or where computing it panicked or was rejected, so
// every panic and every contract error happens on the walker, at the point
// of the serial search, and is reported the same way. Answers are only ever
// taken for the very state value they were computed from (a kid is the
// value a worker's Apply returned, and the walker goes on from that value),
// never for another state of the same hash: a Hasher may map different
// states to one hash on purpose (symmetry reduction does).
//
// Workers pick the states to expand in the walker's order: the state with
// the smallest path from the initial state (paths compared move by move, a
// prefix first), which is the depth-first order. A hash is expanded once:
// by the state of smallest path that has it so far, or not at all once the
// walker has visited it. At most window expansions wait ahead of the walker.
//
// Whether the workers pay is measured, not assumed: handing a state between
// goroutines costs more than the bundled models' own methods (lastzero-8
// took 3.5 times as long with 2 workers as alone), and only a system whose
// methods are costly gains. The walker explores the first probeSerial
// states alone, timing them; then it starts the workers where it stands
// (start) and times probeParallel states more; it keeps them only if a
// state took at most parallelGain of the time alone, and otherwise stops
// them for the rest of the search. Either way it decides nothing else, so
// the result is the same.

// pnode is a state of the parallel search: its value, and what was computed
// of it.
type pnode[S any] struct {
	state   S
	hash    uint64
	key     []byte // the path from the initial state (keys order states depth-first), once published
	move    Move   // the move that reached it from its parent
	hashOK  bool   // hash is Hash(state): it returned normally
	applied bool   // state is what Apply returned (it returned normally)

	phase   atomic.Uint32 // pNew, pBusy (being expanded), pDone
	counted atomic.Bool   // a worker's expansion of it counts in parallel.ahead

	exp *pexp[S] // written by expand, read once phase is pDone
}

// pexp is what expand computed of a state.
type pexp[S any] struct {
	lookOK                     bool    // look holds every answer, all returned normally and valid
	look                       []tlook // each thread's answers
	enabled, blocked, children int
	viol                       *Violation // Check or Invariant failure
	kids                       []pnode[S]
}

// tlook is what a thread's Next (and Outcomes) answered at a state.
type tlook struct {
	step   Step
	status Status
	outs   int
}

const (
	pNew uint32 = iota
	pBusy
	pDone
)

// parallel is the machinery of one parallel stateful search. The fields
// above mu belong to the walker.
type parallel[S any] struct {
	e       *explorer[S]
	next    *pnode[S]   // the state visit is about to see (set by apply)
	nextKid int         // next is kid number nextKid of its parent
	path    []*pnode[S] // path[d] is the state of stack frame d
	cur     *pexp[S]    // the look visit took
	filled  bool        // visit took cur's look: check takes its verdict
	off     bool        // no workers run: the search goes on serially (until start)
	seen    []*pnode[S] // states the walker visited, whose claims it has not marked yet

	nodeBytes int64 // what a state computed ahead costs, about
	window    int64 // expansions allowed ahead of the walker

	// The probe (see the top of this file): the workers to start, the
	// stage, the states visited, when the timed stretch began, and what a
	// state took alone; its sizes and clock (tests change them).
	workers   int
	stage     uint8
	visits    int64
	since     time.Time // the start of the stretch alone, then of the workers
	warmAt    time.Time // the end of their warm-up
	serialPer time.Duration
	probeSettings

	ahead   atomic.Int64 // workers' expansions the walker has not taken
	idle    atomic.Int32 // workers waiting in cond
	waiting atomic.Bool  // the walker waits in cond

	mu     sync.Mutex
	cond   *sync.Cond
	front  frontier[S]          // states to expand, smallest key first
	claims map[uint64]*pnode[S] // hash -> the state that expands it, or mark
	mark   *pnode[S]            // the claim of a hash the walker has visited
	budget int64                // bytes the workers may keep (the memory cap less the search's tables), or -1
	done   bool
	wg     sync.WaitGroup
}

// newParallel starts the workers of e's search, or returns nil when the
// search is to stay on one goroutine: one worker, a system that counts
// its own work (StatsReporter), whose figures the work done ahead would
// change, or one that cannot be shared (Forker).
func newParallel[S any](e *explorer[S], workers int) *parallel[S] {
	if workers <= 1 || !e.stateful {
		return nil
	}
	if _, ok := e.sys.(StatsReporter); ok {
		return nil
	}
	if _, ok := e.sys.(Forker[S]); ok {
		return nil // not safe to share, and its copies' states are not its own
	}
	n := int64(e.n)
	var node pnode[S]
	var exp pexp[S]
	p := &parallel[S]{e: e, mark: new(pnode[S]), workers: workers, off: true,
		probeSettings: probeSettings{serial: probeSerial, timed: probeParallel, warm: probeWarm, every: probeEvery, alone: probeAlone, now: time.Now},
		// an expansion with its look, and per thread about one kid with its
		// key and claim
		nodeBytes: int64(unsafe.Sizeof(exp)) + n*(int64(unsafe.Sizeof(tlook{})+unsafe.Sizeof(node))+16+visitedEntryBytes),
		window:    int64(parallelWindow * workers),
		budget:    e.maxMemory,
	}
	if e.maxMemory >= 0 {
		// What is kept ahead stays within a quarter of the cap.
		p.window = min(p.window, max(e.maxMemory/4/p.nodeBytes, 1))
	}
	p.cond = sync.NewCond(&p.mu)
	if t := e.opt.probe; t != nil {
		if t.serial == 0 {
			p.stage = stageDecided
			p.start(0)
			return p
		}
		p.probeSettings = *t
	}
	return p
}

// probeSettings are the probe's sizes, in states visited: alone, then with
// the workers, of which the first warm are not timed, checked every every
// states for a hopeless slowdown; how long the stretch alone may last
// (alone, 0: no limit), and the clock. Options.probe changes them in tests;
// a zero serial starts the workers at once and keeps them. kept, if set,
// learns the decision, and started the state at which the workers started.
type probeSettings struct {
	serial, timed, warm, every int64
	alone                      time.Duration
	now                        func() time.Time
	kept                       *bool
	started                    *int64
}

// The probe's stages and sizes (see the top of this file). The first
// probeWarm states with the workers are not timed: they start with nothing
// computed ahead. Every probeEvery states, workers that have taken hopeless
// times as long a state as alone, warm-up and all, are stopped at once:
// on lastzero-8 a state took 7 times as long with them, and timing the
// whole stretch cost a third of the search.
const (
	stageAlone uint8 = iota
	stageTimed
	stageDecided

	probeSerial   = 2048
	probeParallel = 4096
	probeWarm     = 1024
	probeEvery    = 128
	parallelGain  = 0.85
	hopeless      = 3

	// probeAlone bounds the stretch alone on a system whose states are
	// costly (a simulator): after probeAlone, once it has timed a multiple
	// of probeMin states, the workers start, and the stretches with them
	// shrink in proportion (half of it to warm up, as many timed).
	probeAlone = 50 * time.Millisecond
	probeMin   = 16
)

// probe counts a state the walker visits at depth d and, at the ends of the
// probe's stretches, starts the workers or stops them for good.
func (p *parallel[S]) probe(d int) {
	p.visits++
	switch p.stage {
	case stageAlone:
		if p.visits == 1 {
			p.since = p.now()
		}
		n := p.visits
		if n < p.serial && (p.alone == 0 || n < probeMin || n%probeMin != 0 || p.now().Sub(p.since) < p.alone) {
			return
		}
		if n < p.serial {
			// A costly system: the stretch alone ended by time, and the
			// ones with the workers shrink with it.
			p.serial, p.warm, p.every = n, max(n/2, 1), max(n/16, 1)
			p.timed = p.warm + n
		}
		p.serialPer = p.now().Sub(p.since) / time.Duration(max(n-1, 1))
		p.stage = stageTimed
		if p.started != nil {
			*p.started = n
		}
		p.start(d)
		p.since = p.now()
	case stageTimed:
		n := p.visits - p.serial
		switch {
		case n == p.warm:
			p.warmAt = p.now()
		case n == p.timed:
			per := p.now().Sub(p.warmAt) / time.Duration(p.timed-p.warm)
			p.decide(float64(per) <= parallelGain*float64(p.serialPer))
		case n%p.every == 0:
			// Far slower, warm-up and all: stop without timing the rest.
			if p.now().Sub(p.since) > time.Duration(n)*hopeless*p.serialPer {
				p.decide(false)
			}
		}
	}
}

// decide ends the probe: the workers stay or stop for the rest of the
// search.
func (p *parallel[S]) decide(kept bool) {
	p.stage = stageDecided
	if p.kept != nil {
		*p.kept = kept
	}
	if !kept {
		p.close()
		p.e.par = nil // the walker's hooks are not called again
	}
}

// start starts the workers at the state the walker is about to look at, at
// depth d: the frames above it are taken as expanded with nothing computed
// (the walker applies their moves itself), and the state as reached by a
// move the walker applied, so that the walker expands it and the workers
// take its kids.
func (p *parallel[S]) start(d int) {
	e := p.e
	p.claims = make(map[uint64]*pnode[S])
	p.budget = e.maxMemory
	p.path = p.path[:0]
	for i := range d {
		f := &e.stack[i]
		x := &pnode[S]{state: f.state, hash: f.hash, hashOK: true, applied: true, exp: &pexp[S]{}}
		if i > 0 {
			x.key = childKey(p.path[i-1].key, e.stack[i-1].taken-1)
		}
		x.phase.Store(pDone)
		p.path = append(p.path, x)
		p.claims[x.hash] = p.mark
	}
	if d > 0 {
		p.next, p.nextKid = &pnode[S]{state: e.stack[d].state, applied: true, move: e.sched[d-1]}, e.stack[d-1].taken-1
	}
	p.off = false
	p.wg.Add(p.workers)
	for range p.workers {
		go p.work()
	}
}

// parallelWindow is how many expansions per worker may wait ahead of the
// walker. The walker reaches states faster than workers expand them, and
// where it finds none ready it expands them itself and runs down the tip
// of the search alone; the workers meanwhile fill in the siblings along its
// path, which it needs only when it comes back: the window must hold them
// (256 left the walker expanding half the states of lastzero-8 itself,
// 4096 about 1%).
const parallelWindow = 4096

// close stops the workers and waits for them. It is idempotent.
func (p *parallel[S]) close() {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.done = true
	p.cond.Broadcast()
	p.mu.Unlock()
	p.wg.Wait()
	p.off = true
	p.front, p.claims, p.path, p.next, p.cur, p.seen = nil, nil, nil, nil, nil, nil
}

// work is a worker: it expands the first state of the frontier, in turn,
// while the walker is not too far behind.
func (p *parallel[S]) work() {
	defer p.wg.Done()
	p.mu.Lock()
	for !p.done {
		if !p.canTake() {
			// Counted idle before the check again, so that the walker, which
			// makes room without mu, knows to wake it.
			p.idle.Add(1)
			if !p.canTake() && !p.done {
				p.cond.Wait()
			}
			p.idle.Add(-1)
			continue
		}
		x := heap.Pop(&p.front).(*pnode[S])
		if p.claims[x.hash] != x || !x.phase.CompareAndSwap(pNew, pBusy) {
			continue // a state earlier in the walker's order has the hash, or the walker took it
		}
		x.counted.Store(true)
		p.ahead.Add(1)
		p.mu.Unlock()
		p.expandOrExit(x)
		p.mu.Lock()
		if p.claims[x.hash] == x {
			p.publish(x)
		}
		x.phase.Store(pDone)
		if p.waiting.Load() {
			p.cond.Broadcast()
		}
	}
	p.mu.Unlock()
}

// expandOrExit is expand on a worker. Should the system end the goroutine
// (runtime.Goexit, as t.FailNow does), x is left expanded with nothing
// computed, so that the walker asks the system itself, and the worker ends.
func (p *parallel[S]) expandOrExit(x *pnode[S]) {
	returned := false
	defer func() {
		if !returned {
			x.exp = &pexp[S]{}
			p.mu.Lock()
			x.phase.Store(pDone)
			p.cond.Broadcast()
			p.mu.Unlock()
		}
	}()
	p.expand(x)
	returned = true
}

// canTake reports whether a worker may expand a state now. It needs mu.
func (p *parallel[S]) canTake() bool {
	a := p.ahead.Load()
	return len(p.front) > 0 && a < p.window && (p.budget < 0 || (a+1)*p.nodeBytes <= p.budget)
}

// publish claims the hashes of x's kids and queues those the workers should
// expand. It needs mu.
func (p *parallel[S]) publish(x *pnode[S]) {
	queued := false
	kids := x.exp.kids
	for i := range kids {
		k := &kids[i]
		if !k.hashOK {
			continue
		}
		g, ok := p.claims[k.hash]
		if ok && g == p.mark {
			continue
		}
		k.key = childKey(x.key, i)
		if ok {
			if bytes.Compare(k.key, g.key) >= 0 {
				continue
			}
			p.displace(g)
		}
		p.claims[k.hash] = k
		heap.Push(&p.front, k)
		queued = true
	}
	if queued && p.idle.Load() > 0 {
		p.cond.Broadcast()
	}
}

// displace drops g's claim: its expansion, if any, is wasted.
func (p *parallel[S]) displace(g *pnode[S]) {
	if g.counted.CompareAndSwap(true, false) {
		p.ahead.Add(-1)
	}
}

// expand computes x's look and, where the search would go on from x, its
// kids. A panic or an invalid answer leaves the part it spoils undone: the
// walker then calls the system itself and meets it there. It runs on any
// goroutine, without mu.
func (p *parallel[S]) expand(x *pnode[S]) {
	r, n, st := p.e.runner, p.e.n, x.state
	e := &pexp[S]{look: make([]tlook, n)}
	x.exp = e
	e.lookOK = recovered(func() {
		for t := range Tid(n) {
			l := &e.look[t]
			l.step, l.status = r.sys.Next(st, t)
			if l.status > Idle || (l.status != Finished && !l.step.Valid()) {
				panic(badAnswer{})
			}
			l.outs = 1
			switch l.status {
			case Enabled:
				e.enabled++
				if r.chooser != nil {
					if l.outs = r.chooser.Outcomes(st, t); l.outs < 1 {
						panic(badAnswer{})
					}
				}
				e.children += l.outs
			case Blocked:
				e.blocked++
			}
		}
		e.viol = r.check(st)
	})
	if !e.lookOK || e.viol != nil || e.enabled == 0 {
		return
	}
	e.kids = make([]pnode[S], e.children)
	i := 0
	for t := range Tid(n) {
		if e.look[t].status != Enabled {
			continue
		}
		for c := range e.look[t].outs {
			k := &e.kids[i]
			k.move = Move{Thread: t, Outcome: c}
			k.applied = recovered(func() { k.state = r.apply(st, k.move) })
			if k.applied {
				k.hashOK = recovered(func() { k.hash = r.hasher.Hash(k.state) })
			}
			i++
		}
	}
}

// badAnswer is what expand panics with at an answer the walker must reject
// itself.
type badAnswer struct{}

// recovered runs f and reports whether it returned normally.
func recovered(f func()) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	f()
	return true
}

// childKey returns the key of kid i of the state of key parent: the
// parent's key and i, coded so that byte order is numeric order.
func childKey(parent []byte, i int) []byte {
	k := append(make([]byte, 0, len(parent)+5), parent...)
	if i < 0xF0 {
		return append(k, byte(i))
	}
	return binary.BigEndian.AppendUint32(append(k, 0xF0), uint32(i))
}

// The walker's hooks, called from explore.go. Each is a no-op on a nil or
// stopped parallel, so the serial search runs unchanged.

// apply returns the state move m (the top frame's move number taken-1) leads
// to from frame d: the kid a worker computed, or Apply's answer now.
func (p *parallel[S]) apply(top *frame[S], m Move, d int) S {
	p.next = nil
	i := top.taken - 1
	var x *pnode[S]
	if !p.off && d < len(p.path) {
		x = p.path[d]
	}
	if x != nil && i < len(x.exp.kids) {
		if k := &x.exp.kids[i]; k.move == m && k.applied {
			p.next, p.nextKid = k, i
			return k.state
		}
	}
	child := p.e.runner.apply(top.state, m)
	if x != nil {
		p.next, p.nextKid = &pnode[S]{state: child, applied: true, move: m}, i
	}
	return child
}

// hash returns the hash of s, the state visit is about to see.
func (p *parallel[S]) hash(s S) uint64 {
	if p.off || p.next == nil || !p.next.hashOK {
		return p.e.hasher.Hash(s)
	}
	return p.next.hash
}

// look fills frame f (frame number d, at state s of hash h, which the search
// visits for the first time) with the answers computed ahead, and returns
// the thread from which visit must still ask: e.n when everything is filled,
// 0 when nothing is.
func (p *parallel[S]) look(f *frame[S], h uint64, d int, enabled, blocked *int) Tid {
	if p == nil {
		return 0
	}
	p.filled = false
	if p.stage != stageDecided {
		p.probe(d)
	}
	x := p.next
	p.next = nil
	if p.off {
		return 0
	}
	if x == nil {
		if d != 0 {
			p.close() // cannot happen: every state after the first comes from apply
			return 0
		}
		x = &pnode[S]{state: f.state, applied: true}
	}
	if !x.hashOK {
		x.hash, x.hashOK = h, true
	}
	if x.key == nil && d > 0 {
		// Not queued by the workers (a duplicate to them, or computed
		// here): its key is made now that the walker visits it.
		x.key = childKey(p.path[d-1].key, p.nextKid)
	}
	for len(p.path) <= d {
		p.path = append(p.path, nil)
	}
	if old := p.path[d]; old != nil {
		old.exp = nil // the walker is done with it: free what hangs from it
	}
	p.path[d] = x
	p.seen = append(p.seen, x)
	mine := false
	switch x.phase.Load() {
	case pNew:
		mine = x.phase.CompareAndSwap(pNew, pBusy)
		if !mine {
			p.wait(x)
		}
	case pBusy:
		p.wait(x)
	}
	if x.counted.CompareAndSwap(true, false) && p.ahead.Add(-1) < p.window && p.idle.Load() > 0 {
		p.mu.Lock()
		p.cond.Broadcast()
		p.mu.Unlock()
	}
	if mine {
		p.expand(x)
		p.mu.Lock()
		p.flush()
		p.publish(x)
		x.phase.Store(pDone)
		p.mu.Unlock()
	} else if len(p.seen) >= 64 {
		p.mu.Lock()
		p.flush()
		p.mu.Unlock()
	}
	if p.budget < 0 && p.e.maxMemory >= 0 {
		// The tables of the parallel search would pass the memory cap: drop
		// them and go on serially, so that the search fails, if it does, where
		// the serial search does.
		p.close()
		return 0
	}
	ex := x.exp
	if !ex.lookOK {
		return 0
	}
	for t, l := range ex.look {
		f.steps[t], f.status[t], f.outs[t] = l.step, l.status, l.outs
	}
	*enabled, *blocked = ex.enabled, ex.blocked
	f.children = ex.children
	p.cur, p.filled = ex, true
	return Tid(len(ex.look))
}

// wait waits until a worker has expanded x.
func (p *parallel[S]) wait(x *pnode[S]) {
	p.mu.Lock()
	p.waiting.Store(true)
	for x.phase.Load() != pDone {
		p.cond.Wait()
	}
	p.waiting.Store(false)
	p.mu.Unlock()
}

// flush marks the hashes of the states the walker visited as visited: no
// worker expands them any more. It also updates what the workers may keep.
// It needs mu.
func (p *parallel[S]) flush() {
	for _, x := range p.seen {
		if g := p.claims[x.hash]; g != nil && g != x && g != p.mark {
			p.displace(g)
		}
		p.claims[x.hash] = p.mark
	}
	clear(p.seen)
	p.seen = p.seen[:0]
	if e := p.e; p.budget >= 0 {
		p.budget = e.maxMemory - int64(len(e.stack))*e.frameBytes - e.visited.Bytes() -
			int64(len(p.claims))*visitedEntryBytes
	}
}

// check returns the verdict of Check and Invariant on s, the state whose
// look visit took, or asks them now.
func (p *parallel[S]) check(r *runner[S], s S) *Violation {
	if p == nil || !p.filled {
		return r.check(s)
	}
	p.filled = false
	if p.cur.viol == nil {
		return nil
	}
	v := *p.cur.viol // visit sets its Thread
	return &v
}

// frontier is a heap of states, smallest key first.
type frontier[S any] []*pnode[S]

func (f frontier[S]) Len() int           { return len(f) }
func (f frontier[S]) Less(i, j int) bool { return bytes.Compare(f[i].key, f[j].key) < 0 }
func (f frontier[S]) Swap(i, j int)      { f[i], f[j] = f[j], f[i] }
func (f *frontier[S]) Push(x any)        { *f = append(*f, x.(*pnode[S])) }
func (f *frontier[S]) Pop() any {
	old := *f
	x := old[len(old)-1]
	old[len(old)-1] = nil
	*f = old[:len(old)-1]
	return x
}
