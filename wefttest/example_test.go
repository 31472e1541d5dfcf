package wefttest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/weftlab/weft/wefttest"
)

// printer stands in for the *testing.T of a test named TestCounter: it
// prints what the test would print when it fails.
type printer struct {
	testing.TB
}

func (printer) Helper()                           {}
func (printer) Name() string                      { return "TestCounter" }
func (printer) Context() context.Context          { return context.Background() }
func (printer) Logf(format string, args ...any)   { fmt.Printf(format+"\n", args...) }
func (printer) Fatalf(format string, args ...any) { fmt.Printf(format+"\n", args...) }

// In a test, pass the *testing.T:
//
//	func TestCounter(t *testing.T) {
//		wefttest.Check(t, counter{}, wefttest.Options{})
//	}
//
// The lost update fails the test with its trace and the command that
// replays it.
func ExampleCheck() {
	var t printer // t *testing.T in a test
	wefttest.Check(t, counter{}, wefttest.Options{})
	// Output:
	// weft: check failure: lost update: n = 1, 1 preemption (found by odpor after 2 executions)
	//     0  T0  read n
	// *   1  T1  read n
	//     2  T1  write n
	//     3  T0  write n
	// 4 steps, 1 preemption (marked *)
	// replay: WEFT_REPLAY='TestCounter=[0 1 1 0]' go test -run '^TestCounter$'
}

// Given the token, the test replays exactly that schedule.
func ExampleOptions_replay() {
	var t printer
	wefttest.Check(t, counter{}, wefttest.Options{Replay: "TestCounter=[0 1 1 0]"})
	// Output:
	// weft: check failure: lost update: n = 1, 1 preemption (replayed from WEFT_REPLAY)
	//     0  T0  read n
	// *   1  T1  read n
	//     2  T1  write n
	//     3  T0  write n
	// 4 steps, 1 preemption (marked *)
	// replay: WEFT_REPLAY='TestCounter=[0 1 1 0]' go test -run '^TestCounter$'
}
