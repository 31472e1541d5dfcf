package transact_test

import (
	"context"
	"testing"

	"github.com/weftlab/weft/internal/heapcap"
	"github.com/weftlab/weft/transact"
	"github.com/weftlab/weft/ts"
)

// The transaction search keeps to Limits.Memory with its movers declared
// (no inference pass, whose own budget transact's other tests check): its
// table of states with their phases, the plain hashes and the stack.
func TestExploreKeepsMemoryBudget(t *testing.T) {
	sys := transact.WithMovers[heapcap.SpreadState](heapcap.Spread{N: 7, K: 110}, func(heapcap.SpreadState, ts.Tid) transact.Mover { return transact.NonMover })
	for _, p := range []struct {
		name string
		p    transact.Proviso
	}{{"cpc", transact.CPC}, {"cycle", transact.Cycle}} {
		heapcap.Keeps(t, p.name, func(ctx context.Context, l ts.Limits) (ts.Result, error) {
			return transact.Explore(ctx, sys, transact.Options{Proviso: p.p, Options: ts.Options{Limits: l}})
		})
	}
}
