package heapcap_test

import (
	"context"
	"testing"

	"github.com/weftlab/weft/internal/heapcap"
	"github.com/weftlab/weft/symmetry"
	"github.com/weftlab/weft/ts/tstest"
)

// Run cancels a search whose heap passes the ceiling, and says so.
func TestRunCaps(t *testing.T) {
	var kept [][]byte
	out := heapcap.Run(context.Background(), 8<<20, func(ctx context.Context) {
		for ctx.Err() == nil && len(kept) < 1<<12 {
			kept = append(kept, make([]byte, 64<<10))
		}
	})
	if !out.Capped || out.Peak <= 8<<20 {
		t.Errorf("%+v after keeping %d MB", out, len(kept)>>4)
	}
	out = heapcap.Run(context.Background(), 8<<20, func(context.Context) {})
	if out.Capped {
		t.Errorf("%+v for nothing kept", out)
	}
}

// Spread keeps the contract, and its declared symmetry shows no difference
// (it has no Permuter, so Verify accepts the claim only as observational).
func TestSpread(t *testing.T) {
	for _, shared := range []bool{false, true} {
		sys := heapcap.Spread{N: 3, K: 2, Shared: shared}
		tstest.Conformance(t, sys, tstest.ConformanceOptions{})
		if err := symmetry.Verify(sys, symmetry.VerifyOptions{Observational: true}); err != nil {
			t.Errorf("shared %v: %v", shared, err)
		}
	}
}
