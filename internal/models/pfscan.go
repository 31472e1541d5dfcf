package models

import (
	"fmt"
	"slices"

	"github.com/weftlab/weft/ts"
)

// pfscanMax is the largest number of workers.
const pfscanMax = 8

// pfscanItems is the number of items in the work queue.
const pfscanItems = 3

// PFScan is a worker pool like the pfscan benchmark of Yang's thesis
// (chapter 7: a parallel file scanner whose worker threads take paths from
// a shared queue): N identical workers share a queue of 3 items, protected by
// lock q, and a match counter, protected by lock m. Each worker runs
//
//	for {
//	  lock(q); i := head                           // read head
//	  if i == 3 { unlock(q); return }
//	  head := i + 1; unlock(q)                     // write head
//	  k := matches(i)                              // scan item i (local): i%2 + 1
//	  lock(m); r := found; found := r + k; unlock(m)
//	}
//
// and forgets its locals (i, k, r) when it goes round or returns, so workers
// between items are interchangeable. Objects: q = 0, head = 1, m = 2,
// found = 3. Check, once every worker has returned: found is the sum of the
// matches of the items, 1 + 2 + 1 = 4. It cannot fail in PFScan; in
// PFScanBuggy the workers take items without lock(q), two may take the same
// item, and found comes out too large.
//
// Symmetry: the workers are identical and no thread id enters the data but
// as lock owners, so every permutation of the workers is a symmetry
// (Canonical sorts them by local state, Permute) and two workers with the
// same local state are interchangeable (Signature).
//
// Facts: one distinct terminal state. Under ts.ExploreStateful, states
// 28, 267, 1478 for N = 1, 2, 3 (6707, 27860, 107011 for N = 4, 5, 6) and
// no violation; PFScanBuggy 20, 1475, 56882 states with 0, 8, 21 violating
// states. Under ts.Explore, 373248 executions for N = 2 (PFScanBuggy:
// 6683716, of which 6680248 violate the check). Acyclic.
type PFScan struct {
	n     int
	buggy bool
}

// PFScanInfo describes PFScan.
var PFScanInfo = Info{
	Name:    "pfscan",
	Summary: "worker pool: N identical workers take 3 items from a locked queue and count matches under a lock",
	Source:  "Yu Yang, Efficient Dynamic Verification of Concurrent Programs, PhD thesis, Utah 2009, chapter 7 (pfscan)",
	Param:   "workers",
	Default: 3,
	Min:     1,
	Max:     pfscanMax,
}

// PFScanBuggyInfo describes PFScanBuggy.
var PFScanBuggyInfo = Info{
	Name:    "pfscan-bug",
	Summary: "pfscan whose workers take items without the queue lock: an item scanned twice",
	Source:  PFScanInfo.Source + " (pfscan-bug)",
	Param:   "workers",
	Default: 3,
	Min:     1,
	Max:     pfscanMax,
}

// NewPFScan returns the worker pool with n workers (1..8).
func NewPFScan(n int) *PFScan { return newPFScan(n, false, PFScanInfo) }

// NewPFScanBuggy returns the worker pool whose workers take items without
// the queue lock (n workers, 1..8).
func NewPFScanBuggy(n int) *PFScan { return newPFScan(n, true, PFScanBuggyInfo) }

func newPFScan(n int, buggy bool, info Info) *PFScan {
	if n < info.Min || n > info.Max {
		panic(fmt.Sprintf("models: %s needs %d..%d workers, got %d", info.Name, info.Min, info.Max, n))
	}
	return &PFScan{n: n, buggy: buggy}
}

// Worker program counters.
const (
	pfscanLockQ = iota
	pfscanReadHead
	pfscanWriteHead
	pfscanUnlockQ
	pfscanLockM
	pfscanReadFound
	pfscanWriteFound
	pfscanUnlockM
	pfscanExit // unlock(q) on the way out
	pfscanDone
)

// Objects of PFScan.
const (
	pfscanQ ts.Obj = iota
	pfscanHead
	pfscanM
	pfscanFound
)

// PFScanState is a state of PFScan: the queue head, the match count, the
// owners of the two locks (0 free, t+1 held by worker t) and each worker's
// program counter, item and register. Entries at N and above are zero.
type PFScanState struct {
	head, found int8
	q, m        int8
	pc          [pfscanMax]int8
	item        [pfscanMax]int8
	r           [pfscanMax]int8
}

func (p *PFScan) Threads() int { return p.n }

// start is a worker's program counter when it starts or goes round.
func (p *PFScan) start() int8 {
	if p.buggy {
		return pfscanReadHead
	}
	return pfscanLockQ
}

func (p *PFScan) Init() PFScanState {
	var s PFScanState
	for t := range p.n {
		s.pc[t] = p.start()
	}
	return s
}

func pfscanMatches(i int8) int8 { return i%2 + 1 }

func (p *PFScan) Next(s PFScanState, t ts.Tid) (ts.Step, ts.Status) {
	switch s.pc[t] {
	case pfscanLockQ:
		return lockStep(pfscanQ, s.q)
	case pfscanReadHead:
		return ts.Step{Obj: pfscanHead, Op: ts.Read}, ts.Enabled
	case pfscanWriteHead:
		return ts.Step{Obj: pfscanHead, Op: ts.Write}, ts.Enabled
	case pfscanUnlockQ, pfscanExit:
		return ts.Step{Obj: pfscanQ, Op: ts.Release}, ts.Enabled
	case pfscanLockM:
		return lockStep(pfscanM, s.m)
	case pfscanReadFound:
		return ts.Step{Obj: pfscanFound, Op: ts.Read}, ts.Enabled
	case pfscanWriteFound:
		return ts.Step{Obj: pfscanFound, Op: ts.Write}, ts.Enabled
	case pfscanUnlockM:
		return ts.Step{Obj: pfscanM, Op: ts.Release}, ts.Enabled
	}
	return ts.Step{}, ts.Finished
}

func lockStep(l ts.Obj, owner int8) (ts.Step, ts.Status) {
	if owner != 0 {
		return ts.Step{Obj: l, Op: ts.Acquire}, ts.Blocked
	}
	return ts.Step{Obj: l, Op: ts.Acquire}, ts.Enabled
}

func (p *PFScan) Apply(s PFScanState, t ts.Tid) PFScanState {
	me := int8(t) + 1
	switch s.pc[t] {
	case pfscanLockQ:
		if s.q != 0 {
			panic(fmt.Sprintf("pfscan: worker %d takes q held by %d", t, s.q-1))
		}
		s.q, s.pc[t] = me, pfscanReadHead
	case pfscanReadHead:
		s.item[t] = s.head
		switch {
		case s.head < pfscanItems:
			s.pc[t] = pfscanWriteHead
		case p.buggy:
			s.item[t], s.pc[t] = 0, pfscanDone
		default:
			s.item[t], s.pc[t] = 0, pfscanExit
		}
	case pfscanWriteHead:
		s.head = s.item[t] + 1
		s.pc[t] = pfscanUnlockQ
		if p.buggy {
			s.pc[t] = pfscanLockM
		}
	case pfscanUnlockQ:
		s.q, s.pc[t] = 0, pfscanLockM
	case pfscanLockM:
		if s.m != 0 {
			panic(fmt.Sprintf("pfscan: worker %d takes m held by %d", t, s.m-1))
		}
		s.m, s.pc[t] = me, pfscanReadFound
	case pfscanReadFound:
		s.r[t], s.pc[t] = s.found, pfscanWriteFound
	case pfscanWriteFound:
		s.found, s.pc[t] = s.r[t]+pfscanMatches(s.item[t]), pfscanUnlockM
	case pfscanUnlockM:
		s.m, s.pc[t], s.item[t], s.r[t] = 0, p.start(), 0, 0
	case pfscanExit:
		s.q, s.pc[t] = 0, pfscanDone
	default:
		panic(fmt.Sprintf("pfscan: worker %d has finished", t))
	}
	return s
}

// Check reports, once every worker has returned, a match count other than
// the sum of the items' matches.
func (p *PFScan) Check(s PFScanState) error {
	for t := range p.n {
		if s.pc[t] != pfscanDone {
			return nil
		}
	}
	want := int8(0)
	for i := range int8(pfscanItems) {
		want += pfscanMatches(i)
	}
	if s.found != want {
		return fmt.Errorf("found = %d matches, want %d: an item was scanned twice", s.found, want)
	}
	return nil
}

func (p *PFScan) Hash(s PFScanState) uint64 {
	h := hashInts(0, s.head, s.found, s.q, s.m)
	h = hashInts(h, s.pc[:p.n]...)
	h = hashInts(h, s.item[:p.n]...)
	return hashInts(h, s.r[:p.n]...)
}

func (p *PFScan) Describe(s PFScanState, t ts.Tid) string {
	switch s.pc[t] {
	case pfscanLockQ:
		return "lock(q)"
	case pfscanReadHead:
		return "i := head"
	case pfscanWriteHead:
		return fmt.Sprintf("head := %d", s.item[t]+1)
	case pfscanUnlockQ, pfscanExit:
		return "unlock(q)"
	case pfscanLockM:
		return "lock(m)"
	case pfscanReadFound:
		return "r := found"
	case pfscanWriteFound:
		return fmt.Sprintf("found := r + %d", pfscanMatches(s.item[t]))
	case pfscanUnlockM:
		return "unlock(m)"
	}
	return "(finished)"
}

func (p *PFScan) ObjName(o ts.Obj) string { return fixturesVarName(o, "q", "head", "m", "found") }

// pfscanKey is worker t's part of s: its locals and the locks it holds.
func (p *PFScan) key(s PFScanState, t int) [5]int8 {
	me := int8(t) + 1
	return [5]int8{s.pc[t], s.item[t], s.r[t], b2i(s.q == me), b2i(s.m == me)}
}

func b2i(b bool) int8 {
	if b {
		return 1
	}
	return 0
}

// Permute returns s with worker t's part moved to worker perm[t].
func (p *PFScan) Permute(s PFScanState, perm []ts.Tid) PFScanState {
	out := PFScanState{head: s.head, found: s.found}
	for t := range p.n {
		u := perm[t]
		out.pc[u], out.item[u], out.r[u] = s.pc[t], s.item[t], s.r[t]
	}
	if s.q != 0 {
		out.q = int8(perm[s.q-1]) + 1
	}
	if s.m != 0 {
		out.m = int8(perm[s.m-1]) + 1
	}
	return out
}

// Canonical sorts the workers by local state (program counter, item,
// register, locks held), stably by worker id.
func (p *PFScan) Canonical(s PFScanState) (PFScanState, []ts.Tid) {
	order := make([]int, p.n)
	for t := range order {
		order[t] = t
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ka, kb := p.key(s, a), p.key(s, b)
		return slices.Compare(ka[:], kb[:])
	})
	perm := make([]ts.Tid, p.n)
	for pos, t := range order {
		perm[t] = ts.Tid(pos)
	}
	return p.Permute(s, perm), perm
}

// Signature is worker t's local state with the locks it holds: two workers
// with equal ones are interchangeable.
func (p *PFScan) Signature(s PFScanState, t ts.Tid) uint64 {
	k := p.key(s, int(t))
	return hashInts(0, k[:]...)
}
