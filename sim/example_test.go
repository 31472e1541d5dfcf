package sim_test

import (
	"context"
	"fmt"

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/sim"
	"github.com/weftlab/weft/ts"
)

// account is a mutable simulator of two threads that each withdraw 60
// from a balance of 100 in two steps (read the balance, then write it back
// less 60) without a lock: the overdraft the check looks for.
type account struct {
	balance, paid int
	pc, got       [2]int
}

func (a *account) Threads() int { return 2 }
func (a *account) Reset()       { *a = account{balance: 100} }
func (a *account) Next(t ts.Tid) (ts.Step, ts.Status) {
	switch a.pc[t] {
	case 0:
		return ts.Step{Obj: 0, Op: ts.Read}, ts.Enabled
	case 1:
		return ts.Step{Obj: 0, Op: ts.Write}, ts.Enabled
	}
	return ts.Step{}, ts.Finished
}
func (a *account) Step(t ts.Tid, _ int) {
	if a.pc[t] == 0 {
		a.got[t] = a.balance
	} else if a.got[t] >= 60 {
		a.balance = a.got[t] - 60
		a.paid += 60
	}
	a.pc[t]++
}
func (a *account) Check() error {
	if a.balance+a.paid != 100 {
		return fmt.Errorf("paid %d from 100, balance %d", a.paid, a.balance)
	}
	return nil
}

func Example() {
	sys, err := sim.New(&account{}, sim.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := por.ODPOR(context.Background(), sys, por.Options{})
	fmt.Println(res.Violation.Err, err)
	fmt.Println("schedule:", res.Violation.Trace.Schedule())
	fmt.Println("replayed transitions:", res.Stats["sim.replayed"] > 0)
	// Output:
	// paid 120 from 100, balance 40 <nil>
	// schedule: [0 1 1 0]
	// replayed transitions: true
}
