package mat

import (
	"context"
	"testing"

	"github.com/weftlab/weft/ts"
)

// seqSys is a straight-line system with value states: thread t makes the
// accesses of its sequence and records, per object, a running fingerprint
// of the writers' order, so that terminal states tell classes apart.
type seqSys struct{ th [][]Access }

type seqState struct {
	pos  [4]uint8
	objs [4]uint32
}

func (s seqSys) Init() seqState { return seqState{} }
func (s seqSys) Threads() int   { return len(s.th) }
func (s seqSys) Next(st seqState, t ts.Tid) (ts.Step, ts.Status) {
	if int(st.pos[t]) == len(s.th[t]) {
		return ts.Step{}, ts.Finished
	}
	a := s.th[t][st.pos[t]]
	return ts.Step{Obj: a.Obj, Op: a.Op}, ts.Enabled
}
func (s seqSys) Apply(st seqState, t ts.Tid) seqState {
	a := s.th[t][st.pos[t]]
	if a.Op != ts.Read {
		st.objs[a.Obj] = st.objs[a.Obj]*31 + uint32(t) + 1
	}
	st.pos[t]++
	return st
}

// benchThreads are two threads of 10 accesses over 3 objects.
var benchThreads = [][]Access{
	{W(x), R(y), R(z), W(y), R(x), W(z), R(y), W(x), R(z), W(y)},
	{R(x), W(z), R(x), W(y), R(z), W(x), R(y), R(z), W(z), R(x)},
}

func BenchmarkExplore(b *testing.B) {
	sys := seqSys{benchThreads}
	var trans int64
	b.ReportAllocs()
	for b.Loop() {
		res, err := Explore(context.Background(), sys, Options{})
		if err != nil {
			b.Fatal(err)
		}
		trans += res.Transitions
	}
	b.ReportMetric(float64(trans)/b.Elapsed().Seconds(), "transitions/s")
	b.ReportMetric(float64(trans)/float64(b.N), "transitions/op")
}

func BenchmarkReference(b *testing.B) {
	sys := seqSys{benchThreads}
	var trans int64
	for b.Loop() {
		res, err := ts.Explore(context.Background(), sys, ts.Options{})
		if err != nil {
			b.Fatal(err)
		}
		trans += res.Transitions
	}
	b.ReportMetric(float64(trans)/b.Elapsed().Seconds(), "transitions/s")
	b.ReportMetric(float64(trans)/float64(b.N), "transitions/op")
}

func BenchmarkAnalyze(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Analyze(benchThreads)
	}
}

func BenchmarkCount(b *testing.B) {
	tp := Analyze(benchThreads).TP
	for b.Loop() {
		Count(tp, true)
	}
}

// The search itself allocates nothing per transition: the allocations of a
// run do not grow with the transitions (only with the lattice the completer
// memoizes and the analysis).
func TestExploreAllocs(t *testing.T) {
	sys := seqSys{benchThreads}
	res, err := Explore(context.Background(), sys, Options{})
	if err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(3, func() {
		if _, err := Explore(context.Background(), sys, Options{}); err != nil {
			t.Fatal(err)
		}
	})
	if per := allocs / float64(res.Transitions); per > 0.5 {
		t.Errorf("%.0f allocations for %d transitions", allocs, res.Transitions)
	}
	t.Logf("%.0f allocations, %d transitions, %d executions", allocs, res.Transitions, res.Executions)
}
