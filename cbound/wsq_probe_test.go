package cbound_test

import (
	"context"
	"testing"
	"time"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/internal/models"
)

func TestProbeWSQ(t *testing.T) {
	for _, n := range []int{1} {
		for c := 0; c <= 4; c++ {
			t0 := time.Now()
			d, err := cbound.DFS(context.Background(), models.NewWSQ(n), cbound.Options{Bound: c})
			t1 := time.Now()
			p, err2 := cbound.POR(context.Background(), models.NewWSQ(n), cbound.Options{Bound: c})
			t2 := time.Now()
			h, err3 := cbound.HBSearch(context.Background(), models.NewWSQ(n), cbound.Options{Bound: c})
			t3 := time.Now()
			t.Logf("n=%d c=%d dfs %d (%v) por2 %d (%v, %d tr) por1 %d (%v, %d states) %v %v %v", n, c, d.Executions, t1.Sub(t0), p.Executions, t2.Sub(t1), p.Transitions, h.Executions, t3.Sub(t2), h.States, err, err2, err3)
			t.Log(p.Stats)
		}
	}
}
