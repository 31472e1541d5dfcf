// Package offheap keeps the largest pools of a search, slices of elements
// that hold no pointers, in memory mapped outside the Go heap and advised
// for huge pages, where the system has them.
//
// # Why
//
// A wakeup-tree pool grows to millions of nodes. In the Go heap it grows by
// doubling: each step is a new array, fresh pages the process faults in one
// at a time (some 14 microseconds each in a virtual machine), and the old
// array is garbage that a process whose collector has not run yet never
// reuses, so half the faults are for memory left behind. ODPOR on
// lastzero-15 took 15,200 page faults, of a process's 1.4 s about 0.2 s.
//
// # How
//
// Grow maps, for a slice that outgrows MinBytes, a region eight times the
// room asked for (reserved, not committed: the system gives a page when it
// is first written), aligned to 2 MB and advised for transparent huge
// pages, so that the system may fault 2 MB at a time; the slice then grows
// in its region without a copy until it outgrows it. The capacities are
// grow.Slice's, so what a search counts of its memory is unchanged. A
// region is unmapped when its Region is unreachable (a cleanup) or when the
// slice moves to a larger one. On systems without mmap, or where mapping
// fails, Grow is grow.Slice.
//
// Mapped counts, for the whole process, the capacity of the slices in
// regions, which runtime.MemStats does not: the tests and benchmarks that
// measure what a search keeps add it to the heap. A search unmaps its
// regions when it returns (Region.Free) rather than leaving them to the
// cleanups, which run only after a collection.
//
// The collector does not see this memory, so only slices of types that hold
// no pointers move there; Grow leaves any other in the Go heap, which lets a
// generic caller use it whatever its element type. The slice is valid only
// while its Region is reachable, or until Region.Free: keep the two
// together.
package offheap
