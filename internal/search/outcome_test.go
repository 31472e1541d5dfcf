package search

import (
	"context"
	"errors"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/weftlab/weft/ts"
)

func TestDrive(t *testing.T) {
	errBroken := errors.New("broken")
	for _, c := range []struct {
		name      string
		keepGoing bool
		rootPanic bool
		loopPanic int   // panics of loop before it returns normally
		fail      error // loop fails with this once it returns normally
		// want
		loops, panics int
		complete      bool
	}{
		{name: "clean", loops: 1, complete: true},
		{name: "root panics", rootPanic: true, loops: 0, panics: 1},
		{name: "root panics, keep going", keepGoing: true, rootPanic: true, loops: 1, panics: 1, complete: true},
		{name: "loop panics", loopPanic: 2, loops: 1, panics: 1},
		{name: "loop panics, keep going", keepGoing: true, loopPanic: 2, loops: 3, panics: 2, complete: true},
		{name: "loop fails", keepGoing: true, loopPanic: 1, fail: errBroken, loops: 2, panics: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := &ts.Result{}
			o := &Outcome{Ctx: context.Background(), Opt: &ts.Options{KeepGoing: c.keepGoing}, Res: res}
			loops, panics := 0, 0
			root := func() {
				if c.rootPanic {
					panic("root")
				}
			}
			loop := func() {
				loops++
				if loops <= c.loopPanic {
					panic(loops)
				}
				if c.fail != nil {
					o.Fail(c.fail)
				}
			}
			panicked := func(p any) {
				panics++
				want := any("root")
				if !c.rootPanic || panics > 1 {
					want = loops
				}
				if p != want {
					t.Errorf("panic %d: got %v, want %v", panics, p, want)
				}
				if !strings.Contains(string(debug.Stack()), "panic(") {
					t.Errorf("panic %d: panicked does not run on the panicking stack", panics)
				}
				o.Record(&ts.Violation{Kind: ts.Panic})
			}
			err := o.Drive(root, loop, panicked)
			if loops != c.loops || panics != c.panics || res.Violations != int64(c.panics) {
				t.Errorf("loop ran %d times, %d panics, %d violations; want %d, %d, %d",
					loops, panics, res.Violations, c.loops, c.panics, c.panics)
			}
			if res.Complete != c.complete {
				t.Errorf("Complete = %v, want %v", res.Complete, c.complete)
			}
			if err != c.fail {
				t.Errorf("err = %v, want %v", err, c.fail)
			}
		})
	}
}

// A violation's replay that disagrees with the search is explained by a
// modified state on the stack where the search finds one, and otherwise
// keeps its own error, also when the check panics.
func TestExplain(t *testing.T) {
	nondet := &ts.SystemError{Err: ts.ErrNondeterministic, Thread: 1}
	mutated := &ts.SystemError{Err: ts.ErrMutated, Thread: 0}
	other := errors.New("other")
	for _, c := range []struct {
		name    string
		mutated func() error
		err     error
		want    error
	}{
		{"no check", nil, nondet, nondet},
		{"modified", func() error { return mutated }, nondet, mutated},
		{"unchanged", func() error { return nil }, nondet, nondet},
		{"a Next that is not a function", func() error { return &ts.SystemError{Err: ts.ErrNondeterministic} }, nondet, nondet},
		{"another error", func() error { return mutated }, other, other},
		{"panic", func() error { panic("boom") }, nondet, nondet},
	} {
		o := &Outcome{Mutated: c.mutated}
		if got := o.Explain(c.err); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
