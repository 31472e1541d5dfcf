package models

import (
	"fmt"

	"github.com/weftlab/weft/ts"
)

// Filesystem is the file-system example of Flanagan and Godefroid, "Dynamic
// partial-order reduction for model checking software" (POPL'05, Figure 7), also the "File System Model" of Musuvathi and Qadeer's PLDI'07
// evaluation and the fsbench of Yang's Inspect thesis (2009). Each of N
// threads creates a file: it locks its inode and, if the inode has no block
// yet, searches for a free block from a start that depends on its id:
//
//	const NUMBLOCKS = 26, NUMINODE = 32
//	thread(tid):
//	  i = tid % NUMINODE
//	  lock(locki[i])
//	  if inode[i] == 0 {
//	    b = (i*2) % NUMBLOCKS
//	    loop {
//	      lock(lockb[b])
//	      if !busy[b] { busy[b] = true; inode[i] = b+1; unlock(lockb[b]); break }
//	      unlock(lockb[b])
//	      b = (b+1) % NUMBLOCKS
//	    }
//	  }
//	  unlock(locki[i])
//
// Objects: locki[i] is i (0..31), inode[i] is 32+i, lockb[b] is 64+b
// (b = 0..25) and busy[b] is 90+b. Every lock operation and every read or
// write of inode and busy is its own transition: 8 per thread when the first
// block tried is free.
//
// With N <= 32 every thread has its own inode, so threads can only meet on
// blocks. Thread i starts at block 2i mod 26: for N <= 13 the start blocks
// 0, 2, ..., 24 are distinct and each thread takes its own, so the threads
// touch disjoint objects and are fully independent. The first conflict comes
// at N = 14, where threads 0 and 13 both start at block 0 (the loser moves
// on to block 1): two orders of that race, where plain search faces
// (8N)!/(8!)^N interleavings or more. That is the point of the model:
// ts.Explore is hopeless beyond N = 2 (N = 3 has 24!/(8!)^3, about 9.5e9,
// executions), while a partial-order reduction needs one execution for
// N <= 13.
//
// Checks: a thread asserts that the block it marks busy was free (it read
// busy[b] false under lockb[b]); at a terminal state every thread's inode has
// a block and no two inodes share one. Neither can fail.
//
// Facts under ts.Explore: no violation; N = 1: 1 execution, N = 2: 12,870
// executions (16!/(8!8!)); 1 distinct terminal state each. At N = 14 there
// are 2 terminal states (thread 0 or thread 13 gets block 0).
type Filesystem struct{ n int }

// Sizes of Filesystem.
const (
	filesysNumBlocks  = 26
	filesysNumInode   = 32
	filesysMaxThreads = 32
)

// Objects of Filesystem.
const (
	filesysObjLockI ts.Obj = 0
	filesysObjInode ts.Obj = filesysObjLockI + filesysNumInode
	filesysObjLockB ts.Obj = filesysObjInode + filesysNumInode
	filesysObjBusy  ts.Obj = filesysObjLockB + filesysNumBlocks
)

// FilesystemInfo describes Filesystem.
var FilesystemInfo = Info{
	Name:    "filesystem",
	Summary: "threads allocate inodes and blocks under per-inode and per-block locks (first conflict at N=14)",
	Source:  "Flanagan, Godefroid POPL'05 Fig. 7; Musuvathi, Qadeer PLDI'07 sec. 4; Yang 2009 (fsbench)",
	Param:   "threads",
	Default: 14,
	Min:     1,
	Max:     filesysMaxThreads,
}

// NewFilesystem returns the file-system example with n threads (1..32).
func NewFilesystem(n int) *Filesystem {
	if n < FilesystemInfo.Min || n > FilesystemInfo.Max {
		panic(fmt.Sprintf("models: filesystem needs %d..%d threads, got %d", FilesystemInfo.Min, FilesystemInfo.Max, n))
	}
	return &Filesystem{n: n}
}

// Program counters of a Filesystem thread.
const (
	filesysLockI     int8 = iota // lock(locki[i])
	filesysReadInode             // r = inode[i]
	filesysLockB                 // lock(lockb[b])
	filesysReadBusy              // r = busy[b]
	filesysSetBusy               // busy[b] = true
	filesysSetInode              // inode[i] = b+1
	filesysUnlockB               // unlock(lockb[b]), break
	filesysUnlockBN              // unlock(lockb[b]), b = (b+1) % NUMBLOCKS
	filesysUnlockI               // unlock(locki[i])
	filesysDone
)

type filesysThread struct {
	PC int8
	B  int8 // the block being tried
}

// FilesystemState is a state of Filesystem.
type FilesystemState struct {
	LockI [filesysNumInode]int8 // holder+1, or 0 when free
	Inode [filesysNumInode]int8 // 0, or the block + 1
	LockB [filesysNumBlocks]int8
	Busy  [filesysNumBlocks]int8 // 0 or 1
	Th    [filesysMaxThreads]filesysThread
	// Fail is 1 + the thread that found busy[b] set after reading it clear;
	// it cannot happen.
	Fail int8
}

func (m *Filesystem) Init() FilesystemState { return FilesystemState{} }

func (m *Filesystem) Threads() int { return m.n }

func filesysInode(t ts.Tid) int { return int(t) % filesysNumInode }

func (m *Filesystem) Next(s FilesystemState, t ts.Tid) (ts.Step, ts.Status) {
	th := s.Th[t]
	i := ts.Obj(filesysInode(t))
	b := ts.Obj(th.B)
	var st ts.Step
	switch th.PC {
	case filesysLockI:
		st = ts.Step{Obj: filesysObjLockI + i, Op: ts.Acquire}
		if s.LockI[i] != 0 {
			return st, ts.Blocked
		}
		return st, ts.Enabled
	case filesysReadInode:
		st = ts.Step{Obj: filesysObjInode + i, Op: ts.Read}
	case filesysLockB:
		st = ts.Step{Obj: filesysObjLockB + b, Op: ts.Acquire}
		if s.LockB[b] != 0 {
			return st, ts.Blocked
		}
		return st, ts.Enabled
	case filesysReadBusy:
		st = ts.Step{Obj: filesysObjBusy + b, Op: ts.Read}
	case filesysSetBusy:
		st = ts.Step{Obj: filesysObjBusy + b, Op: ts.Write}
	case filesysSetInode:
		st = ts.Step{Obj: filesysObjInode + i, Op: ts.Write}
	case filesysUnlockB, filesysUnlockBN:
		st = ts.Step{Obj: filesysObjLockB + b, Op: ts.Release}
	case filesysUnlockI:
		st = ts.Step{Obj: filesysObjLockI + i, Op: ts.Release}
	default:
		return ts.Step{}, ts.Finished
	}
	return st, ts.Enabled
}

func (m *Filesystem) Apply(s FilesystemState, t ts.Tid) FilesystemState {
	th := &s.Th[t]
	i := filesysInode(t)
	switch th.PC {
	case filesysLockI:
		s.LockI[i] = int8(t) + 1
		th.PC = filesysReadInode
	case filesysReadInode:
		if s.Inode[i] == 0 {
			th.B = int8(i * 2 % filesysNumBlocks)
			th.PC = filesysLockB
		} else {
			th.PC = filesysUnlockI
		}
	case filesysLockB:
		s.LockB[th.B] = int8(t) + 1
		th.PC = filesysReadBusy
	case filesysReadBusy:
		if s.Busy[th.B] == 0 {
			th.PC = filesysSetBusy
		} else {
			th.PC = filesysUnlockBN
		}
	case filesysSetBusy:
		if s.Busy[th.B] != 0 && s.Fail == 0 {
			s.Fail = int8(t) + 1
		}
		s.Busy[th.B] = 1
		th.PC = filesysSetInode
	case filesysSetInode:
		s.Inode[i] = th.B + 1
		th.PC = filesysUnlockB
	case filesysUnlockB:
		s.LockB[th.B] = 0
		th.PC = filesysUnlockI
	case filesysUnlockBN:
		s.LockB[th.B] = 0
		th.B = (th.B + 1) % filesysNumBlocks
		th.PC = filesysLockB
	case filesysUnlockI:
		s.LockI[i] = 0
		th.PC = filesysDone
	default:
		panic(fmt.Sprintf("filesystem: thread %d applied at pc %d", t, th.PC))
	}
	return s
}

func (m *Filesystem) Check(s FilesystemState) error {
	if s.Fail != 0 {
		return fmt.Errorf("thread %d found busy[%d] set after reading it clear", s.Fail-1, s.Th[s.Fail-1].B)
	}
	for t := range m.n {
		if s.Th[t].PC != filesysDone {
			return nil // the rest is a check of terminal states
		}
	}
	var owner [filesysNumBlocks]int
	for t := range m.n {
		i := filesysInode(ts.Tid(t))
		b := int(s.Inode[i]) - 1
		if b < 0 {
			return fmt.Errorf("inode %d has no block", i)
		}
		if owner[b] != 0 && owner[b]-1 != i {
			return fmt.Errorf("inodes %d and %d share block %d", owner[b]-1, i, b)
		}
		owner[b] = i + 1
	}
	return nil
}

func (m *Filesystem) Hash(s FilesystemState) uint64 {
	h := hashInts(0, s.LockI[:]...)
	h = hashInts(h, s.Inode[:]...)
	h = hashInts(h, s.LockB[:]...)
	h = hashInts(h, s.Busy[:]...)
	for _, th := range s.Th[:m.n] { // the slots past N stay zero
		h = (h ^ uint64(th.PC)<<8 ^ uint64(th.B)) * 0x100000001b3
	}
	return hashInts(h, s.Fail)
}

func (m *Filesystem) Describe(s FilesystemState, t ts.Tid) string {
	th := s.Th[t]
	i := filesysInode(t)
	switch th.PC {
	case filesysLockI:
		return fmt.Sprintf("lock(locki[%d])", i)
	case filesysReadInode:
		return fmt.Sprintf("r = inode[%d]", i)
	case filesysLockB:
		return fmt.Sprintf("lock(lockb[%d])", th.B)
	case filesysReadBusy:
		return fmt.Sprintf("r = busy[%d]", th.B)
	case filesysSetBusy:
		return fmt.Sprintf("busy[%d] = true", th.B)
	case filesysSetInode:
		return fmt.Sprintf("inode[%d] = %d", i, th.B+1)
	case filesysUnlockB, filesysUnlockBN:
		return fmt.Sprintf("unlock(lockb[%d])", th.B)
	case filesysUnlockI:
		return fmt.Sprintf("unlock(locki[%d])", i)
	}
	return "done"
}

func (m *Filesystem) ObjName(o ts.Obj) string {
	switch {
	case o < filesysObjLockI:
	case o < filesysObjInode:
		return fmt.Sprintf("locki[%d]", o-filesysObjLockI)
	case o < filesysObjLockB:
		return fmt.Sprintf("inode[%d]", o-filesysObjInode)
	case o < filesysObjBusy:
		return fmt.Sprintf("lockb[%d]", o-filesysObjLockB)
	case o < filesysObjBusy+filesysNumBlocks:
		return fmt.Sprintf("busy[%d]", o-filesysObjBusy)
	}
	return fmt.Sprintf("o%d", o)
}
