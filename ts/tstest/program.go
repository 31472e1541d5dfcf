package tstest

import (
	"fmt"
	"strings"

	"github.com/weftlab/weft/ts"
)

// Program is a small concurrent program run by an interpreter: threads of
// instructions over shared variables and locks, with a few registers per
// thread. It implements ts.TransitionSystem[State] with ts.Checker,
// ts.Hasher, ts.Describer and ts.ObjNamer, and it keeps the whole contract:
// it is the system rapid generates ([Programs]) and a handy way to write
// fixtures by hand:
//
//	p := &tstest.Program{
//		Vars: []tstest.Var{{Name: "x"}},
//		Code: [][]tstest.Instr{
//			{tstest.Store(0, 1)},                         // x := 1
//			{tstest.Load(0, 0), tstest.AssertEq(0, 0)}, // r0 := x; assert r0 == 0
//		},
//	}
//
// Objects are numbered variables first, then locks: variable i is ts.Obj(i)
// and lock j is ts.Obj(len(Vars)+j). Values, in variables and registers, are
// 0..Mod-1 and arithmetic wraps.
//
// A transition is one visible instruction (Load, Store, StoreReg, FetchAdd,
// CAS, Acquire, Release, Await) followed by the local ones (Set, Move, jumps,
// assertions) up to the thread's next visible instruction or its end; the
// local instructions before a thread's first visible one run in Init. A
// failed assertion (or a Release of a lock the thread does not hold) stops
// the thread and is recorded in the state, where Check reports it; a thread
// waiting in Acquire or Await is Blocked, so programs can deadlock. Jumps go
// forward only: programs terminate.
type Program struct {
	Vars  []Var
	Locks []string // lock names
	// Code holds each thread's instructions.
	Code [][]Instr
	// Mod is the number of values, 2..256; 0 means 4.
	Mod int
	// Invariants lists conditions over the variables that must hold in
	// every state: the program's Invariant checks them, and InvariantReads
	// returns their variables.
	Invariants []Cond
	// CASReads makes a compare-and-swap that fails a Read of its variable
	// (one that succeeds is a Write): the program then implements
	// ts.ValueDependent, declaring the variables its CASes touch.
	// Without it every CAS is a Write.
	CASReads bool
}

// Cond is a condition of a Program's invariant: x + y != K (mod Mod), or
// x != K when Y is negative.
type Cond struct {
	X, Y int
	K    int
}

// Var is a shared variable of a Program.
type Var struct {
	Name string
	Init int
	// Sync marks a synchronization variable: its accesses are ts.Step.Sync.
	// (Awaits are synchronization accesses on any variable.)
	Sync bool
}

// Regs is the number of registers of each thread of a Program: r0..r3,
// initially 0.
const Regs = 4

// Kind is the kind of an instruction.
type Kind uint8

// Instruction kinds: the visible accesses, then the local ones (from KSet).
const (
	KLoad     Kind = iota // r := x
	KStore                // x := k
	KStoreReg             // x := r + k
	KFetchAdd             // r := x; x := x + k (one atomic write)
	KCAS                  // r := cas(x, k, k2): if x == k { x = k2; r = 1 } else { r = 0 } (a write)
	KAcquire              // lock(l); blocks while l is held
	KRelease              // unlock(l)
	KAwait                // await x == k: a read of x that blocks until it holds (a synchronization access)
	KSet                  // r := k
	KMove                 // r := r2 + k
	KJump                 // goto To
	KJumpEq               // if r == k goto To
	KJumpNe               // if r != k goto To
	KAssertEq             // assert r == k
	KAssertNe             // assert r != k
	// Visible accesses of the extended model.
	KCopy       // x := y: reads y, writes x, in one transition
	KAwaitAny   // r := await x == k or y == k: reads both, blocks until one holds; r = 0 if x does, else 1
	KAcquire2   // lock(l, l2): takes both locks in one transition; blocks while either is held
	KPick       // r := x + choice(k): reads x; k outcomes
	KStoreMaybe // x := k, or the write is lost: two outcomes
	KWait       // await x == k, Idle while it waits (a server may end waiting)
	numKinds
)

// Visible reports whether k is a visible access.
func (k Kind) Visible() bool { return k <= KAwait || k >= KCopy }

// Instr is one instruction of a Program. Build instructions with the
// functions named after them (Load, Store, ..., AssertNe).
type Instr struct {
	Kind Kind
	R    int // register
	R2   int // second register (Move)
	X    int // variable (or lock, for Acquire, Release and Acquire2)
	Y    int // second variable (Copy, AwaitAny) or lock (Acquire2)
	K    int // constant (Pick: the number of outcomes)
	K2   int // second constant (CAS: the new value)
	To   int // jump target: an instruction index after this one, or the thread's length (its end)
}

// Load is r := x.
func Load(r, x int) Instr { return Instr{Kind: KLoad, R: r, X: x} }

// Store is x := k.
func Store(x, k int) Instr { return Instr{Kind: KStore, X: x, K: k} }

// StoreReg is x := r + k.
func StoreReg(x, r, k int) Instr { return Instr{Kind: KStoreReg, X: x, R: r, K: k} }

// FetchAdd is r := x; x := x + k, as one atomic write.
func FetchAdd(r, x, k int) Instr { return Instr{Kind: KFetchAdd, R: r, X: x, K: k} }

// CAS is r := cas(x, old, new): one atomic write that sets x to new and r to
// 1 if x == old, and r to 0 otherwise.
func CAS(r, x, old, new int) Instr { return Instr{Kind: KCAS, R: r, X: x, K: old, K2: new} }

// Acquire takes lock l, blocking while any thread (itself included) holds it.
func Acquire(l int) Instr { return Instr{Kind: KAcquire, X: l} }

// Release gives lock l back. Releasing a lock the thread does not hold is an
// error that stops the thread, reported by Check.
func Release(l int) Instr { return Instr{Kind: KRelease, X: l} }

// Await blocks until x == k; it is a read of x, and a synchronization
// access whether or not x is a synchronization variable (a waiting thread
// synchronizes with the write it waits for): await on a data variable makes
// an object with both synchronization and plain accesses.
func Await(x, k int) Instr { return Instr{Kind: KAwait, X: x, K: k} }

// Copy is x := y, one transition that reads y and writes x (x != y).
func Copy(x, y int) Instr { return Instr{Kind: KCopy, X: x, Y: y} }

// AwaitAny is r := await x == k or y == k: one transition that reads x and
// y, blocks until one of them holds, and sets r to 0 if x == k, else 1.
func AwaitAny(r, x, y, k int) Instr { return Instr{Kind: KAwaitAny, R: r, X: x, Y: y, K: k} }

// Acquire2 takes locks l and l2 in one transition, blocking while either is
// held (by any thread, itself included).
func Acquire2(l, l2 int) Instr { return Instr{Kind: KAcquire2, X: l, Y: l2} }

// Pick is r := x + c, a read of x whose outcome c (0..k-1, k >= 2) the
// environment chooses.
func Pick(r, x, k int) Instr { return Instr{Kind: KPick, R: r, X: x, K: k} }

// StoreMaybe is x := k, a write the environment may lose: outcome 0 writes,
// outcome 1 leaves x as it is.
func StoreMaybe(x, k int) Instr { return Instr{Kind: KStoreMaybe, X: x, K: k} }

// Wait blocks until x == k, as Await does, but the waiting thread is
// ts.Idle: a program may end with it waiting, as a server ends waiting for
// requests.
func Wait(x, k int) Instr { return Instr{Kind: KWait, X: x, K: k} }

// Set is r := k (local).
func Set(r, k int) Instr { return Instr{Kind: KSet, R: r, K: k} }

// Move is r := r2 + k (local).
func Move(r, r2, k int) Instr { return Instr{Kind: KMove, R: r, R2: r2, K: k} }

// Jump is goto to (local, forward only).
func Jump(to int) Instr { return Instr{Kind: KJump, To: to} }

// JumpEq is if r == k goto to (local, forward only).
func JumpEq(r, k, to int) Instr { return Instr{Kind: KJumpEq, R: r, K: k, To: to} }

// JumpNe is if r != k goto to (local, forward only).
func JumpNe(r, k, to int) Instr { return Instr{Kind: KJumpNe, R: r, K: k, To: to} }

// AssertEq asserts r == k (local). A failure stops the thread and is
// reported by Check.
func AssertEq(r, k int) Instr { return Instr{Kind: KAssertEq, R: r, K: k} }

// AssertNe asserts r != k (local).
func AssertNe(r, k int) Instr { return Instr{Kind: KAssertNe, R: r, K: k} }

// State is a state of a Program: an immutable value (Apply returns a new
// one). Its fields are the program and one byte array laid out as variable
// values, lock owners (0 free, t+1 held by thread t), program counters,
// registers and failures (0 none, pc+1 of the failed instruction).
type State struct {
	p   *Program
	mem []uint8
}

func (p *Program) mod() int {
	if p.Mod == 0 {
		return 4
	}
	return p.Mod
}

// Layout offsets within State.mem.
func (p *Program) offLocks() int { return len(p.Vars) }
func (p *Program) offPC() int    { return len(p.Vars) + len(p.Locks) }
func (p *Program) offRegs() int  { return p.offPC() + len(p.Code) }
func (p *Program) offFail() int  { return p.offRegs() + Regs*len(p.Code) }
func (p *Program) size() int     { return p.offFail() + len(p.Code) }

// Validate reports whether p is a well-formed program: 1..255 threads of at
// most 254 instructions, operands in range, forward jumps, invariant
// conditions over its variables.
func (p *Program) Validate() error {
	m := p.mod()
	if m < 2 || m > 256 {
		return fmt.Errorf("tstest: Mod %d not in 2..256", p.Mod)
	}
	if n := len(p.Code); n < 1 || n > 255 {
		return fmt.Errorf("tstest: %d threads, want 1..255", n)
	}
	for i, v := range p.Vars {
		if v.Init < 0 || v.Init >= m {
			return fmt.Errorf("tstest: variable %d starts at %d, not in 0..%d", i, v.Init, m-1)
		}
	}
	for i, c := range p.Invariants {
		if c.X < 0 || c.X >= len(p.Vars) || c.Y >= len(p.Vars) || c.Y == c.X || c.K < 0 || c.K >= m {
			return fmt.Errorf("tstest: invariant condition %d (%+v) out of range", i, c)
		}
	}
	for t, code := range p.Code {
		if len(code) > 254 {
			return fmt.Errorf("tstest: thread %d has %d instructions, want at most 254", t, len(code))
		}
		for i, in := range code {
			if err := p.validInstr(in, i, len(code)); err != nil {
				return fmt.Errorf("tstest: thread %d instruction %d (%s): %w", t, i, p.instrString(in), err)
			}
		}
	}
	return nil
}

func (p *Program) validInstr(in Instr, i, n int) error {
	m := p.mod()
	reg := func(r int) error {
		if r < 0 || r >= Regs {
			return fmt.Errorf("register %d not in 0..%d", r, Regs-1)
		}
		return nil
	}
	val := func(k int) error {
		if k < 0 || k >= m {
			return fmt.Errorf("constant %d not in 0..%d", k, m-1)
		}
		return nil
	}
	variable := func() error {
		if in.X < 0 || in.X >= len(p.Vars) {
			return fmt.Errorf("variable %d not in 0..%d", in.X, len(p.Vars)-1)
		}
		return nil
	}
	second := func() error {
		if in.Y < 0 || in.Y >= len(p.Vars) || in.Y == in.X {
			return fmt.Errorf("second variable %d not in 0..%d or equal to the first", in.Y, len(p.Vars)-1)
		}
		return nil
	}
	jump := func() error {
		if in.To <= i || in.To > n {
			return fmt.Errorf("jump target %d not in %d..%d (jumps go forward)", in.To, i+1, n)
		}
		return nil
	}
	switch in.Kind {
	case KLoad:
		return firstErr(reg(in.R), variable())
	case KStore:
		return firstErr(variable(), val(in.K))
	case KStoreReg, KFetchAdd:
		return firstErr(reg(in.R), variable(), val(in.K))
	case KCAS:
		return firstErr(reg(in.R), variable(), val(in.K), val(in.K2))
	case KAcquire, KRelease:
		if in.X < 0 || in.X >= len(p.Locks) {
			return fmt.Errorf("lock %d not in 0..%d", in.X, len(p.Locks)-1)
		}
		return nil
	case KAwait, KWait, KStoreMaybe:
		return firstErr(variable(), val(in.K))
	case KCopy:
		return firstErr(variable(), second())
	case KAwaitAny:
		return firstErr(reg(in.R), variable(), second(), val(in.K))
	case KAcquire2:
		if in.X < 0 || in.X >= len(p.Locks) || in.Y < 0 || in.Y >= len(p.Locks) || in.X == in.Y {
			return fmt.Errorf("locks %d and %d not two of 0..%d", in.X, in.Y, len(p.Locks)-1)
		}
		return nil
	case KPick:
		if in.K < 2 || in.K > 8 {
			return fmt.Errorf("pick of %d outcomes, want 2..8", in.K)
		}
		return firstErr(reg(in.R), variable())
	case KSet, KAssertEq, KAssertNe:
		return firstErr(reg(in.R), val(in.K))
	case KMove:
		return firstErr(reg(in.R), reg(in.R2), val(in.K))
	case KJump:
		return jump()
	case KJumpEq, KJumpNe:
		return firstErr(reg(in.R), val(in.K), jump())
	}
	return fmt.Errorf("unknown kind %d", in.Kind)
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Init returns the initial state, in which each thread has run the local
// instructions before its first visible one. It panics if p is not valid.
func (p *Program) Init() State {
	if err := p.Validate(); err != nil {
		panic(err)
	}
	s := State{p: p, mem: make([]uint8, p.size())}
	for i, v := range p.Vars {
		s.mem[i] = uint8(v.Init)
	}
	for t := range p.Code {
		p.local(s.mem, t)
	}
	return s
}

// Threads returns the number of threads.
func (p *Program) Threads() int { return len(p.Code) }

// current returns t's next instruction at s, or false if t has finished.
func (p *Program) current(mem []uint8, t ts.Tid) (Instr, bool) {
	if mem[p.offFail()+int(t)] != 0 {
		return Instr{}, false
	}
	code := p.Code[t]
	pc := int(mem[p.offPC()+int(t)])
	if pc >= len(code) {
		return Instr{}, false
	}
	return code[pc], true
}

// Next returns thread t's next visible access and its status.
func (p *Program) Next(s State, t ts.Tid) (ts.Step, ts.Status) {
	in, ok := p.current(s.mem, t)
	if !ok {
		return ts.Step{}, ts.Finished
	}
	lock := func(l int) ts.Obj { return ts.Obj(len(p.Vars) + l) }
	free := func(l int) bool { return s.mem[p.offLocks()+l] == 0 }
	varStep := func(x int, op ts.Op) ts.Step { return ts.Step{Obj: ts.Obj(x), Op: op, Sync: p.Vars[x].Sync} }
	switch in.Kind {
	case KAcquire, KRelease:
		op := ts.Acquire
		if in.Kind == KRelease {
			op = ts.Release
		}
		step := ts.Step{Obj: lock(in.X), Op: op, Sync: true}
		if in.Kind == KAcquire && !free(in.X) {
			return step, ts.Blocked
		}
		return step, ts.Enabled
	case KAcquire2:
		step := ts.Step{Obj: lock(in.X), Op: ts.Acquire, Sync: true,
			Also: []ts.Access{{Obj: lock(in.Y), Op: ts.Acquire, Sync: true}}}
		if !free(in.X) || !free(in.Y) {
			return step, ts.Blocked
		}
		return step, ts.Enabled
	case KCopy:
		step := varStep(in.X, ts.Write)
		step.Also = []ts.Access{{Obj: ts.Obj(in.Y), Op: ts.Read, Sync: p.Vars[in.Y].Sync}}
		return step, ts.Enabled
	case KAwaitAny:
		step := ts.Step{Obj: ts.Obj(in.X), Op: ts.Read, Sync: true,
			Also: []ts.Access{{Obj: ts.Obj(in.Y), Op: ts.Read, Sync: true}}}
		if int(s.mem[in.X]) != in.K && int(s.mem[in.Y]) != in.K {
			return step, ts.Blocked
		}
		return step, ts.Enabled
	case KPick:
		return varStep(in.X, ts.Read), ts.Enabled
	case KStoreMaybe:
		return varStep(in.X, ts.Write), ts.Enabled
	case KAwait, KWait:
		step := ts.Step{Obj: ts.Obj(in.X), Op: ts.Read, Sync: true}
		if int(s.mem[in.X]) != in.K {
			if in.Kind == KWait {
				return step, ts.Idle
			}
			return step, ts.Blocked
		}
		return step, ts.Enabled
	case KLoad:
		return varStep(in.X, ts.Read), ts.Enabled
	case KCAS:
		if p.CASReads && int(s.mem[in.X]) != in.K {
			return varStep(in.X, ts.Read), ts.Enabled // it fails: a read
		}
	}
	return varStep(in.X, ts.Write), ts.Enabled
}

// ValueDependentObjs implements ts.ValueDependent: with CASReads, the
// variables a compare-and-swap touches (a failed one is a Read); nil
// otherwise.
func (p *Program) ValueDependentObjs() []ts.Obj {
	if !p.CASReads {
		return nil
	}
	var objs []ts.Obj
	seen := map[int]bool{}
	for _, code := range p.Code {
		for _, in := range code {
			if in.Kind == KCAS && !seen[in.X] {
				seen[in.X] = true
				objs = append(objs, ts.Obj(in.X))
			}
		}
	}
	return objs
}

// Apply runs thread t's next transition: its visible instruction and the
// local ones after it (with outcome 0, for Pick and StoreMaybe).
func (p *Program) Apply(s State, t ts.Tid) State { return p.ApplyOutcome(s, t, 0) }

// Outcomes returns the number of outcomes of thread t's next transition:
// k for Pick(r, x, k), 2 for StoreMaybe, 1 otherwise.
func (p *Program) Outcomes(s State, t ts.Tid) int {
	in, ok := p.current(s.mem, t)
	if !ok {
		return 1
	}
	switch in.Kind {
	case KPick:
		return in.K
	case KStoreMaybe:
		return 2
	}
	return 1
}

// ApplyOutcome runs thread t's next transition with outcome c: Pick adds c
// to the value read, StoreMaybe writes for c = 0 and loses the write for
// c = 1; the other instructions have the one outcome 0.
func (p *Program) ApplyOutcome(s State, t ts.Tid, c int) State {
	in, ok := p.current(s.mem, t)
	if !ok {
		panic(fmt.Sprintf("tstest: Apply of thread %d, which has finished", t))
	}
	if outcomes := p.Outcomes(s, t); c < 0 || c >= outcomes {
		panic(fmt.Sprintf("tstest: outcome %d of thread %d's %s, which has %d", c, t, p.instrString(in), p.Outcomes(s, t)))
	}
	mem := make([]uint8, len(s.mem))
	copy(mem, s.mem)
	m := p.mod()
	regs := mem[p.offRegs()+Regs*int(t):]
	pc := &mem[p.offPC()+int(t)]
	var x *uint8 // the variable or lock owner the instruction touches
	if in.Kind == KAcquire || in.Kind == KRelease || in.Kind == KAcquire2 {
		x = &mem[p.offLocks()+in.X]
	} else {
		x = &mem[in.X]
	}
	switch in.Kind {
	case KLoad:
		regs[in.R] = *x
	case KStore:
		*x = uint8(in.K)
	case KStoreReg:
		*x = uint8((int(regs[in.R]) + in.K) % m)
	case KFetchAdd:
		regs[in.R] = *x
		*x = uint8((int(*x) + in.K) % m)
	case KCAS:
		if int(*x) == in.K {
			*x, regs[in.R] = uint8(in.K2), 1
		} else {
			regs[in.R] = 0
		}
	case KAcquire:
		if *x != 0 {
			panic(fmt.Sprintf("tstest: Apply of thread %d, which is blocked on lock %s", t, p.lockName(in.X)))
		}
		*x = uint8(t + 1)
	case KAcquire2:
		y := &mem[p.offLocks()+in.Y]
		if *x != 0 || *y != 0 {
			panic(fmt.Sprintf("tstest: Apply of thread %d, which is blocked on locks %s and %s", t, p.lockName(in.X), p.lockName(in.Y)))
		}
		*x, *y = uint8(t+1), uint8(t+1)
	case KRelease:
		if *x != uint8(t+1) {
			mem[p.offFail()+int(t)] = *pc + 1
			return State{p: p, mem: mem}
		}
		*x = 0
	case KAwait, KWait:
		if int(*x) != in.K {
			panic(fmt.Sprintf("tstest: Apply of thread %d, which is blocked in await", t))
		}
	case KAwaitAny:
		switch {
		case int(*x) == in.K:
			regs[in.R] = 0
		case int(mem[in.Y]) == in.K:
			regs[in.R] = 1
		default:
			panic(fmt.Sprintf("tstest: Apply of thread %d, which is blocked in await", t))
		}
	case KCopy:
		*x = mem[in.Y]
	case KPick:
		regs[in.R] = uint8((int(*x) + c) % m)
	case KStoreMaybe:
		if c == 0 {
			*x = uint8(in.K)
		}
	}
	*pc++
	p.local(mem, int(t))
	return State{p: p, mem: mem}
}

// local runs thread t's local instructions from its pc up to its next
// visible instruction, its end or a failed assertion. Jumps go forward only,
// so it terminates.
func (p *Program) local(mem []uint8, t int) {
	code := p.Code[t]
	m := p.mod()
	regs := mem[p.offRegs()+Regs*t:]
	pcp := &mem[p.offPC()+t]
	for pc := int(*pcp); pc < len(code); {
		in := code[pc]
		if in.Kind.Visible() {
			*pcp = uint8(pc)
			return
		}
		next := pc + 1
		switch in.Kind {
		case KSet:
			regs[in.R] = uint8(in.K)
		case KMove:
			regs[in.R] = uint8((int(regs[in.R2]) + in.K) % m)
		case KJump:
			next = in.To
		case KJumpEq:
			if int(regs[in.R]) == in.K {
				next = in.To
			}
		case KJumpNe:
			if int(regs[in.R]) != in.K {
				next = in.To
			}
		case KAssertEq, KAssertNe:
			if (int(regs[in.R]) == in.K) != (in.Kind == KAssertEq) {
				*pcp = uint8(pc)
				mem[p.offFail()+t] = uint8(pc + 1)
				return
			}
		}
		pc = next
	}
	*pcp = uint8(len(code))
}

// Check reports the failure of the lowest-numbered thread that failed: an
// assertion, or a Release of a lock it did not hold. The message names the
// thread, the instruction and the registers involved, and depends on that
// thread's history only.
func (p *Program) Check(s State) error {
	fails := s.mem[p.offFail():]
	for t, f := range fails {
		if f == 0 {
			continue
		}
		pc := int(f) - 1
		in := p.Code[t][pc]
		regs := s.mem[p.offRegs()+Regs*t:]
		if in.Kind == KRelease {
			//lint:ignore ST1005 the message starts with the thread's name, T0
			return fmt.Errorf("T%d@%d: %s of a lock it does not hold", t, pc, p.instrString(in))
		}
		//lint:ignore ST1005 the message starts with the thread's name, T0
		return fmt.Errorf("T%d@%d: %s failed (r%d = %d)", t, pc, p.instrString(in), in.R, regs[in.R])
	}
	return nil
}

// Invariant reports the first of the program's invariant conditions that
// fails at s.
func (p *Program) Invariant(s State) error {
	m := p.mod()
	for _, c := range p.Invariants {
		v := int(s.mem[c.X])
		if c.Y >= 0 {
			v = (v + int(s.mem[c.Y])) % m
		}
		if v == c.K {
			if c.Y >= 0 {
				return fmt.Errorf("invariant %s fails (%s = %d, %s = %d)", p.condString(c),
					p.varName(c.X), s.mem[c.X], p.varName(c.Y), s.mem[c.Y])
			}
			return fmt.Errorf("invariant %s fails", p.condString(c))
		}
	}
	return nil
}

// InvariantReads returns the variables of the invariant's conditions.
func (p *Program) InvariantReads() []ts.Obj {
	var reads []ts.Obj
	add := func(x int) {
		for _, o := range reads {
			if o == ts.Obj(x) {
				return
			}
		}
		reads = append(reads, ts.Obj(x))
	}
	for _, c := range p.Invariants {
		add(c.X)
		if c.Y >= 0 {
			add(c.Y)
		}
	}
	return reads
}

func (p *Program) condString(c Cond) string {
	if c.Y >= 0 {
		return fmt.Sprintf("%s + %s != %d", p.varName(c.X), p.varName(c.Y), c.K)
	}
	return fmt.Sprintf("%s != %d", p.varName(c.X), c.K)
}

// ObjHash returns the value of variable o, or the owner of lock o (0 when
// free, t+1 when thread t holds it).
func (p *Program) ObjHash(s State, o ts.Obj) uint64 {
	switch {
	case int(o) < len(p.Vars):
		return uint64(s.mem[o])
	case int(o) < len(p.Vars)+len(p.Locks):
		return uint64(s.mem[p.offLocks()+int(o)-len(p.Vars)])
	}
	return 0
}

// Hash fingerprints the state (FNV-1a over its bytes).
func (p *Program) Hash(s State) uint64 {
	h := uint64(14695981039346656037)
	for _, b := range s.mem {
		h ^= uint64(b)
		h *= 1099511628211
	}
	return h
}

// Describe says what thread t's next visible instruction does.
func (p *Program) Describe(s State, t ts.Tid) string {
	in, ok := p.current(s.mem, t)
	if !ok {
		return "finished"
	}
	return p.instrString(in)
}

// ObjName names variables by their Name (or x0, x1, ...) and locks by
// theirs (or l0, l1, ...).
func (p *Program) ObjName(o ts.Obj) string {
	if int(o) < len(p.Vars) {
		return p.varName(int(o))
	}
	return p.lockName(int(o) - len(p.Vars))
}

func (p *Program) varName(x int) string {
	if x >= 0 && x < len(p.Vars) && p.Vars[x].Name != "" {
		return p.Vars[x].Name
	}
	return fmt.Sprintf("x%d", x)
}

func (p *Program) lockName(l int) string {
	if l >= 0 && l < len(p.Locks) && p.Locks[l] != "" {
		return p.Locks[l]
	}
	return fmt.Sprintf("l%d", l)
}

func (p *Program) instrString(in Instr) string {
	x := p.varName(in.X)
	switch in.Kind {
	case KLoad:
		return fmt.Sprintf("r%d := %s", in.R, x)
	case KStore:
		return fmt.Sprintf("%s := %d", x, in.K)
	case KStoreReg:
		return fmt.Sprintf("%s := r%d + %d", x, in.R, in.K)
	case KFetchAdd:
		return fmt.Sprintf("r%d := fetch_add(%s, %d)", in.R, x, in.K)
	case KCAS:
		return fmt.Sprintf("r%d := cas(%s, %d, %d)", in.R, x, in.K, in.K2)
	case KAcquire:
		return fmt.Sprintf("lock(%s)", p.lockName(in.X))
	case KRelease:
		return fmt.Sprintf("unlock(%s)", p.lockName(in.X))
	case KAwait:
		return fmt.Sprintf("await %s == %d", x, in.K)
	case KSet:
		return fmt.Sprintf("r%d := %d", in.R, in.K)
	case KMove:
		return fmt.Sprintf("r%d := r%d + %d", in.R, in.R2, in.K)
	case KJump:
		return fmt.Sprintf("goto %d", in.To)
	case KJumpEq:
		return fmt.Sprintf("if r%d == %d goto %d", in.R, in.K, in.To)
	case KJumpNe:
		return fmt.Sprintf("if r%d != %d goto %d", in.R, in.K, in.To)
	case KAssertEq:
		return fmt.Sprintf("assert r%d == %d", in.R, in.K)
	case KAssertNe:
		return fmt.Sprintf("assert r%d != %d", in.R, in.K)
	case KCopy:
		return fmt.Sprintf("%s := %s", x, p.varName(in.Y))
	case KAwaitAny:
		return fmt.Sprintf("r%d := await %s == %d or %s == %d", in.R, x, in.K, p.varName(in.Y), in.K)
	case KAcquire2:
		return fmt.Sprintf("lock(%s, %s)", p.lockName(in.X), p.lockName(in.Y))
	case KPick:
		return fmt.Sprintf("r%d := %s + choice(%d)", in.R, x, in.K)
	case KStoreMaybe:
		return fmt.Sprintf("%s := %d or lost", x, in.K)
	case KWait:
		return fmt.Sprintf("wait %s == %d (idle)", x, in.K)
	}
	return fmt.Sprintf("Kind(%d)", in.Kind)
}

// String lists the program: its variables and locks, then each thread's
// instructions, numbered.
func (p *Program) String() string {
	var b strings.Builder
	b.WriteString("vars:")
	for i, v := range p.Vars {
		fmt.Fprintf(&b, " %s=%d", p.varName(i), v.Init)
		if v.Sync {
			b.WriteString("(sync)")
		}
	}
	if len(p.Locks) > 0 {
		b.WriteString("\nlocks:")
		for l := range p.Locks {
			b.WriteString(" " + p.lockName(l))
		}
	}
	if p.Mod != 0 {
		fmt.Fprintf(&b, "\nmod %d", p.Mod)
	}
	for _, c := range p.Invariants {
		fmt.Fprintf(&b, "\ninvariant %s", p.condString(c))
	}
	if p.CASReads {
		b.WriteString("\na failed cas is a read")
	}
	for t, code := range p.Code {
		fmt.Fprintf(&b, "\nT%d:", t)
		for i, in := range code {
			fmt.Fprintf(&b, "\n  %2d  %s", i, p.instrString(in))
		}
	}
	return b.String()
}

// GoString renders the program as Go source that builds it, so that a
// program printed by a failing rapid test can be pasted into a fixture.
func (p *Program) GoString() string {
	var b strings.Builder
	b.WriteString("&tstest.Program{\n\tVars: []tstest.Var{")
	for i, v := range p.Vars {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "{Name: %q, Init: %d, Sync: %t}", v.Name, v.Init, v.Sync)
	}
	b.WriteString("},\n")
	if len(p.Locks) > 0 {
		fmt.Fprintf(&b, "\tLocks: %#v,\n", p.Locks)
	}
	if p.Mod != 0 {
		fmt.Fprintf(&b, "\tMod: %d,\n", p.Mod)
	}
	if len(p.Invariants) > 0 {
		b.WriteString("\tInvariants: []tstest.Cond{")
		for i, c := range p.Invariants {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "{X: %d, Y: %d, K: %d}", c.X, c.Y, c.K)
		}
		b.WriteString("},\n")
	}
	if p.CASReads {
		b.WriteString("\tCASReads: true,\n")
	}
	b.WriteString("\tCode: [][]tstest.Instr{\n")
	for _, code := range p.Code {
		b.WriteString("\t\t{")
		for i, in := range code {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(instrGo(in))
		}
		b.WriteString("},\n")
	}
	b.WriteString("\t},\n}")
	return b.String()
}

func instrGo(in Instr) string {
	switch in.Kind {
	case KLoad:
		return fmt.Sprintf("tstest.Load(%d, %d)", in.R, in.X)
	case KStore:
		return fmt.Sprintf("tstest.Store(%d, %d)", in.X, in.K)
	case KStoreReg:
		return fmt.Sprintf("tstest.StoreReg(%d, %d, %d)", in.X, in.R, in.K)
	case KFetchAdd:
		return fmt.Sprintf("tstest.FetchAdd(%d, %d, %d)", in.R, in.X, in.K)
	case KCAS:
		return fmt.Sprintf("tstest.CAS(%d, %d, %d, %d)", in.R, in.X, in.K, in.K2)
	case KAcquire:
		return fmt.Sprintf("tstest.Acquire(%d)", in.X)
	case KRelease:
		return fmt.Sprintf("tstest.Release(%d)", in.X)
	case KAwait:
		return fmt.Sprintf("tstest.Await(%d, %d)", in.X, in.K)
	case KSet:
		return fmt.Sprintf("tstest.Set(%d, %d)", in.R, in.K)
	case KMove:
		return fmt.Sprintf("tstest.Move(%d, %d, %d)", in.R, in.R2, in.K)
	case KJump:
		return fmt.Sprintf("tstest.Jump(%d)", in.To)
	case KJumpEq:
		return fmt.Sprintf("tstest.JumpEq(%d, %d, %d)", in.R, in.K, in.To)
	case KJumpNe:
		return fmt.Sprintf("tstest.JumpNe(%d, %d, %d)", in.R, in.K, in.To)
	case KAssertEq:
		return fmt.Sprintf("tstest.AssertEq(%d, %d)", in.R, in.K)
	case KAssertNe:
		return fmt.Sprintf("tstest.AssertNe(%d, %d)", in.R, in.K)
	case KCopy:
		return fmt.Sprintf("tstest.Copy(%d, %d)", in.X, in.Y)
	case KAwaitAny:
		return fmt.Sprintf("tstest.AwaitAny(%d, %d, %d, %d)", in.R, in.X, in.Y, in.K)
	case KAcquire2:
		return fmt.Sprintf("tstest.Acquire2(%d, %d)", in.X, in.Y)
	case KPick:
		return fmt.Sprintf("tstest.Pick(%d, %d, %d)", in.R, in.X, in.K)
	case KStoreMaybe:
		return fmt.Sprintf("tstest.StoreMaybe(%d, %d)", in.X, in.K)
	case KWait:
		return fmt.Sprintf("tstest.Wait(%d, %d)", in.X, in.K)
	}
	return fmt.Sprintf("tstest.Instr{Kind: %d}", in.Kind)
}

// String shows the state: variable values, lock holders, and for each
// thread its pc and registers, "done" or its failure.
func (s State) String() string {
	p := s.p
	if p == nil {
		return "State{}"
	}
	var b strings.Builder
	for i := range p.Vars {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%d", p.varName(i), s.mem[i])
	}
	for l := range p.Locks {
		if o := s.mem[p.offLocks()+l]; o != 0 {
			fmt.Fprintf(&b, " %s@T%d", p.lockName(l), o-1)
		}
	}
	for t := range p.Code {
		pc := s.mem[p.offPC()+t]
		regs := s.mem[p.offRegs()+Regs*t : p.offRegs()+Regs*(t+1)]
		fmt.Fprintf(&b, " | T%d", t)
		switch f := s.mem[p.offFail()+t]; {
		case f != 0:
			fmt.Fprintf(&b, " failed@%d", f-1)
		case int(pc) >= len(p.Code[t]):
			b.WriteString(" done")
		default:
			fmt.Fprintf(&b, "@%d", pc)
		}
		fmt.Fprintf(&b, " r=%v", regs)
	}
	return b.String()
}
