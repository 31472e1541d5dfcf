package cbound_test

import (
	"context"
	"testing"
	"time"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/internal/models"
)

func TestProbeWSQ2(t *testing.T) {
	for _, cost := range []int64{-1, 0, -1, 0} {
		for c := 0; c <= 4; c++ {
			t1 := time.Now()
			p, _ := cbound.POR(context.Background(), models.NewWSQ(1), cbound.Options{Bound: c, MemoCost: cost})
			t2 := time.Now()
			t.Logf("cost %d c=%d por2 %d (%v, %d tr)", cost, c, p.Executions, t2.Sub(t1), p.Transitions)
		}
	}
}
