package gobugs

import (
	"github.com/weftlab/weft"
	"github.com/weftlab/weft/threads"
	"github.com/weftlab/weft/ts"
)

// Kernel is one bug and its fix.
type Kernel struct {
	Name  string
	About string
	// Kind is the violation the bug shows.
	Kind ts.ViolationKind
	// Strategy finds it (sync-only for data races, ODPOR otherwise).
	Strategy weft.Strategy
	// Buggy and Fixed build the two programs.
	Buggy, Fixed func() *threads.Program
}

// Kernels returns the suite.
func Kernels() []Kernel {
	odpor, races := weft.ODPOR(), weft.SyncOnly()
	return []Kernel{
		{"leak-unbuffered-timeout", "a worker's result is sent on an unbuffered channel; the caller gave up (a timeout, modelled as a choice) and the worker blocks forever",
			ts.Deadlock, odpor, leakTimeout(false), leakTimeout(true)},
		{"lock-order-inversion", "two goroutines take two mutexes in opposite orders",
			ts.Deadlock, odpor, lockOrder(false), lockOrder(true)},
		{"missing-unlock-early-return", "an error path returns without unlocking; the next Lock blocks forever",
			ts.Deadlock, odpor, earlyReturn(false), earlyReturn(true)},
		{"recursive-rlock", "a reader takes the read lock again while a writer waits: Go's RWMutex blocks new readers, so all three wait",
			ts.Deadlock, odpor, recursiveRLock(false), recursiveRLock(true)},
		{"wg-add-in-goroutine", "wg.Add is called inside the goroutine, so Wait may return before it runs",
			ts.CheckFailure, odpor, wgAddInside(false), wgAddInside(true)},
		{"wg-missing-done", "a goroutine returns early on an error without calling Done; Wait blocks forever",
			ts.Deadlock, odpor, wgMissingDone(false), wgMissingDone(true)},
		{"wg-negative", "Done is called twice on one path: negative WaitGroup counter",
			ts.CheckFailure, odpor, wgNegative(false), wgNegative(true)},
		{"send-on-closed", "a producer sends after the consumer side closed the channel",
			ts.CheckFailure, odpor, sendOnClosed(false), sendOnClosed(true)},
		{"double-close", "two goroutines each close a shared quit channel when they stop",
			ts.CheckFailure, odpor, doubleClose(false), doubleClose(true)},
		{"select-no-default", "a non-blocking notify written as a select without default blocks when no one listens",
			ts.Deadlock, odpor, selectNoDefault(false), selectNoDefault(true)},
		{"range-unclosed", "a consumer ranges over a channel the producer never closes",
			ts.Deadlock, odpor, rangeUnclosed(false), rangeUnclosed(true)},
		{"cond-signal-lost", "a waiter checks the condition outside the lock, so a Signal between the check and Wait is lost",
			ts.Deadlock, odpor, lostSignal(false), lostSignal(true)},
		{"race-counter", "two goroutines increment a shared counter without a lock",
			ts.DataRace, races, raceCounter(false), raceCounter(true)},
		{"race-captured-err", "goroutines write a captured error variable that the caller reads after a channel receive of only one of them",
			ts.DataRace, races, raceErr(false), raceErr(true)},
		{"race-map-publish", "a result is published by a plain flag that another goroutine polls (with a bounded retry)",
			ts.DataRace, races, racePublish(false), racePublish(true)},
		{"check-then-act", "a cache fill checks under one lock and fills under another, so two goroutines both fill",
			ts.CheckFailure, odpor, checkThenAct(false), checkThenAct(true)},
		{"once-bypassed", "an error path closes a connection directly while the normal path closes it through a Once (double close)",
			ts.CheckFailure, odpor, onceClose(false), onceClose(true)},
	}
}

func prog(f func(t *threads.T)) func() *threads.Program {
	return func() *threads.Program { return threads.New(f) }
}

// leaks is prog for a bug that leaks a goroutine: Go ends the program when
// main returns, so only a leak check (Program.Leaks) reports it.
func leaks(f func(t *threads.T)) func() *threads.Program {
	return func() *threads.Program {
		p := threads.New(f)
		p.Leaks = true
		return p
	}
}

func leakTimeout(fixed bool) func() *threads.Program {
	return leaks(func(t *threads.T) {
		n := 0
		if fixed {
			n = 1 // a buffer of one: the worker never waits
		}
		result := threads.NewChan[int](t, "result", n)
		t.Go(func(t *threads.T) { t.Name("worker"); result.Send(t, 42) })
		if t.Choose(2) == 1 { // the timeout fires first
			return
		}
		result.Recv(t)
	})
}

func lockOrder(fixed bool) func() *threads.Program {
	return prog(func(t *threads.T) {
		a, b := threads.NewMutex(t, "a"), threads.NewMutex(t, "b")
		t.Go(func(t *threads.T) {
			first, second := b, a
			if fixed {
				first, second = a, b
			}
			first.Lock(t)
			second.Lock(t)
			second.Unlock(t)
			first.Unlock(t)
		})
		a.Lock(t)
		b.Lock(t)
		b.Unlock(t)
		a.Unlock(t)
	})
}

func earlyReturn(fixed bool) func() *threads.Program {
	return prog(func(t *threads.T) {
		mu := threads.NewMutex(t, "mu")
		update := func(t *threads.T, bad bool) bool {
			mu.Lock(t)
			if fixed {
				defer mu.Unlock(t)
			}
			if bad {
				return false // the bug: no unlock
			}
			if !fixed {
				mu.Unlock(t)
			}
			return true
		}
		t.Go(func(t *threads.T) { update(t, t.Choose(2) == 1) })
		update(t, false)
	})
}

func recursiveRLock(fixed bool) func() *threads.Program {
	return prog(func(t *threads.T) {
		rw := threads.NewRWMutex(t, "rw")
		t.Go(func(t *threads.T) { t.Name("writer"); rw.Lock(t); rw.Unlock(t) })
		rw.RLock(t)
		if !fixed {
			rw.RLock(t) // a helper that takes the read lock again
			rw.RUnlock(t)
		}
		rw.RUnlock(t)
	})
}

func wgAddInside(fixed bool) func() *threads.Program {
	return prog(func(t *threads.T) {
		var wg = threads.NewWaitGroup(t, "wg")
		done := threads.NewAtomic(t, "done", false)
		if fixed {
			wg.Add(t, 1)
		}
		t.Go(func(t *threads.T) {
			if !fixed {
				wg.Add(t, 1)
			}
			done.Store(t, true)
			wg.Done(t)
		})
		wg.Wait(t)
		t.Assert(done.Load(t), "Wait returned before the goroutine ran")
	})
}

func wgMissingDone(fixed bool) func() *threads.Program {
	return prog(func(t *threads.T) {
		wg := threads.NewWaitGroup(t, "wg")
		wg.Add(t, 2)
		for range 2 {
			t.Go(func(t *threads.T) {
				if fixed {
					defer wg.Done(t)
				}
				if t.Choose(2) == 1 {
					return // an error: the bug skips Done
				}
				if !fixed {
					wg.Done(t)
				}
			})
		}
		wg.Wait(t)
	})
}

func wgNegative(fixed bool) func() *threads.Program {
	return prog(func(t *threads.T) {
		wg := threads.NewWaitGroup(t, "wg")
		wg.Add(t, 1)
		t.Go(func(t *threads.T) {
			defer wg.Done(t)
			if t.Choose(2) == 1 && !fixed {
				wg.Done(t) // done "early" on an error path, then again by the defer
			}
		})
		wg.Wait(t)
	})
}

func sendOnClosed(fixed bool) func() *threads.Program {
	return prog(func(t *threads.T) {
		ch := threads.NewChan[int](t, "ch", 1)
		done := threads.NewChan[struct{}](t, "done", 0)
		t.Go(func(t *threads.T) {
			t.Name("producer")
			for i := range 2 {
				if fixed {
					if threads.Select(t, ch.SendCase(i), done.RecvCase(nil, nil)) == 1 {
						return
					}
					continue
				}
				ch.Send(t, i)
			}
		})
		ch.Recv(t)
		if fixed {
			done.Close(t) // tell the producer to stop; it owns ch
			return
		}
		ch.Close(t) // the consumer closes a channel it does not own
	})
}

func doubleClose(fixed bool) func() *threads.Program {
	return prog(func(t *threads.T) {
		quit := threads.NewChan[struct{}](t, "quit", 0)
		once := threads.NewOnce(t, "closeOnce")
		stop := func(t *threads.T) {
			if fixed {
				once.Do(t, func() { quit.Close(t) })
				return
			}
			quit.Close(t)
		}
		t.Go(stop)
		stop(t)
	})
}

func selectNoDefault(fixed bool) func() *threads.Program {
	return prog(func(t *threads.T) {
		n := 0
		if fixed {
			n = 1 // a notification waits for a listener that starts later
		}
		notify := threads.NewChan[int](t, "notify", n)
		listening := t.Choose(2) == 1
		if listening {
			t.Go(func(t *threads.T) { notify.Recv(t) })
		}
		cases := []threads.Case{notify.SendCase(1)}
		if fixed {
			cases = append(cases, threads.Default())
		}
		threads.Select(t, cases...)
	})
}

func rangeUnclosed(fixed bool) func() *threads.Program {
	return prog(func(t *threads.T) {
		jobs := threads.NewChan[int](t, "jobs", 2)
		t.Go(func(t *threads.T) {
			t.Name("producer")
			jobs.Send(t, 1)
			jobs.Send(t, 2)
			if fixed {
				jobs.Close(t)
			}
		})
		for { // for j := range jobs
			if _, ok := jobs.Recv2(t); !ok {
				return
			}
		}
	})
}

func lostSignal(fixed bool) func() *threads.Program {
	return prog(func(t *threads.T) {
		mu := threads.NewMutex(t, "mu")
		cond := threads.NewCond(t, "cond", mu)
		ready := threads.NewVar(t, "ready", false)
		t.Go(func(t *threads.T) {
			t.Name("signaller")
			mu.Lock(t)
			ready.Store(t, true)
			mu.Unlock(t)
			if !fixed {
				cond.Signal(t) // outside the lock: may come between check and Wait
				return
			}
			mu.Lock(t)
			cond.Signal(t)
			mu.Unlock(t)
		})
		if !fixed {
			mu.Lock(t)
			r := ready.Load(t)
			mu.Unlock(t)
			if !r { // the check and the Wait are not atomic
				mu.Lock(t)
				cond.Wait(t)
				mu.Unlock(t)
			}
			return
		}
		mu.Lock(t)
		for !ready.Load(t) {
			cond.Wait(t)
		}
		mu.Unlock(t)
	})
}

func raceCounter(fixed bool) func() *threads.Program {
	return prog(func(t *threads.T) {
		mu := threads.NewMutex(t, "mu")
		n := threads.NewVar(t, "count", 0)
		wg := threads.NewWaitGroup(t, "wg")
		wg.Add(t, 2)
		for range 2 {
			t.Go(func(t *threads.T) {
				defer wg.Done(t)
				if fixed {
					mu.Lock(t)
					defer mu.Unlock(t)
				}
				n.Store(t, n.Load(t)+1)
			})
		}
		wg.Wait(t)
		n.Load(t)
	})
}

func raceErr(fixed bool) func() *threads.Program {
	return prog(func(t *threads.T) {
		err := threads.NewVar(t, "err", "")
		done := threads.NewChan[struct{}](t, "done", 2)
		for i := range 2 {
			t.Go(func(t *threads.T) {
				if i == 1 {
					err.Store(t, "failed")
				}
				done.Send(t, struct{}{})
			})
		}
		done.Recv(t)
		if fixed {
			done.Recv(t) // wait for both
		}
		err.Load(t)
	})
}

func racePublish(fixed bool) func() *threads.Program {
	return prog(func(t *threads.T) {
		plain := threads.NewVar(t, "ready", false)
		flag := threads.NewAtomic(t, "ready", false)
		result := threads.NewVar(t, "result", 0)
		t.Go(func(t *threads.T) {
			result.Store(t, 7)
			if fixed {
				flag.Store(t, true)
			} else {
				plain.Store(t, true)
			}
		})
		for range 2 { // a bounded poll
			var ok bool
			if fixed {
				ok = flag.Load(t)
			} else {
				ok = plain.Load(t)
			}
			if ok {
				t.Assert(result.Load(t) == 7, "result not published")
				return
			}
		}
	})
}

func checkThenAct(fixed bool) func() *threads.Program {
	return prog(func(t *threads.T) {
		mu := threads.NewMutex(t, "mu")
		filled := threads.NewVar(t, "filled", false)
		fills := threads.NewAtomicInt(t, "fills", 0)
		fill := func(t *threads.T) {
			mu.Lock(t)
			f := filled.Load(t)
			if !fixed {
				mu.Unlock(t)
				mu.Lock(t) // the lock is dropped between check and act
			}
			if !f {
				fills.Add(t, 1)
				filled.Store(t, true)
			}
			mu.Unlock(t)
		}
		wg := threads.NewWaitGroup(t, "wg")
		wg.Add(t, 1)
		t.Go(func(t *threads.T) { defer wg.Done(t); fill(t) })
		fill(t)
		wg.Wait(t)
		n := fills.Load(t)
		t.Assert(n == 1, "the cache was filled %d times", n)
	})
}

func onceClose(fixed bool) func() *threads.Program {
	return prog(func(t *threads.T) {
		conn := threads.NewChan[int](t, "conn", 0)
		once := threads.NewOnce(t, "closeOnce")
		closeConn := func(t *threads.T) { once.Do(t, func() { conn.Close(t) }) }
		t.Go(func(t *threads.T) { t.Name("reader"); closeConn(t) })
		if t.Choose(2) == 1 { // an error path
			if fixed {
				closeConn(t)
			} else {
				conn.Close(t) // bypasses the Once
			}
			return
		}
		closeConn(t)
	})
}
