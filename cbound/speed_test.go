package cbound_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// countingLastzero counts the calls of lastzero's Hash.
type countingLastzero struct {
	*models.Lastzero
	calls *int64
}

func (c countingLastzero) Hash(s models.LastzeroState) uint64 {
	*c.calls++
	return c.Lastzero.Hash(s)
}

// The contract check costs no Hash where the state type holds no references
// (lastzero's): icb hashes each state it reaches once, for its cache (and
// the initial state), the other modes only the terminal states they count.
// (Sync-only mode replays the executions that race, and a replay hashes.)
func TestICBHashesPerTransition(t *testing.T) {
	for name, f := range icbStrategies[models.LastzeroState]() {
		if name == "icb-sync-only" {
			continue
		}
		var calls int64
		res, err := f(context.Background(), countingLastzero{models.NewLastzero(3), &calls}, ts.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := res.Executions // terminal states
		if name == "icb" {
			want = res.Transitions + 1
		}
		if calls > want {
			t.Errorf("%s: %d hashes for %d transitions, %d executions; want at most %d", name, calls, res.Transitions, res.Executions, want)
		}
	}
}

// With Hash too, every mode notices a broken contract (the state type here,
// a slice, holds a reference: the hash is checked).
func TestICBContractBreachesHashed(t *testing.T) {
	for name, f := range icbStrategies[[]int]() {
		for _, b := range tstest.Breaches {
			if _, err := f(context.Background(), tstest.Broken(b, true), ts.Options{}); !b.Noticed(err) {
				t.Errorf("%s, %v: %v", name, b, err)
			}
		}
	}
}

// boxed is a system whose states are pointers to its inner system's: a
// state type that holds a reference, so that the searches hash it for the
// contract check. It forwards every capability a search uses, answering as
// a system without it would where the inner system lacks it.
type boxed[S any] struct{ in ts.TransitionSystem[S] }

func (b boxed[S]) Init() *S                                 { s := b.in.Init(); return &s }
func (b boxed[S]) Threads() int                             { return b.in.Threads() }
func (b boxed[S]) Next(s *S, t ts.Tid) (ts.Step, ts.Status) { return b.in.Next(*s, t) }
func (b boxed[S]) Apply(s *S, t ts.Tid) *S                  { n := b.in.Apply(*s, t); return &n }
func (b boxed[S]) Hash(s *S) uint64                         { return b.in.(ts.Hasher[S]).Hash(*s) }

func (b boxed[S]) Check(s *S) error {
	if c, ok := b.in.(ts.Checker[S]); ok {
		return c.Check(*s)
	}
	return nil
}

func (b boxed[S]) Outcomes(s *S, t ts.Tid) int {
	if c, ok := b.in.(ts.Chooser[S]); ok {
		return c.Outcomes(*s, t)
	}
	return 1
}

func (b boxed[S]) ApplyOutcome(s *S, t ts.Tid, o int) *S {
	n := b.in.(ts.Chooser[S]).ApplyOutcome(*s, t, o)
	return &n
}

func (b boxed[S]) Invariant(s *S) error {
	if i, ok := b.in.(ts.Invariant[S]); ok {
		return i.Invariant(*s)
	}
	return nil
}

func (b boxed[S]) InvariantReads() []ts.Obj {
	if i, ok := b.in.(ts.Invariant[S]); ok {
		return i.InvariantReads()
	}
	return nil
}

// sameAsBoxed runs every mode on sys and on sys boxed, and fails unless they
// find the same.
func sameAsBoxed[S any](t *testing.T, name string, sys ts.TransitionSystem[S]) {
	t.Helper()
	flat, box := icbStrategies[S](), icbStrategies[*S]()
	for mode, f := range flat {
		opt := ts.Options{KeepGoing: true}
		ref, refErr := box[mode](context.Background(), boxed[S]{sys}, opt)
		got, gotErr := f(context.Background(), sys, opt)
		if (refErr == nil) != (gotErr == nil) || got.Executions != ref.Executions || got.Transitions != ref.Transitions ||
			got.States != ref.States || got.Violations != ref.Violations || !reflect.DeepEqual(got.Coverage, ref.Coverage) {
			t.Errorf("%s, %s: %+v, %v; boxed %+v, %v", name, mode, got, gotErr, ref, refErr)
		}
	}
}

// The searches find the same where the state type holds no references (no
// Hash for the contract check) as where it holds some.
func TestICBFlatStatesSameResults(t *testing.T) {
	sameAsBoxed(t, "lastzero-3", ts.TransitionSystem[models.LastzeroState](models.NewLastzero(3)))
	sameAsBoxed(t, "philosophers-3", ts.TransitionSystem[models.PhilosophersState](models.NewPhilosophers(3)))
	sameAsBoxed(t, "wsq-1", ts.TransitionSystem[models.WSQState](models.NewWSQ(1)))
	sameAsBoxed(t, "bluetooth-2", ts.TransitionSystem[models.BluetoothState](models.NewBluetooth(2)))
	sameAsBoxed(t, "twophase-2", ts.TransitionSystem[models.TwoPhaseState](models.NewTwoPhase(2)))
}
