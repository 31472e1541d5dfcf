package threads_test

import (
	"context"
	"slices"
	"testing"

	"github.com/weftlab/weft"
	"github.com/weftlab/weft/threads"
	"github.com/weftlab/weft/ts"
)

// TestSemantics checks each primitive against Go's semantics on small
// programs, under DFS (every interleaving) and ODPOR.
func TestSemantics(t *testing.T) {
	cases := []struct {
		name  string
		main  func(*threads.T)
		want  ts.ViolationKind // 0 with ok: clean
		ok    bool
		leaks bool // Program.Leaks
	}{
		{"unbuffered rendezvous", func(t *threads.T) {
			ch := threads.NewChan[int](t, "ch", 0)
			got := threads.NewAtomic(t, "got", 0)
			t.Go(func(t *threads.T) { got.Store(t, ch.Recv(t)) })
			ch.Send(t, 7)
			// The send returned: the receiver has the value (it may not
			// have stored it yet).
			v := got.Load(t)
			t.Assert(v == 0 || v == 7, "got %d", v)
		}, 0, true, false},
		{"unbuffered send blocks without receiver", func(t *threads.T) {
			ch := threads.NewChan[int](t, "ch", 0)
			ch.Send(t, 1)
		}, ts.Deadlock, false, false},
		{"buffered send fills then blocks", func(t *threads.T) {
			ch := threads.NewChan[int](t, "ch", 1)
			ch.Send(t, 1)
			ch.Send(t, 2)
		}, ts.Deadlock, false, false},
		{"buffered fifo", func(t *threads.T) {
			ch := threads.NewChan[int](t, "ch", 2)
			t.Go(func(t *threads.T) { ch.Send(t, 1); ch.Send(t, 2); ch.Send(t, 3); ch.Close(t) })
			var got []int
			for {
				v, ok := ch.Recv2(t)
				if !ok {
					break
				}
				got = append(got, v)
			}
			t.Assert(slices.Equal(got, []int{1, 2, 3}), "got %v", got)
		}, 0, true, false},
		{"close wakes receivers", func(t *threads.T) {
			ch := threads.NewChan[int](t, "ch", 0)
			wg := threads.NewWaitGroup(t, "wg")
			wg.Add(t, 2)
			for range 2 {
				t.Go(func(t *threads.T) {
					defer wg.Done(t)
					_, ok := ch.Recv2(t)
					t.Assert(!ok, "received from a closed channel with no sender")
				})
			}
			ch.Close(t)
			wg.Wait(t)
		}, 0, true, false},
		{"select meets a plain receive", func(t *threads.T) {
			a := threads.NewChan[int](t, "a", 0)
			b := threads.NewChan[int](t, "b", 0)
			t.Go(func(t *threads.T) { a.Recv(t) })
			i := threads.Select(t, a.SendCase(1), b.SendCase(2))
			t.Assert(i == 0, "case %d", i)
		}, 0, true, false},
		{"two selects do not meet (a limit of the model)", func(t *threads.T) {
			a := threads.NewChan[int](t, "a", 0)
			b := threads.NewChan[int](t, "b", 0)
			t.Go(func(t *threads.T) {
				var v int
				threads.Select(t, a.RecvCase(&v, nil), b.SendCase(2))
			})
			var v int
			i := threads.Select(t, a.SendCase(1), b.RecvCase(&v, nil))
			t.Assert(i == 0 || v == 2, "case %d, v %d", i, v)
		}, ts.Deadlock, false, false},
		{"select default", func(t *threads.T) {
			a := threads.NewChan[int](t, "a", 0)
			i := threads.Select(t, a.RecvCase(nil, nil), threads.Default())
			t.Assert(i == 1, "case %d", i)
		}, 0, true, false},
		{"select explores every ready case", func(t *threads.T) {
			a := threads.NewChan[int](t, "a", 1)
			b := threads.NewChan[int](t, "b", 1)
			a.Send(t, 1)
			b.Send(t, 2)
			i := threads.Select(t, a.RecvCase(nil, nil), b.RecvCase(nil, nil))
			t.Assert(i == 0, "took case %d", i) // fails on the outcome that takes b
		}, ts.CheckFailure, false, false},
		{"select with no case blocks", func(t *threads.T) { threads.Select(t) }, ts.Deadlock, false, false},
		{"choose explores every value", func(t *threads.T) {
			t.Assert(t.Choose(3) != 2, "chose 2")
		}, ts.CheckFailure, false, false},
		{"once runs f once", func(t *threads.T) {
			once := threads.NewOnce(t, "once")
			n := threads.NewAtomicInt(t, "n", 0)
			wg := threads.NewWaitGroup(t, "wg")
			wg.Add(t, 1)
			t.Go(func(t *threads.T) { defer wg.Done(t); once.Do(t, func() { n.Add(t, 1) }) })
			once.Do(t, func() { n.Add(t, 1) })
			wg.Wait(t)
			t.Assert(n.Load(t) == 1, "f ran %d times", n.Load(t))
		}, 0, true, false},
		{"readers share an RWMutex", func(t *threads.T) {
			rw := threads.NewRWMutex(t, "rw")
			ch := threads.NewChan[int](t, "ch", 0)
			t.Go(func(t *threads.T) { rw.RLock(t); ch.Send(t, 1); rw.RUnlock(t) })
			rw.RLock(t)
			ch.Recv(t) // both hold the read lock here
			rw.RUnlock(t)
		}, 0, true, false},
		{"writer excludes readers", func(t *threads.T) {
			rw := threads.NewRWMutex(t, "rw")
			x := threads.NewVar(t, "x", 0)
			t.Go(func(t *threads.T) { rw.Lock(t); x.Store(t, 1); x.Store(t, 2); rw.Unlock(t) })
			rw.RLock(t)
			v := x.Load(t)
			rw.RUnlock(t)
			t.Assert(v != 1, "read a half-done write")
		}, 0, true, false},
		{"cond broadcast wakes all", func(t *threads.T) {
			mu := threads.NewMutex(t, "mu")
			c := threads.NewCond(t, "c", mu)
			ready := false
			wg := threads.NewWaitGroup(t, "wg")
			wg.Add(t, 2)
			for range 2 {
				t.Go(func(t *threads.T) {
					defer wg.Done(t)
					mu.Lock(t)
					for !ready {
						c.Wait(t)
					}
					mu.Unlock(t)
				})
			}
			mu.Lock(t)
			ready = true
			c.Broadcast(t)
			mu.Unlock(t)
			wg.Wait(t)
		}, 0, true, false},
		{"cond signal wakes one", func(t *threads.T) {
			mu := threads.NewMutex(t, "mu")
			c := threads.NewCond(t, "c", mu)
			for range 2 {
				t.Go(func(t *threads.T) { mu.Lock(t); c.Wait(t); mu.Unlock(t) })
			}
			mu.Lock(t)
			c.Signal(t) // one waiter (if any yet) stays asleep: a leak
			mu.Unlock(t)
		}, ts.Deadlock, false, true},
		{"a goroutine left waiting after main returns is idle", func(t *threads.T) {
			ch := threads.NewChan[int](t, "requests", 0)
			t.Go(func(t *threads.T) { t.Name("server"); ch.Recv(t) })
		}, 0, true, false},
		{"and a leak with Leaks", func(t *threads.T) {
			ch := threads.NewChan[int](t, "requests", 0)
			t.Go(func(t *threads.T) { t.Name("server"); ch.Recv(t) })
		}, ts.Deadlock, false, true},
		{"unlock of unlocked mutex", func(t *threads.T) {
			threads.NewMutex(t, "mu").Unlock(t)
		}, ts.CheckFailure, false, false},
		{"user panic", func(t *threads.T) {
			var xs []int
			t.Assert(len(xs) == 0, "")
			_ = xs[t.Choose(1)] // index out of range
		}, ts.CheckFailure, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, s := range []weft.Strategy{weft.DFS(), weft.ODPOR()} {
				p := threads.New(c.main)
				p.Leaks = c.leaks
				res, err := weft.Run(context.Background(), p.MustSystem(), s, ts.Options{})
				if err != nil {
					t.Fatalf("%v: %v", s, err)
				}
				switch {
				case c.ok && (res.Violation != nil || !res.Complete):
					t.Errorf("%v: want clean, got %v\n%v", s, res, res.Violation.Trace.String())
				case !c.ok && (res.Violation == nil || res.Violation.Kind != c.want):
					t.Errorf("%v: want %v, got %v", s, c.want, res)
				case !c.ok:
					t.Logf("%v: %v", s, res.Violation.Err)
				}
			}
		})
	}
}
