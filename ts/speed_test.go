package ts_test

import (
	"errors"
	"testing"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/ts"
)

// hashCounting counts the calls of its system's Hash.
type hashCounting[S any] struct {
	ts.TransitionSystem[S]
	h     ts.Hasher[S]
	calls *int64
}

func (c hashCounting[S]) Hash(s S) uint64 { *c.calls++; return c.h.Hash(s) }

func countHashes[S any, T interface {
	ts.TransitionSystem[S]
	ts.Hasher[S]
}](sys T, calls *int64) ts.TransitionSystem[S] {
	return hashCounting[S]{sys, sys, calls}
}

// sliceGrid is grid with its program counters in a slice, cloned by Apply:
// a state type that holds a reference, so that the search must check that
// Apply leaves it alone.
type sliceGrid struct{ grid }

func (g sliceGrid) Init() []uint8 { return make([]uint8, g.threads) }
func (g sliceGrid) Next(s []uint8, t ts.Tid) (ts.Step, ts.Status) {
	var gs gridState
	copy(gs.pc[:], s)
	return g.grid.Next(gs, t)
}
func (g sliceGrid) Apply(s []uint8, t ts.Tid) []uint8 {
	c := append([]uint8(nil), s...)
	c[t]++
	return c
}
func (sliceGrid) Hash(s []uint8) uint64 {
	var h uint64
	for _, pc := range s {
		h = h*31 + uint64(pc)
	}
	return h
}

// The contract check (an Apply that modified its argument) costs at most one
// Hash per transition, the visited table's included, and none where the
// state type holds no references; the initial state is hashed too.
func TestHashesPerTransition(t *testing.T) {
	var calls int64
	for _, c := range []struct {
		name string
		run  func(stateful bool) (ts.Result, error)
		flat bool
	}{
		{"lastzero-3", func(stateful bool) (ts.Result, error) {
			sys := countHashes[models.LastzeroState](models.NewLastzero(3), &calls)
			if stateful {
				return ts.ExploreStateful(ctx, sys, ts.Options{})
			}
			return ts.Explore(ctx, sys, ts.Options{})
		}, true},
		{"slice-grid", func(stateful bool) (ts.Result, error) {
			sys := countHashes[[]uint8](sliceGrid{grid{3, 3, 2}}, &calls)
			if stateful {
				return ts.ExploreStateful(ctx, sys, ts.Options{})
			}
			return ts.Explore(ctx, sys, ts.Options{})
		}, false},
	} {
		for _, stateful := range []bool{false, true} {
			calls = 0
			res, err := c.run(stateful)
			if err != nil {
				t.Fatal(err)
			}
			want := int64(0) // flat, stateless: no Hash at all
			switch {
			case stateful && !c.flat:
				// the visited table's, and the check's where the
				// search leaves a state with several moves
				want = 2*res.Transitions + 1
			case stateful || !c.flat:
				want = res.Transitions + 1
			}
			if calls > want {
				t.Errorf("%s stateful=%v: %d hashes for %d transitions, want at most %d", c.name, stateful, calls, res.Transitions, want)
			}
		}
	}
}

// lateFlakyCheck is grid whose Check fails at terminal states until it has
// been called there failUntil times: the violations found late do not
// replay.
type lateFlakyCheck struct {
	grid
	calls     *int
	failUntil int
}

func (f lateFlakyCheck) Check(s gridState) error {
	for t := range f.threads {
		if int(s.pc[t]) < f.steps {
			return nil
		}
	}
	*f.calls++
	if *f.calls <= f.failUntil {
		return errors.New("boom")
	}
	return nil
}

// A violation the search only counts (KeepGoing, not the first) is still
// confirmed by replay: one that does not replay is an error.
func TestCountedViolationConfirmed(t *testing.T) {
	calls := 0
	// The first violation: found (1), replayed (2). The second: found (3),
	// replay passes (4).
	res, err := ts.Explore(ctx, lateFlakyCheck{grid{2, 1, 1}, &calls, 3}, ts.Options{KeepGoing: true})
	if !errors.Is(err, ts.ErrNondeterministic) || res.Violations != 1 {
		t.Fatalf("got %d violations, %v; want 1 and ErrNondeterministic", res.Violations, err)
	}
	calls = 0
	res, err = ts.Explore(ctx, lateFlakyCheck{grid{2, 1, 1}, &calls, 1 << 30}, ts.Options{KeepGoing: true})
	if err != nil || res.Violations != 2 || res.Violation == nil || len(res.Violation.Trace.Events) != 2 {
		t.Fatalf("got %+v, %v; want 2 violations, the first with its trace", res, err)
	}
}

// failingGrid is grid whose every terminal state fails its check, counting
// the calls of Apply.
type failingGrid struct {
	grid
	applies *int64
}

func (f failingGrid) Apply(s gridState, t ts.Tid) gridState {
	*f.applies++
	return f.grid.Apply(s, t)
}

func (f failingGrid) Check(s gridState) error {
	for t := range f.threads {
		if int(s.pc[t]) < f.steps {
			return nil
		}
	}
	return errors.New("end")
}

// The replays that confirm the violations a search only counts go on from
// the part of the schedule the last one shares (the state type is flat):
// they take no more transitions than the search, plus one execution for the
// first violation's full replay and one for the first shared replay.
func TestCountedViolationsReplayShared(t *testing.T) {
	var applies int64
	g := grid{3, 2, 1}
	res, err := ts.Explore(ctx, failingGrid{g, &applies}, ts.Options{KeepGoing: true})
	if err != nil || res.Violations != 90 {
		t.Fatalf("got %d violations, %v; want 90", res.Violations, err)
	}
	depth := int64(g.threads * g.steps)
	if want := 2*res.Transitions + 2*depth; applies > want {
		t.Errorf("%d calls of Apply for %d transitions, want at most %d", applies, res.Transitions, want)
	}
}
