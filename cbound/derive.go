package cbound

import (
	"fmt"
	"math/bits"

	"github.com/bits-and-blooms/bitset"

	"github.com/weftlab/weft/hb"
	"github.com/weftlab/weft/ts"
)

// Enabled sets at prefixes, without replaying them.
//
// The CB recursion and Mark ask whether a thread u is enabled at prefixes x
// of the current HB state that the search never drove the system to. For a
// system whose steps are not value-dependent this follows from the stack
// and the ts.TransitionSystem contract: a thread's step depends only on its
// own transitions, and a step that is not Dependent with u's never changes
// u's status. Let k be u's events in x, lo the path position of u's k-th
// transition (0 if none) and r the frame where u's next transition starts
// (the position of its (k+1)-th minus one), or the top if the path has none.
// Every frame j in lo..r has u with k events and the same next step s_u. Let
// D be the path's transitions of other threads up to r whose steps are
// Dependent with s_u, A those in x and B the others. For j = max(lo, max A)
// with j < min B, x and the frame j differ only by transitions that are not
// Dependent with s_u (those of x after j, and those up to j not in x; x holds
// no transition after u's next that depends on it, since x does not hold
// u's next): from their intersection, a prefix too, each side adds only
// transitions that leave u's status alone, so u's status at x is its status
// at frame j. When B is empty and the path has u's next transition, x with
// the transitions that transition depends on is a prefix of the path where
// u takes it: u is enabled at x. Otherwise (a Dependent transition of x
// comes after one missing from x) the status is not decided here: it is
// looked up under its key (known), or, where it matters, found at the
// least prefix that decides it (statusAt).
//
// A thread Finished at the top with no further transition is Finished at
// x: Finished is having no next step, and the step depends only on the
// thread's own transitions. Should a thread ever turn Finished on another
// thread's transition (which breaks the contract), the search stops
// deriving Finished and replays instead.
//
// The Dependent transitions of each frame's threads are bit sets of path
// positions, computed when first needed, from the frame below: a thread
// that did not move keeps its step, so its set grows by at most the
// frame's own transition.

// maxDepWords caps the words of a frame's dependency rows (all threads); a
// deeper or wider stack replays instead, so that the rows, which grow with
// the square of the depth, stay within a few megabytes.
const maxDepWords = 1 << 8

// depWords returns the words of one thread's row at frame d (positions 0..d).
func depWords(d int) int { return d/64 + 1 }

// canDerive reports whether E(x) is derived at all: not for value-dependent
// steps, nor for stacks whose rows pass maxDepWords.
func (e *hbSearch[S]) canDerive() bool {
	return !e.m.ValueDependent() && e.n*depWords(e.depth-1) <= maxDepWords
}

// ensureDep computes the dependency rows of frames up to d.
func (e *hbSearch[S]) ensureDep(d int) {
	j := d
	for j >= 0 && !e.frames[j].depOK {
		j--
	}
	for k := j + 1; k <= d; k++ {
		e.computeDep(k)
	}
}

func (e *hbSearch[S]) computeDep(k int) {
	f := &e.frames[k]
	w := depWords(k)
	if cap(f.dep) < e.n*w {
		f.dep = make([]uint64, e.n*w, e.n*w+e.n)
	}
	f.dep = f.dep[:e.n*w]
	clear(f.dep)
	f.depOK = true
	if k == 0 {
		return
	}
	p := &e.frames[k-1]
	pw := depWords(k - 1)
	t := f.t
	stk := p.steps[t] // the step of the transition into frame k
	for u := range e.n {
		if f.status[u] == ts.Finished {
			continue
		}
		row := f.dep[u*w : (u+1)*w]
		if ts.Tid(u) != t {
			copy(row, p.dep[u*pw:(u+1)*pw])
			if ts.Dependent(stk, f.steps[u]) {
				row[k/64] |= 1 << (k % 64)
			}
			continue
		}
		su := f.steps[u]
		for i := 1; i <= k; i++ {
			g := &e.frames[i]
			if g.t != t && ts.Dependent(e.frames[i-1].steps[g.t], su) {
				row[i/64] |= 1 << (i % 64)
			}
		}
	}
}

// The path positions of the scratch state x's events are kept as bits of
// memo.inX by position, updated by the memo's every change of x (begin,
// remove, add), so that reading a status off the stack costs no pass over
// the path.

// setIn records that x's k-th event of thread u is in x (in) or not: its
// path position, if the path has that event (x's events of u are a prefix of
// the path's, but for one past it that Mark adds to look a state up).
func (m *memo) setIn(u ts.Tid, k int, in bool) {
	pos := m.tpos[u]
	if k < 1 || k > len(pos) {
		return
	}
	p := pos[k-1]
	if in {
		m.inX[p/64] |= 1 << (p % 64)
	} else {
		m.inX[p/64] &^= 1 << (p % 64)
	}
}

// beginIn makes m.inX hold every position of a path of d transitions:
// positions 1..d (the scratch state is the current one).
func (m *memo) beginIn(d int) {
	w := depWords(d)
	if cap(m.inX) < w {
		m.inX = make([]uint64, w)
	}
	in := m.inX[:w]
	m.inX = in
	for i := range in {
		in[i] = ^uint64(0)
	}
	in[0] &^= 1 // frame 0 is the initial state
	in[w-1] &= ^uint64(0) >> (63 - d%64)
}

// derive returns whether thread u is enabled at the scratch state x, from
// the stack, and false for ok when that is not decided there. canDerive must
// hold.
func (e *hbSearch[S]) derive(u ts.Tid) (enabled, ok bool) {
	enabled, ok = e.derive0(u)
	if !ok {
		return
	}
	// Audit: the first derivations, and then one at every power of two,
	// are replayed too, so that a system whose independent steps change
	// each other's status (or whose Next is not a function of the state)
	// is caught as the replays caught it, at a cost that vanishes.
	a := e.memo.derived
	e.memo.derived++
	if a < 16 || a&(a-1) == 0 || e.opt.auditDerive {
		e.memo.auditing = true
		en, _ := e.enabledAt()
		e.memo.auditing = false
		if en.Test(uint(u)) != enabled {
			if err := e.mutated(); err != nil {
				e.Fail(err) // an Apply modified a state on the stack
				panic(errStop)
			}
			e.Fail(&ts.SystemError{Err: ts.ErrNondeterministic, Thread: u, Schedule: e.sched.Clone(),
				Detail: fmt.Sprintf("thread %d is %s at a prefix of this schedule (independent steps reordered), but its status where it has as many transitions says otherwise: steps that are not Dependent changed its status",
					u, map[bool]string{true: "enabled", false: "not enabled"}[en.Test(uint(u))])})
			panic(errStop)
		}
	}
	return
}

func (e *hbSearch[S]) derive0(u ts.Tid) (enabled, ok bool) {
	st, k, row, b, j := e.stackSpan(u)
	if st == ts.Finished {
		return false, e.ownFinish
	}
	if b < 0 {
		return st == ts.Enabled, true
	}
	if j < b {
		return e.frames[j].status[u] == ts.Enabled, true
	}
	return e.known(u, k, j, row)
}

// stackSpan reads off the stack what derive0 decides thread u's status at
// x by: its status st at the frame where it has its k transitions of x
// (nothing else is set when it is Finished there), the row of positions
// Dependent with its next step, the first such position b not in x (-1:
// none), and j, the last such position in x or of u's k-th transition.
func (e *hbSearch[S]) stackSpan(u ts.Tid) (st ts.Status, k int, row []uint64, b, j int) {
	k = e.memo.x.ThreadLen(u)
	pos := e.tpos[u]
	r := e.depth - 1
	if k < len(pos) {
		r = int(pos[k]) - 1
	}
	f := &e.frames[r]
	st = f.status[u]
	if st == ts.Finished {
		return st, k, nil, -1, 0
	}
	if !f.depOK {
		e.ensureDep(r)
	}
	lo := 0
	if k > 0 {
		lo = int(pos[k-1])
	}
	w := depWords(r)
	row = f.dep[int(u)*w : (int(u)+1)*w]
	a := 0 // the last Dependent position in x
	b = -1
	for i, d := range row {
		if in := d & e.memo.inX[i]; in != 0 {
			a = i*64 + 63 - bits.LeadingZeros64(in)
		}
		if out := d &^ e.memo.inX[i]; out != 0 && b < 0 {
			b = i*64 + bits.TrailingZeros64(out)
		}
	}
	return st, k, row, b, max(a, lo)
}

// A status the stack does not decide is still a function of few events.
// With k, row, a and j as in derive0, let z be the least prefix of the path
// that holds u's first k transitions and the Dependent transitions A of x
// (the positions row & inX, all at most j). x holds z, and x's other
// events are neither u's nor Dependent with s_u (a Dependent transition
// after r comes after u's next, which x does not hold), so u's status at x
// is its status at z: a function of (u, k, A) and of the path up to
// position j. A status learned by a replay (learn) is kept under that key
// in frame j, and read back for every prefix x with the same key while
// frame j is on the stack (push empties a frame's): the prefixes Mark and
// the CB recursion visit share few such keys, so most undecided statuses
// are replayed once a key rather than once a prefix.

// knownStatus is a status learned under the key (thread, k, A): A's words
// are frame.knownBits[off : off+depWords(j)].
type knownStatus struct {
	u       int32
	k       int32
	off     int32
	enabled bool
}

// known looks thread u's status up under its key at x: k events of u, row
// its Dependent transitions, j the key's frame.
func (e *hbSearch[S]) known(u ts.Tid, k, j int, row []uint64) (enabled, ok bool) {
	f := &e.frames[j]
	w := depWords(j)
next:
	for _, s := range f.known {
		if s.u != int32(u) || s.k != int32(k) {
			continue
		}
		bits := f.knownBits[s.off : int(s.off)+w]
		for i, b := range bits {
			if row[i]&e.memo.inX[i] != b {
				continue next
			}
		}
		e.memo.knownHits++
		return s.enabled, true
	}
	return false, false
}

// learn keeps, for every thread whose status at the scratch state x the
// stack does not decide, its status in en (E(x), just replayed or found in
// the memo) under its key (known).
func (e *hbSearch[S]) learn(en *bitset.BitSet) {
	if !e.canDerive() {
		return
	}
	for u := range ts.Tid(e.n) {
		st, k, row, b, j := e.stackSpan(u)
		if st == ts.Finished {
			continue
		}
		if b < 0 || j < b {
			continue // decided by the stack
		}
		if _, ok := e.known(u, k, j, row); ok {
			continue
		}
		g := &e.frames[j]
		off := len(g.knownBits)
		for i := range depWords(j) {
			g.knownBits = append(g.knownBits, row[i]&e.memo.inX[i])
		}
		g.known = append(g.known, knownStatus{u: int32(u), k: int32(k), off: int32(off), enabled: en.Test(uint(u))})
	}
}

// statusAt reports whether thread u is enabled at the scratch state x where
// the stack does not decide it, without replaying x: u's status at x is its
// status at z, the least prefix of x that holds u's events and the events
// of x Dependent with u's next step (see known). z is found by taking off
// x, while there is one, a last event of another thread that is not
// Dependent with that step; its status there is read off the stack, or
// found in the memo, or z is replayed and kept in the memo, where the other
// prefixes with the same z find it (as their statuses, the stack's, do not
// depend on the events taken off). x is then put back.
func (e *hbSearch[S]) statusAt(u ts.Tid) bool {
	if !e.canDerive() {
		en, _ := e.enabledAt()
		return en.Test(uint(u))
	}
	m := e.memo
	x := m.x
	su := e.stepAt(u)
	base := len(e.zOff)
	for more := true; more; {
		more = false
		x.Frontier(&e.zfr)
		for w, ok := e.zfr.NextSet(0); ok; w, ok = e.zfr.NextSet(w + 1) {
			v := ts.Tid(w)
			if v == u {
				continue
			}
			p := e.tpos[v][x.ThreadLen(v)-1] // the path position of v's last event in x
			if ts.Dependent(e.frames[p-1].steps[v], su) {
				continue
			}
			e.zOff = append(e.zOff, zEvent{v, m.remove(v)})
			more = true
		}
	}
	en, ok := e.derive(u)
	if !ok {
		set, _ := e.enabledAt()
		en = set.Test(uint(u))
	}
	for i := len(e.zOff) - 1; i >= base; i-- {
		e.readd(e.zOff[i].t, e.zOff[i].ev)
	}
	e.zOff = e.zOff[:base]
	return en
}

// zEvent is an event statusAt took off the scratch state.
type zEvent struct {
	t  ts.Tid
	ev hb.Event
}

// enabledIn reports whether thread u is enabled at the scratch state x: derived
// when it can be (derivable), else from
// x's replayed enabled set.
func (e *hbSearch[S]) enabledIn(u ts.Tid, derivable bool) bool {
	if derivable {
		if en, ok := e.derive(u); ok {
			return en
		}
		return e.statusAt(u)
	}
	en, _ := e.enabledAt()
	return en.Test(uint(u))
}
