package mat

// GenMAT implements Algorithm 1 of Ganai and Kundu, "Reduction of
// verification conditions for concurrent system using mutually atomic
// transactions" (SPIN 2009), section 5, with the strict MAT definition of the
// paper's prose, the corrected line 14 and virtual thread-end events
// (PAPER-NOTES section 5).
//
// Invariant: every start pair (f_i, f_j) taken from the worklist yields
// exactly one MAT, the one whose transaction in the priority thread j ends
// first; the pairs it enqueues are the successors (+l_i, +l_j), (+l_i, f_j)
// and (f_i, +l_j), each processed once.

import (
	"fmt"

	"github.com/weftlab/weft/ts"
)

// Access is one visible access of an unrolled thread: the object it touches
// and how. Two accesses of different threads conflict when they touch the
// same object and at least one is not a read (ts.Dependent).
type Access struct {
	Obj ts.Obj
	Op  ts.Op
}

// R and W build accesses for hand-written sequences: R(x) reads object x, W(x)
// writes it.
func R(x ts.Obj) Access { return Access{Obj: x, Op: ts.Read} }

// W builds a write of object x; see [R].
func W(x ts.Obj) Access { return Access{Obj: x, Op: ts.Write} }

// Conflicts reports whether a and b, taken by two different threads, are
// dependent.
func (a Access) Conflicts(b Access) bool {
	return ts.Dependent(ts.Step{Obj: a.Obj, Op: a.Op}, ts.Step{Obj: b.Obj, Op: b.Op})
}

func (a Access) String() string { return ts.Step{Obj: a.Obj, Op: a.Op}.String() }

// Event is an event of an unrolled thread: access I (from 0) of thread T, or
// the thread's virtual end event when I is the thread's length. End events
// of two threads are dependent on each other and on nothing else; without
// them two threads with no conflict would get no MAT and no allowed schedule
// at all.
type Event struct {
	T ts.Tid
	I int
}

// String names the event as the paper does: "1a" is the first access of
// thread 0, "3b" the third of thread 1. An Event does not know its thread's
// length, so an end event prints as the index after the last access; the
// Format methods of MAT, Pairs and Analysis, which know it, write "⊣a".
// Threads past the 26th are written "t26.1".
func (e Event) String() string { return e.label(-1) }

// label names e, writing "⊣" for its index when e.I is n, the thread's
// length; a negative n (length unknown) never does.
func (e Event) label(n int) string {
	idx := fmt.Sprint(e.I + 1)
	if n >= 0 && e.I == n {
		idx = "⊣"
	}
	if e.T >= 0 && e.T < 26 {
		return idx + string(rune('a'+e.T))
	}
	return fmt.Sprintf("t%d.%s", e.T, idx)
}

// MAT is a pair of mutually atomic transactions of threads I and J: thread
// I's events FI..LI and thread J's events FJ..LJ, where (LI, LJ) is the only
// conflicting pair of events between them. An index equal to the thread's
// length is its virtual end event. J is the thread with priority.
type MAT struct {
	I, J   ts.Tid
	FI, LI int
	FJ, LJ int
}

// Real reports whether the MAT ends in two real accesses (not in the
// threads' end events).
func (m MAT) Real(threads [][]Access) bool { return m.LI < len(threads[m.I]) }

// Format renders the MAT as the paper does, "(1a..3a, 1b..2b)", naming end
// events with "⊣".
func (m MAT) Format(threads [][]Access) string {
	tr := func(t ts.Tid, f, l int) string {
		n := len(threads[t])
		if f == l {
			return Event{t, f}.label(n)
		}
		return Event{t, f}.label(n) + ".." + Event{t, l}.label(n)
	}
	return "(" + tr(m.I, m.FI, m.LI) + ", " + tr(m.J, m.FJ, m.LJ) + ")"
}

// dependent reports whether event x of thread i and event y of thread j
// (i != j) are dependent: two conflicting accesses, or the two end events.
func dependent(threads [][]Access, i ts.Tid, x int, j ts.Tid, y int) bool {
	ni, nj := len(threads[i]), len(threads[j])
	if x == ni || y == nj {
		return x == ni && y == nj
	}
	return threads[i][x].Conflicts(threads[j][y])
}

// GenMAT returns the MATs of threads i and j (Algorithm 1), thread j having
// priority: from each start pair it picks the MAT whose transaction in
// thread j ends first. MATs come in the order the worklist (first in, first
// out) produced them. It panics if i == j or either is out of range.
//
// A MAT from (f_i, f_j) under the strict definition ends at the first event
// l_j of thread j (from f_j) that conflicts with some event of thread i from
// f_i, and at the first event l_i of thread i (from f_i) that conflicts with
// l_j: any earlier end in thread j would need a conflict, and any other end
// in thread i would leave a second conflicting pair inside the MAT. The end
// events guarantee that such a pair exists.
func GenMAT(threads [][]Access, i, j ts.Tid) []MAT {
	mats, _ := genMAT(threads, i, j, -1)
	return mats
}

// genMAT is GenMAT that gives up, returning false, once it has found more
// than limit MATs (limit < 0: no limit).
func genMAT(threads [][]Access, i, j ts.Tid, limit int) ([]MAT, bool) {
	if i == j || i < 0 || j < 0 || int(i) >= len(threads) || int(j) >= len(threads) {
		panic(fmt.Sprintf("mat: GenMAT of threads %d and %d of %d", i, j, len(threads)))
	}
	ni, nj := len(threads[i]), len(threads[j])
	w := nj + 1
	seen := make([]bool, (ni+1)*(nj+1))
	type pair struct{ fi, fj int }
	queue := []pair{{0, 0}}
	seen[0] = true
	push := func(fi, fj int) {
		if k := fi*w + fj; !seen[k] {
			seen[k] = true
			queue = append(queue, pair{fi, fj})
		}
	}
	var mats []MAT
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		li, lj := -1, -1
	search:
		for y := p.fj; y <= nj; y++ {
			for x := p.fi; x <= ni; x++ {
				if dependent(threads, i, x, j, y) {
					li, lj = x, y
					break search
				}
			}
		}
		mats = append(mats, MAT{I: i, J: j, FI: p.fi, LI: li, FJ: p.fj, LJ: lj})
		if limit >= 0 && len(mats) > limit {
			return nil, false
		}
		switch {
		case li == ni && lj == nj:
			// both threads end here
		case li == ni: // unreachable: an end event conflicts only with an end event
			push(p.fi, lj+1)
		case lj == nj: // unreachable, as above
			push(li+1, p.fj)
		default: // line 14, corrected: (+l_i, +l_j), (+l_i, f_j), (f_i, +l_j)
			push(li+1, lj+1)
			push(li+1, p.fj)
			push(p.fi, lj+1)
		}
	}
	return mats, true
}
