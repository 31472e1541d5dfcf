package cbound

import (
	"github.com/weftlab/weft/ts"
)

// raced checks the execution that just ended (e.sched, e.steps) for data
// races and reports the first as a violation. Sync-only search is sound only
// with this check (ICB paper, Theorems 2 and 3): an execution that holds no
// race reaches, through sync-only scheduling points, every terminal state the
// full search reaches; one that holds a race is itself the bug.
func (e *icb[S]) raced() bool {
	e.det.Reset()
	for i, m := range e.sched {
		t := m.Thread
		races := e.det.Step(t, e.steps[i])
		if len(races) == 0 {
			continue
		}
		race := races[0]
		sched := e.sched[:i+1].Clone()
		run, err := ts.Replay(e.sys, sched)
		if err != nil {
			e.Fail(err)
			return true
		}
		e.Record(&ts.Violation{Kind: ts.DataRace, Err: race, Thread: t, Trace: run.Trace})
		return true
	}
	return false
}
