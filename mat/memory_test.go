package mat

import (
	"context"
	"errors"
	"testing"

	"github.com/weftlab/weft/internal/heapcap"
	"github.com/weftlab/weft/ts"
)

// Explore keeps to Limits.Memory: seven threads of 110 writes of one object
// have some 250,000 MATs (12 MB), which the analysis used to build, with a
// list of every token-passing pair beside them, before a search that
// counted nothing.
func TestExploreKeepsMemoryBudget(t *testing.T) {
	for _, sys := range []heapcap.Spread{{N: 7, K: 110, Shared: true}, {N: 2, K: 250, Shared: true}} {
		heapcap.Keeps(t, "mat", func(ctx context.Context, l ts.Limits) (ts.Result, error) {
			return Explore(ctx, sys, Options{Options: ts.Options{Limits: l}})
		})
	}
}

// Threads too long for the token-passing sets within the budget are
// refused before anything is allocated.
func TestExploreRefusesPairsPastTheBudget(t *testing.T) {
	_, err := Explore(context.Background(), heapcap.Spread{N: 2, K: 250}, Options{Options: ts.Options{Limits: ts.Limits{Memory: 10_000}}})
	if !errors.Is(err, ts.ErrMemory) {
		t.Errorf("%v, want ts.ErrMemory", err)
	}
}

// The completer stops, at its next 4096 entries, once it is told that
// memory is short, and does not keep the answers of a search it cut short:
// here no prefix completes (no pair leads from ⊣a to thread b, and ⊣b comes
// after ⊣a), so one call visits the whole lattice, some 30,000 entries.
func TestCompleterStopsWhenMemoryIsShort(t *testing.T) {
	tp := AllPairs([]int{100, 100})
	for y := range 101 {
		k := tp.index(Event{0, 100})*tp.m + tp.index(Event{1, y})
		tp.bits[k/64] &^= 1 << (k % 64)
	}
	c := newCompleter(newLattice(tp, true))
	asked := 0
	c.full = func() bool { asked++; return true }
	pos := []int{0, 0}
	if c.ok(pos, -1) || !c.stopped || asked != 1 || len(c.memo) > 4096 {
		t.Errorf("stopped %v after %d questions with %d entries", c.stopped, asked, len(c.memo))
	}
	c2 := newCompleter(newLattice(tp, true))
	if c2.ok(pos, -1) || len(c2.memo) < 4096 {
		t.Errorf("without a memory check: %d entries, want the lattice", len(c2.memo))
	}
}
