package por_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// mwBlockingObjs are the objects on which p's steps can wait: its
// semaphores and, where its variables are not synchronization variables
// (so awaits are plain reads), its variables.
func mwBlockingObjs(p *mwProg) []ts.Obj {
	var objs []ts.Obj
	if !p.Sync {
		for i := range p.NVars {
			objs = append(objs, ts.Obj(i))
		}
	}
	for i := range p.NSems {
		objs = append(objs, ts.Obj(p.sem(i)))
	}
	return objs
}

// mwNamed is an mwProg that names the objects its steps can wait on
// (ts.Blocking).
type mwNamed struct{ *mwProg }

func (p mwNamed) BlockingObjs() []ts.Obj { return mwBlockingObjs(p.mwProg) }

// cwNamed is a cwProg that names them.
type cwNamed struct{ cwProg }

func (p cwNamed) BlockingObjs() []ts.Obj { return mwBlockingObjs(p.mwProg) }

// mwUnnamed names none of them: a system that breaks ts.Blocking.
type mwUnnamed struct{ *mwProg }

func (mwUnnamed) BlockingObjs() []ts.Obj { return nil }

// mwBadNames names an object out of range, or panics.
type mwBadNames struct {
	*mwProg
	panic bool
}

func (p mwBadNames) BlockingObjs() []ts.Obj {
	if p.panic {
		panic("boom")
	}
	return []ts.Obj{-2}
}

// With the semaphore named (ts.Blocking), ODPOR checks by replay, where it
// plans it, that a V at the semaphore's capacity cannot run: the program of
// TestAuditODPORSleepBlockedBlockingWrite (T0: tryP(s0), T1: r := x;
// V(s0), s0 = 1 of capacity 1) costs no infeasible branch and no
// sleep-blocked execution, which it does when the search has to learn that
// V can wait. The programs of two soundness regressions give their traces
// named too.
func TestODPORBlockingNamed(t *testing.T) {
	p := &mwProg{NVars: 1, NSems: 1, Cap: 1, Inits: []int8{1}, Code: [][]mwOp{
		{{Kind: mwTryP, A: 0}}, {{Kind: mwLoad, A: 0}, {Kind: mwV, Set: 1}}}}
	tstest.Conformance(t, mwNamed{p}, tstest.ConformanceOptions{})
	for _, c := range []struct {
		name                     string
		sys                      ts.TransitionSystem[mwState]
		replays, infeasible, cut int64
	}{{"learned", p, 0, 1, 1}, {"named", mwNamed{p}, 1, 0, 0}} {
		res, err := por.ODPOR(context.Background(), c.sys, por.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Executions != 1 || res.Stats["feasibility-replays"] != c.replays ||
			res.Stats["infeasible-branches"] != c.infeasible || res.Stats["sleep-blocked"] != c.cut {
			t.Errorf("%s: %d executions, stats %v; want 1 execution, %d replays, %d infeasible branches, %d sleep-blocked",
				c.name, res.Executions, res.Stats, c.replays, c.infeasible, c.cut)
		}
	}
	sleeper := &mwProg{NVars: 3, NSems: 2, Cap: 1, Inits: []int8{1, 1}, Sync: true, Code: [][]mwOp{
		{{Kind: mwP, Set: 3, Rot: 2}, {Kind: mwStore, A: 1, K: 1, Rot: 1}},
		{{Kind: mwStore, A: 1, K: 2, Rot: 2}},
		{{Kind: mwLoad, A: 1, K: 1, Rot: 3}, {Kind: mwP, Set: 1, Rot: 2}},
		{{Kind: mwAwait, Set: 2, Rot: 1}, {Kind: mwV, Set: 2, Rot: 1}}}}
	leaf := &mwProg{NVars: 2, NSems: 1, Cap: 1, Inits: []int8{1}, Code: [][]mwOp{
		{{Kind: mwPStore, Set: 1, A: 0}},
		{{Kind: mwStore, A: 1}, {Kind: mwStore, A: 0}},
		{{Kind: mwStore, A: 1}},
		{{Kind: mwStore, A: 1}, {Kind: mwV, Set: 1}, {Kind: mwStore, A: 1}},
	}}
	for _, c := range []struct {
		p                 *mwProg
		terminals, traces int
	}{{sleeper, 16, 16}, {leaf, 1, 20}} {
		sys := mwNamed{c.p}
		tstest.Conformance(t, sys, tstest.ConformanceOptions{})
		rep := tstest.CheckReduction(t, sys, odporExplorer[mwState](), tstest.ReductionOptions{Bound: ts.NoBound})
		opt := tstest.CheckOptimal(t, sys, odporExplorer[mwState](), tstest.ReductionOptions{Bound: ts.NoBound})
		if len(rep.Reduction.Terminals) != c.terminals || opt.Result.Executions != int64(c.traces) {
			t.Errorf("named:\n%v: %d terminal states, %d executions; want %d, %d", c.p, len(rep.Reduction.Terminals), opt.Result.Executions, c.terminals, c.traces)
		}
	}
}

// Conformance reports a waiting step on no object ts.Blocking names.
func TestConformanceUnnamedWait(t *testing.T) {
	p := &mwProg{NVars: 1, NSems: 1, Cap: 1, Inits: []int8{1}, Code: [][]mwOp{
		{{Kind: mwTryP, A: 0}}, {{Kind: mwLoad, A: 0}, {Kind: mwV, Set: 1}}}}
	errs := tstest.CheckConformance(mwUnnamed{p}, tstest.ConformanceOptions{})
	found := false
	for _, err := range errs {
		found = found || errors.Is(err, tstest.ErrUnnamedWait)
	}
	if !found {
		t.Errorf("CheckConformance: %v; want ErrUnnamedWait (V(s0) waits at s0's capacity)", errs)
	}
	if errs := tstest.CheckConformance(mwNamed{p}, tstest.ConformanceOptions{}); len(errs) > 0 {
		t.Errorf("named: %v", errs)
	}
}

// TestAuditCutSmall on systems that name the objects their steps can wait
// on: every strategy against the trace reference, and Conformance checks
// the naming.
func TestAuditCutNamed(t *testing.T) {
	auditChecks(t, 60, false)
	rapid.Check(t, func(t *rapid.T) {
		p := cwNamed{cwPrograms(cwShape{MinT: 2, MaxT: 5, MaxSteps: 3, Selects: true}).Draw(t, "program")}
		tstest.Conformance(t, p, tstest.ConformanceOptions{MaxStates: 1000})
		mwCheck(t, p, rapid.IntRange(0, 3).Draw(t, "ignoreDeadlocks") == 0, true)
	})
	logStats(t)
}

// A BlockingObjs that panics or names an object out of range is a system
// error, from the search and from Conformance.
func TestBlockingBadNames(t *testing.T) {
	p := &mwProg{NVars: 1, NSems: 1, Cap: 1, Inits: []int8{1}, Code: [][]mwOp{{{Kind: mwV, Set: 1}}}}
	for _, c := range []struct {
		sys  mwBadNames
		want error
	}{{mwBadNames{p, true}, ts.ErrBadSystem}, {mwBadNames{p, false}, ts.ErrBadStep}} {
		if _, err := por.ODPOR(context.Background(), c.sys, por.Options{}); !errors.Is(err, c.want) {
			t.Errorf("panic %v: ODPOR: %v, want %v", c.sys.panic, err, c.want)
		}
		errs := tstest.CheckConformance(c.sys, tstest.ConformanceOptions{})
		if len(errs) == 0 || !errors.Is(errs[0], c.want) {
			t.Errorf("panic %v: CheckConformance: %v, want %v", c.sys.panic, errs, c.want)
		}
	}
}

// What the waiting-sleeper rule costs on the bundled models that pay it,
// as the ODPOR documentation and the README give it: bluetooth with its
// checks hidden (awaits), and twophase, whose links are named
// (ts.Blocking) and which plans no branch that turns out not enabled.
func TestODPORWaitingSleepersOnModels(t *testing.T) {
	check := func(name string, res ts.Result, err error, executions, sleepBlocked int64) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d executions, stats %v", name, res.Executions, res.Stats)
		if res.Executions != executions || res.Stats["sleep-blocked"] != sleepBlocked ||
			res.Stats["waiting-sleepers"] == 0 && sleepBlocked > 0 || res.Stats["infeasible-branches"] != 0 {
			t.Errorf("%s: %d executions, stats %v; want %d executions, %d sleep-blocked, no infeasible branch",
				name, res.Executions, res.Stats, executions, sleepBlocked)
		}
	}
	for _, c := range []struct {
		n                      int
		executions, blockedRun int64
	}{{2, 168, 6}, {3, 6546, 198}} {
		res, err := por.ODPOR[models.BluetoothState](context.Background(), unchecked[models.BluetoothState]{models.NewBluetooth(c.n)}, por.Options{})
		check(fmt.Sprintf("bluetooth-%d unchecked", c.n), res, err, c.executions, c.blockedRun)
	}
	res, err := por.ODPOR(context.Background(), models.NewTwoPhase(2), por.Options{Options: ts.Options{KeepGoing: true}})
	check("twophase-2", res, err, 624, 94)
	if res.Transitions != 1875 {
		t.Errorf("twophase-2: %d transitions, want 1,875", res.Transitions)
	}
}
