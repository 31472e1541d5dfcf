package por

import (
	"context"
	"sync"
	"testing"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/ts"
)

type countTrace struct {
	unitTrace
	keys     map[string]int // first restart index
	emits    int
	restarts int
	used     map[string]bool
}

func (c *countTrace) restart() { c.restarts++; c.unitTrace.restart() }
func (c *countTrace) emit(k string) {
	c.emits++
	if _, ok := c.keys[k]; !ok {
		c.keys[k] = c.restarts
	}
	c.unitTrace.emit(k)
}
func (c *countTrace) took(k string, n int64) { c.used[k] = true; c.unitTrace.took(k, n) }

func TestParDbg6(t *testing.T) {
	for _, split := range []int{6, 10} {
		sys := models.NewLastzero(12)
		var res ts.Result
		model, _ := searchModel[models.LastzeroState](sys)
		var opt Options
		opt.Workers, opt.SplitDepth = 2, split
		tr := &countTrace{unitTrace: unitTrace{since: map[string]int{}}, keys: map[string]int{}, used: map[string]bool{}}
		e := newExplorer(context.Background(), sys, model, opt, modeODPOR, &res)
		e.role, e.split = roleCoordinator, split
		p := &parallel[models.LastzeroState]{ctx: context.Background(), cancel: func() {}, sys: sys, model: model, opt: opt, mode: modeODPOR, jobs: map[string]*job{}, skip: map[string]bool{}, window: 1 << 30, trace: tr, predSys: sys, predModel: model}
		p.cond = sync.NewCond(&p.mu)
		e.par = p
		e.Drive(func() { e.root(); p.restart(e) }, e.loop, e.panicked)
		usedEmitted := 0
		for k := range tr.keys {
			if tr.used[k] {
				usedEmitted++
			}
		}
		t.Logf("split %d: units %d restarts %d emits %d distinct keys %d of which used %d", split, len(tr.units), tr.restarts, tr.emits, len(tr.keys), usedEmitted)
	}
}
