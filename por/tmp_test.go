package por_test

import (
	"context"
	"testing"

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

func TestTmpDbg(t *testing.T) {
	p := &tstest.Program{
		Vars:  []tstest.Var{{Name: "x"}, {Name: "s0", Sync: true}},
		Locks: []string{"m0"},
		Code: [][]tstest.Instr{
			{tstest.Store(1, 1), tstest.Load(0, 0)},
			{tstest.Load(0, 0)},
			{tstest.Await(1, 0), tstest.FetchAdd(0, 0, 1)},
		},
	}
	for _, s := range strategies[tstest.State]()[:2] {
		_, _ = s.f(context.Background(), p, por.Options{Options: ts.Options{KeepGoing: true,
			OnTerminal: func(st any, s ts.Schedule) { t.Log(s) }}})
		t.Log("--")
	}
}
