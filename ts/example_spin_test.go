package ts_test

import (
	"context"
	"fmt"

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
)

// publish is a writer that stores data (object 1) and then sets a flag
// (object 0, an atomic), and a reader that spins until the flag is set and
// then reads the data.
//
// Modelled as the loop it is in Go (load the flag, branch, load again), the
// reader has executions of every length: a search would not end. It is
// modelled as a blocked await instead: while the flag is clear the reader
// reports Blocked, with a step that reads the flag, so that the writer's
// store of the flag is dependent with it and a reduction knows that store
// is what wakes it. The loop's extra iterations change nothing, so nothing
// is lost.
//
// With flagFirst, the writer sets the flag before it stores the data: the
// bug the await lets the search find.
type publish struct{ flagFirst bool }

type publishState struct {
	writer, reader uint8 // program counters
	flag, data     int
	seen           int // what the reader read
}

func (publish) Init() publishState { return publishState{} }
func (publish) Threads() int       { return 2 }

// setsFlag reports whether the writer's step at pc sets the flag.
func (p publish) setsFlag(pc uint8) bool { return (pc == 1) != p.flagFirst }

func (p publish) Next(s publishState, t ts.Tid) (ts.Step, ts.Status) {
	if t == 0 {
		switch {
		case s.writer == 2:
			return ts.Step{}, ts.Finished
		case p.setsFlag(s.writer):
			return ts.Step{Obj: 0, Op: ts.Write, Sync: true}, ts.Enabled
		}
		return ts.Step{Obj: 1, Op: ts.Write}, ts.Enabled
	}
	switch s.reader {
	case 0: // await flag == 1
		if s.flag == 0 {
			return ts.Step{Obj: 0, Op: ts.Read, Sync: true}, ts.Blocked
		}
		return ts.Step{Obj: 0, Op: ts.Read, Sync: true}, ts.Enabled
	case 1:
		return ts.Step{Obj: 1, Op: ts.Read}, ts.Enabled
	}
	return ts.Step{}, ts.Finished
}

func (p publish) Apply(s publishState, t ts.Tid) publishState {
	switch {
	case t == 0 && p.setsFlag(s.writer):
		s.flag = 1
	case t == 0:
		s.data = 42
	case s.reader == 1:
		s.seen = s.data
	}
	if t == 0 {
		s.writer++
	} else {
		s.reader++
	}
	return s
}

// Check is the reader's assertion, over what it saw.
func (publish) Check(s publishState) error {
	if s.reader == 2 && s.seen != 42 {
		return fmt.Errorf("reader saw %d", s.seen)
	}
	return nil
}

// A spin-wait as a blocked await: the search ends; the reader always sees
// the data, unless the writer sets the flag first.
func Example_spinWait() {
	ctx := context.Background()
	res, _ := ts.Explore(ctx, publish{}, ts.Options{})
	fmt.Println("dfs:", res)
	res, _ = por.ODPOR(ctx, publish{}, por.Options{})
	fmt.Println("odpor:", res)
	res, _ = por.ODPOR(ctx, publish{flagFirst: true}, por.Options{})
	fmt.Println("odpor, flag first:", res)
	// Output:
	// dfs: no violation: 1 execution, 4 transitions
	// odpor: no violation: 1 execution, 4 transitions
	// odpor, flag first: check failure (reader saw 0) with 1 preemption after 3 steps: 2 executions, 6 transitions
}
