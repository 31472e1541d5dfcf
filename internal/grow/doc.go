// Package grow grows slices that get large (pools of millions of nodes,
// tables of millions of states) in code the Go scheduler can stop at any
// instruction.
//
// # Why
//
// append and slices.Grow move a slice to its larger array with one call of
// the runtime's memmove, and clear the rest with one call of its memclr:
// assembly, in which a goroutine cannot be preempted. Moving tens of
// megabytes to pages the program has never touched takes tens of
// milliseconds where a page fault is slow (some 14 microseconds each in a
// virtual machine), and a garbage collection that starts meanwhile cannot
// scan the goroutine's stack until the call returns: it signals the
// goroutine again and again, each signal delivered during a page fault,
// while its worker spins on another core. An ODPOR search of lastzero-15
// in a test binary spent a quarter of its time so (1.75 s against 1.33 s
// with the growth below, the same as with asynchronous preemption off).
//
// # How
//
// Slice allocates the new array with make, which leaves fresh memory as
// the system gives it (zero) and clears reused memory in steps the
// scheduler can stop between, and copies a large slice in a Go loop.
// Capacities are append's, and a slice that stays small grows by
// slices.Grow itself, so that what a table holds beyond its contents, and
// every figure that counts it, stays as it was.
package grow
