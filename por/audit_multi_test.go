package por_test

// Second outside audit (branch audit/multiwrite): steps that write several
// objects and may wait, in shapes the first audit's generators do not draw.
// mwProg's threads run on plain variables, counting semaphores and locks,
// with one-transition steps over up to three objects each: a P of one, two
// or three semaphores; a V of several; an await of several variables; a
// lock of several locks; a P guarded by an await (writes the semaphores,
// reads a variable); a P that also takes a lock (writes, acquires); a P
// that also stores (writes a variable too); a lock taken when variables
// hold values (an acquire and reads, the shape of a sync.Cond's wake-up);
// assertions (a failed one stops the thread, Check reports it) and unlocks
// of locks not held (the same).
// Each waiting step waits Blocked or Idle, as drawn.

import (
	"context"
	"flag"
	"fmt"
	"math/bits"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

const (
	mwLoad      = iota // r := x (observed)
	mwStore            // x := K
	mwP                // P(Set): one transition, s-- for each; waits while any is 0
	mwV                // V(Set): s++ for each; waits while any is at Cap
	mwTryP             // tryP(s A): s-- if s > 0 (observed); a Write, never waits
	mwGet              // r := s A (a read of the semaphore, observed)
	mwAwait            // await every x of Set == K (synchronization reads of each)
	mwLock             // lock(Set): acquires each lock; waits while any is held
	mwUnlock           // unlock(l A): a release; a lock the thread does not hold fails it
	mwPGuard           // P(Set) when x A == K: writes the semaphores, reads x
	mwPLock            // P(Set) and lock(l A): writes the semaphores, acquires l
	mwPStore           // P(Set); x A := K: writes the semaphores and x
	mwAssert           // r := x A; assert r != K (a failure stops the thread)
	mwLockGuard        // lock(l A) when every x of Set == K: acquires l, reads the x (a sync.Cond's wake-up is a read and an acquire)
	mwKinds
)

// mwOp is one operation: Set is a bit set of the semaphores (P, V, PGuard,
// PLock, PStore), variables (Await) or locks (Lock); Rot rotates the order
// of the step's accesses (which one is Step.Obj); Idle makes the thread
// Idle while the op waits, else Blocked.
type mwOp struct {
	Kind int8
	Set  uint8
	A, K int8
	Rot  int8
	Idle bool
}

type mwProg struct {
	NVars, NSems, NLocks int
	Cap                  int8
	Inits                []int8 // semaphores' initial counts
	Sync                 bool   // semaphore accesses are synchronization accesses
	Code                 [][]mwOp
}

type mwState struct {
	Vals [10]int8 // variables, semaphores, lock owners (t+1, 0 free)
	PC   [6]int8
	Obs  [6]int32
	Fail [6]int8 // pc+1 of the op that failed the thread
}

func (p *mwProg) sem(i int) int  { return p.NVars + i }
func (p *mwProg) lock(i int) int { return p.NVars + p.NSems + i }

func (p *mwProg) Init() mwState {
	var s mwState
	for i, v := range p.Inits {
		s.Vals[p.sem(i)] = v
	}
	return s
}

func (p *mwProg) Threads() int { return len(p.Code) }

func members(set uint8) []int {
	var out []int
	for set != 0 {
		i := bits.TrailingZeros8(set)
		out = append(out, i)
		set &^= 1 << i
	}
	return out
}

// step builds a step of accesses accs, rotated by rot.
func mwStep(accs []ts.Access, rot int8) ts.Step {
	n := len(accs)
	r := int(rot) % n
	rotated := append(append([]ts.Access(nil), accs[r:]...), accs[:r]...)
	st := ts.Step{Obj: rotated[0].Obj, Op: rotated[0].Op, Sync: rotated[0].Sync}
	if n > 1 {
		st.Also = rotated[1:]
	}
	return st
}

// accesses returns op's accesses and whether it can go at s.
func (p *mwProg) accesses(s *mwState, t ts.Tid, op mwOp) ([]ts.Access, bool) {
	var accs []ts.Access
	ok := true
	semW := func() {
		for _, i := range members(op.Set) {
			o := p.sem(i)
			accs = append(accs, ts.Access{Obj: ts.Obj(o), Op: ts.Write, Sync: p.Sync})
			if op.Kind == mwV {
				ok = ok && s.Vals[o] < p.Cap
			} else {
				ok = ok && s.Vals[o] > 0
			}
		}
	}
	switch op.Kind {
	case mwLoad, mwAssert:
		accs = append(accs, ts.Access{Obj: ts.Obj(op.A), Op: ts.Read})
	case mwStore:
		accs = append(accs, ts.Access{Obj: ts.Obj(op.A), Op: ts.Write})
	case mwP, mwV:
		semW()
	case mwTryP:
		accs = append(accs, ts.Access{Obj: ts.Obj(p.sem(int(op.A))), Op: ts.Write, Sync: p.Sync})
	case mwGet:
		accs = append(accs, ts.Access{Obj: ts.Obj(p.sem(int(op.A))), Op: ts.Read, Sync: p.Sync})
	case mwAwait:
		for _, i := range members(op.Set) {
			accs = append(accs, ts.Access{Obj: ts.Obj(i), Op: ts.Read, Sync: true})
			ok = ok && s.Vals[i] == op.K
		}
	case mwLock:
		for _, i := range members(op.Set) {
			o := p.lock(i)
			accs = append(accs, ts.Access{Obj: ts.Obj(o), Op: ts.Acquire})
			ok = ok && s.Vals[o] == 0
		}
	case mwUnlock:
		accs = append(accs, ts.Access{Obj: ts.Obj(p.lock(int(op.A))), Op: ts.Release})
	case mwPGuard:
		semW()
		accs = append(accs, ts.Access{Obj: ts.Obj(op.A), Op: ts.Read, Sync: true})
		ok = ok && s.Vals[op.A] == op.K
	case mwPLock:
		semW()
		o := p.lock(int(op.A))
		accs = append(accs, ts.Access{Obj: ts.Obj(o), Op: ts.Acquire})
		ok = ok && s.Vals[o] == 0
	case mwPStore:
		semW()
		accs = append(accs, ts.Access{Obj: ts.Obj(op.A), Op: ts.Write})
	case mwLockGuard:
		o := p.lock(int(op.A))
		accs = append(accs, ts.Access{Obj: ts.Obj(o), Op: ts.Acquire})
		ok = s.Vals[o] == 0
		for _, i := range members(op.Set) {
			accs = append(accs, ts.Access{Obj: ts.Obj(i), Op: ts.Read, Sync: true})
			ok = ok && s.Vals[i] == op.K
		}
	default:
		panic("bad op")
	}
	return accs, ok
}

func (p *mwProg) Next(s mwState, t ts.Tid) (ts.Step, ts.Status) {
	if s.Fail[t] != 0 || int(s.PC[t]) >= len(p.Code[t]) {
		return ts.Step{}, ts.Finished
	}
	op := p.Code[t][s.PC[t]]
	accs, ok := p.accesses(&s, t, op)
	st := mwStep(accs, op.Rot)
	switch {
	case ok:
		return st, ts.Enabled
	case op.Idle:
		return st, ts.Idle
	}
	return st, ts.Blocked
}

func (p *mwProg) Apply(s mwState, t ts.Tid) mwState {
	op := p.Code[t][s.PC[t]]
	obs := func(v int8) { s.Obs[t] = s.Obs[t]*7 + int32(v) + 1 }
	pc := s.PC[t]
	s.PC[t]++
	switch op.Kind {
	case mwLoad:
		obs(s.Vals[op.A])
	case mwStore:
		s.Vals[op.A] = op.K
	case mwP, mwPGuard:
		for _, i := range members(op.Set) {
			s.Vals[p.sem(i)]--
		}
	case mwPLock:
		for _, i := range members(op.Set) {
			s.Vals[p.sem(i)]--
		}
		s.Vals[p.lock(int(op.A))] = int8(t) + 1
	case mwLockGuard:
		s.Vals[p.lock(int(op.A))] = int8(t) + 1
	case mwPStore:
		for _, i := range members(op.Set) {
			s.Vals[p.sem(i)]--
		}
		s.Vals[op.A] = op.K
	case mwV:
		for _, i := range members(op.Set) {
			s.Vals[p.sem(i)]++
		}
	case mwTryP:
		if o := p.sem(int(op.A)); s.Vals[o] > 0 {
			s.Vals[o]--
			obs(1)
		} else {
			obs(0)
		}
	case mwGet:
		obs(s.Vals[p.sem(int(op.A))])
	case mwAwait:
	case mwLock:
		for _, i := range members(op.Set) {
			s.Vals[p.lock(i)] = int8(t) + 1
		}
	case mwUnlock:
		if o := p.lock(int(op.A)); s.Vals[o] == int8(t)+1 {
			s.Vals[o] = 0
		} else {
			s.Fail[t] = pc + 1
		}
	case mwAssert:
		obs(s.Vals[op.A])
		if s.Vals[op.A] == op.K {
			s.Fail[t] = pc + 1
		}
	}
	return s
}

func (p *mwProg) Check(s mwState) error {
	for t, f := range s.Fail {
		if f != 0 {
			return fmt.Errorf("T%d failed at op %d", t, f-1)
		}
	}
	return nil
}

func (p *mwProg) Hash(s mwState) uint64 {
	return fnvMix(fnvMix(fnvMix(fnvMix(fnvOffset, s.Vals[:]...), s.PC[:]...), s.Obs[:]...), s.Fail[:]...)
}

func setString(prefix string, set uint8) string {
	var names []string
	for _, i := range members(set) {
		names = append(names, fmt.Sprintf("%s%d", prefix, i))
	}
	return strings.Join(names, ",")
}

func (op mwOp) String() string {
	var s string
	switch op.Kind {
	case mwLoad:
		s = fmt.Sprintf("load x%d", op.A)
	case mwStore:
		s = fmt.Sprintf("x%d := %d", op.A, op.K)
	case mwP:
		s = fmt.Sprintf("P(%s)", setString("s", op.Set))
	case mwV:
		s = fmt.Sprintf("V(%s)", setString("s", op.Set))
	case mwTryP:
		s = fmt.Sprintf("tryP(s%d)", op.A)
	case mwGet:
		s = fmt.Sprintf("get s%d", op.A)
	case mwAwait:
		s = fmt.Sprintf("await %s == %d", setString("x", op.Set), op.K)
	case mwLock:
		s = fmt.Sprintf("lock(%s)", setString("l", op.Set))
	case mwUnlock:
		s = fmt.Sprintf("unlock(l%d)", op.A)
	case mwPGuard:
		s = fmt.Sprintf("P(%s) when x%d == %d", setString("s", op.Set), op.A, op.K)
	case mwPLock:
		s = fmt.Sprintf("P(%s)+lock(l%d)", setString("s", op.Set), op.A)
	case mwPStore:
		s = fmt.Sprintf("P(%s)+x%d := %d", setString("s", op.Set), op.A, op.K)
	case mwAssert:
		s = fmt.Sprintf("assert x%d != %d", op.A, op.K)
	case mwLockGuard:
		s = fmt.Sprintf("lock(l%d) when %s == %d", op.A, setString("x", op.Set), op.K)
	}
	if op.Idle {
		s += " [idle]"
	}
	return s
}

func (p *mwProg) String() string { return p.format(mwOp.String) }

// format lists the program, each operation written by opString.
func (p *mwProg) format(opString func(mwOp) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "vars %d, sems %d init %v cap %d, locks %d, sync %v\n", p.NVars, p.NSems, p.Inits, p.Cap, p.NLocks, p.Sync)
	for t, code := range p.Code {
		fmt.Fprintf(&b, "T%d:", t)
		for _, op := range code {
			fmt.Fprintf(&b, " %s;", opString(op))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// GoString is Go source that rebuilds the program.
func (p *mwProg) GoString() string {
	var b strings.Builder
	fmt.Fprintf(&b, "&mwProg{NVars: %d, NSems: %d, NLocks: %d, Cap: %d, Inits: %#v, Sync: %v, Code: [][]mwOp{", p.NVars, p.NSems, p.NLocks, p.Cap, p.Inits, p.Sync)
	for _, code := range p.Code {
		b.WriteString("{")
		for i, op := range code {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "{Kind: %d, Set: %d, A: %d, K: %d, Rot: %d, Idle: %v}", op.Kind, op.Set, op.A, op.K, op.Rot, op.Idle)
		}
		b.WriteString("}, ")
	}
	b.WriteString("}}")
	return b.String()
}

// mwShape says what mwPrograms draws.
type mwShape struct {
	MinT, MaxT, MaxSteps int
	NoAsserts            bool // no assertion, no unlock of a lock not held
	Kinds                []int
	MaxSet               int // most semaphores in one step (0: all)
}

// mwPrograms draws mwProgs.
func mwPrograms(sh mwShape) *rapid.Generator[*mwProg] {
	return rapid.Custom(func(t *rapid.T) *mwProg {
		p := &mwProg{
			NVars:  rapid.IntRange(1, 2).Draw(t, "nvars"),
			NSems:  rapid.IntRange(1, 3).Draw(t, "nsems"),
			NLocks: rapid.IntRange(0, 2).Draw(t, "nlocks"),
			Cap:    int8(rapid.IntRange(1, 2).Draw(t, "cap")),
			Sync:   rapid.Bool().Draw(t, "sync"),
		}
		for range p.NSems {
			p.Inits = append(p.Inits, int8(rapid.IntRange(0, int(p.Cap)).Draw(t, "init")))
		}
		kinds := sh.Kinds
		if kinds == nil {
			// P of several semaphores drawn more often.
			kinds = []int{mwLoad, mwStore, mwP, mwP, mwP, mwV, mwV, mwTryP, mwGet, mwAwait, mwLock, mwUnlock, mwPGuard, mwPLock, mwPStore, mwAssert, mwLockGuard}
		}
		idleAll := rapid.IntRange(0, 3).Draw(t, "idleAll")
		n := rapid.IntRange(sh.MinT, sh.MaxT).Draw(t, "threads")
		for range n {
			steps := rapid.IntRange(1, sh.MaxSteps).Draw(t, "steps")
			var code []mwOp
			var held uint8
			for range steps {
				op := mwOp{Kind: int8(rapid.SampledFrom(kinds).Draw(t, "kind"))}
				semSet := func() uint8 {
					// 1 to 3 semaphores, the most often all of them.
					var set uint8
					for set == 0 || sh.MaxSet > 0 && bits.OnesCount8(set) > sh.MaxSet {
						set = uint8(rapid.IntRange(1, 1<<p.NSems-1).Draw(t, "sems"))
						if rapid.IntRange(0, 2).Draw(t, "allSems") == 0 {
							set = 1<<p.NSems - 1
						}
					}
					return set
				}
				switch op.Kind {
				case mwLoad, mwStore:
					op.A = int8(rapid.IntRange(0, p.NVars-1).Draw(t, "var"))
					op.K = int8(rapid.IntRange(0, 2).Draw(t, "k"))
				case mwAssert:
					if sh.NoAsserts {
						op.Kind = mwLoad
					}
					op.A = int8(rapid.IntRange(0, p.NVars-1).Draw(t, "var"))
					op.K = int8(rapid.IntRange(0, 2).Draw(t, "k"))
				case mwP, mwV:
					op.Set = semSet()
				case mwTryP, mwGet:
					op.A = int8(rapid.IntRange(0, p.NSems-1).Draw(t, "sem"))
				case mwAwait:
					op.Set = uint8(rapid.IntRange(1, 1<<p.NVars-1).Draw(t, "vars"))
					op.K = int8(rapid.IntRange(0, 2).Draw(t, "k"))
				case mwLock, mwPLock, mwLockGuard:
					free := (uint8(1)<<p.NLocks - 1) &^ held
					if free == 0 {
						op.Kind = mwP
						op.Set = semSet()
						break
					}
					if op.Kind == mwLock {
						for op.Set == 0 {
							op.Set = uint8(rapid.IntRange(1, 1<<p.NLocks-1).Draw(t, "locks")) & free
						}
						held |= op.Set
					} else {
						if op.Kind == mwLockGuard {
							op.Set = uint8(rapid.IntRange(1, 1<<p.NVars-1).Draw(t, "vars"))
							op.K = int8(rapid.IntRange(0, 2).Draw(t, "k"))
						} else {
							op.Set = semSet()
						}
						fl := members(free)
						op.A = int8(fl[rapid.IntRange(0, len(fl)-1).Draw(t, "lock")])
						held |= 1 << op.A
					}
				case mwUnlock:
					hl := members(held)
					switch {
					case len(hl) > 0:
						op.A = int8(hl[rapid.IntRange(0, len(hl)-1).Draw(t, "unlock")])
						held &^= 1 << op.A
					case p.NLocks > 0 && !sh.NoAsserts:
						op.A = int8(rapid.IntRange(0, p.NLocks-1).Draw(t, "badUnlock"))
					default:
						op.Kind = mwV
						op.Set = semSet()
					}
				case mwPGuard, mwPStore:
					op.Set = semSet()
					op.A = int8(rapid.IntRange(0, p.NVars-1).Draw(t, "var"))
					op.K = int8(rapid.IntRange(0, 2).Draw(t, "k"))
				}
				op.Rot = int8(rapid.IntRange(0, 3).Draw(t, "rot"))
				op.Idle = idleAll == 0 || idleAll == 1 && rapid.Bool().Draw(t, "idle")
				code = append(code, op)
			}
			if held != 0 && rapid.Bool().Draw(t, "releaseAll") {
				for _, l := range members(held) {
					code = append(code, mwOp{Kind: mwUnlock, A: int8(l)})
				}
			}
			p.Code = append(p.Code, code)
		}
		return p
	})
}

// mwHasMultiWrite reports whether a program has a step that writes (or
// acquires) two objects or more and may wait.
func mwHasMultiWrite(p *mwProg) bool {
	for _, code := range p.Code {
		for _, op := range code {
			n := bits.OnesCount8(op.Set)
			switch op.Kind {
			case mwP, mwV, mwPGuard:
				if n > 1 {
					return true
				}
			case mwPLock, mwPStore:
				return true
			}
		}
	}
	return false
}

var auditSleepBlocked = flag.Bool("audit.sleepblocked", false, "audit: fail the multi-write property tests on a sleep-blocked execution (else counted in the stats)")

// mwCheck compares the strategies with the reference on one program, under
// KeepGoing (ignoring deadlocks if ignore): the same terminal states and
// violations; for ODPOR where no check fails, one execution per trace and
// none sleep-blocked. others adds Sleep, DPOR and SDPOR.
// mwSystem is a system over mwState that mwCheck checks: mwProg, and
// cwProg (audit_cut_test.go), which adds steps to it.
type mwSystem interface {
	ts.TransitionSystem[mwState]
	String() string
	GoString() string
	multiWrite() bool
}

func (p *mwProg) multiWrite() bool { return mwHasMultiWrite(p) }

func mwCheck(t *rapid.T, p mwSystem, ignore, others bool) {
	ref := auditReference[mwState](p, ignore, *auditMaxNodes)
	if ref.truncated || len(ref.traces) > *auditMaxTraces {
		auditStats["skipped"]++
		return
	}
	auditStats["checked"]++
	auditStats["traces"] += len(ref.traces)
	if p.multiWrite() {
		auditStats["with-multi-write"]++
	}
	failures := 0
	for k := range ref.violations {
		if !strings.HasPrefix(k, "deadlock") {
			failures++
		} else {
			auditStats["deadlocks"]++
		}
	}
	if failures > 0 {
		auditStats["with-failures"]++
	}
	for _, s := range strategies[mwState]() {
		if s.name != "odpor" && !others {
			continue
		}
		red, err := auditRun[mwState](p, s.f, por.Options{Options: ts.Options{IgnoreDeadlocks: ignore}})
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		errs := compareOuts(ref, red, s.name == "odpor" && failures == 0)
		if s.name == "odpor" {
			auditStats["sleep-blocked"] += int(red.res.Stats["sleep-blocked"])
			auditStats["infeasible-branches"] += int(red.res.Stats["infeasible-branches"])
			if failures == 0 && unexplainedSleepBlocked(red.res) != 0 {
				auditStats["programs-sleep-blocked"]++
				if *auditSleepBlocked {
					errs = append(errs, fmt.Sprintf("sleep-blocked executions: %d", red.res.Stats["sleep-blocked"]))
				}
			}
			if failures > 0 {
				for k, c := range red.traces {
					if c > 1 {
						errs = append(errs, "explores a trace twice under KeepGoing with failures: "+k)
					}
				}
			}
		}
		if len(errs) > 0 {
			t.Fatalf("%s (ignoreDeadlocks %v) on\n%v%#v\n%s", s.name, ignore, p, p, strings.Join(errs, "\n"))
		}
	}
	// Without KeepGoing: ODPOR reports a violation exactly when the
	// reference has one.
	res, err := por.ODPOR[mwState](context.Background(), p, por.Options{Options: ts.Options{IgnoreDeadlocks: ignore}})
	if err != nil {
		t.Fatal(err)
	}
	if (res.Violation != nil) != (len(ref.violations) > 0) {
		t.Fatalf("odpor without KeepGoing on\n%v%#v\nviolation %v; reference violations %v", p, p, res.Violation, ref.violations)
	}
}

// Random mwProgs of 2 to 4 threads of up to 4 ops: the conformance check,
// then every strategy against the reference.
func TestAuditMultiWriteSmall(t *testing.T) {
	auditChecks(t, 150, false)
	rapid.Check(t, func(t *rapid.T) {
		p := mwPrograms(mwShape{MinT: 2, MaxT: 4, MaxSteps: 4, NoAsserts: rapid.Bool().Draw(t, "noAsserts")}).Draw(t, "program")
		tstest.Conformance(t, p, tstest.ConformanceOptions{MaxStates: 1000})
		mwCheck(t, p, rapid.IntRange(0, 3).Draw(t, "ignoreDeadlocks") == 0, true)
	})
	logStats(t)
}

// Random mwProgs of 4 to 6 threads of up to 3 ops, ODPOR only.
func TestAuditMultiWriteWide(t *testing.T) {
	auditChecks(t, 40, false)
	rapid.Check(t, func(t *rapid.T) {
		p := mwPrograms(mwShape{MinT: 4, MaxT: 6, MaxSteps: 3, NoAsserts: rapid.IntRange(0, 2).Draw(t, "asserts") != 0}).Draw(t, "program")
		mwCheck(t, p, rapid.IntRange(0, 3).Draw(t, "ignoreDeadlocks") == 0, false)
	})
	logStats(t)
}

// Only semaphores, P of up to three at once and V: 3 to 6 threads.
func TestAuditMultiWriteSemOnly(t *testing.T) {
	auditChecks(t, 60, false)
	rapid.Check(t, func(t *rapid.T) {
		p := mwPrograms(mwShape{MinT: 3, MaxT: 6, MaxSteps: 3, NoAsserts: true,
			Kinds: []int{mwP, mwP, mwP, mwV, mwTryP, mwGet, mwPStore, mwPGuard, mwLoad, mwStore}}).Draw(t, "program")
		mwCheck(t, p, false, false)
	})
	logStats(t)
}
