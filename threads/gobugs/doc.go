// Package gobugs is a suite of small kernels of real Go concurrency bugs,
// of the kinds the published studies of Go concurrency bugs describe:
// blocking bugs on channels and mutexes (a goroutine leaked on a channel
// no one reads, a lock-order inversion, a missing unlock on an early
// return, a recursive read lock with a waiting writer), WaitGroup misuse
// (Add inside the goroutine, Wait before Add, Done missing on a path),
// select without a way out, panics (send on a closed channel, a double
// close) and data races on shared variables. Each kernel is written fresh
// as a [threads.Program], together with its fixed version.
//
// The kernels are data for tests and benchmarks: [Kernels] lists them,
// each with the kind of violation its bug shows and a strategy that
// finds it.
package gobugs
