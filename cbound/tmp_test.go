package cbound_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/ts/tstest"
)

func TestTmpRepro(t *testing.T) {
	p := &tstest.Program{
		Vars:  []tstest.Var{{Name: "x", Init: 1}, {Name: "s0", Init: 1, Sync: true}},
		Locks: []string{"m0"},
		Code:  [][]tstest.Instr{{tstest.Load(1, 1)}},
	}
	res, err := cbound.HBSearch(context.Background(), p, cbound.Options{Bound: 3})
	fmt.Println(res, err)
	if res.Violation != nil {
		fmt.Println(res.Violation.Err)
	}
}
