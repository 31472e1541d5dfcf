package threads_test

import (
	"fmt"
	"testing"

	"github.com/weftlab/weft/sim"
	"github.com/weftlab/weft/threads"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
	"pgregory.net/rapid"
)

// randomProgram draws 2 or 3 threads of a few operations each over two
// variables, an atomic, a mutex, a buffered and an unbuffered channel, and
// choices. Deadlocks may happen; assertions do not.
func randomProgram(t *rapid.T) (*threads.Program, string) {
	nth := rapid.IntRange(2, 3).Draw(t, "threads")
	type objs struct {
		x, y *threads.Var[int]
		a    *threads.AtomicInt[int]
		mu   *threads.Mutex
		b, u *threads.Chan[int]
	}
	var o objs
	ops := make([][]int, nth)
	desc := ""
	for i := range ops {
		ops[i] = rapid.SliceOfN(rapid.IntRange(0, 9), 1, 3).Draw(t, fmt.Sprintf("ops%d", i))
		desc += fmt.Sprint(ops[i])
	}
	p := &threads.Program{MaxThreads: nth}
	for i := range nth {
		p.Threads = append(p.Threads, func(t *threads.T) {
			if i == 0 {
				o = objs{threads.NewVar(t, "x", 0), threads.NewVar(t, "y", 0), threads.NewAtomicInt(t, "a", 0),
					threads.NewMutex(t, "mu"), threads.NewChan[int](t, "b", 1), threads.NewChan[int](t, "u", 0)}
			}
			acc := 0
			for _, k := range ops[i] {
				switch k {
				case 0:
					acc += o.x.Load(t)
				case 1:
					o.x.Store(t, acc+i)
				case 2:
					acc += o.y.Load(t)
				case 3:
					o.mu.Lock(t)
					o.y.Store(t, o.y.Load(t)+1)
					o.mu.Unlock(t)
				case 4:
					acc += o.a.Add(t, 1)
				case 5:
					o.b.Send(t, acc)
				case 6:
					acc += o.b.Recv(t)
				case 7:
					threads.Select(t, o.u.SendCase(acc), o.b.RecvCase(&acc, nil))
				case 8:
					acc += o.u.Recv(t)
				case 9:
					acc += t.Choose(2)
				}
			}
		})
	}
	return p, desc
}

// TestRandomOptimal: on random programs, ODPOR explores exactly one
// execution per Mazurkiewicz trace and reaches every terminal state and
// deadlock ts.Explore reaches.
func TestRandomOptimal(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		p, desc := randomProgram(rt)
		sys := p.MustSystem()
		defer sys.Close()
		rep, err := tstest.CompareOptimal[sim.State](t.Context(), sys, odpor, tstest.ReductionOptions{Bound: ts.NoBound, Key: traceKeyed(sys)})
		if err != nil {
			rt.Fatalf("%s: %v", desc, err)
		}
		for _, e := range rep.Errors {
			rt.Errorf("%s: %v", desc, e)
		}
	})
}
