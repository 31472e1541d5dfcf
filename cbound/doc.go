// Package cbound explores a system's schedules by increasing preemption
// bound: iterative context bounding and partial-order reduction for
// context-bounded search.
//
// A preemption is a switch away from a thread that is still enabled; a switch
// away from a blocked or finished thread is free (both papers define it so:
// Musuvathi and Qadeer, "Iterative context bounding for systematic testing of
// multithreaded programs", PLDI 2007, and "Partial-order reduction for
// context-bounded state exploration", MSR-TR-2007-12). Most concurrency bugs
// need very few preemptions, and the number of executions with at most c
// preemptions grows polynomially in the length of the threads for a fixed c.
//
// # Strategies
//
//   - [ICB] explores every execution with 0 preemptions, then 1, and so on up
//     to Options.Bound: the first violation it reports has the fewest
//     preemptions of any, and Result.Coverage says what each bound covered.
//   - [DFS] is the baseline cb-dfs: a depth-first search pruned above the
//     bound, with no reduction.
//
// # Sync-only scheduling
//
// With Options.SyncOnly, ICB places scheduling points only before
// synchronization steps (lock operations and accesses to variables marked
// Step.Sync) and checks every execution it explores for data races. An
// execution with a race is reported as a violation of kind ts.DataRace; when
// there is none, sync-only search reaches every terminal state, deadlock and
// assertion failure the full search reaches (ICB paper, section 3.1 and
// Theorems 2-3), with far fewer transitions. It preserves nothing more: a
// property over intermediate states between two data accesses is not seen.
package cbound
