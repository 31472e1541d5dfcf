package mat

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// The paper's MAT set for Figure 1 (section 2.2), over real accesses.
func TestFig1MATs(t *testing.T) {
	a := Analyze(fig1)
	var got []string
	for _, m := range a.MATs {
		if m.Real(fig1) {
			got = append(got, m.Format(fig1))
		}
	}
	want := []string{"(1a..3a, 1b..2b)", "(4a, 3b..4b)", "(4a, 1b..4b)", "(1a, 3b..4b)", "(2a..4a, 3b..4b)"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("MATs over real accesses: got %v, want %v", got, want)
	}
	if n := a.RealMATs(); n != 5 {
		t.Errorf("RealMATs = %d, want 5", n)
	}
	// The first iteration picks (1a..3a, 1b..2b) over (1a, 1b..4b): M2 has
	// priority and 2b precedes 4b.
	if a.MATs[0].Format(fig1) != "(1a..3a, 1b..2b)" {
		t.Errorf("first MAT %s", a.MATs[0].Format(fig1))
	}
}

func TestFig1Pairs(t *testing.T) {
	a := Analyze(fig1)
	if n := a.TP.Real(); n != 8 {
		t.Errorf("TP between real accesses: %d, want 8", n)
	}
	if n := AllPairsCount(lengths(fig1)); n != 32 {
		t.Errorf("all pairs: %d, want 32", n)
	}
	if n := AllPairs(lengths(fig1)).Real(); n != 32 {
		t.Errorf("AllPairs().Real() = %d, want 32", n)
	}
	if a.Extra.Len() != 0 {
		t.Errorf("two threads, extra pairs %v", a.Extra)
	}
	if !a.Exact || a.Construction() != "mat" {
		t.Errorf("two threads: Exact %v, construction %s", a.Exact, a.Construction())
	}
	// (2b, 3a) conflict on z: the token passes from 2b to 1a (the MAT
	// (1a..3a, 1b..2b)), the pair the paper's adequacy example names.
	if !a.TP.Has(Event{1, 1}, Event{0, 0}) {
		t.Errorf("(2b, 1a) missing from %v", a.TP)
	}
}

// 10 allowed schedules with end events = the 10 classes counted by brute
// force, one each; 5 with one end order = the 5 classes of real accesses.
func TestFig1Count(t *testing.T) {
	a := Analyze(fig1)
	classes, per := bruteClasses(fig1, a.TP, true, false)
	if classes != 10 || len(per) != 10 {
		t.Errorf("classes with end events %d, with an allowed schedule %d; want 10, 10", classes, len(per))
	}
	for k, c := range per {
		if c != 1 {
			t.Errorf("class %s has %d allowed schedules", k, c)
		}
	}
	if c := Count(a.TP, false); c.Int64() != 10 {
		t.Errorf("Count = %v, want 10", c)
	}
	real, _ := bruteClasses(fig1, nil, false, false)
	if real != 5 {
		t.Errorf("classes of real accesses %d, want 5", real)
	}
	if c := Count(a.TP, true); c.Int64() != 5 {
		t.Errorf("Count with one end order = %v, want 5", c)
	}
}

// The model's figures (internal/models.MATFig1): 70 executions and 5 classes
// of real accesses, 10 with end events. Explore runs 5 executions (one per
// class, the default end order) or 10 (EndOrders), reaching the 5 terminal
// states of ts.Explore.
func TestFig1Explore(t *testing.T) {
	sys := models.NewMATFig1(0)
	seqs, err := Unroll[models.MATFig1State](sys, ts.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(seqs, fig1, slices.Equal) {
		t.Fatalf("unrolled %v, want %v", seqs, fig1)
	}
	ref, err := ts.Explore(context.Background(), sys, ts.Options{})
	if err != nil || ref.Executions != 70 {
		t.Fatalf("ts.Explore: %v, %v", ref, err)
	}
	for _, c := range []struct {
		ends bool
		want int64
	}{{false, 5}, {true, 10}} {
		explore := func(ctx context.Context, s ts.TransitionSystem[models.MATFig1State], o ts.Options) (ts.Result, error) {
			return Explore(ctx, s, Options{Options: o, EndOrders: c.ends})
		}
		rep := tstest.CheckReduction(t, sys, explore, tstest.ReductionOptions{Bound: ts.NoBound})
		if n := rep.Reduction.Result.Executions; n != c.want {
			t.Errorf("EndOrders %v: %d executions, want %d", c.ends, n, c.want)
		}
		if len(rep.Reference.Terminals) != 5 {
			t.Errorf("reference terminal states %d, want 5", len(rep.Reference.Terminals))
		}
		st := rep.Reduction.Result.Stats
		if st["mats"] != 5 || st["tp"] != 8 || st["all-pairs"] != 32 {
			t.Errorf("stats %v", st)
		}
	}
}

// #P of the paper's Table 1: 2 * sum over thread pairs of SA_i * SA_j.
func TestTable1AllPairs(t *testing.T) {
	for _, c := range []struct {
		sa   []int
		want int64
	}{
		{[]int{1, 4, 4}, 48},
		{[]int{2, 8, 8}, 192},
		{[]int{1, 20, 20}, 880},
		{[]int{2, 40, 40}, 3520},
		{[]int{1, 100, 100}, 20400},
		{[]int{2, 200, 200}, 81600},
	} {
		if got := AllPairsCount(c.sa); got != c.want {
			t.Errorf("#P%v = %d, want %d", c.sa, got, c.want)
		}
		if got := AllPairs(c.sa).Real(); int64(got) != c.want && c.sa[1] <= 40 {
			t.Errorf("AllPairs(%v).Real() = %d, want %d", c.sa, got, c.want)
		}
	}
}

// The notes' counterexample: T0: R(z);R(y), T1: W(z);W(y), T2: R(z);R(y).
// The paper's pairs (TP and eTP) leave some classes without an allowed
// schedule (Theorem 4's adequacy fails) and allow two schedules of others
// (its optimality fails); ConflictPairs covers every class.
func TestPaperThreeThreadCounterexample(t *testing.T) {
	th := [][]Access{{R(z), R(y)}, {W(z), W(y)}, {R(z), R(y)}}
	a := Analyze(th)
	if a.Exact || a.Construction() != "conflict" {
		t.Fatalf("three threads: Exact %v", a.Exact)
	}
	if a.Extra.Len() == 0 {
		t.Errorf("GenExtraTP added no pair")
	}
	classes, per := bruteClasses(th, a.Paper, true, false)
	if classes != 96 {
		t.Errorf("classes with end events %d, want 96", classes)
	}
	if len(per) != 78 {
		t.Errorf("the paper's pairs cover %d classes, want 78 (of 96)", len(per))
	}
	twice := 0
	for _, c := range per {
		if c > 1 {
			twice++
		}
	}
	if twice == 0 {
		t.Errorf("the paper's pairs allow at most one schedule per class here; expected a duplicate")
	}
	_, per = bruteClasses(th, a.TP, true, false)
	if len(per) != classes {
		t.Errorf("ConflictPairs cover %d of %d classes", len(per), classes)
	}
	// On the system, Explore reaches every terminal state of ts.Explore.
	checkProgram(t, straightLine(th, 3))
}

func TestGenMATPanics(t *testing.T) {
	for _, c := range []struct{ i, j ts.Tid }{{0, 0}, {-1, 1}, {0, 2}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("GenMAT(%d, %d): no panic", c.i, c.j)
				}
			}()
			GenMAT(fig1, c.i, c.j)
		}()
	}
}

func TestPairsPanics(t *testing.T) {
	p := NewPairs([]int{1, 1})
	for _, f := range []func(){
		func() { p.Add(Event{0, 0}, Event{0, 1}) },
		func() { p.Add(Event{0, 2}, Event{1, 0}) },
		func() { p.Has(Event{2, 0}, Event{1, 0}) },
		func() { p.Union(NewPairs([]int{2})) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("no panic")
				}
			}()
			f()
		}()
	}
}

func TestBadOptions(t *testing.T) {
	sys := models.NewMATFig1(0)
	for _, o := range []Options{
		{Options: ts.Options{Limits: ts.Limits{Depth: -1}}},
		{Options: ts.Options{Limits: ts.Limits{Transitions: -1}}},
	} {
		if _, err := Explore(context.Background(), sys, o); !errors.Is(err, ts.ErrBadOptions) {
			t.Errorf("%+v: %v", o, err)
		}
	}
}

// A thread that branches on a value read: its accesses depend on the
// interleaving, and Explore says so.
func TestNotStraightLine(t *testing.T) {
	p := &tstest.Program{
		Vars: []tstest.Var{{Name: "x"}, {Name: "y"}},
		Code: [][]tstest.Instr{
			{tstest.Store(0, 1)},
			{tstest.Load(0, 0), tstest.JumpEq(0, 0, 3), tstest.Store(1, 1)},
		},
	}
	_, err := Explore(context.Background(), p, Options{})
	if !errors.Is(err, ErrNotStraightLine) {
		t.Errorf("branching program: %v", err)
	}
	// A thread that waits for ever.
	q := &tstest.Program{
		Vars: []tstest.Var{{Name: "x"}},
		Code: [][]tstest.Instr{{tstest.Await(0, 1)}, {tstest.Load(0, 0)}},
	}
	if _, err := Unroll(q, ts.Limits{}); !errors.Is(err, ErrNotStraightLine) {
		t.Errorf("await for ever: Unroll: %v", err)
	}
	res, err := Explore(context.Background(), q, Options{})
	if err != nil || res.Violation == nil || res.Violation.Kind != ts.Deadlock {
		t.Errorf("await for ever: %v, %v", res, err)
	}
	if _, err := Explore(context.Background(), q, Options{Options: ts.Options{KeepGoing: true}}); !errors.Is(err, ErrNotStraightLine) {
		t.Errorf("await for ever, KeepGoing: %v", err)
	}
}

// boom is two threads of two writes of one object; thread 1's second
// transition panics.
type boom struct{}

func (boom) Init() [2]int { return [2]int{} }
func (boom) Threads() int { return 2 }
func (boom) Next(s [2]int, t ts.Tid) (ts.Step, ts.Status) {
	if s[t] == 2 {
		return ts.Step{}, ts.Finished
	}
	return ts.Step{Obj: 0, Op: ts.Write}, ts.Enabled
}
func (boom) Apply(s [2]int, t ts.Tid) [2]int {
	if t == 1 && s[1] == 1 {
		panic("boom")
	}
	s[t]++
	return s
}

func TestPanicBecomesViolation(t *testing.T) {
	res, err := Explore(context.Background(), boom{}, Options{})
	if err != nil || res.Violation == nil || res.Violation.Kind != ts.Panic {
		t.Fatalf("%v, %v", res, err)
	}
	if got := res.Violation.Trace.Schedule(); !slices.Equal(got, ts.ScheduleOf(0, 0, 1, 1)) {
		t.Errorf("schedule %v", got)
	}
}

func TestLimitsAndCancel(t *testing.T) {
	sys := straightLine([][]Access{{W(x), W(y), W(x)}, {W(y), W(x), W(y)}}, 2)
	res, err := Explore(context.Background(), sys, Options{Options: ts.Options{Limits: ts.Limits{Executions: 2}}})
	if err != nil || res.Complete || res.Executions != 2 {
		t.Errorf("execution limit: %v, %v", res, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err = Explore(ctx, sys, Options{})
	if !errors.Is(err, context.Canceled) || res.Complete {
		t.Errorf("cancelled: %v, %v", res, err)
	}
	_, err = Explore(context.Background(), sys, Options{Options: ts.Options{Limits: ts.Limits{Depth: 3}}})
	if !errors.Is(err, ts.ErrDepth) {
		t.Errorf("depth: %v", err)
	}
}
