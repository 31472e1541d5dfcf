package hb

import (
	"fmt"
	"strings"

	"github.com/weftlab/weft/ts"
)

// VC is a vector clock: VC[t] counts the events of thread t that happen
// before (or are) the point the clock stands for. Clocks of one execution
// have one entry per thread; the methods that combine two clocks expect equal
// lengths and do not allocate.
//
// The usual discipline: thread t ticks its own entry at each of its events,
// so its n-th event has clock C with C[t] = n (counting from 1); a
// synchronization joins the clock of the object or thread synchronized with.
// Then event e of thread t happens before event f with clock C_f iff
// C_f.Covers(t, n_e), the epoch test of FastTrack.
type VC []uint32

// NewVC returns a zero clock for the given number of threads.
func NewVC(threads int) VC { return make(VC, threads) }

// Tick counts one more event of thread t.
func (v VC) Tick(t ts.Tid) { v[t]++ }

// Join sets v to the entrywise maximum of v and o.
func (v VC) Join(o VC) {
	v = v[:len(o)]
	for i, c := range o {
		if c > v[i] {
			v[i] = c
		}
	}
}

// CopyFrom sets v to o.
func (v VC) CopyFrom(o VC) { copy(v[:len(o)], o) }

// Reset sets every entry to zero.
func (v VC) Reset() { clear(v) }

// Clone returns a copy of v.
func (v VC) Clone() VC { return append(VC(nil), v...) }

// LessEq reports whether v ≤ o entrywise: everything v has seen, o has seen.
func (v VC) LessEq(o VC) bool {
	o = o[:len(v)]
	for i, c := range v {
		if c > o[i] {
			return false
		}
	}
	return true
}

// Equal reports whether v and o are the same clock.
func (v VC) Equal(o VC) bool {
	if len(v) != len(o) {
		return false
	}
	for i, c := range v {
		if c != o[i] {
			return false
		}
	}
	return true
}

// Before reports whether v happens strictly before o: v ≤ o and v ≠ o.
func (v VC) Before(o VC) bool { return v.LessEq(o) && !v.Equal(o) }

// Concurrent reports whether neither of v and o happens before the other nor
// are they equal.
func (v VC) Concurrent(o VC) bool { return !v.LessEq(o) && !o.LessEq(v) }

// Covers reports whether thread t's n-th event (n counted from 1) happens
// before or is the point v stands for: n ≤ v[t].
func (v VC) Covers(t ts.Tid, n int) bool { return n <= int(v[t]) }

// String formats v as "[2 1 0]".
func (v VC) String() string {
	var b strings.Builder
	b.WriteByte('[')
	for i, c := range v {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprint(&b, c)
	}
	b.WriteByte(']')
	return b.String()
}
