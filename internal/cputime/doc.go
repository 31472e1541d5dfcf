// Package cputime reads the CPU time (user and system) of the process and
// of the calling thread, for benchmarks that report it beside wall time: on
// a machine whose cores are shared, wall time with several goroutines
// mixes the search's work with the others' load, and CPU time does not.
// Where it cannot be read (outside Linux), both are 0.
package cputime
