package offheap

import (
	"reflect"
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/weftlab/weft/internal/grow"
)

// MinBytes is the size from which a slice moves to a region: below it, a
// huge page would be mostly empty.
const MinBytes = 2 << 20

// reserveFactor is how many times the room asked for a region reserves.
const reserveFactor = 8

// Region is the mapped memory a slice of Grow's is in.
type Region struct {
	m       *mapping
	base    unsafe.Pointer
	size    int // bytes usable from base
	cleanup runtime.Cleanup
}

// mapping is a region's memory and how much of it its slice has been
// given, apart from the Region so that the cleanup that unmaps it does not
// keep the Region reachable.
type mapping struct {
	mem   []byte // the whole mapping
	inUse int64  // bytes of the slice's capacity, counted in mapped
}

// mappedBytes is the capacity, in bytes, of the slices in regions not yet
// unmapped, in the whole process (see Mapped).
var mappedBytes atomic.Int64

// Mapped returns how many bytes the slices in regions hold now (their
// capacity), across the process: memory outside the Go heap, which
// runtime.MemStats does not count, for the tests and benchmarks that
// measure what a search keeps. A region dropped without Free counts until
// its cleanup runs, as garbage counts in the heap until it is collected.
func Mapped() int64 { return mappedBytes.Load() }

// use records that r's slice now has bytes of capacity.
func (r *Region) use(bytes int) {
	mappedBytes.Add(int64(bytes) - r.m.inUse)
	r.m.inUse = int64(bytes)
}

// Grow returns s, whose memory is in r if r is not nil, with room for n
// more elements (n >= 0), and the region it is in then (nil: the Go heap):
// s and r themselves if s has the room. A slice of a type that holds
// pointers stays in the Go heap, which the collector scans.
func Grow[E any](s []E, r *Region, n int) ([]E, *Region) {
	if cap(s)-len(s) >= n && n >= 0 {
		return s, r // inlined: the usual case costs a comparison
	}
	return larger(s, r, n)
}

// Make returns a slice of n zero elements and the region it is in (nil: the
// Go heap), for a table that is rebuilt larger rather than grown, such as
// an open-addressing hash table: its region is n elements long, reserving
// no room to grow.
func Make[E any](n int) ([]E, *Region) {
	size := int(unsafe.Sizeof(*new(E)))
	if size == 0 || n*size < MinBytes || hasPointers(reflect.TypeFor[E]()) {
		return make([]E, n), nil
	}
	r := newRegion(n * size)
	if r == nil {
		return make([]E, n), nil
	}
	r.use(n * size)
	return unsafe.Slice((*E)(r.base), n), r
}

// larger is Grow where s has not the room.
func larger[E any](s []E, r *Region, n int) ([]E, *Region) {
	if n < 0 {
		panic("offheap.Grow: negative count")
	}
	size := int(unsafe.Sizeof(*new(E)))
	want := grow.Cap(cap(s), len(s)+n)
	if size == 0 || want*size < MinBytes || hasPointers(reflect.TypeFor[E]()) {
		if r != nil {
			// Only a slice that shrank below a region's threshold: back
			// to the heap.
			t := grow.Slice(s[:len(s):len(s)], n)
			r.free()
			return t, nil
		}
		return grow.Slice(s, n), nil
	}
	if r != nil && unsafe.Pointer(unsafe.SliceData(s)) == r.base && want*size <= r.size {
		// Room in the region: the same memory, a larger capacity.
		r.use(want * size)
		return unsafe.Slice((*E)(r.base), want)[:len(s)], r
	}
	nr := newRegion(want * size * reserveFactor)
	if nr == nil {
		t := grow.Slice(s, n)
		if r != nil {
			r.free()
		}
		return t, nil
	}
	nr.use(want * size)
	t := unsafe.Slice((*E)(nr.base), want)[:len(s)]
	// In a Go loop, as grow.Slice copies: a large copy in one memmove
	// cannot be preempted.
	//lint:ignore S1001 copy is the one memmove this package avoids
	for i := range s {
		t[i] = s[i]
	}
	if r != nil {
		r.free()
	}
	return t, nr
}

// Free unmaps r now rather than when r is collected, for a slice whose
// search is over: nothing may read the slice in r afterwards. Free of nil
// does nothing.
func (r *Region) Free() {
	if r != nil && r.m != nil {
		r.free()
	}
}

// free unmaps r now, whose slice nothing reads any more.
func (r *Region) free() {
	r.cleanup.Stop()
	release(r.m)
	r.m, r.base, r.size = nil, nil, 0
}

// newRegion maps a region of at least size bytes, or returns nil.
func newRegion(size int) *Region {
	const huge = 2 << 20
	size = (size + huge - 1) &^ (huge - 1)
	mem := mapMemory(size + huge)
	if mem == nil {
		return nil
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(mem)))
	off := int((start+huge-1)&^(huge-1) - start)
	r := &Region{m: &mapping{mem: mem}, base: unsafe.Pointer(&mem[off]), size: size}
	adviseHuge(mem[off : off+size])
	r.cleanup = runtime.AddCleanup(r, release, r.m)
	return r
}

// release unmaps m and takes its slice's capacity off Mapped.
func release(m *mapping) {
	mappedBytes.Add(-m.inUse)
	m.inUse = 0
	unmap(m.mem)
}

// hasPointers reports whether a value of type t holds pointers.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return false
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
		return false
	}
	return true
}
