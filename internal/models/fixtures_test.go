package models

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/weftlab/weft/ts"
)

// Helpers shared by the tests of fixtures.go, philosophers.go, peterson.go,
// bluetooth.go and matfig1.go. They are prefixed "fixtures" to keep clear of
// the other models' tests in this package.

// fixturesFacts is what a brute-force pass of ts.Explore (KeepGoing) saw.
type fixturesFacts struct {
	res        ts.Result
	terminals  map[uint64]any // distinct terminal states (deadlocks included), by hash
	violations []*ts.Violation
	minPreempt int // fewest preemptions of a violation, -1 if none
}

// fixturesExplore runs ts.Explore with KeepGoing over the whole space,
// collecting terminal states (violating ones included) and violations, and checks that each
// violation's schedule replays to a violation of the same kind with the same
// preemption count.
func fixturesExplore[S any](t *testing.T, sys ts.TransitionSystem[S]) fixturesFacts {
	t.Helper()
	h := sys.(ts.Hasher[S])
	f := fixturesFacts{terminals: map[uint64]any{}, minPreempt: -1}
	opt := ts.Options{
		KeepGoing: true,
		OnTerminal: func(s any, _ ts.Schedule) {
			f.terminals[h.Hash(s.(S))] = s
		},
		OnViolation: func(v *ts.Violation) {
			f.violations = append(f.violations, v)
			if f.minPreempt < 0 || v.Trace.Preemptions < f.minPreempt {
				f.minPreempt = v.Trace.Preemptions
			}
		},
	}
	res, err := ts.Explore(context.Background(), sys, opt)
	if err != nil {
		t.Fatalf("ts.Explore: %v", err)
	}
	if !res.Complete {
		t.Fatalf("ts.Explore did not complete: %v", res)
	}
	if int64(len(f.violations)) != res.Violations {
		t.Errorf("OnViolation called %d times, Result.Violations = %d", len(f.violations), res.Violations)
	}
	for _, v := range f.violations {
		fixturesReplays(t, sys, v)
	}
	f.res = res
	return f
}

// fixturesReplays checks that v's schedule replays to a violation of the same
// kind with the same preemption count.
func fixturesReplays[S any](t *testing.T, sys ts.TransitionSystem[S], v *ts.Violation) {
	t.Helper()
	run, err := ts.Replay(sys, v.Trace.Schedule())
	if err != nil {
		t.Fatalf("replaying %v: %v", v, err)
	}
	if run.Violation == nil || run.Violation.Kind != v.Kind {
		t.Fatalf("replaying %v: got violation %v", v, run.Violation)
	}
	if run.Trace.Preemptions != v.Trace.Preemptions {
		t.Errorf("replaying %v: %d preemptions, want %d", v, run.Trace.Preemptions, v.Trace.Preemptions)
	}
	if p, err := ts.Preemptions(sys, v.Trace.Schedule()); err != nil || p != v.Trace.Preemptions {
		t.Errorf("ts.Preemptions(%v) = %d, %v; want %d", v.Trace.Schedule(), p, err, v.Trace.Preemptions)
	}
}

// fixturesNoMutation walks the whole reachable space (with a visited set, so
// cyclic systems too) and checks at every state that Apply of every enabled
// thread leaves its argument unchanged: same hash, same steps and statuses.
// It returns the number of distinct states.
func fixturesNoMutation[S any](t *testing.T, sys ts.TransitionSystem[S]) int {
	t.Helper()
	h := sys.(ts.Hasher[S])
	n := sys.Threads()
	type snap struct {
		step ts.Step
		st   ts.Status
	}
	look := func(s S) []snap {
		out := make([]snap, n)
		for i := range n {
			out[i].step, out[i].st = sys.Next(s, ts.Tid(i))
		}
		return out
	}
	init := sys.Init()
	seen := map[uint64]bool{h.Hash(init): true}
	stack := []S{init}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		before, hb := look(s), h.Hash(s)
		if d, ok := sys.(ts.Describer[S]); ok {
			for i := range n {
				if before[i].st != ts.Finished && d.Describe(s, ts.Tid(i)) == "" {
					t.Fatalf("thread %d: empty description", i)
				}
			}
		}
		if on, ok := sys.(ts.ObjNamer); ok {
			for i := range n {
				if before[i].st != ts.Finished && on.ObjName(before[i].step.Obj) == "" {
					t.Fatalf("thread %d: object %d has no name", i, before[i].step.Obj)
				}
			}
		}
		for i := range n {
			if before[i].st != ts.Enabled {
				continue
			}
			c := sys.Apply(s, ts.Tid(i))
			if ha := h.Hash(s); ha != hb {
				t.Fatalf("Apply(thread %d) changed its argument's hash", i)
			}
			if !slices.EqualFunc(look(s), before, func(a, b snap) bool { return a.st == b.st && a.step.Equal(b.step) }) {
				t.Fatalf("Apply(thread %d) changed its argument's steps", i)
			}
			if hc := h.Hash(c); !seen[hc] {
				seen[hc] = true
				stack = append(stack, c)
			}
		}
	}
	return len(seen)
}

// fixturesClasses counts the Mazurkiewicz classes of the complete executions
// of an acyclic system by brute force: it replays every execution ts.Explore
// finds (terminal or violating) and keys it by, for every pair of dependent
// accesses of different threads, which came first. Two executions of a
// program with a fixed sequence of accesses per thread are equivalent iff
// they agree on all those orders.
func fixturesClasses[S any](t *testing.T, sys ts.TransitionSystem[S]) int {
	t.Helper()
	keys := map[string]bool{}
	add := func(sched ts.Schedule) {
		run, err := ts.Replay(sys, sched)
		if err != nil {
			t.Fatalf("replay %v: %v", sched, err)
		}
		keys[fixturesClassKey(run.Trace)] = true
	}
	opt := ts.Options{
		KeepGoing:   true,
		OnTerminal:  func(_ any, sched ts.Schedule) { add(sched) },
		OnViolation: func(v *ts.Violation) { add(v.Trace.Schedule()) },
	}
	if _, err := ts.Explore(context.Background(), sys, opt); err != nil {
		t.Fatal(err)
	}
	return len(keys)
}

// fixturesClassKey is the class key of one execution: the ordered pairs
// (thread:index before thread:index) of its dependent accesses of different
// threads.
func fixturesClassKey(tr ts.Trace) string {
	idx := make([]int, len(tr.Events)) // index of each event within its thread
	count := map[ts.Tid]int{}
	for i, e := range tr.Events {
		idx[i] = count[e.Thread]
		count[e.Thread]++
	}
	var pairs []string
	for i, a := range tr.Events {
		for j := i + 1; j < len(tr.Events); j++ {
			c := tr.Events[j]
			if a.Thread != c.Thread && ts.Dependent(a.Step, c.Step) {
				pairs = append(pairs, fmt.Sprintf("%d:%d<%d:%d", a.Thread, idx[i], c.Thread, idx[j]))
			}
		}
	}
	slices.Sort(pairs)
	return strings.Join(pairs, " ")
}

// fixturesViolating reports whether s is a violation: a failed Check, or a
// deadlock.
func fixturesViolating[S any](sys ts.TransitionSystem[S], s S) bool {
	if c, ok := sys.(ts.Checker[S]); ok && c.Check(s) != nil {
		return true
	}
	enabled, blocked := false, false
	for i := range sys.Threads() {
		switch _, st := sys.Next(s, ts.Tid(i)); st {
		case ts.Enabled:
			enabled = true
		case ts.Blocked:
			blocked = true
		}
	}
	return !enabled && blocked
}

// fixturesMinPreemptionsGraph finds the fewest preemptions of any schedule
// that reaches a violation, exactly, also for cyclic systems: a 0-1
// breadth-first search over (state, last thread), where taking thread u
// after thread l at s costs one preemption iff l != u and l is enabled at s.
// It returns the count and a schedule that shows it, or -1 and nil.
func fixturesMinPreemptionsGraph[S any](sys ts.TransitionSystem[S]) (int, ts.Schedule) {
	h := sys.(ts.Hasher[S])
	type key struct {
		hash uint64
		last ts.Tid
	}
	type node struct {
		s     S
		last  ts.Tid
		cost  int
		sched ts.Schedule
	}
	dist := map[key]int{}
	init := sys.Init()
	deque := []node{{s: init, last: -1}}
	dist[key{h.Hash(init), -1}] = 0
	for len(deque) > 0 {
		nd := deque[0]
		deque = deque[1:]
		if d := dist[key{h.Hash(nd.s), nd.last}]; d < nd.cost {
			continue // a stale entry
		}
		if fixturesViolating(sys, nd.s) {
			return nd.cost, nd.sched
		}
		lastEnabled := false
		if nd.last >= 0 {
			_, st := sys.Next(nd.s, nd.last)
			lastEnabled = st == ts.Enabled
		}
		for i := range sys.Threads() {
			u := ts.Tid(i)
			if _, st := sys.Next(nd.s, u); st != ts.Enabled {
				continue
			}
			c := sys.Apply(nd.s, u)
			cost := nd.cost
			if nd.last >= 0 && nd.last != u && lastEnabled {
				cost++
			}
			k := key{h.Hash(c), u}
			if d, ok := dist[k]; ok && d <= cost {
				continue
			}
			dist[k] = cost
			next := node{s: c, last: u, cost: cost, sched: append(nd.sched.Clone(), ts.Move{Thread: u})}
			if cost == nd.cost {
				deque = append([]node{next}, deque...)
			} else {
				deque = append(deque, next)
			}
		}
	}
	return -1, nil
}

// ---------------------------------------------------------------------------

func TestCBPORFig1(t *testing.T) {
	sys := NewCBPORFig1(0)
	f := fixturesExplore(t, sys)
	if f.res.Executions != 3 || f.res.Violations != 0 {
		t.Errorf("executions %d, violations %d; want 3, 0", f.res.Executions, f.res.Violations)
	}
	var ys []int
	for _, s := range f.terminals {
		ys = append(ys, s.(CBPORFig1State).Y())
	}
	slices.Sort(ys)
	if !slices.Equal(ys, []int{1, 2}) {
		t.Errorf("terminal y values %v, want [1 2]", ys)
	}
	if c := fixturesClasses(t, sys); c != 2 {
		t.Errorf("%d classes, want 2", c)
	}
	// The regression fixture: y = 1 with no preemption, T1 first.
	run, err := ts.Replay(sys, ts.ScheduleOf(1, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if run.Final.Y() != 1 || run.Trace.Preemptions != 0 || run.Violation != nil {
		t.Errorf("schedule T1,T0,T0: y = %d with %d preemptions (violation %v); want y = 1, 0 preemptions",
			run.Final.Y(), run.Trace.Preemptions, run.Violation)
	}
	// The least preemptions per terminal y, by enumeration.
	least := map[int]int{}
	opt := ts.Options{OnTerminal: func(s any, sched ts.Schedule) {
		p, err := ts.Preemptions[CBPORFig1State](sys, sched)
		if err != nil {
			t.Fatal(err)
		}
		y := s.(CBPORFig1State).Y()
		if q, ok := least[y]; !ok || p < q {
			least[y] = p
		}
	}}
	if _, err := ts.Explore(context.Background(), sys, opt); err != nil {
		t.Fatal(err)
	}
	if least[1] != 0 || least[2] != 0 {
		t.Errorf("least preemptions per terminal y: %v, want 0 for both", least)
	}
	if n := fixturesNoMutation(t, sys); n != 7 {
		t.Errorf("%d reachable states, want 7", n)
	}
}

func TestInspect231(t *testing.T) {
	sys := NewInspect231(0)
	f := fixturesExplore(t, sys)
	if f.res.Executions != 6 || f.res.Violations != 0 {
		t.Errorf("executions %d, violations %d; want 6, 0", f.res.Executions, f.res.Violations)
	}
	var xs []int
	for _, s := range f.terminals {
		xs = append(xs, s.(Inspect231State).X())
	}
	slices.Sort(xs)
	if !slices.Equal(xs, []int{2, 3}) {
		t.Errorf("terminal x values %v, want [2 3]", xs)
	}
	if c := fixturesClasses(t, sys); c != 3 {
		t.Errorf("%d classes, want 3", c)
	}
	fixturesNoMutation(t, sys)
}

func TestLocks3(t *testing.T) {
	sys := NewLocks3(0)
	f := fixturesExplore(t, sys)
	if f.res.Executions != 6 || f.res.Violations != 0 {
		t.Errorf("executions %d, violations %d; want 6, 0 (no deadlock)", f.res.Executions, f.res.Violations)
	}
	if len(f.terminals) != 1 {
		t.Errorf("%d distinct terminal states, want 1", len(f.terminals))
	}
	if c := fixturesClasses(t, sys); c != 6 {
		t.Errorf("%d classes, want 6", c)
	}
	fixturesNoMutation(t, sys)
}

func TestLostUpdate(t *testing.T) {
	sys := NewLostUpdate(0)
	f := fixturesExplore(t, sys)
	if f.res.Executions != 6 || f.res.Violations != 4 {
		t.Errorf("executions %d, violations %d; want 6, 4", f.res.Executions, f.res.Violations)
	}
	if f.minPreempt != 1 {
		t.Errorf("min preemptions %d, want 1", f.minPreempt)
	}
	for _, v := range f.violations {
		if v.Kind != ts.CheckFailure {
			t.Errorf("violation %v, want a check failure", v)
		}
	}
	// counter = 2 with r = (0, 1) or (1, 0); counter = 1 with r = (0, 0).
	if len(f.terminals) != 2 {
		t.Errorf("%d distinct terminal states, want 2", len(f.terminals))
	}
	for _, s := range f.terminals {
		if err := sys.Check(s.(LostUpdateState)); (err != nil) != (s.(LostUpdateState).Counter() != 2) {
			t.Errorf("terminal state %+v: Check = %v", s, err)
		}
	}
	if c := fixturesClasses(t, sys); c != 4 {
		t.Errorf("%d classes, want 4", c)
	}
	// The first violation of a plain search.
	res, err := ts.Explore(context.Background(), sys, ts.Options{})
	if err != nil || res.Violation == nil || res.Violation.Kind != ts.CheckFailure {
		t.Fatalf("ts.Explore = %v, %v; want a check failure", res, err)
	}
	if !errors.Is(res.Violation, res.Violation.Err) {
		t.Errorf("violation does not wrap its error")
	}
	fixturesNoMutation(t, sys)
}

func TestFixturesInfo(t *testing.T) {
	infos := []Info{CBPORFig1Info, Inspect231Info, Locks3Info, LostUpdateInfo, PhilosophersInfo,
		PetersonInfo, PetersonBuggyInfo, BluetoothInfo, MATFig1Info}
	for _, in := range infos {
		if in.Name == "" || in.Summary == "" || in.Source == "" {
			t.Errorf("%+v: empty field", in)
		}
		if in.Param != "" && (in.Default < in.Min || in.Max != 0 && in.Default > in.Max || in.Min < 1) {
			t.Errorf("%s: default %d outside %d..%d", in.Name, in.Default, in.Min, in.Max)
		}
	}
	// Constructors accept Min..Max and panic outside.
	ctors := map[string]func(int){
		PetersonInfo.Name:      func(n int) { NewPeterson(n) },
		PetersonBuggyInfo.Name: func(n int) { NewPetersonBuggy(n) },
		BluetoothInfo.Name:     func(n int) { NewBluetooth(n) },
		PhilosophersInfo.Name:  func(n int) { NewPhilosophers(n) },
	}
	for _, in := range infos {
		f := ctors[in.Name]
		if f == nil {
			continue
		}
		f(in.Min)
		f(in.Max)
		for _, n := range []int{in.Min - 1, in.Max + 1} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s: n = %d accepted", in.Name, n)
					}
				}()
				f(n)
			}()
		}
	}
}
