package transact_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/transact"
	"github.com/weftlab/weft/ts"
)

// declaredFig is a CPC figure with the movers it declares itself
// (models.CPCFig implements transact.Movers, with the paper's distinction
// between a return, which exits, and assume(false), which stays stuck).
func declaredFig(p *models.CPCFig) ts.TransitionSystem[models.CPCFigState] { return p }

// inferredFig is a CPC figure that declares no movers, so that the search
// infers them from its lock discipline.
type inferredFig struct{ p *models.CPCFig }

func (f inferredFig) Init() models.CPCFigState { return f.p.Init() }
func (f inferredFig) Threads() int             { return f.p.Threads() }
func (f inferredFig) Next(s models.CPCFigState, t ts.Tid) (ts.Step, ts.Status) {
	return f.p.Next(s, t)
}
func (f inferredFig) Apply(s models.CPCFigState, t ts.Tid) models.CPCFigState { return f.p.Apply(s, t) }
func (f inferredFig) Check(s models.CPCFigState) error                        { return f.p.Check(s) }
func (f inferredFig) Hash(s models.CPCFigState) uint64                        { return f.p.Hash(s) }
func (f inferredFig) Describe(s models.CPCFigState, t ts.Tid) string          { return f.p.Describe(s, t) }
func (f inferredFig) ObjName(o ts.Obj) string                                 { return f.p.ObjName(o) }

type figCase struct {
	name string
	fig  func(int) *models.CPCFig
	// unsoundFinds: the unsound reduction finds the assertion failure.
	unsoundFinds bool
	// States stored with KeepGoing: cpc, cpc with L19, cycle, unsound, and
	// ts.ExploreStateful.
	cpc, refined, cycle, unsound, stateful int64
}

var figCases = []figCase{
	{"cpc-fig1", models.NewCPCFig1, false, 9, 9, 9, 8, 11},
	{"cpc-fig2", models.NewCPCFig2, true, 35, 35, 36, 33, 43},
	{"cpc-fig2-assume", models.NewCPCFig2Assume, false, 7, 7, 7, 6, 8},
	{"cpc-fig3", models.NewCPCFig3, false, 32, 32, 32, 24, 36},
	{"cpc-fig8", models.NewCPCFig8, false, 37, 37, 38, 34, 46},
}

// The golden facts of the CPC paper's figures: the unsound reduction misses
// the assertion failure of Figures 1, 2 with assume(false), 3 and 8, and
// finds that of Figure 2; cpc (with and without L19) and cycle find all of
// them, first run and with KeepGoing, and store the states listed.
func TestFigures(t *testing.T) {
	ctx := context.Background()
	for _, c := range figCases {
		t.Run(c.name, func(t *testing.T) {
			sys := declaredFig(c.fig(0))
			ref, err := ts.ExploreStateful(ctx, sys, ts.Options{KeepGoing: true})
			if err != nil || ref.Violation == nil || ref.States != c.stateful {
				t.Fatalf("ts.ExploreStateful: %v, %v, %d states, want %d", err, ref.Violation, ref.States, c.stateful)
			}
			want := ref.Violation.Err.Error()
			for _, v := range []struct {
				opt    transact.Options
				finds  bool
				states int64
			}{
				{transact.Options{Proviso: transact.CPC}, true, c.cpc},
				{transact.Options{Proviso: transact.CPC, Refine: true}, true, c.refined},
				{transact.Options{Proviso: transact.Cycle}, true, c.cycle},
				{transact.Options{Proviso: transact.None}, c.unsoundFinds, c.unsound},
			} {
				name := fmt.Sprintf("%v refine=%v", v.opt.Proviso, v.opt.Refine)
				first, err := transact.Explore(ctx, sys, v.opt)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if found := first.Violation != nil; found != v.finds {
					t.Errorf("%s: found %v, want %v", name, first.Violation, v.finds)
				} else if found && first.Violation.Err.Error() != want {
					t.Errorf("%s: found %q, want %q", name, first.Violation.Err, want)
				}
				v.opt.KeepGoing = true
				all, err := transact.Explore(ctx, sys, v.opt)
				if err != nil || !all.Complete {
					t.Fatalf("%s with KeepGoing: %v, complete %v", name, err, all.Complete)
				}
				if (all.Violations > 0) != v.finds || all.States != v.states {
					t.Errorf("%s with KeepGoing: %d violations, %d states; want found %v, %d states",
						name, all.Violations, all.States, v.finds, v.states)
				}
			}
		})
	}
}

// forcePoints runs the search with KeepGoing and returns where it forced all
// threads: the reason, the schedule and the state of each point.
func forcePoints(t *testing.T, sys ts.TransitionSystem[models.CPCFigState], opt transact.Options) []transact.Force {
	t.Helper()
	var out []transact.Force
	opt.OnForce = func(f transact.Force) {
		f.Schedule = f.Schedule.Clone()
		out = append(out, f)
	}
	res, err := transact.Explore(context.Background(), sys, opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats[transact.StatForced] != int64(len(out)) {
		t.Errorf("Stats[forced] = %d, OnForce called %d times", res.Stats[transact.StatForced], len(out))
	}
	return out
}

// Where cpc and cycle force all threads on Figure 8. In the paper T1
// chooses its branch after its commit, so there is one commit point: CPC
// forces once, there, and cycle detection once per loop (twice). Here the
// choice is made by the chooser thread E before the commit (see
// models.NewCPCFig8), so every commit point (T1 at L1 with g = 1) leads to
// one loop only. What is left of the contrast, per commit point: cpc with
// L19 forces exactly at the commit point, and nowhere in the loop; cycle
// forces in the loop, where it closes, and nowhere at a commit point; cpc
// without L19 forces at the loop's deepest state, the first popped with its
// CPC bit unset. There are 5 distinct commit points with KeepGoing (the
// progress of T2 and E and the branch vary), so cpc forces 5 times; cycle
// forces 6 times: once in the loop after each commit point, and once more
// in a loop entered after E ran at a forced state, a state that cycle
// detection cannot tell from any other (CPC knows it: its CPC bit is set).
func TestFig8ForcePoints(t *testing.T) {
	sys := declaredFig(models.NewCPCFig8(0))
	const l1, l3, l6 = 2, 4, 7 // statement indices of T1's L1, L3 and L6
	commit := func(s models.CPCFigState) bool { return s.PC[0] == l1 && s.Mem[0] == 1 }
	inLoop := func(s models.CPCFigState) bool { return s.PC[0] >= l3 && s.PC[0] <= l6 }
	check := func(name string, fs []transact.Force, n int, reason transact.Reason, where func(models.CPCFigState) bool) {
		t.Helper()
		if len(fs) != n {
			t.Errorf("%s: %d points, want %d", name, len(fs), n)
		}
		seen := map[models.CPCFigState]bool{}
		for _, f := range fs {
			s := f.State.(models.CPCFigState)
			if f.Reason != reason || f.Thread != 0 || !where(s) || seen[s] {
				t.Errorf("%s: forced %v (thread %d) at %+v (schedule %v)", name, f.Reason, f.Thread, s, f.Schedule)
			}
			seen[s] = true
		}
	}
	refined := forcePoints(t, sys, transact.Options{Proviso: transact.CPC, Refine: true, Options: ts.Options{KeepGoing: true}})
	check("cpc with L19", refined, 5, transact.Completion, commit)
	check("cpc", forcePoints(t, sys, transact.Options{Proviso: transact.CPC, Options: ts.Options{KeepGoing: true}}), 5, transact.Completion, inLoop)
	cycle := forcePoints(t, sys, transact.Options{Proviso: transact.Cycle, Options: ts.Options{KeepGoing: true}})
	check("cycle", cycle, 6, transact.CycleClosed, inLoop)
	if fs := forcePoints(t, sys, transact.Options{Proviso: transact.None, Options: ts.Options{KeepGoing: true}}); len(fs) != 0 {
		t.Errorf("unsound forced %d times", len(fs))
	}
	// Each commit point is followed by exactly one forced loop state.
	if got := fmt.Sprint(schedules(refined)); got != "[[0 0] [0 1 2 0] [0 1 0] [1 2 0 0] [2 0 0]]" {
		t.Errorf("cpc with L19 forces at %s", got)
	}
	if got := fmt.Sprint(schedules(cycle)); got != "[[0 0 0 0 0] [0 0 0 0 0 2 0] [0 1 2 0 0 0 0] [0 1 0 0 0 0] [1 2 0 0 0 0 0] [2 0 0 0 0 0]]" {
		t.Errorf("cycle forces at %s", got)
	}
}

func schedules(fs []transact.Force) []ts.Schedule {
	var out []ts.Schedule
	for _, f := range fs {
		out = append(out, f.Schedule)
	}
	return out
}

// The first run (no KeepGoing) on Figures 1, 2 with assume(false) and 8:
// where each sound search forces first, and the schedule of the failure it
// then finds.
func TestFigureFirstForce(t *testing.T) {
	for _, c := range []struct {
		fig           func(int) *models.CPCFig
		opt           transact.Options
		force, failed string
	}{
		{models.NewCPCFig1, transact.Options{Proviso: transact.CPC}, "[0 0 0]", "[0 0 0 1]"},
		{models.NewCPCFig1, transact.Options{Proviso: transact.CPC, Refine: true}, "[0]", "[0 1]"},
		{models.NewCPCFig1, transact.Options{Proviso: transact.Cycle}, "[0 0 0]", "[0 0 0 1]"},
		{models.NewCPCFig2Assume, transact.Options{Proviso: transact.CPC}, "[0 0]", "[0 0 1]"},
		{models.NewCPCFig2Assume, transact.Options{Proviso: transact.CPC, Refine: true}, "[0]", "[0 1]"},
		{models.NewCPCFig2Assume, transact.Options{Proviso: transact.Cycle}, "[0 0]", "[0 0 1]"},
		{models.NewCPCFig8, transact.Options{Proviso: transact.CPC, Refine: true}, "[0 0]", "[0 0 1]"},
		{models.NewCPCFig8, transact.Options{Proviso: transact.Cycle}, "[0 0 0 0 0]", "[0 0 0 0 0 1]"},
	} {
		sys := declaredFig(c.fig(0))
		var first ts.Schedule
		opt := c.opt
		opt.OnForce = func(f transact.Force) {
			if first == nil {
				first = f.Schedule.Clone()
			}
		}
		res, err := transact.Explore(context.Background(), sys, opt)
		if err != nil || res.Violation == nil {
			t.Fatalf("%s %v: %v, %v", c.fig(0).Name(), opt.Proviso, err, res.Violation)
		}
		if fmt.Sprint(first) != c.force || fmt.Sprint(res.Violation.Trace.Schedule()) != c.failed {
			t.Errorf("%s %v refine=%v: forced first at %v, failed at %v; want %s, %s", c.fig(0).Name(), opt.Proviso, opt.Refine,
				first, res.Violation.Trace.Schedule(), c.force, c.failed)
		}
	}
}

// Inferred from the figures' lock discipline, the movers of every reachable
// enabled step are those the figures declare (models.CPCKind.Mover), and
// they pass VerifyMovers, as do the declared ones. But inference cannot tell
// assume(false) from return (both leave the thread finished), and takes
// both for an exit that ends the transaction; so with inferred movers the
// unsound reduction finds the failure of Figure 2 with assume(false): the
// paper's version needs the declaration that the thread is stuck.
func TestFigureMoversInferred(t *testing.T) {
	ctx := context.Background()
	for _, c := range figCases {
		p := c.fig(0)
		d, err := transact.Infer(ctx, p, transact.InferOptions{})
		if err != nil {
			t.Fatal(err)
		}
		decl := declaredFig(p).(transact.Movers[models.CPCFigState])
		// every reachable state, seen by Check through a wrapper
		var states []models.CPCFigState
		if _, err := ts.ExploreStateful[models.CPCFigState](ctx, recorder{p, &states}, ts.Options{KeepGoing: true}); err != nil {
			t.Fatal(err)
		}
		for _, s := range states {
			for th := range ts.Tid(p.Threads()) {
				step, st := p.Next(s, th)
				if st != ts.Enabled {
					continue
				}
				if got, want := d.Mover(step, st), decl.Mover(s, th); got != want {
					t.Errorf("%s: thread %d's %v at %+v: inferred %v, declared %v", c.name, th, step, s, got, want)
				}
			}
		}
		if err := transact.VerifyMovers[models.CPCFigState](ctx, inferredFig{p}, transact.VerifyOptions{}); err != nil {
			t.Errorf("%s inferred: %v", c.name, err)
		}
		if err := transact.VerifyMovers(ctx, declaredFig(p), transact.VerifyOptions{}); err != nil {
			t.Errorf("%s declared: %v", c.name, err)
		}
	}
	res, err := transact.Explore[models.CPCFigState](ctx, inferredFig{models.NewCPCFig2Assume(0)}, transact.Options{Proviso: transact.None})
	if err != nil || res.Violation == nil {
		t.Errorf("unsound with inferred movers on cpc-fig2-assume: %v, %v; want the failure found", err, res.Violation)
	}
}

// recorder records every state Check sees.
type recorder struct {
	*models.CPCFig
	states *[]models.CPCFigState
}

func (r recorder) Check(s models.CPCFigState) error {
	*r.states = append(*r.states, s)
	return r.CPCFig.Check(s)
}
