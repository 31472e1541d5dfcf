package por_test

// Blocking writes of one and of two objects, from an outside audit.
// Threads run on shared variables and counting semaphores: P (a write of the
// semaphore that blocks while it is 0), V (a write that blocks while it is at
// its capacity: a bounded buffer's two ends), a P of two semaphores in one
// transition, a tryP that is a Write when it succeeds and a Read when it
// fails (ts.ValueDependent), plain loads and stores, awaits and reads of a
// semaphore's count.

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

const (
	semLoad   = iota // r := x (recorded)
	semStore         // x := k
	semP             // P(s): s--, waits while s == 0
	semV             // V(s): s++, waits while s == cap
	semTryP          // r := tryP(s): s-- if s > 0 (a Write), else nothing (a Read with vd)
	semP2            // P(s, s2) in one transition
	semGet           // r := s (a read of the semaphore)
	semAwait         // await x == k
	semGuardP        // P(s) when x == k, one transition (a write of s, a read of x)
	semKinds
)

// semOp is one operation; K is the value of a store or await, and for the
// semaphore operations that may wait, 1 makes that one wait Idle (an
// end, not a deadlock) whatever semProg.Idle says.
type semOp struct{ Kind, A, B, K int8 }

type semProg struct {
	NVars, NSems int
	Cap          int8
	Inits        []int8 // semaphores' initial counts
	Idle         bool   // a waiting P or V is Idle rather than Blocked
	Sync         bool   // semaphore accesses are synchronization accesses
	VD           bool   // tryP's failure is a Read (ts.ValueDependent)
	Code         [][]semOp
}

type semState struct {
	Vals [8]int8
	PC   [7]int8
	Obs  [7]int32
}

func (p *semProg) Init() semState {
	var s semState
	for i, v := range p.Inits {
		s.Vals[p.NVars+i] = v
	}
	return s
}
func (p *semProg) Threads() int { return len(p.Code) }

func (p *semProg) wait(op semOp) ts.Status {
	if p.Idle || (op.Kind != semLoad && op.Kind != semStore && op.Kind != semAwait && op.K == 1) {
		return ts.Idle
	}
	return ts.Blocked
}

func (p *semProg) Next(s semState, t ts.Tid) (ts.Step, ts.Status) {
	if int(s.PC[t]) >= len(p.Code[t]) {
		return ts.Step{}, ts.Finished
	}
	op := p.Code[t][s.PC[t]]
	sem := func(i int8) ts.Obj { return ts.Obj(p.NVars + int(i)) }
	switch op.Kind {
	case semLoad:
		return ts.Step{Obj: ts.Obj(op.A), Op: ts.Read}, ts.Enabled
	case semStore:
		return ts.Step{Obj: ts.Obj(op.A), Op: ts.Write}, ts.Enabled
	case semP:
		st := ts.Step{Obj: sem(op.A), Op: ts.Write, Sync: p.Sync}
		if s.Vals[sem(op.A)] == 0 {
			return st, p.wait(op)
		}
		return st, ts.Enabled
	case semV:
		st := ts.Step{Obj: sem(op.A), Op: ts.Write, Sync: p.Sync}
		if s.Vals[sem(op.A)] >= p.Cap {
			return st, p.wait(op)
		}
		return st, ts.Enabled
	case semTryP:
		if p.VD && s.Vals[sem(op.A)] == 0 {
			return ts.Step{Obj: sem(op.A), Op: ts.Read, Sync: p.Sync}, ts.Enabled
		}
		return ts.Step{Obj: sem(op.A), Op: ts.Write, Sync: p.Sync}, ts.Enabled
	case semP2:
		st := ts.Step{Obj: sem(op.A), Op: ts.Write, Sync: p.Sync, Also: []ts.Access{{Obj: sem(op.B), Op: ts.Write, Sync: p.Sync}}}
		if s.Vals[sem(op.A)] == 0 || s.Vals[sem(op.B)] == 0 {
			return st, p.wait(op)
		}
		return st, ts.Enabled
	case semGet:
		return ts.Step{Obj: sem(op.A), Op: ts.Read, Sync: p.Sync}, ts.Enabled
	case semAwait:
		st := ts.Step{Obj: ts.Obj(op.A), Op: ts.Read, Sync: true}
		if s.Vals[op.A] != op.K {
			return st, p.wait(op)
		}
		return st, ts.Enabled
	case semGuardP:
		st := ts.Step{Obj: sem(op.B), Op: ts.Write, Sync: p.Sync, Also: []ts.Access{{Obj: ts.Obj(op.A), Op: ts.Read, Sync: true}}}
		if s.Vals[op.A] != op.K%2 || s.Vals[sem(op.B)] == 0 {
			return st, p.wait(op)
		}
		return st, ts.Enabled
	}
	panic("bad op")
}

func (p *semProg) Apply(s semState, t ts.Tid) semState {
	op := p.Code[t][s.PC[t]]
	sem := func(i int8) int { return p.NVars + int(i) }
	obs := func(v int8) { s.Obs[t] = s.Obs[t]*7 + int32(v) + 1 }
	switch op.Kind {
	case semLoad:
		obs(s.Vals[op.A])
	case semStore:
		s.Vals[op.A] = op.K
	case semP:
		s.Vals[sem(op.A)]--
	case semV:
		s.Vals[sem(op.A)]++
	case semTryP:
		if s.Vals[sem(op.A)] > 0 {
			s.Vals[sem(op.A)]--
			obs(1)
		} else {
			obs(0)
		}
	case semP2:
		s.Vals[sem(op.A)]--
		s.Vals[sem(op.B)]--
	case semGet:
		obs(s.Vals[sem(op.A)])
	case semAwait:
	case semGuardP:
		s.Vals[sem(op.B)]--
	}
	s.PC[t]++
	return s
}

func (p *semProg) Hash(s semState) uint64 {
	return fnvMix(fnvMix(fnvMix(fnvOffset, s.Vals[:]...), s.PC[:]...), s.Obs[:]...)
}

// fnvOffset and fnvMix hash small states for the test systems (FNV-1a over
// whole values rather than bytes).
const fnvOffset = uint64(14695981039346656037)

func fnvMix[T int8 | int32](h uint64, xs ...T) uint64 {
	for _, x := range xs {
		h ^= uint64(int64(x))
		h *= 1099511628211
	}
	return h
}

func (p *semProg) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "vars %d, sems %d init %v cap %d, idle %v sync %v vd %v\n", p.NVars, p.NSems, p.Inits, p.Cap, p.Idle, p.Sync, p.VD)
	for t, code := range p.Code {
		fmt.Fprintf(&b, "T%d:", t)
		for _, op := range code {
			switch op.Kind {
			case semLoad:
				fmt.Fprintf(&b, " load x%d;", op.A)
			case semStore:
				fmt.Fprintf(&b, " x%d := %d;", op.A, op.K)
			case semP:
				fmt.Fprintf(&b, " P(s%d);", op.A)
			case semV:
				fmt.Fprintf(&b, " V(s%d);", op.A)
			case semTryP:
				fmt.Fprintf(&b, " tryP(s%d);", op.A)
			case semP2:
				fmt.Fprintf(&b, " P(s%d,s%d);", op.A, op.B)
			case semGet:
				fmt.Fprintf(&b, " get s%d;", op.A)
			case semAwait:
				fmt.Fprintf(&b, " await x%d == %d;", op.A, op.K)
			case semGuardP:
				fmt.Fprintf(&b, " P(s%d) when x%d == %d;", op.B, op.A, op.K%2)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// GoString is Go source that rebuilds the program.
func (p *semProg) GoString() string {
	return fmt.Sprintf("&semProg{NVars: %d, NSems: %d, Cap: %d, Inits: %#v, Idle: %v, Sync: %v, VD: %v, Code: %#v}",
		p.NVars, p.NSems, p.Cap, p.Inits, p.Idle, p.Sync, p.VD, p.Code)
}

func odporExplorer[S any]() tstest.Explorer[S] {
	return func(ctx context.Context, sys ts.TransitionSystem[S], o ts.Options) (ts.Result, error) {
		return por.ODPOR(ctx, sys, por.Options{Options: o})
	}
}

// TestODPORBlockingMultiObject: ODPOR missed a terminal state (and a
// Mazurkiewicz trace) of three threads over two counting semaphores s0 = 1
// and s1 = 1, where the only step that may block is one write of both:
//
//	T0: P(s0, s1)            one transition: s0--, s1--; waits while either is 0
//	T1: tryP(s0); tryP(s0)   two writes of s0 that never block (s0-- if s0 > 0)
//	T2: r := s0; tryP(s1)    a read of s0, then a write of s1 that never block
//
// The trace T2 reads s0 (= 1), T0 takes both, T1's tryPs fail, T2's tryP(s1)
// fails (schedule [2 0 1 1 2]) was not explored: ODPOR explored 6 of the 7
// traces and reached 3 of the 4 terminal states. Sleep, DPOR and SDPOR reach
// all 4. The second program is the same with P instead of the first tryPs
// (T1: P(s0); tryP(s0), T2: r := s0; P(s1)), found by TestAuditSemWide on 5
// threads: 4 of 5 traces, 3 of 4 terminal states. With the waiting P of
// these programs Idle instead of Blocked, the same.
func TestODPORBlockingMultiObject(t *testing.T) {
	tryP := func(a int8) semOp { return semOp{Kind: semTryP, A: a} }
	P := func(a int8) semOp { return semOp{Kind: semP, A: a} }
	get := func(a int8) semOp { return semOp{Kind: semGet, A: a} }
	V := func(a int8) semOp { return semOp{Kind: semV, A: a} }
	P2 := semOp{Kind: semP2, A: 0, B: 1}
	p2idle := semOp{Kind: semP2, A: 0, B: 1, K: 1}
	for _, c := range []struct {
		name              string
		p                 *semProg
		terminals, traces int
	}{
		{"PV", &semProg{NVars: 1, NSems: 2, Cap: 1, Inits: []int8{1, 1}, Code: [][]semOp{{P(1), V(0)}, {P(0)}, {P2}}}, 2, 2},
		{"PV-idle", &semProg{NVars: 1, NSems: 2, Cap: 1, Inits: []int8{1, 1}, Idle: true, Code: [][]semOp{{P(1), V(0)}, {P(0)}, {P2}}}, 2, 2},
		{"PV-T2-idle", &semProg{NVars: 1, NSems: 2, Cap: 1, Inits: []int8{1, 1}, Code: [][]semOp{{P(1), V(0)}, {P(0)}, {p2idle}}}, 2, 2},
		{"tryP", &semProg{NVars: 1, NSems: 2, Cap: 1, Inits: []int8{1, 1}, Code: [][]semOp{{P2}, {tryP(0), tryP(0)}, {get(0), tryP(1)}}}, 4, 7},
		{"tryP-idle", &semProg{NVars: 1, NSems: 2, Cap: 1, Inits: []int8{1, 1}, Idle: true, Code: [][]semOp{{P2}, {tryP(0), tryP(0)}, {get(0), tryP(1)}}}, 4, 7},
		{"P", &semProg{NVars: 1, NSems: 2, Cap: 1, Inits: []int8{1, 1}, Code: [][]semOp{{P2}, {P(0), tryP(0)}, {get(0), P(1)}}}, 4, 5},
		{"P-idle", &semProg{NVars: 1, NSems: 2, Cap: 1, Inits: []int8{1, 1}, Idle: true, Code: [][]semOp{{P2}, {P(0), tryP(0)}, {get(0), P(1)}}}, 4, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			tstest.Conformance(t, c.p, tstest.ConformanceOptions{})
			for _, s := range strategies[semState]() {
				if s.name == "odpor" {
					continue
				}
				tstest.CheckReduction(t, c.p, adapt(s.f), tstest.ReductionOptions{Bound: ts.NoBound, Stateful: s.name == "sdpor"})
			}
			rep := tstest.CheckReduction(t, c.p, odporExplorer[semState](), tstest.ReductionOptions{Bound: ts.NoBound})
			opt := tstest.CheckOptimal(t, c.p, odporExplorer[semState](), tstest.ReductionOptions{Bound: ts.NoBound})
			if rep.ExpectedTerminals != c.terminals || len(rep.Reduction.Terminals) != c.terminals {
				t.Errorf("odpor reaches %d terminal states, want %d", len(rep.Reduction.Terminals), c.terminals)
			}
			if len(opt.Traces) != c.traces || opt.Result.Executions != int64(c.traces) {
				t.Errorf("odpor explores %d executions, want %d (traces counted: %d)", opt.Result.Executions, c.traces, len(opt.Traces))
			}
		})
	}
}

// TestODPORBlockingMultiObjectDeadlock: the smallest program of
// TestODPORBlockingMultiObject with T2's wait Idle (an end) and T0's and
// T1's Blocked, so that the only deadlock is in the trace ODPOR missed:
//
//	s0 = 1, s1 = 1, capacity 1 (V waits while a semaphore is at 1)
//	T0: P(s1); V(s0)
//	T1: P(s0)
//	T2: P(s0, s1)     one transition; waits Idle
//
// ts.Explore finds the deadlock of schedule [2] (T2 takes both, T0 waits in
// P(s1), T1 in P(s0)); ODPOR explored one execution, [0 1 0] ending with T2
// Idle, and reported no violation. Sleep and DPOR find the deadlock.
func TestODPORBlockingMultiObjectDeadlock(t *testing.T) {
	p := &semProg{NVars: 1, NSems: 2, Cap: 1, Inits: []int8{1, 1}, Code: [][]semOp{
		{{Kind: semP, A: 1}, {Kind: semV, A: 0}},
		{{Kind: semP, A: 0}},
		{{Kind: semP2, A: 0, B: 1, K: 1}},
	}}
	tstest.Conformance(t, p, tstest.ConformanceOptions{})
	ctx := context.Background()
	ref, err := ts.Explore(ctx, p, ts.Options{})
	if err != nil || ref.Violation == nil || ref.Violation.Kind != ts.Deadlock {
		t.Fatalf("ts.Explore: %v, %v; want a deadlock", ref, err)
	}
	for _, s := range strategies[semState]() {
		res, err := s.f(ctx, p, por.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Violation == nil || res.Violation.Kind != ts.Deadlock {
			t.Errorf("%s: %v (%d executions); ts.Explore finds a deadlock by schedule %v", s.name, res, res.Executions, ref.Violation.Trace.Schedule())
		}
	}
}

// The bundled models whose steps write several objects and may wait
// (twophase's coordinator and participants, abp's links) reach every
// terminal state the full search reaches, despite the gap above.
func TestODPORBlockingMultiObjectModels(t *testing.T) {
	for _, n := range []int{1, 2} {
		rep := tstest.CheckReduction(t, models.NewTwoPhase(n), odporExplorer[models.TwoPhaseState](), tstest.ReductionOptions{Bound: ts.NoBound})
		if len(rep.Reduction.Terminals) != rep.ExpectedTerminals || rep.ExpectedTerminals == 0 {
			t.Errorf("twophase-%d: %d of %d terminal states", n, len(rep.Reduction.Terminals), rep.ExpectedTerminals)
		}
	}
	rep := tstest.CheckReduction(t, models.NewABP(1), odporExplorer[models.ABPState](), tstest.ReductionOptions{Bound: ts.NoBound})
	if len(rep.Reduction.Terminals) != rep.ExpectedTerminals || rep.ExpectedTerminals == 0 {
		t.Errorf("abp-1: %d of %d terminal states", len(rep.Reduction.Terminals), rep.ExpectedTerminals)
	}
}

// TestODPORGuardedWrite: a P of s that also waits for x == 0, as one
// transition (a write of s and a read of x), with s = 0:
//
//	T0: P(s)
//	T1: V(s)
//	T2: P(s) when x == 0
//	T3: x := 1
//	T4: x := 1
//
// Either T0 or T2 takes the one V (T0 then waits for ever, a deadlock).
// ODPOR reached 1 of the 2 terminal states when T2's step was analysed
// only where the execution ended: its first execution ends with T2 waiting
// after T0's P and both stores, the reversal of T2's race with T0's P holds
// the stores, which disable it, and the walk back along x never reaches a
// point where s > 0. Analysed where it first waits, as steps of several
// objects that write are (see ODPOR), it reaches both, each in one
// execution.
func TestODPORGuardedWrite(t *testing.T) {
	p := &semProg{NVars: 1, NSems: 1, Cap: 2, Inits: []int8{0}, Sync: true, Code: [][]semOp{
		{{Kind: semP, A: 0}}, {{Kind: semV, A: 0}}, {{Kind: semGuardP, A: 0, B: 0}},
		{{Kind: semStore, A: 0, K: 1}}, {{Kind: semStore, A: 0, K: 1}},
	}}
	tstest.Conformance(t, p, tstest.ConformanceOptions{})
	for _, s := range strategies[semState]() {
		tstest.CheckReduction(t, p, adapt(s.f), tstest.ReductionOptions{Bound: ts.NoBound, Stateful: s.name == "sdpor"})
	}
	ref, err := ts.Explore(context.Background(), p, ts.Options{})
	if err != nil || ref.Violation == nil || ref.Violation.Kind != ts.Deadlock {
		t.Fatalf("ts.Explore: %v, %v; want a deadlock", ref, err)
	}
	rep := tstest.CheckReduction(t, p, odporExplorer[semState](), tstest.ReductionOptions{Bound: ts.NoBound})
	opt := tstest.CheckOptimal(t, p, odporExplorer[semState](), tstest.ReductionOptions{Bound: ts.NoBound})
	if rep.ExpectedTerminals != 2 || len(rep.Reduction.Terminals) != 2 || len(opt.Traces) != int(opt.Result.Executions) {
		t.Errorf("odpor: %d of %d terminal states, %d executions of %d traces; want 2 of 2, one per trace",
			len(rep.Reduction.Terminals), rep.ExpectedTerminals, opt.Result.Executions, len(opt.Traces))
	}
}
