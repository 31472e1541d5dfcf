package search_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/weftlab/weft/internal/search"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
	"pgregory.net/rapid"
)

// LookAfter answers what Look answers, on programs that keep the contract
// (tstest's, with every feature: steps of several objects, outcomes, Idle
// threads, invariants, value-dependent steps), at every state of random
// walks; and Kept names the threads it did not ask.
func TestLookAfterIsLook(t *testing.T) {
	kept := 0 // answers compared that LookAfter kept: the test must meet some
	rapid.Check(t, func(rt *rapid.T) {
		opt := tstest.GenOptions{MinThreads: 1, MaxThreads: 8, CASReads: rapid.Bool().Draw(rt, "casReads")}
		p := tstest.Programs(opt).Draw(rt, "program")
		m, err := search.NewModel[tstest.State](p)
		if err != nil {
			rt.Fatal(err)
		}
		n := m.N
		type answers struct {
			steps  []ts.Step
			status []ts.Status
			outs   []int
		}
		look := func(s tstest.State) (answers, search.Counts) {
			a := answers{make([]ts.Step, n), make([]ts.Status, n), make([]int, n)}
			cur := ts.Tid(-1)
			c, err := m.Look(s, a.steps, a.status, a.outs, &cur)
			if err != nil {
				rt.Fatal(err)
			}
			return a, c
		}
		s := m.Sys.Init()
		prev, _ := look(s)
		for step := 0; step < 40; step++ {
			var moves []ts.Move
			for u := range ts.Tid(n) {
				if prev.status[u] == ts.Enabled {
					for o := range prev.outs[u] {
						moves = append(moves, ts.Move{Thread: u, Outcome: o})
					}
				}
			}
			if len(moves) == 0 || m.Check(s) != nil {
				return
			}
			mv := moves[rapid.IntRange(0, len(moves)-1).Draw(rt, "move")]
			s = m.Apply(s, mv)
			want, wc := look(s)
			got := answers{make([]ts.Step, n), make([]ts.Status, n), make([]int, n)}
			cur := ts.Tid(-1)
			gc, err := m.LookAfter(s, mv.Thread, prev.steps, prev.status, prev.outs, got.steps, got.status, got.outs, &cur)
			if err != nil || cur != -1 {
				rt.Fatalf("LookAfter: %v (current %d)", err, cur)
			}
			if gc != wc || !slices.Equal(got.status, want.status) {
				rt.Fatalf("after thread %d: counts %+v, status %v; Look: %+v, %v", mv.Thread, gc, got.status, wc, want.status)
			}
			for u := range ts.Tid(n) {
				if want.status[u] == ts.Finished {
					continue
				}
				if !got.steps[u].Equal(want.steps[u]) || got.outs[u] != want.outs[u] {
					rt.Fatalf("after thread %d: thread %d has %v (%d outcomes), Look says %v (%d)",
						mv.Thread, u, got.steps[u], got.outs[u], want.steps[u], want.outs[u])
				}
				if m.Kept(prev.steps, prev.status, mv.Thread, u) {
					kept++
					if !got.steps[u].Equal(prev.steps[u]) {
						rt.Fatalf("thread %d kept, but its step changed", u)
					}
				}
			}
			prev = want
		}
	})
	if kept == 0 {
		t.Error("no walk met a thread whose answer LookAfter keeps")
	}
	t.Logf("%d answers kept", kept)
}

// A search that keeps a thread's answer where the contract says it holds
// (LookAfter) and finds it changed names the broken contract, not a
// nondeterministic Next.
func TestUnchangedNamesABrokenIndependence(t *testing.T) {
	m, err := search.NewModel(tstest.BrokenIndependence())
	if err != nil {
		t.Fatal(err)
	}
	cur := ts.Tid(-1)
	frame := func() ([]ts.Step, []ts.Status, []int) {
		return make([]ts.Step, 4), make([]ts.Status, 4), make([]int, 4)
	}
	// Threads 1 and 2, then 0: the check asks thread len(path) % 4 = 3.
	path := ts.Schedule{{Thread: 1}, {Thread: 2}, {Thread: 0}}
	s := m.Sys.Init()
	for _, mv := range path[:2] {
		s = m.Apply(s, mv)
	}
	ps, pst, po := frame()
	if _, err := m.Look(s, ps, pst, po, &cur); err != nil {
		t.Fatal(err)
	}
	s = m.Apply(s, path[2])
	steps, status, outs := frame()
	if _, err := m.LookAfter(s, 0, ps, pst, po, steps, status, outs, &cur); err != nil {
		t.Fatal(err)
	}
	if !m.Kept(ps, pst, 0, 3) || steps[3].Obj != 3 {
		t.Fatalf("thread 3: kept %v, step %v", m.Kept(ps, pst, 0, 3), steps[3])
	}
	b := search.Baseline{Steps: steps, Status: status, Outs: outs, PrevSteps: ps, PrevStatus: pst, Mover: 0}
	err = m.Unchanged(s, b, path, nil, &cur)
	var se *ts.SystemError
	if !errors.Is(err, ts.ErrBadSystem) || !errors.As(err, &se) || se.Thread != 3 || !strings.Contains(err.Error(), "ts.Dependent") {
		t.Fatalf("got %v", err)
	}
	// Without the previous answers (Look asked every thread), the same
	// difference is a Next that is not a function of the state.
	b.PrevSteps, b.PrevStatus = nil, nil
	if err := m.Unchanged(s, b, path, nil, &cur); !errors.Is(err, ts.ErrNondeterministic) {
		t.Fatalf("without PrevSteps: %v", err)
	}
}
