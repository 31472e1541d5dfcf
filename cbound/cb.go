package cbound

// The CB dynamic program of section 3.2 of Musuvathi and Qadeer,
// "Partial-order reduction for context-bounded state exploration"
// (MSR-TR-2007-12):
//
//	CB(s_I, t) = 0
//	CB(s, t)   = min over t' in F(s) of CB(s - t', t') + (t' == t || t' not in E(s) ? 0 : 1)
//
// CB(s, t), for t enabled at s, is the fewest preemptions of any execution
// whose last step is t's step from s. F(s) is the frontier of s (the threads
// whose last event nothing depends on) and s - t' removes t''s last event.
// The enabled set consulted is E(s), the state in which t is scheduled: t'
// took the last step into s, and switching from t' to t is a preemption iff
// t' could have gone on at s. (E(s - t') would always contain t', which
// steps from there, and would charge a switch away from a thread that has
// just finished.) This is the paper's CB(α →t s) = CB(α) + ite(t = last(α)
// ∨ last(α) ∉ E(final(α)), 0, 1) folded over the linearizations of s.
//
// Invariant: every prefix the recursion visits is a prefix of the search's
// current HB state (the top of its stack), so whether a thread is enabled
// there is read off the stack (derive.go) and, where the stack does not
// decide it and it changes the value asked, found at the least prefix
// that decides it (derive.go's statusAt), read off the stack there or
// computed by replaying the path's events that belong to that prefix from
// the deepest stack state they extend, then cached by HB state.
//
// Memoization: one entry per HB state x holds CB(x, t) for every thread t,
// computed at once from the same subproblems (V(u) = CB(x - u, u) + [u in
// E(x)] for u in F(x); CB(x, t) = min(CB(x - t, t) if t in F(x), min over
// u != t of V(u))), packed at a few bits a value: a bounded search keeps
// values at most bound+1 (it asks only whether a value passes the bound),
// and each entry holds bounds lo <= CB(x, t) <= hi (a status the stack did
// not decide counts 0 in lo and 1 in hi; see cbRange), 4 bits a thread at
// bound 2. Entries live in open-addressing tables keyed by the state's hash
// and a second, independent 64-bit fingerprint (x2), so a false hit needs
// two 64-bit collisions at once; about 24 bytes a state for up to 16
// threads at bound 2. The enabled sets and Check results of replayed prefixes are kept in a
// map beside them. Both are generations: once the newer holds its share of
// Options.MemoCost, the older is dropped and the newer becomes the older
// (an entry found in the older moves to the newer); this happens only
// between operations (one CB query of Search, one Mark of a terminal state,
// one witness), so that an operation keeps all it computes and its
// recursion visits each prefix once, whatever the budget. Everything about
// them is deterministic, so a search's figures (its transitions, replays
// included) are the same on every run: an earlier version kept the values
// in a ristretto cache, whose admissions are sampled and whose writes may be
// dropped under load, and identical runs replayed different prefixes. With
// Options.MemoCost < 0 the values do not outlive an operation once the
// tables pass l1Cap entries.

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/bits-and-blooms/bitset"

	"github.com/weftlab/weft/hb"
	"github.com/weftlab/weft/internal/search"
	"github.com/weftlab/weft/ts"
)

// DefaultMemoCost is the memory budget of the CB memo when Options.MemoCost
// is zero: 64 MiB.
const DefaultMemoCost = 64 << 20

const infCB = int32(1 << 30)

// l1Cap is the size past which a memo that keeps nothing across operations
// (MemoCost < 0) starts afresh at the next operation.
const l1Cap = 1 << 16

// memoKey identifies a memo entry: a state by its two fingerprints, and a
// thread, or -1 for the state's enabled set.
type memoKey struct {
	h1, h2 uint64
	t      int32
}

// enEntry is an enabled set computed by replay.
type enEntry struct {
	en  *bitset.BitSet
	bad bool
}

// Bytes per entry of the enabled-set cache, Go's map overhead included
// (measured: some 40 bytes per map slot at the maps' typical load for these
// keys).
const enEntryBytes = int64(unsafe.Sizeof(memoKey{})) + int64(unsafe.Sizeof(enEntry{})) + 40 + int64(unsafe.Sizeof(bitset.BitSet{})) + 16

// gens is a map in two generations: at most 2*cap entries.
type gens[V any] struct {
	cur, old map[memoKey]V
	cap      int
	oldN     int // entries old had when it was rotated out: a Go map keeps its memory as entries leave
}

func newGens[V any](cap int) gens[V] {
	return gens[V]{cur: make(map[memoKey]V), cap: max(cap, 1)}
}

func (g *gens[V]) get(k memoKey) (V, bool) {
	if v, ok := g.cur[k]; ok {
		return v, true
	}
	if v, ok := g.old[k]; ok {
		delete(g.old, k)
		g.put(k, v)
		return v, true
	}
	var zero V
	return zero, false
}

func (g *gens[V]) put(k memoKey, v V) { g.cur[k] = v }

// rotate starts a new generation if the newer is full. It is called only
// between operations, so that an operation keeps everything it computes (the
// recursion visits each prefix once) whatever the budget.
func (g *gens[V]) rotate() {
	if len(g.cur) >= g.cap {
		g.old, g.cur = g.cur, make(map[memoKey]V, len(g.cur)/2)
		g.oldN = len(g.old)
	}
}

func (g *gens[V]) len() int { return len(g.cur) + len(g.old) }

// footprint is the number of entries whose memory g holds: the newer's,
// and what the older held when it was rotated out.
func (g *gens[V]) footprint() int { return len(g.cur) + g.oldN }

func (g *gens[V]) reset() {
	clear(g.cur)
	g.old, g.oldN = nil, 0
}

// fp2 is an event's contribution to the second fingerprint: a function of its
// hash under the state's seed, remixed so that XOR sums of fp2 are unrelated
// to XOR sums of the hashes.
func fp2(h uint64) uint64 {
	z := h ^ 0x6a09e667f3bcc909
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// stepOf is a step that makes the event e of one access again (Add needs
// only its kind and object).
func stepOf(e hb.Event) ts.Step {
	if e.Op == hb.R {
		return ts.Step{Obj: e.Obj, Op: ts.Read}
	}
	return ts.Step{Obj: e.Obj, Op: ts.Write}
}

// memo is the CB computation's state, part of every hbSearch.
type memo struct {
	keep  bool   // values outlive operations (MemoCost >= 0)
	eager bool   // tests: without keep, every operation starts afresh
	cb    cbGens // CB(x, t) for every thread t, by state x
	clamp int32  // values kept at most this: the bound plus one, or infCB
	cost  int64  // the memo's budget in bytes
	en    gens[enEntry]
	words int64 // bitset words per enabled set
	// vsteps holds, for a system with value-dependent steps
	// (ts.ValueDependent), every thread's next step at each state whose
	// enabled set a replay found, by that set (a step at a prefix need not
	// be the step at the current state there); nil otherwise. It is
	// emptied when it holds as many as the enabled sets may, and a missing
	// entry is replayed again.
	vsteps    map[*bitset.BitSet][]ts.Step
	stepBytes int64 // bytes of an entry of vsteps
	enCap     int   // entries of one generation of en
	// grows, if set, is told the bytes a CB table is about to allocate to
	// grow, before it does (the search that uses the memo checks its
	// memory budget there, and may stop).
	grows func(bytes int64)

	x    *hb.State       // the scratch state the recursion walks
	x2   uint64          // x's second fingerprint
	inX  []uint64        // the path positions of x's events (derive.go)
	tpos [][]int32       // the search's hbSearch.tpos
	fr   []bitset.BitSet // frontier scratch of the CB recursion, by x.Len()
	wfr  bitset.BitSet   // frontier scratch of witness
	val  []int32         // (thread, value) pairs of the recursion's frames
	row  []int32         // one state's values, by thread
	row2 []int32

	// figures for Result.Stats
	queries, subproblems, hits int64
	enReplays, enReplaySteps   int64
	enHits                     int64
	derived                    int64 // statuses at prefixes read off the stack
	knownHits                  int64 // of which learned from an earlier replay
	auditSteps                 int64 // replayed transitions that audit a derived status
	enSkipped                  int64 // transitions replays did not take, starting from a kept state
	auditing                   bool
}

// newMemo returns the memo of a search of n threads whose memo may keep cost
// bytes (0: DefaultMemoCost; negative: nothing across operations), within a
// memory budget of limit bytes (negative: none), of which it takes at most
// a quarter. Its CB values are exact (setClamp narrows them).
func newMemo(n int, cost, limit int64) *memo {
	m := &memo{x: hb.New(n), keep: cost >= 0, words: int64(n+63) / 64, row: make([]int32, n), row2: make([]int32, n)}
	if cost == 0 {
		cost = DefaultMemoCost
	}
	if limit > 0 {
		cost = min(cost, limit/4)
	}
	m.cost = cost
	enCap := l1Cap
	if m.keep {
		// A quarter for enabled sets (two generations), the rest for CB
		// values.
		enCap = int(cost / 4 / 2 / (enEntryBytes + 8*m.words))
	}
	m.en, m.enCap = newGens[enEntry](enCap), enCap
	m.setClamp(infCB)
	return m
}

// setClamp makes the memo keep CB values at most c: a bounded search asks
// only whether a value passes its bound, so values above bound+1 may read
// as bound+1, and a value then takes two bits at bound 2. It is called
// before the memo is used.
func (m *memo) setClamp(c int32) {
	m.clamp = c
	b := 32
	if c < infCB {
		b = 1 // a value's bounds, each 0..c, take 2b bits
		for b < bits.Len32(uint32(c)) {
			b *= 2
		}
	}
	per := 64 / (2 * b)
	w := (len(m.row) + per - 1) / per
	capEntries := 4 * l1Cap
	if m.keep {
		// Two generations of at most a power-of-two number of slots each,
		// three quarters full at most when they rotate.
		slot := int64(unsafe.Sizeof(cbKey{})) + 8*int64(max(w, 1))
		slots := int64(256)
		for 2*slots*slot <= m.cost*3/4/2 {
			slots *= 2
		}
		capEntries = int(slots * 3 / 4)
	}
	m.cb = newCBGens(len(m.row), b, capEntries)
	m.cb.cur.grows, m.cb.old.grows = m.growing, m.growing
}

// growing passes a CB table's growth on to m.grows.
func (m *memo) growing(bytes int64) {
	if m.grows != nil {
		m.grows(bytes)
	}
}

// close releases the memo; it keeps no goroutine or outside resource.
// close gives back what the memo mapped (its CB table's arrays past 2 MB)
// now, rather than when the collector finds it unreachable, for a search
// that is over: a program that runs many searches and allocates little
// would otherwise hold them all.
func (m *memo) close() { m.cb.free() }

// bytes is the memory the memo keeps.
func (m *memo) bytes() int64 {
	return m.cb.bytes() + int64(m.en.footprint())*(enEntryBytes+8*m.words) + int64(len(m.vsteps))*m.stepBytes
}

func (m *memo) entries() int { return m.cb.len() + m.en.len() }

// begin starts an operation: the scratch state becomes a copy of cur (with
// second fingerprint x2).
func (m *memo) begin(cur *hb.State, x2 uint64) {
	m.x.CopyFrom(cur)
	m.x2 = x2
	m.beginIn(cur.Len())
	m.val = m.val[:0]
	m.auditing = false // an audit that stopped the search may have left it set
	switch {
	case m.keep:
		m.cb.rotate()
		m.en.rotate()
	case m.eager:
		// tests: every operation starts afresh, so that the recursion
		// recomputes what a larger memo would keep
		m.cb.reset()
		m.en.reset()
	default:
		if m.cb.len() > l1Cap {
			m.cb.reset()
		}
		if m.en.len() > l1Cap/4 {
			m.en.reset()
		}
	}
	if n := cur.Len() + 1; len(m.fr) < n {
		m.fr = append(m.fr, make([]bitset.BitSet, n-len(m.fr))...)
	}
}

// remove takes thread u's last event off the scratch state, keeping x2.
func (m *memo) remove(u ts.Tid) hb.Event {
	h := m.x.Hash()
	m.setIn(u, m.x.ThreadLen(u), false)
	e := m.x.Remove(u)
	m.x2 ^= fp2(h ^ m.x.Hash()) // the event's hash, without hashing it again
	return e
}

// add puts event e of thread u, whose step is st, back on the scratch state.
func (m *memo) add(u ts.Tid, e hb.Event, st ts.Step) {
	h := m.x.Hash()
	if got := m.x.AddOutcome(u, st, e.Outcome); e.More > 0 && got != e {
		panic("cbound: an event put back differs from the one removed") // a bug here, not the user's
	}
	m.setIn(u, m.x.ThreadLen(u), true)
	m.x2 ^= fp2(h ^ m.x.Hash())
}

// addStep adds thread u's next event, the accesses st with outcome c, to the
// scratch state.
func (m *memo) addStep(u ts.Tid, st ts.Step, c int) hb.Event {
	h := m.x.Hash()
	e := m.x.AddOutcome(u, st, c)
	m.setIn(u, m.x.ThreadLen(u), true)
	m.x2 ^= fp2(h ^ m.x.Hash())
	return e
}

// readd puts back on the scratch state thread u's event ev, just removed
// from it. An event of one access is its own step; the step of one of
// several is the path's (the scratch state is a prefix of the current one,
// see stepAt).
func (e *hbSearch[S]) readd(u ts.Tid, ev hb.Event) {
	if ev.More == 0 {
		e.memo.add(u, ev, stepOf(ev))
		return
	}
	e.memo.add(u, ev, e.stepAt(u))
}

func (m *memo) stats(into map[string]int64) {
	into["cb.queries"] = m.queries
	into["cb.subproblems"] = m.subproblems
	into["cb.memo_hits"] = m.hits
	into["enabled.hits"] = m.enHits
	into["enabled.replays"] = m.enReplays
	into["enabled.replay_transitions"] = m.enReplaySteps
	into["enabled.derived"] = m.derived
	into["enabled.learned"] = m.knownHits
	into["enabled.audit_transitions"] = m.auditSteps
	into["enabled.replay_skipped"] = m.enSkipped
	into["cb.memo_bytes"] = m.bytes()
}

// cbAt returns CB(x, t) for the scratch state x, where t is enabled at x and
// x is a prefix of the current state. It leaves x as it found it.
func (e *hbSearch[S]) cbAt(t ts.Tid) int32 { return e.cbExact(t) }

// cbWithin reports whether CB(x, t) <= c, the bound, for the scratch state
// x: from bounds on the value where they decide it, else from the value.
func (e *hbSearch[S]) cbWithin(t ts.Tid) bool { return e.cbAtMost(t, e.c) }

// cbAtMost reports whether CB(x, t) <= b for the scratch state x.
func (e *hbSearch[S]) cbAtMost(t ts.Tid, b int32) bool {
	lo, hi := e.cbRange(t)
	if hi <= b {
		return true
	}
	if lo > b {
		return false
	}
	return e.cbExact(t) <= b
}

// The CB values of a state x are computed for every thread t' at once, from
// the same subproblems: with V(u) = CB(x - u, u) + [u enabled at x] for u in
// F(x), CB(x, t') = min(CB(x - t', t') if t' is in F(x), min over u != t' of
// V(u)), and kept in one memo entry for x, as bounds lo <= CB(x, t') <= hi.
// A status the stack does not decide (derive.go) counts 0 in lo and 1 in hi:
// every value is monotone in each status and in each subproblem's value, so
// lo and hi bound it. Most questions are whether a value passes the bound,
// which the bounds usually answer without replaying anything (cbWithin); an
// exact value (cbExact) asks its subproblems' exact values and finds a
// status not decided (statusAt) only if it changes the value asked.

// cbRange returns bounds lo <= CB(x, t) <= hi for the scratch state x (where
// t is enabled and x is a prefix of the current state). It leaves x as it
// found it.
func (e *hbSearch[S]) cbRange(t ts.Tid) (int32, int32) {
	m := e.memo
	x := m.x
	if x.Len() == 0 {
		return 0, 0
	}
	key := keyOf(x.Hash(), m.x2)
	if r := m.cb.get(key); r != nil {
		m.hits++
		return m.cb.value(r, int(t))
	}
	return e.cbRangeNew(t, key)
}

// cbRangeNew is cbRange for a state x (of key key) that the memo does not
// hold.
func (e *hbSearch[S]) cbRangeNew(t ts.Tid, key cbKey) (int32, int32) {
	m := e.memo
	base := e.cbFrontier(false)
	e.cbStore(key, base)
	m.val = m.val[:base]
	return m.row[t], m.row2[t]
}

// cbExact returns CB(x, t) for the scratch state x (clamped), leaving x as it
// found it.
func (e *hbSearch[S]) cbExact(t ts.Tid) int32 {
	m := e.memo
	x := m.x
	if x.Len() == 0 {
		return 0
	}
	key := keyOf(x.Hash(), m.x2)
	if r := m.cb.get(key); r != nil {
		if lo, hi := m.cb.value(r, int(t)); lo == hi {
			m.hits++
			return lo
		}
	}
	return e.cbExactNew(t, key)
}

// cbExactNew is cbExact for a state x (of key key) of which the memo holds
// no exact CB(x, t).
func (e *hbSearch[S]) cbExactNew(t ts.Tid, key cbKey) int32 {
	m := e.memo
	base := e.cbFrontier(true)
	e.cbRows(base)
	if m.row[t] != m.row2[t] {
		// a status the stack does not decide changes the value
		for i := base; i < len(m.val); i += 4 {
			if m.val[i+3] == 2 {
				m.val[i+3] = b2i(e.statusAt(ts.Tid(m.val[i])))
			}
		}
	}
	e.cbStore(key, base)
	m.val = m.val[:base]
	return m.row[t]
}

// cbFrontier appends to m.val, for every thread u of the scratch state's
// frontier, the quadruple (u, lo, hi, enabled): bounds on CB(x - u, u)
// (exact ones if exact) and whether u is enabled at x (0, 1, or 2 where the
// stack does not decide), and returns where they start.
func (e *hbSearch[S]) cbFrontier(exact bool) int {
	m := e.memo
	x := m.x
	if m.subproblems&255 == 0 && e.Cancelled() {
		panic(errStop) // the program can take exponential time without a transition
	}
	if !e.keepsMemory() {
		panic(errStop) // and memoize as many prefixes before the operation ends
	}
	m.subproblems++
	fr := &m.fr[x.Len()]
	x.Frontier(fr)
	base := len(m.val)
	for u, ok := fr.NextSet(0); ok; u, ok = fr.NextSet(u + 1) {
		// The memo mostly has x - u: looked up by its key, computed
		// from the event's hash, without taking the event off.
		lo, hi, key, found := m.peek(ts.Tid(u), exact)
		if !found {
			ev := m.remove(ts.Tid(u))
			if exact {
				lo = e.cbExactNew(ts.Tid(u), key)
				hi = lo
			} else {
				lo, hi = e.cbRangeNew(ts.Tid(u), key)
			}
			e.readd(ts.Tid(u), ev)
		}
		m.val = append(m.val, int32(u), lo, hi, 0)
	}
	// A switch from u costs one iff u is enabled at x (it could have gone
	// on); values at the clamp stay there.
	derivable := e.canDerive()
	for i := base; i < len(m.val); i += 4 {
		if m.val[i+1] >= m.clamp {
			continue
		}
		u := ts.Tid(m.val[i])
		if !derivable {
			en, _ := e.enabledAt()
			m.val[i+3] = b2i(en.Test(uint(u)))
		} else if en, ok := e.derive(u); ok {
			m.val[i+3] = b2i(en)
		} else {
			m.val[i+3] = 2
		}
	}
	return base
}

// peek returns the memo's bounds on CB(x - u, u) for the scratch state x,
// where u is in x's frontier, if it has them (exact ones if exact), without
// taking u's event off x; it counts a hit as cbRange and cbExact do.
// Otherwise it returns the key of x - u, to compute them under.
func (m *memo) peek(u ts.Tid, exact bool) (lo, hi int32, key cbKey, ok bool) {
	if m.x.Len() == 1 {
		return 0, 0, key, true // x - u is the initial state
	}
	r, key := m.peekRow(u)
	if r == nil {
		return 0, 0, key, false
	}
	lo, hi = m.cb.value(r, int(u))
	if exact && lo != hi {
		return 0, 0, key, false
	}
	m.hits++
	return lo, hi, key, true
}

// peekRow returns the memo's row of x - u for the scratch state x, where u
// is in x's frontier and x - u is not the initial state, or nil, and the
// key of x - u, without taking u's event off x. The row is valid until the
// memo next changes.
func (m *memo) peekRow(u ts.Tid) ([]uint64, cbKey) {
	h := m.x.LastHash(u)
	key := keyOf(m.x.Hash()^h, m.x2^fp2(h))
	return m.cb.get(key), key
}

// cbStore computes x's bounds for every thread from the quadruples at
// m.val[base:] into m.row (lo) and m.row2 (hi), keeps them under key and
// returns the memo's row.
func (e *hbSearch[S]) cbStore(key cbKey, base int) []uint64 {
	m := e.memo
	e.cbRows(base)
	r := m.cb.put(key)
	m.cb.setRow(r, m.row, m.row2)
	return r
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// cbRows computes into m.row and m.row2 the lower and upper bounds on the
// CB values at x of every thread from the (thread u, bounds on CB(x - u,
// u), u enabled at x: 0, 1, or 2 for not decided) quadruples of
// m.val[base:], in one pass: with V(u) the subproblem's value plus u's
// status, a thread t gets the least V(u) over u != t, or CB(x - t, t) if
// t is in the frontier and that is less.
func (e *hbSearch[S]) cbRows(base int) {
	m := e.memo
	val := m.val[base:]
	c := m.clamp
	lo1, lo2, loArg := c, c, int32(-1) // the least two V(u) and the first's u
	hi1, hi2, hiArg := c, c, int32(-1)
	for i := 0; i+3 < len(val); i += 4 {
		u, en := val[i], val[i+3]
		lo, hi := val[i+1], val[i+2]
		if en != 2 {
			lo += en
			hi += en
		} else {
			hi++ // not decided: 0 in the lower bound, 1 in the upper
		}
		switch {
		case lo < lo1:
			lo1, lo2, loArg = lo, lo1, u
		case lo < lo2:
			lo2 = lo
		}
		switch {
		case hi < hi1:
			hi1, hi2, hiArg = hi, hi1, u
		case hi < hi2:
			hi2 = hi
		}
	}
	row, row2 := m.row, m.row2[:len(m.row)]
	for u := range row {
		row[u], row2[u] = lo1, hi1
	}
	if loArg >= 0 {
		row[loArg] = lo2
	}
	if hiArg >= 0 {
		row2[hiArg] = hi2
	}
	for i := 0; i+3 < len(val); i += 4 {
		u := val[i]
		row[u] = min(row[u], val[i+1], c)
		row2[u] = min(row2[u], val[i+2], c)
	}
}

// cbState returns CB(x) for the scratch state x: the fewest preemptions of
// any execution that reaches it.
func (e *hbSearch[S]) cbState() int32 {
	m := e.memo
	x := m.x
	if x.Len() == 0 {
		return 0
	}
	best := infCB
	var fr bitset.BitSet
	x.Frontier(&fr)
	for u, ok := fr.NextSet(0); ok; u, ok = fr.NextSet(u + 1) {
		ev := m.remove(ts.Tid(u))
		best = min(best, e.cbAt(ts.Tid(u)))
		e.readd(ts.Tid(u), ev)
	}
	return best
}

// witness returns a linearization of the scratch state x with the fewest
// preemptions (CB(x)), each move with its event's outcome, followed by the
// move last when last.Thread >= 0 (then the schedule has CB(x, last.Thread)
// preemptions), and that count. It leaves x empty.
func (e *hbSearch[S]) witness(last ts.Move) (ts.Schedule, int32) {
	m := e.memo
	x := m.x
	var rev ts.Schedule
	if last.Thread >= 0 {
		rev = append(rev, last)
	}
	t := last.Thread
	total := int32(-1)
	for x.Len() > 0 {
		x.Frontier(&m.wfr)
		base := len(m.val)
		for u, ok := m.wfr.NextSet(0); ok; u, ok = m.wfr.NextSet(u + 1) {
			ev := m.remove(ts.Tid(u))
			v := e.cbAt(ts.Tid(u))
			e.readd(ts.Tid(u), ev)
			m.val = append(m.val, int32(u), v)
		}
		derivable := t >= 0 && e.canDerive()
		best, pick := infCB, ts.Tid(-1)
		for i := base; i < len(m.val); i += 2 {
			u, v := ts.Tid(m.val[i]), m.val[i+1]
			if t >= 0 && u != t && e.enabledIn(u, derivable) {
				v++
			}
			if v < best {
				best, pick = v, u
			}
		}
		m.val = m.val[:base]
		if total < 0 {
			total = best
		}
		rev = append(rev, ts.Move{Thread: pick, Outcome: m.remove(pick).Outcome})
		t = pick
	}
	if total < 0 {
		total = 0
	}
	slices.Reverse(rev)
	return rev, total
}

// pathPrefix returns the number of leading transitions of the current path
// whose events all belong to the scratch state x.
func (e *hbSearch[S]) pathPrefix() int {
	x := e.memo.x
	for i := 1; i < e.depth; i++ {
		f := &e.frames[i]
		if x.ThreadLen(f.t) < int(f.n) {
			return i - 1
		}
	}
	return e.depth - 1
}

// enabledAt returns E(x) for the scratch state x, a prefix of the current
// state, and whether Check fails at x. A prefix of the path is read from the
// stack; any other prefix is replayed (the path's transitions that belong to
// x, in path order, from the deepest stack state x extends) and cached.
func (e *hbSearch[S]) enabledAt() (*bitset.BitSet, bool) {
	m := e.memo
	x := m.x
	p := e.pathPrefix()
	if p == x.Len() {
		return &e.frames[p].en, false
	}
	key := memoKey{x.Hash(), m.x2, -1}
	if v, ok := m.en.get(key); ok {
		m.enHits++
		e.learn(v.en)
		return v.en, v.bad
	}
	v := e.replayPrefix(p)
	m.en.put(key, v)
	e.learn(v.en)
	return v.en, v.bad
}

// stepsAt returns E(x), as enabledAt does, and every thread's next step at
// x, for a system with value-dependent steps: from the stack when x is a
// prefix of the path, else from the replay that found E(x).
func (e *hbSearch[S]) stepsAt() (*bitset.BitSet, []ts.Step) {
	m := e.memo
	x := m.x
	p := e.pathPrefix()
	if p == x.Len() {
		f := &e.frames[p]
		return &f.en, f.steps
	}
	en, _ := e.enabledAt()
	if steps, ok := m.vsteps[en]; ok {
		return en, steps
	}
	v := e.replayPrefix(p) // vsteps was emptied since
	m.en.put(memoKey{x.Hash(), m.x2, -1}, v)
	return v.en, m.vsteps[v.en]
}

// replayPrefix drives the system from the stack state after p transitions
// through the later transitions of the path that belong to the scratch state
// x, and returns the enabled set at the end and whether Check fails there.
// The schedule being replayed is kept in e.rsched for the violation a panic
// in user code becomes.
func (e *hbSearch[S]) replayPrefix(p int) enEntry {
	m := e.memo
	x := m.x
	m.enReplays++
	e.rsched = append(e.rsched[:0], e.sched[:p]...)
	e.replaying = true
	s := e.frames[p].state
	e.rlist = e.rlist[:0]
	for i := p + 1; i < e.depth; i++ {
		if f := &e.frames[i]; x.ThreadLen(f.t) >= int(f.n) {
			e.rlist = append(e.rlist, int32(i))
		}
	}
	from := 0 // the first of rlist to take; those before lead to a kept state
	if e.rstates != nil {
		// The HB states after each transition of rlist, from frame p's
		// by the events' hashes (a frame's hash less its parent's).
		h1, h2 := e.frames[p].h1, e.frames[p].h2
		e.rkeys = e.rkeys[:0]
		for _, i := range e.rlist {
			ev := e.frames[i].h1 ^ e.frames[i-1].h1
			h1, h2 = h1^ev, h2^fp2(ev)
			e.rkeys = append(e.rkeys, memoKey{h1, h2, -2})
		}
		for j := len(e.rkeys); j > 0; j-- {
			if kept, ok := e.rstates.get(e.rkeys[j-1]); ok {
				s, from = kept, j
				m.enSkipped += int64(j)
				break
			}
		}
	}
	for j, i := range e.rlist {
		f := &e.frames[i]
		mv := e.sched[i-1]
		e.rsched = append(e.rsched, mv)
		if j < from {
			continue
		}
		want, outs := e.frames[i-1].steps[f.t], e.frames[i-1].outs[f.t]
		e.current = f.t
		step, st := e.m.Next(s, f.t)
		if st == ts.Enabled && step.Equal(want) && e.m.Outcomes(s, f.t) != outs {
			e.current = -1
			e.Fail(&ts.SystemError{Err: ts.ErrNondeterministic, Thread: f.t, Schedule: e.rsched.Clone(),
				Detail: fmt.Sprintf("replaying an equivalent schedule (independent steps reordered) the thread's transition has %d outcomes, not %d: independent steps do not commute",
					e.m.Outcomes(s, f.t), outs)})
			panic(errStop)
		}
		if st != ts.Enabled || !step.Equal(want) {
			e.current = -1
			if err := e.mutated(); err != nil {
				e.Fail(err)
				panic(errStop)
			}
			e.Fail(&ts.SystemError{Err: ts.ErrNondeterministic, Thread: f.t, Schedule: e.rsched.Clone(),
				Detail: "replaying an equivalent schedule (independent steps reordered) the thread's step is " +
					step.String() + " " + st.String() + ", not " + want.String() + " enabled: independent steps do not commute"})
			panic(errStop)
		}
		if e.spent() {
			panic(errStop) // replays count against the limits and the context too
		}
		e.res.Transitions++ // before Apply: one that panics counts too
		s = e.m.Apply(s, mv)
		m.enReplaySteps++
		if m.auditing {
			m.auditSteps++
		}
		if e.rstates != nil {
			e.rstates.put(e.rkeys[j], s)
		}
	}
	en := bitset.New(uint(e.n))
	e.current = -1
	_, err := e.m.Look(s, e.scratchSteps, e.scratchStatus, e.scratchOuts, &e.current)
	if err != nil {
		e.Fail(search.WithSchedule(err, e.rsched))
		panic(errStop)
	}
	for u, st := range e.scratchStatus {
		if st == ts.Enabled {
			en.Set(uint(u))
		}
	}
	bad := e.m.Check(s) != nil
	e.replaying = false
	if e.m.ValueDependent() {
		if m.vsteps == nil || len(m.vsteps) >= 2*m.enCap {
			m.vsteps = make(map[*bitset.BitSet][]ts.Step)
		}
		m.vsteps[en] = slices.Clone(e.scratchSteps)
	}
	return enEntry{en, bad}
}

// keptStates holds system states by HB state in two generations, as gens
// does, each state in a slice that its map indexes: the maps and slices are
// reused from generation to generation, so that keeping a state allocates
// nothing once they have grown, whatever the state's size.
type keptStates[S any] struct {
	cur, old   map[memoKey]int32
	curS, oldS []S
	cap        int
}

func newKeptStates[S any](cap int) *keptStates[S] {
	return &keptStates[S]{cur: map[memoKey]int32{}, old: map[memoKey]int32{}, cap: max(cap, 1)}
}

func (k *keptStates[S]) get(key memoKey) (S, bool) {
	if i, ok := k.cur[key]; ok {
		return k.curS[i], true
	}
	if i, ok := k.old[key]; ok {
		s := k.oldS[i]
		delete(k.old, key)
		k.put(key, s)
		return s, true
	}
	var zero S
	return zero, false
}

// put keeps s under key, which it does not hold, starting a new generation
// first if the newer is full.
func (k *keptStates[S]) put(key memoKey, s S) {
	if len(k.curS) >= k.cap {
		k.old, k.cur = k.cur, k.old
		k.oldS, k.curS = k.curS, k.oldS
		clear(k.cur)
		clear(k.curS) // states that hold nothing, but the slice is reused
		k.curS = k.curS[:0]
	}
	k.cur[key] = int32(len(k.curS))
	k.curS = append(k.curS, s)
}

// footprint is the number of states whose memory k holds: its maps and
// slices are reused, so as many as they ever held, which their slices'
// capacities follow.
func (k *keptStates[S]) footprint() int64 {
	return int64(max(cap(k.curS), len(k.cur)) + max(cap(k.oldS), len(k.old)))
}

// stateEntryBytes is what a state a replay reached costs kept (hbSearch.rstates):
// the state, its key and a map slot's overhead (enEntryBytes's estimate).
func stateEntryBytes[S any]() int64 {
	return int64(unsafe.Sizeof(*new(S))) + int64(unsafe.Sizeof(memoKey{})) + 40
}

// mutated looks for a state on the stack that is no longer what the search
// recorded of it (an Apply modified its argument, which a replay from it
// shows as steps that do not commute), and returns the contract check's
// error, or nil.
func (e *hbSearch[S]) mutated() error {
	for i := e.depth - 1; i >= 0; i-- {
		f := &e.frames[i]
		b := search.Baseline{Hash: f.hash, Hashed: f.hashed, Steps: f.steps, Status: f.status, Outs: f.outs}
		if err := e.m.Unchanged(f.state, b, e.sched[:i], f.taken, &e.current); err != nil {
			return err
		}
	}
	return nil
}

// CB returns the context bound of the happens-before state that sched
// reaches: the fewest preemptions of any schedule equivalent to sched (one
// that reorders only independent transitions, each with its outcome), found
// by the dynamic program of section 3.2 of the cbpor paper. Deciding CB <= c is NP-complete
// (Theorem 5 there), and the program can take time exponential in the number
// of threads; it is meant for the short schedules of violations.
// Minimize returns such a schedule.
func CB[S any](sys ts.TransitionSystem[S], sched ts.Schedule) (int, error) {
	_, n, err := Minimize(sys, sched)
	return n, err
}

// Minimize returns a schedule equivalent to sched (it reaches the same
// happens-before state, and so the same state of a system that keeps the
// ts.TransitionSystem contract) with the fewest preemptions, and that count.
// Its moves keep their outcomes. A schedule that does not replay (a thread
// out of range or not enabled, an outcome out of range, a panic in user
// code) is an error.
func Minimize[S any](sys ts.TransitionSystem[S], sched ts.Schedule) (ts.Schedule, int, error) {
	e, err := newHBSearch(context.Background(), sys, Options{MemoCost: -1}, false)
	if err != nil {
		return nil, 0, err
	}
	defer e.memo.close()
	defer e.End()
	// Asking a system for its figures at the end, as a search does, lets
	// one that runs its threads as coroutines (package threads) end them:
	// the replay leaves no goroutine.
	defer search.SystemStats(sys)(&ts.Result{})
	var out ts.Schedule
	var count int32
	var perr error
	func() {
		defer func() {
			if p := recover(); p != nil {
				if se, ok := p.(*ts.SystemError); ok {
					perr = se
				} else if p != errStop {
					perr = &ts.SystemError{Err: ts.ErrBadSystem, Thread: e.current, Schedule: e.sched.Clone(),
						Detail: "user code panicked while minimizing a schedule"}
				}
			}
		}()
		s := sys.Init()
		e.push(s, ts.Move{Thread: -1}, ts.Step{})
		if e.Err != nil {
			return
		}
		for i, mv := range sched {
			t := mv.Thread
			top := &e.frames[e.depth-1]
			if t < 0 || int(t) >= e.n || top.status[t] != ts.Enabled || mv.Outcome < 0 || mv.Outcome >= top.outs[t] {
				e.Fail(&ts.SystemError{Err: ts.ErrNotEnabled, Thread: t, Schedule: sched[:i+1].Clone(),
					Detail: "the schedule moves a thread that is not enabled or out of range, or takes an outcome out of range"})
				return
			}
			step := top.steps[t]
			e.current = t
			s = e.m.Apply(top.state, mv)
			e.push(s, mv, step)
			if e.Err != nil {
				return
			}
		}
		e.memo.begin(e.cur, e.curH2)
		out, count = e.witness(ts.Move{Thread: -1})
	}()
	if perr != nil {
		return nil, 0, perr
	}
	if e.Err != nil {
		return nil, 0, e.Err
	}
	return out, int(count), nil
}
