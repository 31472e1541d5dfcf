package cbound_test

import (
	"context"
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
