package ts_test

import (
	"testing"
	"time"

	"github.com/weftlab/weft/ts"
)

// grid is a value-state system whose Apply allocates nothing: threads
// threads of steps steps each, thread t writing object t%objects.
type grid struct{ threads, steps, objects int }

type gridState struct{ pc [8]uint8 }

func (g grid) Init() gridState { return gridState{} }
func (g grid) Threads() int    { return g.threads }
func (g grid) Next(s gridState, t ts.Tid) (ts.Step, ts.Status) {
	if int(s.pc[t]) >= g.steps {
		return ts.Step{}, ts.Finished
	}
	return ts.Step{Obj: ts.Obj(int(t) % g.objects), Op: ts.Write}, ts.Enabled
}
func (g grid) Apply(s gridState, t ts.Tid) gridState { s.pc[t]++; return s }

// slowGrid is a grid whose Apply sleeps, so that a search of it outlasts
// the shortest progress interval whatever the machine: a test of Progress
// on a fast system would pass or fail by the clock.
type slowGrid struct{ grid }

func (g slowGrid) Apply(s gridState, t ts.Tid) gridState {
	time.Sleep(50 * time.Microsecond)
	return g.grid.Apply(s, t)
}

type hashedGrid struct{ grid }

func (hashedGrid) Hash(s gridState) uint64 {
	var h uint64
	for _, pc := range s.pc {
		h = h*31 + uint64(pc)
	}
	return h
}

// The search allocates per search, never per transition.
func TestExploreAllocations(t *testing.T) {
	for _, sys := range []ts.TransitionSystem[gridState]{grid{3, 3, 2}, hashedGrid{grid{3, 3, 2}}} {
		var res ts.Result
		allocs := testing.AllocsPerRun(5, func() { res, _ = ts.Explore(ctx, sys, ts.Options{}) })
		if res.Transitions < 3000 || allocs > 50 { // a few per frame of the stack, none per transition
			t.Errorf("%T: %.0f allocations for %d transitions; want a small constant", sys, allocs, res.Transitions)
		}
	}
}

func BenchmarkExplore(b *testing.B) {
	for _, bc := range []struct {
		name string
		sys  ts.TransitionSystem[gridState]
	}{
		{"grid-3x4", grid{3, 4, 2}},
		{"grid-3x4-hashed", hashedGrid{grid{3, 4, 2}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var trans int64
			for b.Loop() {
				res, err := ts.Explore(ctx, bc.sys, ts.Options{})
				if err != nil {
					b.Fatal(err)
				}
				trans += res.Transitions
			}
			b.ReportMetric(float64(trans)/b.Elapsed().Seconds(), "transitions/s")
		})
	}
}
