// Package hb is weft's happens-before machinery: canonical events and
// happens-before states with incremental hashing, their prefixes and
// frontiers, a visited table of states, vector clocks, the data-race detector
// and happens-before graphs of traces. Every strategy builds on it.
//
// # Events
//
// An execution's transitions become canonical events <op, t, n, obj, m>
// ([Event]), as in section 3.3 of Musuvathi and Qadeer, "Partial-order
// reduction for context-bounded state exploration" (MSR-TR-2007-12). op is R
// for a ts.Read and W for everything else: writes, and lock acquires and
// releases, which write the lock object. t is the thread; n numbers the
// thread's events from 1; obj is the object. For a write, m numbers the
// object's writes from 1; for a read, m is the number of the write whose
// value it reads, 0 for the initial value.
//
// A transition of several objects (ts.Step.Also) is one event with one such
// access (op, obj, m) per object, and a transition with an outcome c > 0 (see
// ts.Chooser) carries c: two events that differ only in their outcome are
// different events, so executions that take different outcomes never reach
// one state. The one-object, outcome-0 event is stored and hashed as before,
// in one word.
//
// The happens-before order needs no edges stored: it is the transitive
// closure of program order (by n) and, per object, write m before the reads
// of m and before write m+1, and the reads of m before write m+1, over every
// access of every event. Two events of different threads are so ordered
// directly iff they share an object that one of them writes, which is
// ts.Dependent of their steps. Two executions that differ only in the order
// of independent transitions give the same set of events; two that order
// some dependent pair differently, or take another outcome somewhere, do
// not.
//
// # States
//
// A [State] is such a set: the happens-before state an execution reaches,
// which every linearization of it reaches too. It keeps each thread's events
// as a sequence of (op, obj, m), so equality is exact and as cheap as
// comparing two slices, and it keeps per object what it needs to number the
// next event and to tell whether an event is maximal.
//
//	s := hb.New(threads)
//	e := s.Add(t, step)            // along the execution: t's next event
//	e = s.AddOutcome(u, step2, c)  // one with outcome c
//	s.Remove(u)                    // back again: only for u in the frontier
//
// An event's Op, Obj and M are those of its first access; More counts the
// others and [State.AppendAccesses] lists them.
//
// [State.Frontier] gives the threads whose last event nothing depends on,
// the F(s) of the cbpor paper's CB recursion; removing such an event gives a
// predecessor state. [State.PrefixOf] tests the paper's prefix order, and
// [State.Linearize] gives a schedule that reaches the state, for replaying a
// prefix the search never drove the system to; its moves carry the
// outcomes. Once a State has seen its threads and objects, Add, AddOutcome,
// Remove, Hash, Equal, Frontier, PrefixOf, Linearize (into a reused
// schedule) and CopyFrom do not allocate, whatever the events.
//
// # Hashes
//
// The hash of a state is the XOR of a hash of each of its events, so it is
// updated in constant time both ways: h(s+e) = h(s) ^ h(e) (a State keeps
// each event's hash, so that removing one, or asking [State.LastHash],
// hashes nothing). The event hash
// is picked from a family by a seed ([NewSeeded]; [New] uses the fixed
// [DefaultSeed], so runs are reproducible): two rounds of the splitmix64
// finalizer, keyed by the seed, over the event's 128-bit encoding (thread, n
// and its first access), mixed once more, for an event of several accesses
// or an outcome, with a digest of the rest. Equal
// states have equal hashes under one seed. If event hashes behaved as
// independent random 64-bit values, two different states would collide with
// probability 2⁻⁶⁴ and some pair among n states with probability at most
// n²/2⁶⁵. That is an idealization: the family is a strong mixer, not a proven
// k-independent family, and XOR-combined hashes need independence across
// whole sets. So nothing in weft trusts a hash alone: [Table] compares
// events exactly, and a collision costs one comparison.
//
// # Visited states
//
// A [Table] is a set of states: Insert stores a compact copy (8 bytes an
// access, and one for an outcome) and gives each new state a dense id,
// InsertAdded and InsertRemoved store a state as a stored one plus or minus
// one event in constant space ([EntryBytes]; an event of several words added
// keeps its words too, one removed refers to them where they are stored
// already), Lookup and Contains find a state by hash and exact
// comparison (walking a chain of differences costs what comparing copies
// would), LookupNext finds a state plus one event without adding it to the
// state (compared word by word with a copy or a chain of removals from one),
// Load rebuilds a stored state.
//
// # Vector clocks
//
// [VC] is a vector clock with allocation-free Tick, Join, LessEq and the
// epoch test Covers, for dynamic partial-order reduction and the detector.
//
// # Data races
//
// With scheduling points only before synchronization accesses, a search is
// sound if it checks each execution for data races (section 3.1 of
// Musuvathi and Qadeer, "Iterative context bounding for systematic testing
// of multithreaded programs", PLDI'07). A [Detector] is fed an execution one
// access at a time and reports each [Race]: two accesses of different
// threads to the same data object, at least one a write, unordered by the
// happens-before relation of program order and synchronization accesses
// ([ts.Step.IsSync]) alone. [Races] checks a whole trace.
//
// # Graphs
//
// [WriteDot] draws a trace's happens-before graph for Graphviz: one node per
// transition, program order within each thread, and the direct cross-thread
// edges.
package hb
