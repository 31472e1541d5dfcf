package por

import (
	"context"
	"flag"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/internal/search"
	"github.com/weftlab/weft/ts"
)

// unitTrace records, for a search run with its units explored in order on
// one goroutine and a predictor run to its end after every restart, when
// each unit's input was first known for good: what speculation could gain
// with enough workers and no overhead.
type unitTrace struct {
	taken int            // units taken so far
	since map[string]int // keys the current predictor met, with the unit count since they are met
	prev  map[string]int
	units []tracedUnit
}

type tracedUnit struct {
	since int // the unit count after which its input was known
	cost  int64
}

func (t *unitTrace) restart() {
	t.prev, t.since = t.since, map[string]int{}
}

func (t *unitTrace) emit(key string) {
	if s, ok := t.prev[key]; ok {
		t.since[key] = s
	} else if _, ok := t.since[key]; !ok {
		t.since[key] = t.taken
	}
}

func (t *unitTrace) took(key string, cost int64) {
	s, ok := t.since[key]
	if !ok {
		s = t.taken
	}
	t.units = append(t.units, tracedUnit{since: s, cost: cost})
	t.taken++
}

// makespan schedules the units on w workers: whenever a worker is free it
// takes the first unit not started whose input is known (the units before
// its since are taken), and results are taken in order. It returns the
// time the last is taken.
func (t *unitTrace) makespan(w int) int64 {
	n := len(t.units)
	finish := make([]int64, n)
	started := make([]bool, n)
	free := make([]int64, w)
	var now int64
	taken, next := 0, 0 // units taken; the first unit not started
	for taken < n {
		for taken < n && started[taken] && finish[taken] <= now {
			taken++
		}
		for k := range free {
			if free[k] > now {
				continue
			}
			for i := next; i < n; i++ {
				if !started[i] && t.units[i].since <= taken {
					started[i], finish[i] = true, now+t.units[i].cost
					free[k] = finish[i]
					break
				}
			}
			for next < n && started[next] {
				next++
			}
		}
		// On to the next finish.
		soon := int64(-1)
		for i := taken; i < n; i++ {
			if started[i] && finish[i] > now && (soon < 0 || finish[i] < soon) {
				soon = finish[i]
			}
		}
		if soon < 0 {
			if taken < n && !started[taken] {
				continue // nothing running: the next unit is ready now
			}
			break
		}
		now = soon
	}
	return now
}

func traceUnits[S any](t *testing.T, name string, sys ts.TransitionSystem[S], m mode, split int) {
	var res ts.Result
	model, err := searchModel(sys)
	if err != nil {
		t.Fatal(err)
	}
	var opt Options
	opt.Workers, opt.SplitDepth = 2, split
	tr := &unitTrace{since: map[string]int{}}
	e := newExplorer(context.Background(), sys, model, opt, m, &res, false)
	e.role, e.split = roleCoordinator, split
	p := &parallel[S]{ctx: context.Background(), cancel: func() {}, sys: sys, model: model, opt: opt, mode: m, jobs: map[string]*job{}, skip: map[string]bool{}, window: 1 << 30, trace: tr, predSys: sys, predModel: model, cloneUnits: 1 << 30, cloneMin: 1 << 30}
	p.cond = sync.NewCond(&p.mu)
	e.par = p
	if err := e.Drive(func() { e.root(); p.restart(e) }, e.loop, e.panicked); err != nil {
		t.Fatal(err)
	}
	var total int64
	early := 0 // units whose input is known four units or more before the search needs them
	for i, u := range tr.units {
		total += u.cost
		if u.since <= i-4 {
			early++
		}
	}
	t.Logf("| %s | %d | %d | %.2f | %.2f | %.2f | %.2f | %d | %s |", name, split, len(tr.units),
		float64(total)/float64(tr.makespan(2)), float64(total)/float64(tr.makespan(4)), float64(total)/float64(tr.makespan(8)), float64(total)/float64(tr.makespan(64)), early,
		insertShare(t, sys, m, split))
}

// insertShare returns, for ODPOR, the share of a serial search's time spent
// inserting into the wakeup trees of the frames above split (the best of 3
// searches), which a parallel search's coordinator does itself, in order;
// "-" for the other modes, whose coordinator's own work is small.
func insertShare[S any](t *testing.T, sys ts.TransitionSystem[S], m mode, split int) string {
	if m != modeODPOR {
		return "-"
	}
	best := 1.0
	for range 3 {
		var times []time.Duration
		var opt Options
		opt.insertTimes = &times
		start := time.Now()
		if _, err := run(context.Background(), sys, opt, m); err != nil {
			t.Fatal(err)
		}
		all := time.Since(start)
		var above time.Duration
		for _, d := range times[:min(split, len(times))] {
			above += d
		}
		best = min(best, float64(above)/float64(all))
	}
	return fmt.Sprintf("%.0f%%", 100*best)
}

var traceUnitsFlag = flag.Bool("por.units", false, "log what speculation could gain on the models the parallel search is measured on (TestParallelTrace)")

// TestParallelTrace logs, for several split depths, the speedup the
// parallel search could reach with enough workers and no overhead, from
// when each unit's input is first known for good (-por.units): the
// predictor restarts after every unit that changed the frames above and
// copies the whole wakeup trees, which the real one does not (it copies a
// few thousand nodes, as copying them all each time costs more than it
// saves).
func TestParallelTrace(t *testing.T) {
	if !*traceUnitsFlag {
		t.Skip("-por.units logs the units' dependencies")
	}
	t.Log("| model, strategy | split depth | units | 2 workers | 4 | 8 | 64 | known 4 units early | serial time inserting above the split |")
	t.Log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	// At each mode's default split depth, and at 12 for comparison.
	for _, split := range []int{0, 12} {
		at := func(m mode) int {
			if split == 0 {
				return defaultSplit(m)
			}
			return split
		}
		traceUnits(t, "lastzero-12, odpor", models.NewLastzero(12), modeODPOR, at(modeODPOR))
		traceUnits(t, "indexer-16, odpor", models.NewIndexer(16), modeODPOR, at(modeODPOR))
		traceUnits(t, "indexer-16, dpor", models.NewIndexer(16), modeDPOR, at(modeDPOR))
		traceUnits(t, "lastzero-8, sleep", models.NewLastzero(8), modeSleep, at(modeSleep))
	}
}

func searchModel[S any](sys ts.TransitionSystem[S]) (*search.Model[S], error) {
	return search.NewModel(sys)
}

// firstRestart is a unitTrace that notes how many transitions the search
// had explored when its first predictor started.
type firstRestart struct {
	*unitTrace
	res *ts.Result
	at  int64 // -1: not yet
}

func (f *firstRestart) restart() {
	if f.at < 0 {
		f.at = f.res.Transitions
	}
	f.unitTrace.restart()
}

// A search that splits deep in a subtree finishes that subtree alone, but
// its first predictor starts at the split, as if that subtree were a unit
// handed out: the units after it are known from then on. Before, the search
// waited to be back at the split depth, and lastzero-12's workers waited
// for a tenth of its search.
func TestSplitDeepHandsOutWhatFollows(t *testing.T) {
	sys := models.NewLastzero(12)
	var res ts.Result
	model, err := searchModel[models.LastzeroState](sys)
	if err != nil {
		t.Fatal(err)
	}
	var opt Options
	opt.Workers, opt.SplitDepth, opt.SplitAfter = 2, 8, 1000
	tr := &firstRestart{unitTrace: &unitTrace{since: map[string]int{}}, res: &res, at: -1}
	e := newExplorer(context.Background(), sys, model, opt, modeODPOR, &res, false)
	e.role = roleCoordinator
	p := &parallel[models.LastzeroState]{ctx: context.Background(), cancel: func() {}, sys: sys, model: model, opt: opt, mode: modeODPOR, jobs: map[string]*job{}, skip: map[string]bool{}, window: 1 << 30, trace: tr, predSys: sys, predModel: model, cloneUnits: 1 << 30, cloneMin: 1 << 30, split: 8, after: 1000}
	p.cond = sync.NewCond(&p.mu)
	e.par = p
	if err := e.Drive(e.root, e.loop, e.panicked); err != nil {
		t.Fatal(err)
	}
	serial, err := ODPOR(context.Background(), sys, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Executions != serial.Executions || res.Transitions != serial.Transitions {
		t.Fatalf("split search: %d executions, %d transitions; serial: %d, %d", res.Executions, res.Transitions, serial.Executions, serial.Transitions)
	}
	// The first execution is longer than 16 frames: the search is below
	// the split depth when it passes 1,000 transitions, and its first
	// predictor starts there.
	if tr.at < 1000 || tr.at >= 1100 {
		t.Errorf("the first predictor started after %d transitions, want 1,000 to 1,100", tr.at)
	}
	if len(tr.units) == 0 || tr.units[0].since != 0 {
		t.Fatalf("units %v: the first unit the search took was not handed out by the first predictor", tr.units)
	}
	t.Logf("first predictor after %d transitions; %d units, the first %d transitions", tr.at, len(tr.units), tr.units[0].cost)
}
