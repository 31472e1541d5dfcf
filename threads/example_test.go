package threads_test

import (
	"context"
	"fmt"

	"github.com/weftlab/weft"
	"github.com/weftlab/weft/threads"
	"github.com/weftlab/weft/ts"
)

// treiber is a Treiber stack over a fixed pool of nodes whose head is an
// atomic index (0: empty). Popping with a compare-and-swap of the index
// alone has the ABA bug: between a pop's read of the head and its CAS,
// another thread pops that node, pops the next, and pushes the first back;
// the CAS succeeds and installs a next pointer that is stale.
func treiber(checked bool) *threads.Program {
	return threads.New(func(t *threads.T) {
		head := threads.NewAtomic(t, "head", 0)
		next := []*threads.Var[int]{nil, threads.NewVar(t, "next1", 0), threads.NewVar(t, "next2", 1), threads.NewVar(t, "next3", 2)}
		head.Store(t, 3) // stack 3 -> 2 -> 1
		push := func(t *threads.T, n int) {
			for {
				h := head.Load(t)
				next[n].Store(t, h)
				if head.CompareAndSwap(t, h, n) {
					return
				}
			}
		}
		pop := func(t *threads.T) int {
			for {
				h := head.Load(t)
				if h == 0 {
					return 0
				}
				nx := next[h].Load(t)
				if head.CompareAndSwap(t, h, nx) {
					return h
				}
			}
		}
		kept := threads.NewVar(t, "kept", 0)
		done := threads.NewWaitGroup(t, "done")
		done.Add(t, 1)
		t.Go(func(t *threads.T) { // pops two nodes, pushes the first back
			defer done.Done(t)
			a := pop(t)
			kept.Store(t, pop(t))
			push(t, a)
		})
		got := pop(t)
		done.Wait(t)
		// A node is in the stack or held by one thread, never both.
		seen := map[int]bool{got: true, kept.Load(t): true}
		for h := head.Load(t); h != 0; h = next[h].Load(t) {
			t.Assert(!checked || !seen[h], "node %d is in the stack and popped (ABA)", h)
			seen[h] = true
		}
	})
}

// Example_treiber finds the ABA bug of a Treiber stack.
func Example_treiber() {
	sys := treiber(true).MustSystem()
	res, err := weft.Run(context.Background(), sys, weft.ODPOR(), ts.Options{})
	fmt.Println(res.Violation.Kind, err)
	fmt.Println(res.Violation.Err)
	// Output:
	// check failure <nil>
	// thread 0 (main): node 2 is in the stack and popped (ABA)
}

func doubleChecked(atomicFlag bool) *threads.Program {
	return threads.New(func(t *threads.T) {
		mu := threads.NewMutex(t, "mu")
		plain := threads.NewVar(t, "initialized", false)
		flag := threads.NewAtomic(t, "initialized", false)
		config := threads.NewVar(t, "config", 0)
		done := func(t *threads.T) bool {
			if atomicFlag {
				return flag.Load(t)
			}
			return plain.Load(t)
		}
		get := func(t *threads.T) int {
			if !done(t) {
				mu.Lock(t)
				if !done(t) {
					config.Store(t, 42)
					if atomicFlag {
						flag.Store(t, true)
					} else {
						plain.Store(t, true)
					}
				}
				mu.Unlock(t)
			}
			return config.Load(t)
		}
		t.Go(func(t *threads.T) { get(t) })
		t.Assert(get(t) == 42, "config not initialized")
	})
}

// Example_doubleChecked finds the data race of double-checked
// initialization with a plain flag: the fast path reads the flag and the
// value without synchronization. The sync-only strategy reports races.
func Example_doubleChecked() {
	for _, atomicFlag := range []bool{false, true} {
		res, err := weft.Run(context.Background(), doubleChecked(atomicFlag).MustSystem(), weft.SyncOnly(), ts.Options{})
		if res.Violation != nil {
			fmt.Println("atomic flag:", atomicFlag, "->", res.Violation.Kind, err)
		} else {
			fmt.Println("atomic flag:", atomicFlag, "->", res.Violation == nil, res.Complete, err)
		}
	}
	// Output:
	// atomic flag: false -> data race <nil>
	// atomic flag: true -> true true <nil>
}

func bank() *threads.Program {
	return threads.New(func(t *threads.T) {
		type account struct {
			mu      *threads.Mutex
			balance *threads.Var[int]
		}
		a := account{threads.NewMutex(t, "a.mu"), threads.NewVar(t, "a.balance", 100)}
		b := account{threads.NewMutex(t, "b.mu"), threads.NewVar(t, "b.balance", 100)}
		transfer := func(t *threads.T, from, to account, n int) {
			from.mu.Lock(t)
			to.mu.Lock(t) // lock-order inversion: the other transfer holds to.mu
			from.balance.Store(t, from.balance.Load(t)-n)
			to.balance.Store(t, to.balance.Load(t)+n)
			to.mu.Unlock(t)
			from.mu.Unlock(t)
		}
		t.Go(func(t *threads.T) { t.Name("b->a"); transfer(t, b, a, 10) })
		transfer(t, a, b, 20)
	})
}

// Example_bankTransfer finds the deadlock of two transfers that lock the
// two accounts in opposite orders.
func Example_bankTransfer() {
	prog := bank()
	res, err := weft.Run(context.Background(), prog.MustSystem(), weft.ODPOR(), ts.Options{})
	fmt.Println(res.Violation.Kind, err)
	fmt.Println(res.Violation.Err)
	// Output:
	// deadlock <nil>
	// no thread enabled; blocked: T0 (main) waits to acquire b.mu (held by T1), T1 (b->a) waits to acquire a.mu (held by T0)
}

func boundedBuffer() *threads.Program {
	return threads.New(func(t *threads.T) {
		mu := threads.NewMutex(t, "mu")
		notFull := threads.NewCond(t, "notFull", mu)
		notEmpty := threads.NewCond(t, "notEmpty", mu)
		var items []int // guarded by mu: local code between steps
		const capacity = 1
		put := func(t *threads.T, v int) {
			mu.Lock(t)
			for len(items) == capacity {
				notFull.Wait(t)
			}
			items = append(items, v)
			notEmpty.Signal(t)
			mu.Unlock(t)
		}
		get := func(t *threads.T) int {
			mu.Lock(t)
			for len(items) == 0 {
				notEmpty.Wait(t)
			}
			v := items[0]
			items = items[1:]
			notFull.Signal(t)
			mu.Unlock(t)
			return v
		}
		t.Go(func(t *threads.T) { put(t, 1) })
		t.Go(func(t *threads.T) { put(t, 2) })
		sum := get(t) + get(t)
		t.Assert(sum == 3, "got %d, want 1+2", sum)
	})
}

// Example_boundedBuffer checks a bounded buffer built on a mutex and two
// condition variables: two producers, one consumer, a capacity of one.
// Every schedule delivers every item; none deadlocks.
func Example_boundedBuffer() {
	prog := boundedBuffer()
	res, err := weft.Run(context.Background(), prog.MustSystem(), weft.ODPOR(), ts.Options{})
	fmt.Println(res.Violation == nil, res.Complete, err)
	// Output:
	// true true <nil>
}
