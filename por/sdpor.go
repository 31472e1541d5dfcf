package por

import (
	"context"
	"math/bits"

	"github.com/bits-and-blooms/bitset"

	"github.com/weftlab/weft/hb"
	"github.com/weftlab/weft/internal/grow"
	"github.com/weftlab/weft/internal/hashset"
	"github.com/weftlab/weft/internal/offheap"
	"github.com/weftlab/weft/ts"
)

// SDPOR is stateful dynamic partial-order reduction: Figure 4.5 of Yu Yang's
// thesis, "Efficient dynamic verification of concurrent programs" (Utah,
// 2009), chapter 4. It is DPOR (without sleep sets, which are unsound with
// state caching) that stores the hash of every state it visits and does not
// go on from a state it has seen.
//
// Stopping at a visited state alone would be unsound: the transitions taken
// after it, the first time, would have added backtrack points to the states
// now on the stack. So SDPOR keeps the visible-operation dependency graph G:
// its nodes are operations (a thread and its step), and it has an edge from
// the operation that reached a state to the next operation of every thread
// that has not finished there. At a visited state s it runs the backtrack
// rule for every operation reachable in G from the next operations at s: a
// summary of everything the search did from s, since in a depth-first
// search of an acyclic space every state reachable from a visited state has
// been visited.
//
// We add edges to the next operation of every unfinished thread, where the
// thesis adds them to the operation explored next only: DPOR's rule looks at
// every thread's next step (blocked ones included), and those steps must be in
// the summary too. For operations of the summary the rule uses the thread's
// clock on the current stack and no held locks, which only adds backtrack
// points.
//
// Most transitions of SDPOR end at a visited state, and applying the rule
// for the whole summary there each time would cost several times the rest
// of the search. So each operation keeps how far the rule has settled for
// it (opRuled): a revisit rules again only on the events pushed since its
// last ruling (or on all, where its thread's clock may have lost what it
// knew of them), and only for the operations such an event is dependent
// with (a read: those that write its object) or whose thread's last event
// has been popped since. This does not change what the search explores
// (tested: ruling again on the whole execution never adds a backtrack
// point). A revisit takes the state's next operations from the graph,
// where they were stored when it was first met: it hashes the state and
// calls no Next. The graph is kept as its transitive closure, updated as
// edges are added: the summary is the union of the next operations'
// reachable sets.
//
// Assumptions, which SDPOR checks where it can:
//   - the system implements ts.Hasher (otherwise the error wraps
//     ts.ErrBadOptions and ts.ErrNoHash), and equal hashes mean equal states:
//     a collision can hide states;
//   - the state space is acyclic: a state met again while it is on the search
//     stack stops the search with an error wrapping ErrCyclic (with the
//     schedule that closes the cycle), never a wrong answer.
//
// Result.States counts the distinct states; Result.Executions counts the
// executions that ended in a terminal state or a violation or were cut at a
// visited state. OnTerminal is called once per distinct terminal state.
func SDPOR[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options) (ts.Result, error) {
	return run(ctx, sys, opt, modeSDPOR)
}

// opKey is a visible operation: a thread and its step (every access of it).
type opKey struct {
	t    ts.Tid
	step ts.Step
}

// fingerprint hashes an operation for the graph's index; equal operations
// have equal fingerprints, and the index compares operations that collide.
func (k opKey) fingerprint() uint64 {
	h := uint64(k.t)*0x9e3779b97f4a7c15 + 1
	for i := range k.step.NumAccesses() {
		a := k.step.At(i)
		v := uint64(uint32(a.Obj))<<8 | uint64(a.Op)<<1
		if a.Sync {
			v |= 1
		}
		h = (h ^ v) * 0xbf58476d1ce4e5b9
		h ^= h >> 31
	}
	return h
}

// opGraph is the visible-operation dependency graph.
type opGraph struct {
	ids hashset.Map // operation ids by fingerprint, then by fingerprint+1, ... on a collision
	// visited is the explorer's table of visited states, kept here so that
	// the pool carries it to the next search (init).
	visited hashset.Map
	ops     []opKey
	ruled   []opRuled // by operation: how far revisits have ruled on it
	// reach[i] is the set of operations reachable from operation i (i
	// included): the graph's transitive closure, which is all a revisit
	// reads of it, kept up to date as edges are added (link). The graph
	// stops growing early in a search (lastzero-7: 22 operations and 294
	// edges, new during 50 of 48,291 revisits), and an edge already in
	// the closure changes nothing, so the edges themselves are not kept.
	reach   []opSet
	reached opSet // revisit's scratch: the join
	// prefixLen is prefix's answer for the stamp prefixOf (noStamp: none).
	prefixOf  uint64
	prefixLen int32
	// clock[i*n:(i+1)*n] is the clock of operation i's ruling (opRuled),
	// for the n threads.
	clock []uint32
	// dirty holds the operations a revisit must rule on if it reaches
	// them (see revisit): an event dependent with them was pushed, or
	// their thread's last event popped, since their last ruling; or their
	// record holds only with the same locks or leaves events open. onObj
	// (by object: dense below denseObjs, else sparse) and ofThread are the
	// operations touching an object and those of a thread. since and
	// lastOf are the ids and each thread's last event at the last revisit.
	dirty    opSet
	onObj    []objOps
	onSparse map[ts.Obj]*objOps
	ofThread []opSet
	since    uint64
	lastOf   []int32
	shared   int32 // how many events the execution shares with the last revisit's
	// stateAt[(i-1)*n:i*n] is the at (below) of the state whose visited
	// entry holds i, when it was first met: a state met again has the same
	// next steps, so a revisit takes its operations from here, without
	// asking the system for them. n is the thread count.
	stateAt []int32
	n       int
	// stateMem is where stateAt is once large (offheap: memory mapped for
	// it, grown without copies); kept with it.
	stateMem *offheap.Region
	// at[d*n+t] is the operation of thread t's next step at the frame of
	// depth d (-1: finished), for the frames on the stack: a thread that
	// did not move keeps its step, and its operation is found by comparing
	// the step with the parent's, not by a lookup.
	at []int32
}

// init makes g empty for a new search, keeping the buffers of the last
// one (an explorer from the pool carries its graph): a search of a few
// hundred transitions would otherwise allocate for each of its operations.
// It returns the search's table of visited states (explorer.visited),
// empty, the last search's unless that one grew past keptStates: growing
// a new one cost wsq-1's search 5% of its instructions.
func (g *opGraph) init() *hashset.Map {
	for _, m := range []*hashset.Map{&g.ids, &g.visited} {
		if m.Len() > keptStates {
			m.Free()
		} else {
			m.Clear()
		}
	}
	clear(g.onSparse)
	clear(g.ops) // the systems' steps
	stateAt, stateMem := g.stateAt, g.stateMem
	*g = opGraph{
		ids: g.ids, visited: g.visited, onSparse: g.onSparse,
		ops: g.ops[:0], ruled: g.ruled[:0], reach: g.reach[:0], reached: g.reached[:0],
		clock: g.clock[:0], dirty: g.dirty[:0], onObj: g.onObj[:0], ofThread: g.ofThread[:0],
		lastOf: g.lastOf[:0], at: g.at[:0],
	}
	if cap(stateAt) <= keptStates {
		g.stateAt, g.stateMem = stateAt[:0], stateMem
	}
	return &g.visited
}

// keptStates bounds the stored operations (opGraph.stateAt, one per thread
// and state) and the table of visited states that the pool keeps for the
// next search: they grow with the states, not with the depth.
const keptStates = 1 << 16

// extend returns s one element longer, the new one empty but keeping the
// buffer an earlier search left there.
func extend[S ~[]E, E any](s []S) []S {
	if len(s) < cap(s) {
		s = s[:len(s)+1]
		s[len(s)-1] = s[len(s)-1][:0]
		return s
	}
	return append(s, nil)
}

func (g *opGraph) id(k opKey) int32 {
	f := k.fingerprint()
	for {
		i, ok := g.ids.Get(f)
		if !ok {
			break
		}
		if op := g.ops[i]; op.t == k.t && op.step.Equal(k.step) {
			return int32(i)
		}
		f++
	}
	i := int32(len(g.ops))
	g.ids.Put(f, uint32(i))
	g.ops = append(g.ops, k)
	g.ruled = append(g.ruled, opRuled{})
	g.reach = extend(g.reach)
	g.reach[i].add(i)
	g.dirty.add(i)
	for a := range k.step.NumAccesses() {
		acc := k.step.At(a)
		o := g.opsOn(acc.Obj, true)
		o.all.add(i)
		if acc.Op != ts.Read {
			o.writes.add(i)
		}
	}
	for int(k.t) >= len(g.ofThread) {
		g.ofThread = extend(g.ofThread)
	}
	g.ofThread[k.t].add(i)
	return i
}

// objOps are the operations touching an object (all) and those of them
// that do not only read it (writes): a read is dependent only with those.
type objOps struct {
	all, writes opSet
}

// opsOn returns the operations touching object o, or nil for none unless
// add.
func (g *opGraph) opsOn(o ts.Obj, add bool) *objOps {
	if o >= 0 && o < denseObjs {
		for add && int(o) >= len(g.onObj) {
			if n := len(g.onObj); n < cap(g.onObj) {
				g.onObj = g.onObj[:n+1]
				b := &g.onObj[n]
				b.all, b.writes = b.all[:0], b.writes[:0]
			} else {
				g.onObj = append(g.onObj, objOps{})
			}
		}
		if int(o) < len(g.onObj) {
			return &g.onObj[o]
		}
		return nil
	}
	b := g.onSparse[o]
	if b == nil && add {
		if g.onSparse == nil {
			g.onSparse = make(map[ts.Obj]*objOps)
		}
		b = new(objOps)
		g.onSparse[o] = b
	}
	return b
}

// link adds the edge from operation a to operation b, which the closure
// does not hold yet (reach[a] lacks b): everything that reaches a now
// reaches what b reaches. A graph of v operations pays v tests and some
// joins for each such edge, and it has few.
func (g *opGraph) link(a, b int32) {
	rb := g.reach[b]
	for x := range g.reach {
		if rx := &g.reach[x]; rx.has(a) {
			rx.join(rb)
		}
	}
}

// bytes is what the graph keeps, for the memory budget: per operation, its
// key, record and clock (about 64 bytes), its reachable set and its entry
// in ids (16 bytes a slot); and the stored operations of the states, by
// the room their slice has (it grows by doubling, and is the most SDPOR
// keeps per state besides its visited entry).
func (g *opGraph) bytes() int64 {
	v := int64(len(g.ops))
	return v*(64+8*((v+63)/64)) + g.ids.Bytes() + int64(cap(g.stateAt))*4
}

// keepOps stores the operations at of a state's threads and returns them
// as the state's visited entry (without its status), 0 past 2^30 states.
func (g *opGraph) keepOps(at []int32) uint32 {
	i := len(g.stateAt)/len(at) + 1
	if i >= 1<<30 {
		return 0
	}
	g.stateAt, g.stateMem = offheap.Grow(g.stateAt, g.stateMem, len(at))
	g.stateAt, g.n = append(g.stateAt, at...), len(at)
	return uint32(i) << 2
}

// stateGrowth returns how many bytes the stored operations grow by when
// keepOps stores n more (0 if they have the room).
func (g *opGraph) stateGrowth(n int) int64 {
	if cap(g.stateAt)-len(g.stateAt) >= n {
		return 0
	}
	return int64(grow.Cap(cap(g.stateAt), len(g.stateAt)+n)-cap(g.stateAt)) * 4
}

// stateOps returns the operations of the threads of a state whose visited
// entry is v, or nil if none were stored.
func (g *opGraph) stateOps(v uint32) []int32 {
	i := int(v >> 2)
	if i == 0 {
		return nil
	}
	return g.stateAt[(i-1)*g.n : i*g.n]
}

// recordEdges adds the edges from the operation that reached the state of
// frame f (the frame of depth e.depth) to every unfinished thread's next
// operation there, and returns those operations, by thread (-1: finished).
func recordEdges[S any](e *explorer[S], f *frame[S]) []int32 {
	g := &e.graph
	n, d := e.n, e.depth
	if need := (d + 1) * n; len(g.at) < need {
		g.at = append(g.at, make([]int32, need-len(g.at))...)
	}
	at := g.at[d*n : (d+1)*n]
	var parent []int32
	var pf *frame[S]
	if d > 0 {
		parent, pf = g.at[(d-1)*n:d*n], &e.stack[d-1]
	}
	for t := range ts.Tid(n) {
		switch {
		case f.status[t] == ts.Finished:
			at[t] = -1
		case parent != nil && parent[t] >= 0 && f.steps[t].Equal(pf.steps[t]):
			at[t] = parent[t]
		default:
			at[t] = g.id(opKey{t, f.steps[t]})
		}
	}
	k := len(e.ev)
	if k == 0 {
		return at
	}
	x := &e.ev[k-1]
	var from int32
	if parent != nil && parent[x.t] >= 0 && pf.steps[x.t].Equal(x.step) {
		from = parent[x.t]
	} else {
		from = g.id(opKey{x.t, x.step})
	}
	g.edges(from, at)
	return at
}

// edgesTo adds the edges from the operation of the last event to the
// operations at of a state met again (recordEdges without the next steps).
func (e *explorer[S]) edgesTo(at []int32) {
	g := &e.graph
	d, n := e.depth, e.n
	x := &e.ev[len(e.ev)-1]
	g.edges(g.at[(d-1)*n+int(x.t)], at) // the top frame's: the event took its step
}

// edges adds the edges from operation from to the operations at (-1:
// none).
func (g *opGraph) edges(from int32, at []int32) {
	r := g.reach[from]
	for _, to := range at {
		if to >= 0 && !r.has(to) {
			g.link(from, to)
			r = g.reach[from]
		}
	}
}

// revisit handles a state met again: the backtrack rule for every
// operation of the summary. at holds its threads' operations (stateOps),
// or is nil and its frame f holds its steps and statuses.
//
// An operation's record (opRuled) settles the rule on every event below
// the part of the execution pushed since; so a revisit rules only on those
// of the summary that an event pushed since touches, and on those whose
// thread's clock may have shrunk (dirty). The others, ruled again, would
// find nothing: their objects' events are all below the record's reach,
// and their thread's clock has only grown. They keep their record, which
// still holds.
func (e *explorer[S]) revisit(f *frame[S], at []int32) {
	e.revisits++
	if at == nil {
		at = recordEdges(e, f)
	} else {
		e.edgesTo(at)
	}
	g := &e.graph
	k := int32(len(e.ev))
	g.prefixOf = noStamp // none known yet for this execution
	e.markDirty()
	clear(g.reached)
	for _, i := range at {
		if i >= 0 {
			g.reached.join(g.reach[i])
		}
	}
	if c := e.opt.checkRevisits; c != nil {
		e.checkClean(c, at)
	}
	g.reached.meet(g.dirty)
	c := e.opt.checkRevisits
	n := e.n
	if need := len(g.ops) * n; len(g.clock) < need {
		g.clock = append(g.clock, make([]uint32, need-len(g.clock))...)
	}
	for w, word := range g.reached {
		for ; word != 0; word &= word - 1 {
			e.ruleOn(int32(w<<6+bits.TrailingZeros64(word)), at, k, c)
		}
	}
}

// ruleOn applies the backtrack rule, at a revisit whose state's threads
// have the operations at, for operation i of the summary, from where its
// record leaves it unsettled, and records the ruling.
func (e *explorer[S]) ruleOn(i int32, at []int32, k int32, c *revisitCheck) {
	g := &e.graph
	op := &g.ops[i]
	t := op.t
	r := &g.ruled[i]
	last := e.thrLast[t]
	cp := e.zero
	if last >= 0 {
		cp = e.ev[last].clock
	}
	// The last event on the operation's objects: none from the first
	// unsettled one on leaves nothing to rule on.
	top := e.objLast.get(op.step.Obj)
	for _, a := range op.step.Also {
		top = max(top, e.objLast.get(a.Obj))
	}
	from := int32(0)
	same := false // the thread's last event is the record's
	if r.stamp > 0 && top >= 0 {
		// The events with ids up to the stamp still on the stack are a
		// prefix of it (ids grow along the stack): those below p, all
		// there at the ruling, at the same indices.
		p := g.prefixLen
		if r.stamp != g.prefixOf {
			p = prefix(e, r.stamp)
		}
		same = last == r.last && r.last < p
		switch {
		case r.held:
			if at[t] == i && same {
				from = min(r.from, p)
			}
		case r.last < p:
			from = min(r.from, p) // the clock has only grown since
		default:
			if m := min(r.from, p); grownBelow(t, cp, g.clockOf(i, e.n), e.stack[m].count) {
				from = m
			}
		}
	}
	held := []ts.Obj(nil)
	if at[t] == i { // the thread's next step: its locks are known
		held = e.held[t]
	}
	if top >= from {
		r.from = e.ruleRaces(t, &op.step, cp, held, from, k)
	} else {
		r.from = k
	}
	if c != nil && from > 0 {
		b := e.backtracks
		e.racesFrom(t, &op.step, cp, held, 0, nil)
		c.checks++
		if e.backtracks != b {
			c.misses++
		}
	}
	if !same {
		copy(g.clockOf(i, e.n), cp)
	}
	r.last, r.held, r.stamp = last, len(held) > 0, e.ids
	if !r.held && r.from == k {
		g.dirty.del(i)
	}
}

// clockOf returns the clock of operation i's ruling (opRuled), for n
// threads.
func (g *opGraph) clockOf(i int32, n int) []uint32 {
	return g.clock[int(i)*n : int(i+1)*n]
}

// ruleRaces is racesFrom without a thread's record, for a revisit's
// operation: thread t's step st, with clock cp and holding the locks hp,
// against the events from event from on; it returns the first event on
// which the rule is not settled, or k, the length of the execution. Most
// revisits rule on a few operations with few events each, so it passes
// less and tests the cheap cases first: an event that happens before t
// (t's own ones too), two reads, no lock held by either, t already in the
// backtrack set there (backtrackAt's first test).
func (e *explorer[S]) ruleRaces(t ts.Tid, st *ts.Step, cp hb.VC, hp []ts.Obj, from, k int32) int32 {
	first := k
	for a := range st.NumAccesses() {
		acc := st.At(a)
		for j := e.objLast.get(acc.Obj); j >= from; j = e.ev[j].prevOn(acc.Obj) {
			x := &e.ev[j]
			op, _ := x.step.OpOn(acc.Obj)
			if cp[x.t] >= x.n {
				if op != ts.Read {
					break // everything earlier on the object happens before t too
				}
				continue
			}
			if op == ts.Read && acc.Op == ts.Read {
				continue
			}
			if (len(hp) > 0 || len(x.held) > 0) && !e.coEnabled(j, st, hp) {
				continue
			}
			if f := &e.stack[j]; f.status[t] == ts.Enabled && f.bt.Test(uint(t)) {
				continue
			}
			if e.n <= 64 && e.ruleWord(j, t, cp) {
				continue
			}
			e.pendingStep = *st
			e.markE(j, t, cp)
			if e.ruleAt(j, t, cp) != ruleSettled {
				first = min(first, j)
			}
		}
	}
	return first
}

// ruleWord is ruleAt at frame j for thread t (clock cp) with E in a word,
// for up to 64 threads, where E alone settles the rule: E meets the
// backtrack set, or it has a thread not asleep (added, t first), or it is
// empty (every enabled thread added). It reports whether it settled the
// rule; if not, all of E is asleep and the rule needs the initials
// (ruleAt).
func (e *explorer[S]) ruleWord(j int32, t ts.Tid, cp hb.VC) bool {
	f := &e.stack[j]
	xt := e.ev[j].t
	var inE uint64
	for q, st := range f.status {
		if st != ts.Enabled {
			continue
		}
		upto := f.count[q]
		if ts.Tid(q) == xt {
			upto++
		}
		if ts.Tid(q) == t || cp[q] > upto {
			inE |= 1 << uint(q)
		}
	}
	if inE&firstWord(&f.bt) != 0 {
		return true
	}
	switch awake := inE &^ firstWord(&f.sleep); {
	case awake&(1<<uint(t)) != 0:
		e.addBacktrack(f, t)
	case awake != 0:
		e.addBacktrack(f, ts.Tid(bits.TrailingZeros64(awake)))
	case inE != 0:
		return false
	default:
		e.backtrackEnabled(f)
	}
	return true
}

// firstWord returns the first 64 bits of b.
func firstWord(b *bitset.BitSet) uint64 {
	if w := b.Words(); len(w) > 0 {
		return w[0]
	}
	return 0
}

// checkClean rules, for tests, on the whole execution for every operation
// of the summary that is not dirty, and counts where that adds a backtrack
// point (revisitCheck).
func (e *explorer[S]) checkClean(c *revisitCheck, at []int32) {
	g := &e.graph
	for u := range int32(len(g.reached) * 64) {
		if !g.reached.has(u) || g.dirty.has(u) {
			continue
		}
		op := &g.ops[u]
		held := []ts.Obj(nil)
		if at[op.t] == u {
			held = e.held[op.t]
		}
		b := e.backtracks
		e.racesFrom(op.t, &op.step, e.clockOf(op.t), held, 0, nil)
		c.checks++
		if e.backtracks != b {
			c.misses++
		}
	}
}

// markDirty adds to the dirty operations those touching an object of an
// event pushed since the last revisit, and those of a thread whose last
// event then has been popped.
func (e *explorer[S]) markDirty() {
	g := &e.graph
	// Below p, the events there at the last revisit.
	p := e.sharedPrefix(int32(len(e.ev)), g.since)
	g.shared = p
	for j := p; j < int32(len(e.ev)); j++ {
		st := e.ev[j].step
		for a := range st.NumAccesses() {
			acc := st.At(a)
			switch b := g.opsOn(acc.Obj, false); {
			case b == nil:
			case acc.Op == ts.Read:
				g.dirty.join(b.writes)
			default:
				g.dirty.join(b.all)
			}
		}
	}
	for len(g.lastOf) < e.n {
		g.lastOf = append(g.lastOf, -1)
	}
	for t, l := range g.lastOf {
		if l >= p && t < len(g.ofThread) {
			g.dirty.join(g.ofThread[t])
		}
		g.lastOf[t] = e.thrLast[t]
	}
	g.since = e.ids
}

// grownBelow reports whether clock cp has grown from clock old as far as
// the events below a point of the execution can tell, count[u] being the
// number of thread u's events there: whether every event there that
// happens before old happens before cp, and for every thread u, cp knows
// more of u's events than those there whenever old does. Then an event
// there races with cp only if it races with old, and its set E for cp holds
// the one for old (see opRuled).
func grownBelow(t ts.Tid, cp, old []uint32, count []uint32) bool {
	for u, c := range count {
		if a, b := cp[u], old[u]; a < b && a <= c && ts.Tid(u) != t {
			return false
		}
	}
	return true
}

// noStamp is no stamp: prefixOf when no answer is kept.
const noStamp = ^uint64(0)

// prefix returns how many events at the bottom of the stack have ids up to
// stamp: those of the execution when e.ids was stamp that are still there.
// The revisit's operations were mostly ruled at the same revisit, so the
// last answer is kept until the stack changes (prefixOf set to noStamp).
func prefix[S any](e *explorer[S], stamp uint64) int32 {
	g := &e.graph
	if stamp != g.prefixOf {
		// Every record was made by the last revisit or before: its prefix
		// is no longer than the one shared with the last revisit.
		g.prefixOf, g.prefixLen = stamp, e.sharedPrefix(g.shared, stamp)
	}
	return g.prefixLen
}

// revisitCheck is, for tests (Options.checkRevisits), the count of the
// rulings that a record shortened or skipped (the operation was not dirty),
// each done again on the whole execution, and of those where that added a
// backtrack point.
type revisitCheck struct {
	checks, misses int64
}

// opRuled is how far the backtrack rule has settled, at revisits, for an
// operation of the graph, as ruled is for a thread's next step (see
// backtrackAll): for every event below from, over the execution as it was
// when e.ids was stamp (0: never ruled), with the clock of the operation's
// thread's last event then (at index last; -1 for none) and with the
// thread's held locks (held) or none.
//
// Consecutive revisits mostly share the execution below them, and the
// summary's operations race with the same events there, so a revisit rules
// only on the events above the shared part. A settled event stays settled
// while it is on the stack: the backtrack sets only grow. The thread's clock
// may have grown since (its last event then is still on the stack, with
// later ones above): a race with the grown clock is a race with the old one
// (it happens before fewer events), and its set E only grows, which keeps
// the rule settled, since in SDPOR a thread explored at a frame was in the
// frame's backtrack set: settled means that the backtrack set meets E, or
// holds every enabled thread. Ruling without locks finds every race that
// ruling with them finds; with them, the locks must be the same (the same
// last event).
//
// Where the thread's last event then has been popped, its clock (kept in
// opGraph.clock) may know less than it did; but the events below the shared
// part are settled still if, for every other thread, the clock knows at
// least what it knew of that thread's events there (grownBelow). The
// thread's own events never race with its step, and it is in its E
// whatever its clock.
type opRuled struct {
	stamp      uint64
	last, from int32
	held       bool
}

// opSet is a set of operations, by bit: plain words, which a revisit's joins
// and its walk over the summary read inline.
type opSet []uint64

func (s *opSet) add(i int32) {
	w := int(i >> 6)
	for len(*s) <= w {
		*s = append(*s, 0)
	}
	(*s)[w] |= 1 << uint(i&63)
}

func (s opSet) has(i int32) bool {
	w := int(i >> 6)
	return w < len(s) && s[w]&(1<<uint(i&63)) != 0
}

func (s opSet) del(i int32) {
	if w := int(i >> 6); w < len(s) {
		s[w] &^= 1 << uint(i&63)
	}
}

// join adds the operations of o to s.
func (s *opSet) join(o opSet) {
	for len(*s) < len(o) {
		*s = append(*s, 0)
	}
	d := (*s)[:len(o)]
	for w, x := range o {
		d[w] |= x
	}
}

// meet keeps in s the operations of o.
func (s opSet) meet(o opSet) {
	for w := range s {
		if w < len(o) {
			s[w] &= o[w]
		} else {
			s[w] = 0
		}
	}
}
