package threads_test

import (
	"context"
	"testing"

	"github.com/weftlab/weft"
	"github.com/weftlab/weft/threads"
	"github.com/weftlab/weft/ts"
)

// The same program written both ways: benchThreads threads each increment
// a shared counter benchIncs times without a lock, reading and writing it
// in separate steps.
const (
	benchThreads = 3
	benchIncs    = 2
)

// explicitCounter is the program as a hand-written state machine.
type explicitCounter struct{}

type ecState struct {
	pc      [benchThreads]int8 // 2*i: read of increment i, 2*i+1: its write
	r       [benchThreads]int8
	counter int8
}

func (explicitCounter) Init() ecState { return ecState{} }
func (explicitCounter) Threads() int  { return benchThreads }
func (explicitCounter) Next(s ecState, t ts.Tid) (ts.Step, ts.Status) {
	switch {
	case s.pc[t] == 2*benchIncs:
		return ts.Step{}, ts.Finished
	case s.pc[t]%2 == 0:
		return ts.Step{Obj: 1, Op: ts.Read}, ts.Enabled
	}
	return ts.Step{Obj: 1, Op: ts.Write}, ts.Enabled
}
func (explicitCounter) Apply(s ecState, t ts.Tid) ecState {
	if s.pc[t]%2 == 0 {
		s.r[t] = s.counter
	} else {
		s.counter = s.r[t] + 1
	}
	s.pc[t]++
	return s
}

// threadsCounter is the program as ordinary Go.
func threadsCounter() *threads.Program {
	var n *threads.Var[int]
	p := &threads.Program{MaxThreads: benchThreads}
	for i := range benchThreads {
		p.Threads = append(p.Threads, func(t *threads.T) {
			if i == 0 {
				n = threads.NewVar(t, "n", 0) // before any other thread's step
			}
			for range benchIncs {
				n.Store(t, n.Load(t)+1)
			}
		})
	}
	return p
}

// BenchmarkVisibleAccess explores every interleaving of the counter
// program with DFS, written both ways, in one run: compare transitions/s
// and allocs/op between the two sub-benchmarks.
func BenchmarkVisibleAccess(b *testing.B) {
	opt := ts.Options{}
	b.Run("explicit", func(b *testing.B) {
		b.ReportAllocs()
		var tr int64
		for b.Loop() {
			res, err := weft.Run(context.Background(), explicitCounter{}, weft.DFS(), opt)
			if err != nil {
				b.Fatal(err)
			}
			tr += res.Transitions
		}
		b.ReportMetric(float64(tr)/b.Elapsed().Seconds(), "transitions/s")
		b.ReportMetric(float64(tr)/float64(b.N), "transitions/op")
	})
	b.Run("threads", func(b *testing.B) {
		b.ReportAllocs()
		var tr int64
		for b.Loop() {
			sys := threadsCounter().MustSystem()
			res, err := weft.Run(context.Background(), sys, weft.DFS(), opt)
			if err != nil {
				b.Fatal(err)
			}
			tr += res.Transitions
		}
		b.ReportMetric(float64(tr)/b.Elapsed().Seconds(), "transitions/s")
		b.ReportMetric(float64(tr)/float64(b.N), "transitions/op")
	})
}

// TestSameExecutions: the two versions of the benchmark's program have the
// same executions.
func TestSameExecutions(t *testing.T) {
	a, err := weft.Run(context.Background(), explicitCounter{}, weft.DFS(), ts.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := weft.Run(context.Background(), threadsCounter().MustSystem(), weft.DFS(), ts.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Executions != b.Executions {
		t.Errorf("explicit: %v; threads: %v", a, b)
	}
	t.Logf("explicit: %v; threads: %v", a, b)
}
