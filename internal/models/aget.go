package models

import (
	"fmt"
	"slices"

	"github.com/weftlab/weft/ts"
)

// agetMax is the largest number of threads.
const agetMax = 8

// agetChunks is the number of chunks each thread downloads.
const agetChunks = 2

// AGet is a segment downloader like the aget benchmark of Yang's thesis
// (chapter 7: an ftp client whose threads download segments of a file
// concurrently): N identical threads each download their own segment in 2
// chunks, and after each chunk add it to the shared progress counter under a
// lock:
//
//	for c := 0; c < 2; c++ {
//	  seg[t] := c + 1                              // download chunk c
//	  lock(l); r := written; written := r + 1; unlock(l)
//	}
//
// A thread forgets r when it unlocks. Objects: l = 0, written = 1, seg[t] =
// 2+t (each thread's own segment, so the segment writes are independent of
// every other thread). Check, once every thread has finished: written = 2N.
// It cannot fail in AGet; in AGetBuggy the counter is updated without the
// lock (the data race of aget-bug) and an update can be lost.
//
// Symmetry: the threads are identical and a thread id enters the state only
// as the lock's owner and as the index of the thread's own segment, both
// renamed with the thread, so every permutation is a symmetry (Canonical,
// Permute), and two threads with equal locals and segment are
// interchangeable (Signature), with their segments exchanged.
//
// Facts: one distinct terminal state. Under ts.ExploreStateful, states 11,
// 85, 575 for N = 1, 2, 3 and no violation; AGetBuggy 7, 94, 1661 states
// with 0, 2, 4 violating states. Under ts.Explore, 466 executions for N = 2
// (AGetBuggy: 924, of which 774 lose an update). Acyclic.
type AGet struct {
	n     int
	buggy bool
}

// AGetInfo describes AGet.
var AGetInfo = Info{
	Name:    "aget",
	Summary: "segment downloader: N identical threads fill their own segments and count progress under a lock",
	Source:  "Yu Yang, Efficient Dynamic Verification of Concurrent Programs, PhD thesis, Utah 2009, chapter 7 (aget)",
	Param:   "threads",
	Default: 3,
	Min:     1,
	Max:     agetMax,
}

// AGetBuggyInfo describes AGetBuggy.
var AGetBuggyInfo = Info{
	Name:    "aget-bug",
	Summary: "aget whose progress counter is updated without the lock: a lost update",
	Source:  AGetInfo.Source + " (aget-bug)",
	Param:   "threads",
	Default: 3,
	Min:     1,
	Max:     agetMax,
}

// NewAGet returns the downloader with n threads (1..8).
func NewAGet(n int) *AGet { return newAGet(n, false, AGetInfo) }

// NewAGetBuggy returns the downloader whose threads update the progress
// counter without the lock (n threads, 1..8).
func NewAGetBuggy(n int) *AGet { return newAGet(n, true, AGetBuggyInfo) }

func newAGet(n int, buggy bool, info Info) *AGet {
	if n < info.Min || n > info.Max {
		panic(fmt.Sprintf("models: %s needs %d..%d threads, got %d", info.Name, info.Min, info.Max, n))
	}
	return &AGet{n: n, buggy: buggy}
}

// Program counters of an AGet thread.
const (
	agetDownload = iota
	agetLock
	agetRead
	agetWrite
	agetUnlock
	agetDone
)

// Objects of AGet; seg[t] is agetSeg + t.
const (
	agetL ts.Obj = iota
	agetWritten
	agetSeg
)

// AGetState is a state of AGet: the progress counter, the lock's owner (0
// free, t+1 held by thread t), and per thread its program counter, chunk,
// register and segment. Entries at N and above are zero.
type AGetState struct {
	written, owner int8
	pc, chunk, r   [agetMax]int8
	seg            [agetMax]int8
}

func (a *AGet) Threads() int    { return a.n }
func (a *AGet) Init() AGetState { return AGetState{} }
func (a *AGet) afterDownload() int8 {
	if a.buggy {
		return agetRead
	}
	return agetLock
}

func (a *AGet) Next(s AGetState, t ts.Tid) (ts.Step, ts.Status) {
	switch s.pc[t] {
	case agetDownload:
		return ts.Step{Obj: agetSeg + ts.Obj(t), Op: ts.Write}, ts.Enabled
	case agetLock:
		return lockStep(agetL, s.owner)
	case agetRead:
		return ts.Step{Obj: agetWritten, Op: ts.Read}, ts.Enabled
	case agetWrite:
		return ts.Step{Obj: agetWritten, Op: ts.Write}, ts.Enabled
	case agetUnlock:
		return ts.Step{Obj: agetL, Op: ts.Release}, ts.Enabled
	}
	return ts.Step{}, ts.Finished
}

func (a *AGet) Apply(s AGetState, t ts.Tid) AGetState {
	switch s.pc[t] {
	case agetDownload:
		s.seg[t], s.pc[t] = s.chunk[t]+1, a.afterDownload()
	case agetLock:
		if s.owner != 0 {
			panic(fmt.Sprintf("aget: thread %d takes l held by %d", t, s.owner-1))
		}
		s.owner, s.pc[t] = int8(t)+1, agetRead
	case agetRead:
		s.r[t], s.pc[t] = s.written, agetWrite
	case agetWrite:
		s.written, s.pc[t] = s.r[t]+1, agetUnlock
		if a.buggy {
			a.nextChunk(&s, t)
		}
	case agetUnlock:
		s.owner = 0
		a.nextChunk(&s, t)
	default:
		panic(fmt.Sprintf("aget: thread %d has finished", t))
	}
	return s
}

func (a *AGet) nextChunk(s *AGetState, t ts.Tid) {
	s.r[t] = 0
	s.chunk[t]++
	s.pc[t] = agetDownload
	if s.chunk[t] == agetChunks {
		s.pc[t] = agetDone
	}
}

// Check reports, once every thread has finished, a progress count other
// than 2N.
func (a *AGet) Check(s AGetState) error {
	for t := range a.n {
		if s.pc[t] != agetDone {
			return nil
		}
	}
	if want := int8(agetChunks * a.n); s.written != want {
		return fmt.Errorf("written = %d chunks, want %d: an update was lost", s.written, want)
	}
	return nil
}

func (a *AGet) Hash(s AGetState) uint64 {
	h := hashInts(0, s.written, s.owner)
	h = hashInts(h, s.pc[:a.n]...)
	h = hashInts(h, s.chunk[:a.n]...)
	h = hashInts(h, s.r[:a.n]...)
	return hashInts(h, s.seg[:a.n]...)
}

func (a *AGet) Describe(s AGetState, t ts.Tid) string {
	switch s.pc[t] {
	case agetDownload:
		return fmt.Sprintf("seg[%d] := %d", t, s.chunk[t]+1)
	case agetLock:
		return "lock(l)"
	case agetRead:
		return "r := written"
	case agetWrite:
		return "written := r + 1"
	case agetUnlock:
		return "unlock(l)"
	}
	return "(finished)"
}

func (a *AGet) ObjName(o ts.Obj) string {
	if o >= agetSeg {
		return fmt.Sprintf("seg[%d]", o-agetSeg)
	}
	return fixturesVarName(o, "l", "written")
}

func (a *AGet) key(s AGetState, t int) [5]int8 {
	return [5]int8{s.pc[t], s.chunk[t], s.r[t], s.seg[t], b2i(s.owner == int8(t)+1)}
}

// Permute returns s with thread t's part (its locals and segment) moved to
// thread perm[t].
func (a *AGet) Permute(s AGetState, perm []ts.Tid) AGetState {
	out := AGetState{written: s.written}
	for t := range a.n {
		u := perm[t]
		out.pc[u], out.chunk[u], out.r[u], out.seg[u] = s.pc[t], s.chunk[t], s.r[t], s.seg[t]
	}
	if s.owner != 0 {
		out.owner = int8(perm[s.owner-1]) + 1
	}
	return out
}

// Canonical sorts the threads by their part of the state, stably by id.
func (a *AGet) Canonical(s AGetState) (AGetState, []ts.Tid) {
	order := make([]int, a.n)
	for t := range order {
		order[t] = t
	}
	slices.SortStableFunc(order, func(x, y int) int {
		kx, ky := a.key(s, x), a.key(s, y)
		return slices.Compare(kx[:], ky[:])
	})
	perm := make([]ts.Tid, a.n)
	for pos, t := range order {
		perm[t] = ts.Tid(pos)
	}
	return a.Permute(s, perm), perm
}

// Signature is thread t's part of the state: locals, segment, lock held.
func (a *AGet) Signature(s AGetState, t ts.Tid) uint64 {
	k := a.key(s, int(t))
	return hashInts(0, k[:]...)
}
