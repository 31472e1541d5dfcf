package por

import (
	"context"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"unsafe"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/ts"
)

func w(t ts.Tid, obj ts.Obj, op ts.Op) wev { return wev{t: t, step: ts.Step{Obj: obj, Op: op}} }

func TestWeakInitial(t *testing.T) {
	x, y := ts.Obj(0), ts.Obj(1)
	seq := []wev{w(1, x, ts.Write), w(2, y, ts.Write), w(2, x, ts.Read)}
	for _, tc := range []struct {
		q            ts.Tid
		out          int
		st           ts.Step
		initialsOnly bool
		want         bool
	}{
		{1, 0, ts.Step{Obj: x, Op: ts.Write}, false, true},          // first, nothing before it
		{2, 0, ts.Step{Obj: y, Op: ts.Write}, false, true},          // its first transition is independent of T1's
		{3, 0, ts.Step{Obj: y, Op: ts.Read}, false, false},          // not in w, dependent with T2's write of y
		{3, 0, ts.Step{Obj: 5, Op: ts.Write}, false, true},          // not in w, independent of all of it
		{3, 0, ts.Step{Obj: 5, Op: ts.Acquire}, false, true},        // an acquire independent of w too
		{3, 0, ts.Step{Obj: 5, Op: ts.Write}, true, false},          // after a failed check: initials only
		{1, 1, ts.Step{Obj: x, Op: ts.Write}, false, false},         // another outcome of T1's transition
		{1, anyOutcome, ts.Step{Obj: x, Op: ts.Write}, false, true}, // T1 asleep with every outcome
		{3, 2, ts.Step{Obj: 5, Op: ts.Write}, false, true},          // not in w: any outcome commutes with it
		// A step of several objects is dependent through any of them.
		{3, 0, ts.Step{Obj: 5, Op: ts.Write, Also: []ts.Access{{Obj: y, Op: ts.Read}}}, false, false},
	} {
		if got := weakInitial(tc.q, tc.out, tc.st, seq, tc.initialsOnly); got != tc.want {
			t.Errorf("T%d/%d %v: got %v", tc.q, tc.out, tc.st, got)
		}
	}
	if weakInitial(2, 0, ts.Step{}, []wev{w(1, x, ts.Write), w(2, x, ts.Read)}, false) {
		t.Error("T2 reads what T1 writes first: not an initial")
	}
	// A step of two objects that writes the one T2 then reads.
	both := wev{t: 1, step: ts.Step{Obj: x, Op: ts.Read, Also: []ts.Access{{Obj: y, Op: ts.Write}}}}
	if weakInitial(2, 0, ts.Step{Obj: y, Op: ts.Read}, []wev{both, w(2, y, ts.Read)}, false) {
		t.Error("T2 reads what T1's step writes first: not an initial")
	}
}

// TestWeakInitialIdxDefinition compares weakInitialIdx with the definition
// read directly: q's first event
// in w (removed events skipped) must be independent of every event before
// it; with none, q's step must be independent of all of w. Steps of one and
// of several objects, every operation, removed events, outcomes and the
// initials-only mode are drawn.
func TestWeakInitialIdxDefinition(t *testing.T) {
	access := func(rt *rapid.T, label string) ts.Access {
		return ts.Access{Obj: ts.Obj(rapid.IntRange(0, 3).Draw(rt, label+"obj")), Op: ts.Op(rapid.IntRange(int(ts.Read), int(ts.Acquire)).Draw(rt, label+"op"))}
	}
	step := func(rt *rapid.T, label string) ts.Step {
		a := access(rt, label)
		st := ts.Step{Obj: a.Obj, Op: a.Op}
		if rapid.IntRange(0, 4).Draw(rt, label+"several") == 0 {
			// Each object once in a step (ts.Step.Validate).
			b := access(rt, label+"also")
			b.Obj = (a.Obj + 1 + b.Obj%3) % 4
			st.Also = []ts.Access{b}
		}
		return st
	}
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, 8).Draw(rt, "len")
		seq := make([]wev, n)
		for i := range seq {
			seq[i] = wev{t: ts.Tid(rapid.IntRange(-1, 3).Draw(rt, "t")), out: rapid.IntRange(0, 1).Draw(rt, "out"), step: step(rt, "ev")}
		}
		q := ts.Tid(rapid.IntRange(0, 3).Draw(rt, "q"))
		out := rapid.SampledFrom([]int{0, 1, anyOutcome}).Draw(rt, "qout")
		st := step(rt, "st")
		if rapid.Bool().Draw(rt, "stepOfFirst") {
			// Mostly q's step is its first event's.
			for i := range seq {
				if seq[i].t == q {
					st = seq[i].step
					break
				}
			}
		}
		initialsOnly := rapid.Bool().Draw(rt, "initialsOnly")
		wantOK, wantIdx := false, -1
		first := slices.IndexFunc(seq, func(x wev) bool { return x.t == q })
		switch {
		case first >= 0 && out != anyOutcome && seq[first].out != out:
			wantOK, wantIdx = false, first
		case first >= 0:
			wantOK, wantIdx = !slices.ContainsFunc(seq[:first], func(y wev) bool { return y.t >= 0 && ts.Dependent(y.step, seq[first].step) }), first
		case !initialsOnly:
			wantOK = !slices.ContainsFunc(seq, func(y wev) bool { return y.t >= 0 && ts.Dependent(st, y.step) })
		}
		if ok, idx := weakInitialIdx(q, out, &st, seq, initialsOnly); ok != wantOK || idx != wantIdx {
			rt.Fatalf("T%d/%d %v in %v (initials only %v): got %v, %d, want %v, %d", q, out, st, seq, initialsOnly, ok, idx, wantOK, wantIdx)
		}
	})
}

func TestWakeupTree(t *testing.T) {
	var tr wtree
	root := tr.alloc(wev{t: -1})
	a := tr.addChild(root, wev{t: 1})
	b := tr.addChild(root, wev{t: 2})
	tr.addChild(a, wev{t: 3})
	tr.addChild(a, wev{t: 4, out: 1})
	if got := len(tr.leaves(root, nil, nil)); got != 3 {
		t.Fatalf("%d leaves, want 3", got)
	}
	if l := tr.leaves(a, nil, nil); len(l) != 2 || l[1][0].out != 1 {
		t.Fatalf("leaves below a: %v", l)
	}
	tr.remove(root, a)
	if tr.nodes[root].first != b || len(tr.spare) != 3 {
		t.Fatalf("after remove: first %d, %d spare", tr.nodes[root].first, len(tr.spare))
	}
	if c := tr.alloc(wev{t: 5}); c >= int32(len(tr.nodes)) || tr.nodes[c].t != 5 {
		t.Fatal("alloc does not reuse")
	}
}

// TestCopySubtree: a copy has the same shape, events and extra flags as
// the subtree it was copied from, however its nodes sit in the source's
// pool (freed ones reused, siblings far apart), and leaves the source's
// siblings of its root out.
func TestCopySubtree(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		var src wtree
		root := src.alloc(wev{t: -1})
		ids := []int32{root}
		for i := range rapid.IntRange(0, 60).Draw(rt, "nodes") {
			if len(ids) > 1 && rapid.IntRange(0, 5).Draw(rt, "remove") == 0 {
				// Remove a random non-root node's subtree: the pool
				// gets holes that later nodes fill.
				k := rapid.IntRange(1, len(ids)-1).Draw(rt, "victim")
				parent := src.parentOf(root, ids[k])
				src.remove(parent, ids[k])
				ids = src.preorder(root, ids[:0])
				continue
			}
			parent := ids[rapid.IntRange(0, len(ids)-1).Draw(rt, "parent")]
			c := src.addChild(parent, wev{t: ts.Tid(i), out: i % 3})
			src.nodes[c].extra = rapid.Bool().Draw(rt, "extra")
			ids = append(ids, c)
		}
		from := ids[rapid.IntRange(0, len(ids)-1).Draw(rt, "from")]
		var dst wtree
		dst.alloc(wev{t: -2}) // a node before: indices shift
		remap := make([]int32, len(src.nodes))
		got, _ := dst.copySubtree(&src, from, remap, nil)
		if dst.nodes[got].next != -1 {
			rt.Fatalf("the copy's root has a sibling")
		}
		want := src.preorder(from, nil)
		have := dst.preorder(got, nil)
		if len(want) != len(have) || len(dst.nodes) != len(want)+1 {
			rt.Fatalf("copied %d nodes (%d in the pool), want %d", len(have), len(dst.nodes)-1, len(want))
		}
		for i := range want {
			a, b := &src.nodes[want[i]], &dst.nodes[have[i]]
			if a.t != b.t || a.out != b.out || a.extra != b.extra || (a.first < 0) != (b.first < 0) ||
				(i > 0 && (a.next < 0) != (b.next < 0)) || remap[want[i]] != have[i] {
				rt.Fatalf("node %d of the preorder differs", i)
			}
		}
	})
}

// preorder appends the nodes of c's subtree to dst, c first.
func (w *wtree) preorder(c int32, dst []int32) []int32 {
	dst = append(dst, c)
	for ch := w.nodes[c].first; ch >= 0; ch = w.nodes[ch].next {
		dst = w.preorder(ch, dst)
	}
	return dst
}

// parentOf returns the parent of c in the subtree of r, or -1.
func (w *wtree) parentOf(r, c int32) int32 {
	for ch := w.nodes[r].first; ch >= 0; ch = w.nodes[ch].next {
		if ch == c {
			return r
		}
		if p := w.parentOf(ch, c); p >= 0 {
			return p
		}
	}
	return -1
}

// A wakeup node holds no pointer, so that the collector skips the pools
// (a cold process of lastzero-12 with 2 workers marked for 29 ms of 55
// when it held a step), and takes 32 bytes.
func TestWakeupNodeHoldsNoPointer(t *testing.T) {
	typ := reflect.TypeFor[wnode]()
	for i := range typ.NumField() {
		switch f := typ.Field(i); f.Type.Kind() {
		case reflect.Pointer, reflect.UnsafePointer, reflect.Slice, reflect.Map, reflect.String,
			reflect.Interface, reflect.Func, reflect.Chan, reflect.Array, reflect.Struct:
			t.Errorf("wnode.%s is a %s: it may hold a pointer", f.Name, f.Type)
		}
	}
	if n := unsafe.Sizeof(wnode{}); n != 32 {
		t.Errorf("a wnode takes %d bytes, want 32", n)
	}
}

// A wakeup-tree pool doubles when it is full: growing by append's quarter
// steps allocated about five times the final pool on the way, new memory
// each time (and a page fault the first time each page is written, which
// a fresh process pays for all of it). Counted by the capacities the pool
// takes, not by the allocator's figures, which the race detector and other
// goroutines change.
func TestWakeupPoolGrowsByDoubling(t *testing.T) {
	const nodes = 100_000
	var w wtree
	allocated := 0
	for range nodes {
		c := cap(w.nodes)
		w.slot()
		if cap(w.nodes) != c {
			allocated += cap(w.nodes)
		}
	}
	if allocated > 3*nodes {
		t.Errorf("growing a pool to %d nodes took arrays of %d nodes in all, want at most %d", nodes, allocated, 3*nodes)
	}
}

// A log's packed events unpack to what was logged, Also included, across
// chunk boundaries and through a pool's recycled chunks.
func TestLogEventsPacked(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pool := &wevPool{}
		var chunks [][]lev
		var also [][]ts.Access
		var logged [][]wev
		var copies [][]lev
		for i := range rapid.IntRange(1, 40).Draw(t, "sequences") {
			w := make([]wev, rapid.IntRange(0, 700).Draw(t, "length"))
			for j := range w {
				w[j] = wev{t: ts.Tid(rapid.IntRange(0, 63).Draw(t, "t")), out: rapid.IntRange(0, 3).Draw(t, "out"),
					step: ts.Step{Obj: ts.Obj(rapid.IntRange(0, 9).Draw(t, "obj")), Op: ts.Op(rapid.IntRange(0, 3).Draw(t, "op")), Sync: rapid.Bool().Draw(t, "sync")}}
				if rapid.IntRange(0, 9).Draw(t, "wide") == 0 {
					w[j].step.Also = []ts.Access{{Obj: ts.Obj(i), Op: ts.Write}}
				}
			}
			logged = append(logged, w)
			copies = append(copies, pool.logTo(&chunks, &also, w))
			if rapid.IntRange(0, 9).Draw(t, "recycle") == 0 {
				// The copies so far are read, then the chunks go back.
				unpacksTo(t, copies, also, logged)
				pool.putChunks(&chunks)
				logged, copies, also = nil, nil, nil
			}
		}
		unpacksTo(t, copies, also, logged)
	})
}

// unpacksTo fails t unless each packed copy unpacks to its logged sequence.
func unpacksTo(t *rapid.T, copies [][]lev, also [][]ts.Access, logged [][]wev) {
	for k := range logged {
		if got := appendWevs(nil, copies[k], also); !reflect.DeepEqual(got, logged[k]) && len(got)+len(logged[k]) > 0 {
			t.Fatalf("sequence %d unpacks to %v, want %v", k, got, logged[k])
		}
	}
}

// A log entry and a logged event stay small: workers log hundreds of
// thousands of them a search (295,000 entries on lastzero-15 with 2
// workers), and a fresh process pays a page fault for each new page.
func TestLogEntrySizes(t *testing.T) {
	if got := unsafe.Sizeof(logOp{}); got > 64 {
		t.Errorf("a log entry takes %d bytes, want at most 64", got)
	}
	if got := unsafe.Sizeof(lev{}); got > 16 {
		t.Errorf("a logged event takes %d bytes, want at most 16", got)
	}
}

// searchAlone runs a serial search of sys in mode m on an explorer of its
// own, which it returns (to be released) with the result so far (the
// explorer's, before the search's end sets its states).
func searchAlone[S any](t *testing.T, sys ts.TransitionSystem[S], m mode) (*explorer[S], *ts.Result) {
	t.Helper()
	model, err := searchModel(sys)
	if err != nil {
		t.Fatal(err)
	}
	res := new(ts.Result)
	e := newExplorer(context.Background(), sys, model, Options{}, m, res, false)
	if err := e.Drive(e.root, e.loop, e.panicked); err != nil {
		t.Fatal(err)
	}
	return e, res
}

// An ODPOR search whose wakeup-tree pool grows to 766,100 nodes moves it to
// memory of its own past 2 MB, and to a larger region when it outgrows that
// one (internal/offheap); its figures are those of the search with the pool
// in the heap.
func TestWakeupPoolInRegions(t *testing.T) {
	if testing.Short() {
		t.Skip("a search of 2 million transitions")
	}
	e, res := searchAlone(t, models.NewLastzero(15), modeODPOR)
	defer release(e)
	if res.Executions != 147456 || res.Transitions != 2076671 {
		t.Errorf("%d executions, %d transitions; want 147,456 and 2,076,671", res.Executions, res.Transitions)
	}
	if size := cap(e.wt.nodes) * int(unsafe.Sizeof(wnode{})); size > 16<<20 && e.wt.mem == nil && runtime.GOOS == "linux" {
		t.Errorf("a pool of %d bytes in the heap", size)
	}
}
