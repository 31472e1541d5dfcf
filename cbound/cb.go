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
// current HB state (the top of its stack), so its enabled set is read from
// the stack when the prefix is a prefix of the path itself, and otherwise
// computed by replaying the path's events that belong to it from the deepest
// stack state they extend, then cached by HB state.
//
// Memoization has two levels. Go maps (l1) hold everything computed since
// they were last emptied, which happens only between operations (one CB query
// of Search, one Mark of a terminal state, one witness) and only once they
// hold more than l1Cap entries: so the recursion visits each prefix at most
// once per operation, and small searches keep everything. A ristretto cache (l2) with a cost budget keeps values across
// the whole search. Both are caches: an entry found is exact, an entry missing
// is recomputed. Entries are keyed by the state's hash and thread and checked
// against a second, independent 64-bit fingerprint of the state (x2), so a
// false hit needs two 64-bit collisions at once.

import (
	"context"
	"slices"

	"github.com/bits-and-blooms/bitset"
	"github.com/dgraph-io/ristretto/v2"

	"github.com/weftlab/weft/hb"
	"github.com/weftlab/weft/internal/search"
	"github.com/weftlab/weft/ts"
)

// DefaultMemoCost is the cost budget of the CB memo cache when
// Options.MemoCost is zero: 64 MiB.
const DefaultMemoCost = 64 << 20

const infCB = int32(1 << 30)

// l1Cap is the size past which the first-level memo starts afresh at the
// next operation (some MiB).
const l1Cap = 1 << 16

// l1Key identifies a memo entry: a state by its two fingerprints, and a
// thread, or -1 for the state's enabled set.
type l1Key struct {
	h1, h2 uint64
	t      int32
}

// memoVal is an entry of the cross-operation cache.
type memoVal struct {
	check uint64         // the state's second fingerprint
	cb    int32          // CB(x, t), for a CB entry
	en    *bitset.BitSet // E(x), for an enabled-set entry
	bad   bool           // Check fails at x, for an enabled-set entry
}

// enEntry is an enabled set computed by replay.
type enEntry struct {
	en  *bitset.BitSet
	bad bool
}

// l2Key mixes a state hash and a thread into the cache's key.
func l2Key(k l1Key) uint64 { return k.h1 ^ uint64(int64(k.t)+2)*0x9e3779b97f4a7c15 }

// fp2 is an event's contribution to the second fingerprint: a function of its
// hash under the state's seed, remixed so that XOR sums of fp2 are unrelated
// to XOR sums of the hashes.
func fp2(h uint64) uint64 {
	z := h ^ 0x6a09e667f3bcc909
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// stepOf is a step that makes the event e again (Add needs only its kind and
// object).
func stepOf(e hb.Event) ts.Step {
	if e.Op == hb.R {
		return ts.Step{Obj: e.Obj, Op: ts.Read}
	}
	return ts.Step{Obj: e.Obj, Op: ts.Write}
}

// memo is the CB computation's state, part of every hbSearch.
type memo struct {
	cache *ristretto.Cache[uint64, memoVal] // nil until l2 starts it, and when Options.MemoCost < 0
	cost  int64
	eager bool // start the cache at once (tests)
	l1cb  map[l1Key]int32
	l1en  map[l1Key]enEntry

	x   *hb.State       // the scratch state the recursion walks
	x2  uint64          // x's second fingerprint
	fr  []bitset.BitSet // frontier scratch of the CB recursion, by x.Len()
	wfr bitset.BitSet   // frontier scratch of witness
	val []int32         // (thread, value) pairs of the recursion's frames

	// figures for Result.Stats
	queries, subproblems, l1Hits, l2Hits, l2Misses int64
	enReplays, enReplaySteps, enHits               int64
}

func newMemo(n int, cost int64) *memo {
	if cost == 0 {
		cost = DefaultMemoCost
	}
	return &memo{l1cb: make(map[l1Key]int32), l1en: make(map[l1Key]enEntry), x: hb.New(n), cost: cost}
}

// lazyCacheAfter is the number of subproblems a search computes before it
// starts the cross-operation cache: small searches do not pay for its
// sketch and goroutines.
const lazyCacheAfter = l1Cap

// l2 returns the cross-operation cache, starting it once the search has done
// enough work to want one (the first level starts dropping entries), or nil.
func (m *memo) l2() *ristretto.Cache[uint64, memoVal] {
	if m.cache != nil || m.cost < 0 || (!m.eager && m.subproblems+m.enReplays < lazyCacheAfter) {
		return m.cache
	}
	// About 10 counters per entry the budget can hold (ristretto's advice),
	// an entry costing some 100 bytes with ristretto's own overhead; at most
	// 1M counters (2 MiB of sketch) however large the budget.
	counters := min(max(m.cost/10, 1<<10), 1<<20)
	c, err := ristretto.NewCache(&ristretto.Config[uint64, memoVal]{
		NumCounters: counters,
		MaxCost:     m.cost,
		BufferItems: 64,
	})
	if err != nil {
		m.cost = -1 // cannot happen with a positive budget; go on without
		return nil
	}
	m.cache = c
	return c
}

// close stops the cache's goroutines.
func (m *memo) close() {
	if m.cache != nil {
		m.cache.Close()
		m.cache = nil
	}
}

// begin starts an operation: the scratch state becomes a copy of cur (with
// second fingerprint x2) and the per-operation memo is emptied.
func (m *memo) begin(cur *hb.State, x2 uint64) {
	m.x.CopyFrom(cur)
	m.x2 = x2
	m.val = m.val[:0]
	// The per-operation maps are kept while they are small, and start
	// afresh past l1Cap entries: within an operation they only grow.
	if m.eager {
		// tests: every operation starts afresh, so that the second level
		// and the per-operation recursion are exercised
		clear(m.l1cb)
		clear(m.l1en)
	}
	if len(m.l1cb) > l1Cap {
		m.l1cb = make(map[l1Key]int32)
	}
	if len(m.l1en) > l1Cap/4 {
		m.l1en = make(map[l1Key]enEntry)
	}
	if n := cur.Len() + 1; len(m.fr) < n {
		m.fr = append(m.fr, make([]bitset.BitSet, n-len(m.fr))...)
	}
}

// remove takes thread u's last event off the scratch state, keeping x2.
func (m *memo) remove(u ts.Tid) hb.Event {
	e := m.x.Remove(u)
	m.x2 ^= fp2(m.x.EventHash(e))
	return e
}

// add puts event e of thread u back on the scratch state.
func (m *memo) add(u ts.Tid, e hb.Event) {
	m.x.Add(u, stepOf(e))
	m.x2 ^= fp2(m.x.EventHash(e))
}

// addStep adds thread u's next event, the access st, to the scratch state.
func (m *memo) addStep(u ts.Tid, st ts.Step) hb.Event {
	e := m.x.Add(u, st)
	m.x2 ^= fp2(m.x.EventHash(e))
	return e
}

func (m *memo) stats(into map[string]int64) {
	into["cb.queries"] = m.queries
	into["cb.subproblems"] = m.subproblems
	into["cb.l1_hits"] = m.l1Hits
	into["cb.memo_hits"] = m.l2Hits
	into["cb.memo_misses"] = m.l2Misses
	into["enabled.hits"] = m.enHits
	into["enabled.replays"] = m.enReplays
	into["enabled.replay_transitions"] = m.enReplaySteps
}

// cbAt returns CB(x, t) for the scratch state x, where t is enabled at x and
// x is a prefix of the current state. It leaves x as it found it.
func (e *hbSearch[S]) cbAt(t ts.Tid) int32 {
	m := e.memo
	x := m.x
	if x.Len() == 0 {
		return 0
	}
	key := l1Key{x.Hash(), m.x2, int32(t)}
	if v, ok := m.l1cb[key]; ok {
		m.l1Hits++
		return v
	}
	if c := m.l2(); c != nil {
		if v, ok := c.Get(l2Key(key)); ok && v.check == key.h2 && v.en == nil {
			m.l2Hits++
			m.l1cb[key] = v.cb
			return v.cb
		}
		m.l2Misses++
	}
	m.subproblems++
	fr := &m.fr[x.Len()]
	x.Frontier(fr)
	best := infCB
	base := len(m.val)
	for u, ok := fr.NextSet(0); ok; u, ok = fr.NextSet(u + 1) {
		ev := m.remove(ts.Tid(u))
		v := e.cbAt(ts.Tid(u))
		m.add(ts.Tid(u), ev)
		if ts.Tid(u) == t {
			best = min(best, v)
		} else {
			m.val = append(m.val, int32(u), v)
		}
	}
	// A switch from t' costs one iff t' is enabled at x: look at E(x) only
	// if some switch could beat the best so far.
	need := false
	for i := base; i < len(m.val); i += 2 {
		if m.val[i+1] < best {
			need = true
		}
	}
	if need {
		en, _ := e.enabledAt()
		for i := base; i < len(m.val); i += 2 {
			v := m.val[i+1]
			if en.Test(uint(m.val[i])) {
				v++
			}
			best = min(best, v)
		}
	}
	m.val = m.val[:base]
	m.l1cb[key] = best
	if m.cache != nil {
		m.cache.Set(l2Key(key), memoVal{check: key.h2, cb: best}, 32)
		if m.eager {
			m.cache.Wait() // tests: make the entry visible at once
		}
	}
	return best
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
		m.add(ts.Tid(u), ev)
	}
	return best
}

// witness returns a linearization of the scratch state x with the fewest
// preemptions (CB(x)), followed by last when last >= 0 (then the schedule
// has CB(x, last) preemptions), and that count. It leaves x empty.
func (e *hbSearch[S]) witness(last ts.Tid) (ts.Schedule, int32) {
	m := e.memo
	x := m.x
	var rev ts.Schedule
	if last >= 0 {
		rev = append(rev, ts.Move{Thread: last})
	}
	t := last
	total := int32(-1)
	for x.Len() > 0 {
		x.Frontier(&m.wfr)
		var en *bitset.BitSet
		best, pick := infCB, ts.Tid(-1)
		for u, ok := m.wfr.NextSet(0); ok; u, ok = m.wfr.NextSet(u + 1) {
			ev := m.remove(ts.Tid(u))
			v := e.cbAt(ts.Tid(u))
			m.add(ts.Tid(u), ev)
			if t >= 0 && ts.Tid(u) != t {
				if en == nil {
					en, _ = e.enabledAt()
				}
				if en.Test(u) {
					v++
				}
			}
			if v < best {
				best, pick = v, ts.Tid(u)
			}
		}
		if total < 0 {
			total = best
		}
		rev = append(rev, ts.Move{Thread: pick})
		m.remove(pick)
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
	key := l1Key{x.Hash(), m.x2, -1}
	if v, ok := m.l1en[key]; ok {
		m.enHits++
		return v.en, v.bad
	}
	if c := m.l2(); c != nil {
		if v, ok := c.Get(l2Key(key)); ok && v.check == key.h2 && v.en != nil {
			m.enHits++
			m.l1en[key] = enEntry{v.en, v.bad}
			return v.en, v.bad
		}
	}
	en, bad := e.replayPrefix(p)
	m.l1en[key] = enEntry{en, bad}
	if m.cache != nil {
		m.cache.Set(l2Key(key), memoVal{check: key.h2, en: en, bad: bad}, int64(64+8*len(en.Words())))
		if m.eager {
			m.cache.Wait()
		}
	}
	return en, bad
}

// replayPrefix drives the system from the stack state after p transitions
// through the later transitions of the path that belong to the scratch state
// x, and returns the enabled set at the end and whether Check fails there.
// The schedule being replayed is kept in e.rsched for the violation a panic
// in user code becomes.
func (e *hbSearch[S]) replayPrefix(p int) (*bitset.BitSet, bool) {
	m := e.memo
	x := m.x
	m.enReplays++
	e.rsched = append(e.rsched[:0], e.sched[:p]...)
	e.replaying = true
	s := e.frames[p].state
	for i := p + 1; i < e.depth; i++ {
		f := &e.frames[i]
		if x.ThreadLen(f.t) < int(f.n) {
			continue
		}
		want := e.frames[i-1].steps[f.t]
		e.rsched = append(e.rsched, ts.Move{Thread: f.t})
		e.current = f.t
		step, st := e.sys.Next(s, f.t)
		if st != ts.Enabled || !step.Equal(want) {
			e.current = -1
			e.Fail(&ts.SystemError{Err: ts.ErrNondeterministic, Thread: f.t, Schedule: e.rsched.Clone(),
				Detail: "replaying an equivalent schedule (independent steps reordered) the thread's step is " +
					step.String() + " " + st.String() + ", not " + want.String() + " enabled: independent steps do not commute"})
			panic(errStop)
		}
		s = e.sys.Apply(s, f.t)
		e.res.Transitions++
		m.enReplaySteps++
	}
	en := bitset.New(uint(e.n))
	e.current = -1
	_, _, err := search.Look(e.sys, s, e.scratchSteps, e.scratchStatus, &e.current)
	if err != nil {
		e.Fail(search.WithSchedule(err, e.rsched))
		panic(errStop)
	}
	for u, st := range e.scratchStatus {
		if st == ts.Enabled {
			en.Set(uint(u))
		}
	}
	bad := false
	if e.checker != nil {
		bad = e.checker.Check(s) != nil
	}
	e.replaying = false
	return en, bad
}

// CB returns the context bound of the happens-before state that sched
// reaches: the fewest preemptions of any schedule equivalent to sched (one
// that reorders only independent transitions), found by the dynamic program
// of section 3.2 of the cbpor paper. Deciding CB <= c is NP-complete
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
// A schedule that does not replay (a thread out of range or not enabled, a
// panic in user code) is an error.
func Minimize[S any](sys ts.TransitionSystem[S], sched ts.Schedule) (ts.Schedule, int, error) {
	e, err := newHBSearch(context.Background(), sys, Options{MemoCost: -1}, false)
	if err != nil {
		return nil, 0, err
	}
	defer e.memo.close()
	var out ts.Schedule
	var count int32
	var perr error
	func() {
		defer func() {
			if p := recover(); p != nil {
				if p != errStop {
					perr = &ts.SystemError{Err: ts.ErrBadSystem, Thread: e.current, Schedule: e.sched.Clone(),
						Detail: "user code panicked while minimizing a schedule"}
				}
			}
		}()
		s := sys.Init()
		e.push(s, -1, ts.Step{})
		if e.Err != nil {
			return
		}
		for i, mv := range sched {
			t := mv.Thread
			top := &e.frames[e.depth-1]
			if t < 0 || int(t) >= e.n || top.status[t] != ts.Enabled || mv.Outcome != 0 {
				e.Fail(&ts.SystemError{Err: ts.ErrNotEnabled, Thread: t, Schedule: sched[:i+1].Clone(),
					Detail: "the schedule moves a thread that is not enabled or out of range"})
				return
			}
			step := top.steps[t]
			e.current = t
			s = sys.Apply(top.state, t)
			e.push(s, t, step)
			if e.Err != nil {
				return
			}
		}
		e.memo.begin(e.cur, e.curH2)
		out, count = e.witness(-1)
	}()
	if perr != nil {
		return nil, 0, perr
	}
	if e.Err != nil {
		return nil, 0, e.Err
	}
	return out, int(count), nil
}
