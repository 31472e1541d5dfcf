package threads

import "github.com/weftlab/weft/ts"

// Var is a plain shared variable: Load is a read and Store a write, not
// synchronization accesses, so two accesses of different threads, one a
// Store, not ordered by synchronization are a data race, which the
// race-detecting strategies (sync-only, icb) report.
type Var[V any] struct {
	base
	v V
}

// NewVar returns a variable holding v.
func NewVar[V any](t *T, name string, v V) *Var[V] {
	x := &Var[V]{v: v}
	x.init(t, name, "var")
	return x
}

func (x *Var[V]) ready(*runner, *T) bool { return true }

// Load reads the variable.
func (x *Var[V]) Load(t *T) V {
	x.use(t)
	t.do(op{kind: kRead, obj: x, step: ts.Step{Obj: x.id, Op: ts.Read}, verb: "read"})
	return x.v
}

// Store writes the variable.
func (x *Var[V]) Store(t *T, v V) {
	x.use(t)
	t.do(op{kind: kWrite, obj: x, step: ts.Step{Obj: x.id, Op: ts.Write}, verb: "write"})
	x.v = v
}

// Atomic is an atomic variable (sync/atomic's Value, Pointer, Bool):
// every operation is a synchronization access. A CompareAndSwap is a
// write whether it succeeds or not.
type Atomic[V comparable] struct {
	base
	v V
}

// NewAtomic returns an atomic variable holding v.
func NewAtomic[V comparable](t *T, name string, v V) *Atomic[V] {
	x := &Atomic[V]{v: v}
	x.init(t, name, "atomic")
	return x
}

func (x *Atomic[V]) ready(*runner, *T) bool { return true }

func (x *Atomic[V]) step(t *T, o ts.Op, what string) {
	x.use(t)
	t.do(op{kind: kYieldOnly, obj: x, step: ts.Step{Obj: x.id, Op: o, Sync: true}, verb: what})
}

// Load returns the value.
func (x *Atomic[V]) Load(t *T) V {
	x.step(t, ts.Read, "load")
	return x.v
}

// Store sets the value.
func (x *Atomic[V]) Store(t *T, v V) {
	x.step(t, ts.Write, "store")
	x.v = v
}

// Swap sets the value and returns the old one.
func (x *Atomic[V]) Swap(t *T, v V) V {
	x.step(t, ts.Write, "swap")
	old := x.v
	x.v = v
	return old
}

// CompareAndSwap sets the value to new if it is old, and reports whether
// it did.
func (x *Atomic[V]) CompareAndSwap(t *T, old, new V) bool {
	x.step(t, ts.Write, "cas")
	if x.v != old {
		return false
	}
	x.v = new
	return true
}

// Integer is the type set of AtomicInt's values.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

// AtomicInt is an atomic integer (sync/atomic's Int64 and kin): an Atomic
// with Add.
type AtomicInt[V Integer] struct{ Atomic[V] }

// NewAtomicInt returns an atomic integer holding v.
func NewAtomicInt[V Integer](t *T, name string, v V) *AtomicInt[V] {
	x := &AtomicInt[V]{}
	x.v = v
	x.init(t, name, "atomic")
	return x
}

// Add adds d and returns the new value.
func (x *AtomicInt[V]) Add(t *T, d V) V {
	x.step(t, ts.Write, "add to")
	x.v += d
	return x.v
}
