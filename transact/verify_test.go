package transact_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/transact"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// VerifyMovers rejects a racy write declared a both mover: Figure 1's
// g = 1, which T2's assertion reads without a lock. The report names the
// property, the threads, the steps and the schedule of the state.
func TestVerifyMoversRejectsRacyBothMover(t *testing.T) {
	p := models.NewCPCFig1(0)
	wrong := transact.WithMovers[models.CPCFigState](p, func(s models.CPCFigState, th ts.Tid) transact.Mover {
		st, ok := p.Stmt(s, th)
		if !ok || st.Kind == models.CPCStop {
			return transact.NonMover
		}
		if th == 0 && st.Label == "L0" {
			return transact.BothMover // wrong: g is racy
		}
		if st.Kind == models.CPCShared {
			return transact.NonMover
		}
		return transact.BothMover
	})
	err := transact.VerifyMovers(context.Background(), wrong, transact.VerifyOptions{})
	var me *transact.MoverError
	if !errors.As(err, &me) || !errors.Is(err, transact.ErrMover) {
		t.Fatalf("VerifyMovers = %v, want a *MoverError", err)
	}
	if me.Property != 1 || me.Thread != 0 || me.Other != 1 || me.Declared != transact.BothMover ||
		!me.Step.Equal(ts.Step{Obj: 0, Op: ts.Write}) || len(me.Schedule) != 0 {
		t.Errorf("report %+v", me)
	}
	for _, want := range []string{"thread 0's write g", "both mover", "property 1", "thread 1", "g = 1", "assert(g == 0)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("report %q does not say %q", err, want)
		}
	}
	t.Log(err)
}

// A release declared a right mover breaks property 1 (it enables the other
// thread's acquire); an acquire declared a left mover breaks property 3 or 4.
func TestVerifyMoversRejectsLockMovers(t *testing.T) {
	p := models.NewLocks3(0)
	for _, c := range []struct {
		op   ts.Op
		as   transact.Mover
		prop []int
	}{
		{ts.Release, transact.RightMover, []int{1}},
		{ts.Acquire, transact.LeftMover, []int{3, 4}},
	} {
		sys := transact.WithMovers[models.Locks3State](p, func(s models.Locks3State, th ts.Tid) transact.Mover {
			step, st := p.Next(s, th)
			switch {
			case st == ts.Finished:
				return transact.NonMover
			case step.Op == c.op:
				return c.as
			case step.Op == ts.Acquire:
				return transact.RightMover
			}
			return transact.LeftMover
		})
		var me *transact.MoverError
		if err := transact.VerifyMovers(context.Background(), sys, transact.VerifyOptions{}); !errors.As(err, &me) || !contains(c.prop, me.Property) {
			t.Errorf("%v declared %v: %v, want property %v", c.op, c.as, err, c.prop)
		}
	}
	if err := transact.VerifyMovers(context.Background(), p, transact.VerifyOptions{}); err != nil {
		t.Errorf("inferred: %v", err)
	}
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

func TestVerifyMoversBadInput(t *testing.T) {
	ctx := context.Background()
	if err := transact.VerifyMovers(ctx, models.NewPeterson(2), transact.VerifyOptions{MaxStates: 10}); !errors.Is(err, transact.ErrInfer) {
		t.Errorf("too many states to infer: %v", err)
	}
	declared := transact.WithMovers[models.PetersonState](models.NewPeterson(2), func(models.PetersonState, ts.Tid) transact.Mover { return transact.NonMover })
	if err := transact.VerifyMovers(ctx, declared, transact.VerifyOptions{MaxStates: 10}); !errors.Is(err, ts.ErrBadOptions) {
		t.Errorf("too many states: %v", err)
	}
	if err := transact.VerifyMovers(ctx, models.NewPeterson(1), transact.VerifyOptions{MaxStates: -1}); !errors.Is(err, ts.ErrBadOptions) {
		t.Errorf("negative MaxStates: %v", err)
	}
	if err := transact.VerifyMovers[int](ctx, noHashSys{}, transact.VerifyOptions{}); !errors.Is(err, ts.ErrNoHash) {
		t.Errorf("no hash: %v", err)
	}
}

// noHashSys is one thread that finishes at once, with no Hash.
type noHashSys struct{}

func (noHashSys) Init() int                             { return 0 }
func (noHashSys) Threads() int                          { return 1 }
func (noHashSys) Next(int, ts.Tid) (ts.Step, ts.Status) { return ts.Step{}, ts.Finished }
func (noHashSys) Apply(s int, _ ts.Tid) int             { return s }

// The lock discipline of Figure 3 as the inference pass sees it.
func TestDisciplineFigure3(t *testing.T) {
	p := models.NewCPCFig3(0)
	d, err := transact.Infer(context.Background(), p, transact.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "T1.local: private\nm: lock\nx: protected by m\ny: racy"
	if got := d.Format(p); got != want {
		t.Errorf("discipline:\n%s\nwant:\n%s", got, want)
	}
	if g, ok := d.Guard(1); !ok || g != 0 {
		t.Errorf("Guard(x) = %v, %v", g, ok)
	}
	if d.Class(99) != transact.Unused || d.Mover(ts.Step{Obj: 99, Op: ts.Write}, ts.Enabled) != transact.NonMover {
		t.Errorf("an object never seen must be a non-mover")
	}
	if _, err := transact.Infer[int](context.Background(), noHashSys{}, transact.InferOptions{}); !errors.Is(err, transact.ErrInfer) {
		t.Errorf("no Hash: %v", err)
	}
}

// idleLocks is two threads that each take one lock and then wait Idle for
// the other's (a server that may wait for good): T0 takes a then b, T1
// takes b then a, each releasing both. A run may end normally with each
// holding one lock and waiting.
type idleLocks struct{}

type idleLocksState struct{ pc, owner [2]int8 } // owner: 0 free, t+1 held by t

func (idleLocks) Init() idleLocksState { return idleLocksState{} }
func (idleLocks) Threads() int         { return 2 }

// lock returns the lock thread t touches at pc, and whether it acquires it.
func (idleLocks) lock(t ts.Tid, pc int8) (int, bool) {
	first, second := int(t), 1-int(t)
	switch pc {
	case 0:
		return first, true
	case 1:
		return second, true
	case 2:
		return second, false
	}
	return first, false
}

func (l idleLocks) Next(s idleLocksState, t ts.Tid) (ts.Step, ts.Status) {
	if s.pc[t] > 3 {
		return ts.Step{}, ts.Finished
	}
	o, acq := l.lock(t, s.pc[t])
	if !acq {
		return ts.Step{Obj: ts.Obj(o), Op: ts.Release}, ts.Enabled
	}
	step := ts.Step{Obj: ts.Obj(o), Op: ts.Acquire}
	switch {
	case s.owner[o] == 0:
		return step, ts.Enabled
	case s.pc[t] == 1:
		return step, ts.Idle
	}
	return step, ts.Blocked
}

func (l idleLocks) Apply(s idleLocksState, t ts.Tid) idleLocksState {
	o, acq := l.lock(t, s.pc[t])
	s.owner[o] = 0
	if acq {
		s.owner[o] = int8(t) + 1
	}
	s.pc[t]++
	return s
}

func (idleLocks) Hash(s idleLocksState) uint64 {
	return uint64(s.pc[0]) | uint64(s.pc[1])<<8 | uint64(s.owner[0])<<16 | uint64(s.owner[1])<<24
}

// A right mover must never make another thread Idle (property 5): an
// acquire declared a right mover, as lock discipline would have it, makes
// the other thread's Idle wait for the lock wait, and the run that ends
// with both waiting is missed. VerifyMovers says so; the inferred movers
// make an acquire of a lock someone waits for Idle a non-mover, and cpc
// and cycle then reach that end.
func TestIdleWaitForALock(t *testing.T) {
	ctx := context.Background()
	var sys idleLocks
	lockMovers := transact.WithMovers[idleLocksState](sys, func(s idleLocksState, th ts.Tid) transact.Mover {
		step, st := sys.Next(s, th)
		switch {
		case st == ts.Finished:
			return transact.NonMover
		case step.Op == ts.Acquire:
			return transact.RightMover
		}
		return transact.LeftMover
	})
	var me *transact.MoverError
	if err := transact.VerifyMovers(ctx, lockMovers, transact.VerifyOptions{}); !errors.As(err, &me) || me.Property != 5 {
		t.Errorf("acquires declared right movers: %v, want a breach of property 5", err)
	} else if !strings.Contains(err.Error(), "Idle") {
		t.Errorf("the report does not say Idle: %v", err)
	}
	if err := transact.VerifyMovers[idleLocksState](ctx, sys, transact.VerifyOptions{}); err != nil {
		t.Errorf("inferred movers: %v", err)
	}
	d, err := transact.Infer[idleLocksState](ctx, sys, transact.InferOptions{})
	if err != nil || !d.IdleWaited(0) || d.Mover(ts.Step{Obj: 0, Op: ts.Acquire}, ts.Enabled) != transact.NonMover ||
		d.Mover(ts.Step{Obj: 0, Op: ts.Release}, ts.Enabled) != transact.LeftMover {
		t.Errorf("discipline %v, %v", d, err)
	}
	if got := d.String(); got != "o0: lock, waited for Idle\no1: lock, waited for Idle" {
		t.Errorf("discipline:\n%s", got)
	}
	ref, err := tstest.Reference[idleLocksState](ctx, sys, tstest.ReductionOptions{Stateful: true})
	if err != nil || len(ref.Terminals) != 2 {
		t.Fatalf("reference: %d terminal states, %v", len(ref.Terminals), err)
	}
	for _, opt := range variants {
		red, err := tstest.Collect[idleLocksState](ctx, sys, transactExplorer[idleLocksState](opt), tstest.ReductionOptions{})
		if err != nil {
			t.Fatal(err)
		}
		compareWhole(t, opt.Proviso.String(), ts.TransitionSystem[idleLocksState](sys), ref, red)
	}
}

// A commutation diagram that ends in a violation in one order only breaks
// the property: y := 3 declared a right mover passes VerifyMovers when the
// diagrams through violating states are skipped, yet moving it after T0's
// read of y makes T0's assertion fail, and the run where T0 read 3 and went
// on is lost (found by TestVerifiedDeclarationsAreSound).
func TestVerifyMoversDiagramThroughAViolation(t *testing.T) {
	p := &tstest.Program{
		Vars: []tstest.Var{{Name: "y"}},
		Code: [][]tstest.Instr{
			{tstest.Load(0, 0), tstest.AssertEq(0, 3)},
			{tstest.Store(0, 3)},
		},
	}
	sys := transact.WithMovers[tstest.State](p, func(s tstest.State, th ts.Tid) transact.Mover {
		if _, st := p.Next(s, th); th == 1 && st != ts.Finished {
			return transact.RightMover
		}
		return transact.NonMover
	})
	var me *transact.MoverError
	err := transact.VerifyMovers(context.Background(), sys, transact.VerifyOptions{})
	if !errors.As(err, &me) || me.Property != 1 || me.Thread != 1 || !strings.Contains(err.Error(), "goes wrong before") {
		t.Errorf("VerifyMovers = %v, want a breach of property 1 by thread 1", err)
	}
}

// The discipline gives a step of several objects the weakest mover type of
// its accesses. Here x is protected by m0, y is racy, z is read-only, m0
// and m1 are shared locks, and p is private; T1 takes both locks in one
// step.
func TestDisciplineStepsOfSeveralObjects(t *testing.T) {
	p := &tstest.Program{
		Vars:  []tstest.Var{{Name: "x"}, {Name: "y"}, {Name: "z"}, {Name: "p"}},
		Locks: []string{"m0", "m1"},
		Code: [][]tstest.Instr{
			{tstest.Acquire(0), tstest.Store(0, 1), tstest.Release(0), tstest.Store(1, 1), tstest.Load(0, 2), tstest.Store(3, 1), tstest.Acquire(1), tstest.Release(1)},
			{tstest.Acquire2(0, 1), tstest.Load(0, 0), tstest.Release(1), tstest.Release(0), tstest.Load(0, 1), tstest.Load(0, 2)},
		},
	}
	d, err := transact.Infer[tstest.State](context.Background(), p, transact.InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.Format(p), "m0: lock\nm1: lock\np: private\nx: protected by m0\ny: racy\nz: read-only"; got != want {
		t.Fatalf("discipline:\n%s\nwant:\n%s", got, want)
	}
	const x, y, z, pv, m0, m1 = 0, 1, 2, 3, 4, 5
	step := func(acc ...ts.Access) ts.Step {
		return ts.Step{Obj: acc[0].Obj, Op: acc[0].Op, Also: acc[1:]}
	}
	a := func(o ts.Obj, op ts.Op) ts.Access { return ts.Access{Obj: o, Op: op} }
	for _, c := range []struct {
		step ts.Step
		want transact.Mover
	}{
		{step(a(m0, ts.Acquire), a(m1, ts.Acquire)), transact.RightMover},
		{step(a(m0, ts.Release), a(m1, ts.Release)), transact.LeftMover},
		{step(a(m0, ts.Acquire), a(m1, ts.Release)), transact.NonMover},
		{step(a(x, ts.Write), a(z, ts.Read)), transact.BothMover},
		{step(a(x, ts.Write), a(pv, ts.Write), a(z, ts.Read)), transact.BothMover},
		{step(a(m0, ts.Acquire), a(z, ts.Read)), transact.RightMover},
		{step(a(m0, ts.Acquire), a(y, ts.Read)), transact.NonMover},
		{step(a(x, ts.Write), a(m0, ts.Release)), transact.LeftMover},
		{step(a(x, ts.Write), a(y, ts.Write)), transact.NonMover},
		{step(a(99, ts.Read), a(z, ts.Read)), transact.NonMover}, // never seen
	} {
		if got := d.Mover(c.step, ts.Enabled); got != c.want {
			t.Errorf("%v: %v, want %v", c.step, got, c.want)
		}
	}
}

// Diagrams through violations, found by TestVerifiedDeclarationsAreSound:
// a right mover whose order changes the failure another thread's step
// reports (x := 1 before T1's fetch_add, whose assertion always fails,
// shows r1 = 1, after it r1 = 0), and a left mover that disables a step
// that goes wrong (T1's lock(m) taken first keeps T0's lock(m), whose
// assertion fails, from running; the search, which completes T1's
// transaction with its left movers, would never see the failure).
func TestVerifyMoversDiagramsThroughViolations(t *testing.T) {
	for _, c := range []struct {
		name string
		p    *tstest.Program
		as   transact.Mover // thread 1's declaration
		prop int
		says string
	}{
		{"another failure", &tstest.Program{
			Vars: []tstest.Var{{Name: "x"}},
			Code: [][]tstest.Instr{
				{tstest.FetchAdd(1, 0, 1), tstest.AssertEq(1, 2)},
				{tstest.Store(0, 1)},
			},
		}, transact.RightMover, 1, "not the same way"},
		{"a failure disabled", &tstest.Program{
			Locks: []string{"m"},
			Code: [][]tstest.Instr{
				{tstest.Acquire(0), tstest.AssertEq(0, 1)},
				{tstest.Acquire(0)},
			},
		}, transact.LeftMover, 4, "disables it"},
	} {
		p := c.p
		sys := transact.WithMovers[tstest.State](p, func(s tstest.State, th ts.Tid) transact.Mover {
			if _, st := p.Next(s, th); th == 1 && st != ts.Finished {
				return c.as
			}
			return transact.NonMover
		})
		var me *transact.MoverError
		err := transact.VerifyMovers(context.Background(), sys, transact.VerifyOptions{})
		if !errors.As(err, &me) || me.Property != c.prop || me.Thread != 1 || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: VerifyMovers = %v, want a breach of property %d by thread 1", c.name, err, c.prop)
		}
	}
}
