package hb

// The data-race detector of section 3.1 of Musuvathi and Qadeer, "Iterative
// context bounding for systematic testing of multithreaded programs"
// (PLDI'07): with scheduling points only before synchronization accesses, a
// search stays sound if every execution it explores is checked for data races
// under the happens-before relation built from program order and
// synchronization accesses alone.
//
// Invariants: clock(t)[u] is the number of thread u's events that happen
// before thread t's next event; syncClock(v) is the clock of the last
// synchronization access to v; for a data object v and thread u, the access
// record holds u's last data access and last data write of v, with u's own
// clock entry at each. If some earlier access of u races with a new access,
// so does u's last conflicting one: it happens no earlier in u, and whatever
// orders it before the new access would order the earlier one too.

import (
	"fmt"

	"github.com/weftlab/weft/ts"
)

// Access is one access of an execution.
type Access struct {
	Thread ts.Tid
	Index  int // position in the execution, counted from 0 as in ts.Trace
	Step   ts.Step
}

// Race is a data race: two accesses of different threads to the same data
// object, at least one a write, that no chain of program order and
// synchronization accesses orders. First comes earlier in the execution. A
// Race is an error, so that it can be the Err of a ts.Violation of kind
// ts.DataRace.
type Race struct {
	Obj           ts.Obj // the object both access (a step may touch several)
	First, Second Access
	// Names, if set, names the object in Error (the system's ObjNamer, as
	// traces name it); without, the object is "o" and its number. Error
	// asks it each time: where names change as the system runs, give a
	// namer fixed when the race was found (package cbound does).
	Names ts.ObjNamer `json:"-"`
}

// Error describes the race: the object, and each access's thread,
// operation and index in the execution.
func (r Race) Error() string {
	obj := fmt.Sprintf("o%d", r.Obj)
	if r.Names != nil {
		obj = r.Names.ObjName(r.Obj)
	}
	return fmt.Sprintf("data race on %s: T%d %v at step %d and T%d %v at step %d",
		obj, r.First.Thread, opOn(r.First.Step, r.Obj), r.First.Index,
		r.Second.Thread, opOn(r.Second.Step, r.Obj), r.Second.Index)
}

func opOn(st ts.Step, o ts.Obj) ts.Op {
	op, _ := st.OpOn(o)
	return op
}

// Detector finds the data races of an execution fed to it one step at a
// time. Synchronization accesses ([ts.Access.IsSync]) to one object are
// totally ordered in execution order, each acting as an acquire and a
// release of the object's clock; data (plain) accesses are checked against
// the last data accesses of every other thread. An object may have both: a
// synchronization access and a data access never form a race, but two data
// accesses of an object that also sees synchronization accesses do, unless
// something orders them. A step of several objects (ts.Step.Also) acquires
// the clocks of all its synchronization objects, then makes its data
// accesses, then releases; the mark of a global invariant's read set
// (ts.InvariantObj) is not an access and is skipped.
//
// After its first execution has shown it the objects, a Detector allocates
// nothing, also across Reset. The zero Detector is not usable; call
// [NewDetector].
type Detector struct {
	n      int
	clocks []uint32 // thread t's clock is clocks[t*n : (t+1)*n]
	syncs  objIndex
	sclock []uint32 // sync object slot i's clock is sclock[i*n : (i+1)*n]
	datas  objIndex
	recs   []record // data object slot i, thread u: recs[i*n+u]
	index  int
	races  []Race
}

// record is what a detector keeps of one thread's accesses to a data object.
type record struct {
	acc, wr       int32 // index+1 of the last data access and write, 0 for none
	accClk, wrClk uint32
	accStep       ts.Step
	wrStep        ts.Step
}

// NewDetector returns a detector for executions of the given number of
// threads.
func NewDetector(threads int) *Detector {
	if threads < 1 {
		panic(fmt.Sprintf("hb: NewDetector(%d): need at least one thread", threads))
	}
	return &Detector{n: threads, clocks: make([]uint32, threads*threads)}
}

// Reset makes the detector ready for a new execution, keeping its memory.
func (d *Detector) Reset() {
	clear(d.clocks)
	d.syncs.reset()
	d.datas.reset()
	d.index = 0
	d.races = d.races[:0]
}

// Len returns the number of steps fed since the last Reset.
func (d *Detector) Len() int { return d.index }

// Clock returns thread t's vector clock: how many events of each thread
// happen before t's next access. It is the detector's own memory: read it, do
// not keep or change it.
func (d *Detector) Clock(t ts.Tid) VC { return VC(d.clocks[int(t)*d.n : (int(t)+1)*d.n]) }

// Step feeds the next step of the execution, by thread t, and returns the
// races it completes: one for each object and other thread whose accesses
// race with it, paired with that thread's last such access, in access and
// thread order. The slice is the detector's and is overwritten by the next
// call. It panics if t is out of range.
func (d *Detector) Step(t ts.Tid, st ts.Step) []Race {
	if t < 0 || int(t) >= d.n {
		panic(fmt.Sprintf("hb: Detector.Step: thread %d of %d", t, d.n))
	}
	idx := d.index
	d.index++
	d.races = d.races[:0]
	n := d.n
	c := d.clocks[int(t)*n : (int(t)+1)*n]
	c[t]++
	k := st.NumAccesses()
	for a := range k {
		if acc := st.At(a); acc.IsSync() && acc.Obj != ts.InvariantObj {
			VC(c).Join(d.syncClock(acc.Obj))
		}
	}
	for a := range k {
		acc := st.At(a)
		if acc.IsSync() || acc.Obj == ts.InvariantObj {
			continue
		}
		d.data(t, idx, st, acc, c)
	}
	for a := range k {
		if acc := st.At(a); acc.IsSync() && acc.Obj != ts.InvariantObj {
			copy(d.syncClock(acc.Obj), c)
		}
	}
	return d.races
}

// syncClock returns the clock of synchronization object o.
func (d *Detector) syncClock(o ts.Obj) []uint32 {
	n := d.n
	i, fresh := d.syncs.slot(o)
	if fresh {
		d.sclock = zeroed(d.sclock, i, n)
	}
	return d.sclock[i*n : (i+1)*n]
}

// data checks thread t's data access acc, of step st at index idx, against
// the other threads' last data accesses of its object, and records it.
func (d *Detector) data(t ts.Tid, idx int, st ts.Step, acc ts.Access, c []uint32) {
	n := d.n
	i, fresh := d.datas.slot(acc.Obj)
	if fresh {
		d.recs = zeroed(d.recs, i, n)
	}
	row := d.recs[i*n : (i+1)*n]
	write := acc.Op != ts.Read
	for u := range row {
		if u == int(t) {
			continue
		}
		r := &row[u]
		switch {
		case write && r.acc != 0 && r.accClk > c[u]:
			d.races = append(d.races, Race{Obj: acc.Obj,
				First:  Access{Thread: ts.Tid(u), Index: int(r.acc) - 1, Step: r.accStep},
				Second: Access{Thread: t, Index: idx, Step: st}})
		case !write && r.wr != 0 && r.wrClk > c[u]:
			d.races = append(d.races, Race{Obj: acc.Obj,
				First:  Access{Thread: ts.Tid(u), Index: int(r.wr) - 1, Step: r.wrStep},
				Second: Access{Thread: t, Index: idx, Step: st}})
		}
	}
	r := &row[t]
	r.acc, r.accClk, r.accStep = int32(idx)+1, c[t], st
	if write {
		r.wr, r.wrClk, r.wrStep = int32(idx)+1, c[t], st
	}
}

// zeroed returns xs with room for block i of n elements, that block zero.
func zeroed[T any](xs []T, i, n int) []T {
	if need := (i + 1) * n; len(xs) < need {
		if cap(xs) >= need {
			xs = xs[:need]
		} else {
			xs = append(xs, make([]T, need-len(xs))...)
		}
	}
	clear(xs[i*n : (i+1)*n])
	return xs
}

// Races returns every race of an execution given as its events (a
// ts.Trace's Events, or any sequence of thread and step), in the order
// [Detector.Step] finds them. It returns nil for a race-free execution.
func Races(events []ts.Event) []Race {
	n := 1
	for _, e := range events {
		n = max(n, int(e.Thread)+1)
	}
	d := NewDetector(n)
	var out []Race
	for _, e := range events {
		out = append(out, d.Step(e.Thread, e.Step)...)
	}
	return out
}
