package hb_test

import (
	"fmt"
	"os"

	"github.com/bits-and-blooms/bitset"
	"github.com/weftlab/weft/hb"
	"github.com/weftlab/weft/ts"
)

const (
	x ts.Obj = iota
	y
	lock
)

var (
	wx = ts.Step{Obj: x, Op: ts.Write}
	wy = ts.Step{Obj: y, Op: ts.Write}
)

// The program of Fig. 1 of the cbpor paper: T0 runs x:=1; y:=1 and T1 runs
// y:=2. Its three interleavings reach two happens-before states: only the
// order of the two writes of y tells them apart.
func ExampleState() {
	run := func(sched ...ts.Tid) *hb.State {
		steps := [][]ts.Step{{wx, wy}, {wy}}
		s := hb.New(2)
		for _, t := range sched {
			s.Add(t, steps[t][s.ThreadLen(t)])
		}
		return s
	}
	a, b, c := run(0, 0, 1), run(0, 1, 0), run(1, 0, 0)
	fmt.Println(a)
	fmt.Println(b)
	fmt.Println(b.Equal(c), b.Hash() == c.Hash(), a.Equal(b))
	fmt.Println(b.Linearize(nil))
	// Output:
	// {T0[W o0:1 W o1:1] T1[W o1:2]}
	// {T0[W o0:1 W o1:2] T1[W o1:1]}
	// true true false
	// [0 1 0]
}

// The frontier holds the threads whose last event nothing depends on;
// removing one gives a predecessor.
func ExampleState_Frontier() {
	s := hb.New(3)
	s.Add(0, wx)                           // T0 writes x: <W,T0,1,o0,1>
	fmt.Println(s.Add(1, ts.Step{Obj: x})) // T1 reads it
	fmt.Println(s.Add(2, ts.Step{Obj: y})) // T2 reads y's initial value
	var f bitset.BitSet
	s.Frontier(&f)
	fmt.Println(f.String())
	s.Remove(1)
	s.Frontier(&f)
	fmt.Println(f.String(), s)
	// Output:
	// <R,T1,1,o0,1>
	// <R,T2,1,o1,0>
	// {1,2}
	// {0,2} {T0[W o0:1] T2[R o1:0]}
}

// A Table stores each distinct state once.
func ExampleTable() {
	var tb hb.Table
	s := hb.New(2)
	s.Add(0, wx)
	s.Add(1, wy)
	fmt.Println(tb.Insert(s))
	s.Reset()
	s.Add(1, wy) // the other order: the same state
	s.Add(0, wx)
	fmt.Println(tb.Insert(s))
	fmt.Println(tb.Len())
	// Output:
	// 0 true
	// 0 false
	// 1
}

// Races checks an execution: here T0 writes x under a lock, and T1 reads it
// without taking the lock.
func ExampleRaces() {
	acq := ts.Step{Obj: lock, Op: ts.Acquire}
	rel := ts.Step{Obj: lock, Op: ts.Release}
	trace := ts.Trace{Events: []ts.Event{
		{Thread: 0, Step: acq},
		{Thread: 0, Step: wx},
		{Thread: 0, Step: rel},
		{Thread: 1, Step: ts.Step{Obj: x, Op: ts.Read}},
		{Thread: 1, Step: acq},
		{Thread: 1, Step: ts.Step{Obj: x, Op: ts.Read}},
		{Thread: 1, Step: rel},
	}}
	for _, r := range hb.Races(trace.Events) {
		fmt.Println(r)
	}
	// Output:
	// data race on o0: T0 write at step 1 and T1 read at step 3
}

// A Detector follows an execution as it runs, without allocating once warm.
func ExampleDetector() {
	d := hb.NewDetector(2)
	d.Step(0, wx)
	d.Step(0, ts.Step{Obj: y, Op: ts.Write, Sync: true}) // publish: flag = 1
	d.Step(1, ts.Step{Obj: y, Op: ts.Read, Sync: true})  // see flag == 1
	fmt.Println(d.Step(1, ts.Step{Obj: x, Op: ts.Read}), d.Clock(1))
	// Output:
	// [] [2 2]
}

// Vector clocks of two threads that synchronize once.
func ExampleVC() {
	t0, t1 := hb.NewVC(2), hb.NewVC(2)
	t0.Tick(0) // T0's first event
	t1.Tick(1) // T1's first event, concurrent with it
	fmt.Println(t0.Concurrent(t1))
	t1.Join(t0) // T1 acquires what T0 released
	t1.Tick(1)
	fmt.Println(t1, t0.Before(t1), t1.Covers(0, 1))
	// Output:
	// true
	// [1 2] true true
}

type names struct{}

func (names) ObjName(o ts.Obj) string { return [...]string{"x", "y"}[o] }

// The happens-before graph of an execution of Fig. 1, for Graphviz.
func ExampleWriteDot() {
	tr := ts.Trace{Events: []ts.Event{
		{Thread: 0, Step: wx, Desc: "x := 1"},
		{Thread: 1, Step: wy, Desc: "y := 2"},
		{Thread: 0, Step: wy, Desc: "y := 1"},
	}}
	if err := hb.WriteDot(os.Stdout, tr, names{}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// digraph hb {
	// 	node [shape=box, fontname="monospace"];
	// 	subgraph cluster_T0 {
	// 		label="T0";
	// 		e0 [label="0: T0 write x\nx := 1"];
	// 		e2 [label="2: T0 write y\ny := 1"];
	// 	}
	// 	subgraph cluster_T1 {
	// 		label="T1";
	// 		e1 [label="1: T1 write y\ny := 2"];
	// 	}
	// 	e0 -> e2;
	// 	e1 -> e2 [style=dashed];
	// }
}
