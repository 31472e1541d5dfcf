package hb

import (
	"strings"
	"testing"

	"github.com/bits-and-blooms/bitset"
	"github.com/weftlab/weft/ts"
)

const (
	x ts.Obj = iota
	y
	l
)

// TestFixtures counts the executions, distinct happens-before states (every
// prefix) and distinct terminal states of small programs from the papers.
func TestFixtures(t *testing.T) {
	tests := []struct {
		name                         string
		p                            prog
		executions, states, terminal int
	}{
		// cbpor Fig. 1: T0 x:=1; y:=1, T1 y:=2. The two writes of y meet in
		// either order: 3 interleavings, 2 terminal states. The prefixes
		// [T0 T1] and [T1 T0] are one state (x:=1 and y:=2 commute), and so
		// are [T0 T1 T0] and [T1 T0 T0]: {}, {x:=1}, {y:=2}, {x:=1 y:=1},
		// {x:=1, y:=2}, and the 2 terminal ones make 7.
		{"cbpor-fig1", prog{{wr(x), wr(y)}, {wr(y)}}, 3, 7, 2},
		// inspect 2.3.1: t1 x=1; x=2, t2 y=1; x=3. x=3 goes before, between
		// or after t1's writes: 3 classes of the 6 interleavings. States:
		// 6 with x=3 not yet done (t1 at 0..2, t2 at 0..1), and with it done
		// 1+2+3 (its place among t1's writes so far): 12.
		{"inspect-2.3.1", prog{{wr(x), wr(x)}, {wr(y), wr(x)}}, 6, 12, 3},
		// Two readers and a writer: the reads commute, so the write goes
		// before both, after both, or between them (reading 0 or 1 each
		// way): 4 classes of 6. States: {}, 3 singletons, {r0 r1}, {r w}
		// and {w r} per reader (4), and the 4 terminal: 13.
		{"readers-writer", prog{{rd(x)}, {rd(x)}, {wr(x)}}, 6, 13, 4},
		// Three threads lock(l); unlock(l): 3! orders, all different. The
		// prefixes of the 6 executions are 1 + 3 + 3 + 6 + 6 + 6 + 6 = 31
		// distinct lock histories.
		{"three-locks", prog{{acq(l), rel(l)}, {acq(l), rel(l)}, {acq(l), rel(l)}}, 6, 31, 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var all, term Table
			execs := 0
			tc.p.executions(func(sched ts.Schedule, terminal bool) {
				s := tc.p.build(sched)
				if terminal {
					execs++
					term.Insert(s)
				} else {
					all.Insert(s)
				}
			})
			if execs != tc.executions || all.Len() != tc.states || term.Len() != tc.terminal {
				t.Errorf("executions, states, terminal = %d, %d, %d; want %d, %d, %d",
					execs, all.Len(), term.Len(), tc.executions, tc.states, tc.terminal)
			}
		})
	}
}

func TestFig1Events(t *testing.T) {
	p := prog{{wr(x), wr(y)}, {wr(y)}}
	a := p.build(ts.ScheduleOf(0, 0, 1))
	b := p.build(ts.ScheduleOf(0, 1, 0))
	c := p.build(ts.ScheduleOf(1, 0, 0))
	if got, want := a.String(), "{T0[W o0:1 W o1:1] T1[W o1:2]}"; got != want {
		t.Errorf("[0 0 1] = %s, want %s", got, want)
	}
	if got, want := b.String(), "{T0[W o0:1 W o1:2] T1[W o1:1]}"; got != want {
		t.Errorf("[0 1 0] = %s, want %s", got, want)
	}
	if !b.Equal(c) || b.Hash() != c.Hash() {
		t.Errorf("[0 1 0] and [1 0 0] differ: %v %#x, %v %#x", b, b.Hash(), c, c.Hash())
	}
	if a.Equal(b) || a.Hash() == b.Hash() {
		t.Errorf("[0 0 1] and [0 1 0] equal: %v %#x, %v %#x", a, a.Hash(), b, b.Hash())
	}
	want := []Event{
		{Op: W, Thread: 0, N: 1, Obj: x, M: 1},
		{Op: W, Thread: 0, N: 2, Obj: y, M: 2},
		{Op: W, Thread: 1, N: 1, Obj: y, M: 1},
	}
	got := b.AppendEvents(nil)
	if len(got) != len(want) {
		t.Fatalf("events = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d = %v, want %v", i, got[i], want[i])
		}
	}
	var f bitset.BitSet
	b.Frontier(&f)
	if got := f.String(); got != "{0}" {
		t.Errorf("frontier of %v = %s, want {0}", b, got)
	}
}

func TestReadsAndFrontier(t *testing.T) {
	s := New(3)
	s.Add(0, wr(x)) // <W,T0,1,x,1>
	s.Add(1, rd(x)) // <R,T1,1,x,1>
	s.Add(2, rd(x)) // <R,T2,1,x,1>
	var f bitset.BitSet
	s.Frontier(&f)
	if got := f.String(); got != "{1,2}" {
		t.Errorf("frontier = %s, want {1,2}: the write is read", got)
	}
	if e := s.Add(0, wr(x)); e != (Event{Op: W, Thread: 0, N: 2, Obj: x, M: 2}) {
		t.Errorf("second write = %v", e)
	}
	s.Frontier(&f)
	if got := f.String(); got != "{0}" {
		t.Errorf("frontier = %s, want {0}: the reads precede write 2", got)
	}
	if e := s.NextEvent(1, rd(x)); e != (Event{Op: R, Thread: 1, N: 2, Obj: x, M: 2}) {
		t.Errorf("NextEvent = %v", e)
	}
	if got, want := s.Hash()^s.EventHash(s.NextEvent(1, rd(x))), s.Clone().addHash(1, rd(x)); got != want {
		t.Errorf("successor hash %#x, want %#x", got, want)
	}
}

func (s *State) addHash(t ts.Tid, st ts.Step) uint64 {
	s.Add(t, st)
	return s.Hash()
}

func TestRemoveNotMaximal(t *testing.T) {
	s := New(2)
	s.Add(0, wr(x))
	s.Add(1, rd(x))
	for _, tc := range []struct {
		t    ts.Tid
		want string
	}{
		{0, "not maximal"},
		{2, "no events"},
		{-1, "no events"},
	} {
		func() {
			defer func() {
				p := recover()
				if msg, _ := p.(string); !strings.Contains(msg, tc.want) {
					t.Errorf("Remove(T%d) panicked with %v, want %q", tc.t, p, tc.want)
				}
			}()
			s.Remove(tc.t)
		}()
	}
	if e := s.Remove(1); e != (Event{Op: R, Thread: 1, N: 1, Obj: x, M: 1}) {
		t.Errorf("Remove(T1) = %v", e)
	}
	if !s.Maximal(0) {
		t.Errorf("T0 not maximal after its reader went")
	}
}

func TestSparseObjects(t *testing.T) {
	big, neg := ts.Obj(1<<30), ts.Obj(-7)
	s := New(2)
	s.Add(0, wr(big))
	s.Add(1, wr(neg))
	s.Add(1, rd(big))
	c := s.Clone()
	if !c.Equal(s) || !s.PrefixOf(c) {
		t.Fatalf("clone %v differs from %v", c, s)
	}
	if e, _ := c.Last(1); e != (Event{Op: R, Thread: 1, N: 2, Obj: big, M: 1}) {
		t.Errorf("last of T1 = %v", e)
	}
	c.Remove(1)
	c.Remove(1)
	c.Remove(0)
	if c.Len() != 0 || c.Hash() != 0 {
		t.Errorf("emptied state %v has hash %#x", c, c.Hash())
	}
}

func TestSeedsAndRoom(t *testing.T) {
	a, b := New(1), NewSeeded(4, 1)
	a.Add(0, wr(x))
	b.Add(0, wr(x))
	if !a.Equal(b) {
		t.Errorf("same events, different seed and room: not equal")
	}
	if a.Hash() == b.Hash() {
		t.Errorf("seeds %#x and 1 give the same hash", DefaultSeed)
	}
	a.Add(3, wr(y))
	if a.Threads() != 4 || a.ThreadLen(3) != 1 || a.ThreadLen(7) != 0 {
		t.Errorf("Threads %d, ThreadLen(3) %d", a.Threads(), a.ThreadLen(3))
	}
	a.Reset()
	if a.Len() != 0 || a.Hash() != 0 || !a.Equal(New(0)) {
		t.Errorf("Reset left %v", a)
	}
	if e := a.Add(0, wr(x)); e.M != 1 {
		t.Errorf("after Reset, first write has M %d", e.M)
	}
}

func TestPrefixNearMiss(t *testing.T) {
	// s: T0 reads x's initial value and writes it, T1 reads it in between.
	// x leaves out T1's read: each thread's events are a prefix of s's, but
	// s orders T1's read before T0's write.
	p := prog{{rd(x), wr(x)}, {rd(x)}}
	s := p.build(ts.ScheduleOf(0, 1, 0))
	near := p.build(ts.ScheduleOf(0, 0))
	if near.PrefixOf(s) {
		t.Errorf("%v.PrefixOf(%v)", near, s)
	}
	if pre := p.build(ts.ScheduleOf(0, 1)); !pre.PrefixOf(s) || s.PrefixOf(pre) {
		t.Errorf("%v vs %v: prefix test wrong", pre, s)
	}
}

func TestEventAccess(t *testing.T) {
	s := NewSeeded(1, 7)
	s.Add(0, wr(x))
	s.Add(0, rd(x))
	if s.Seed() != 7 {
		t.Errorf("Seed = %d", s.Seed())
	}
	if e := s.Event(0, 2); e != (Event{Op: R, Thread: 0, N: 2, Obj: x, M: 1}) || e.String() != "<R,T0,2,o0,1>" {
		t.Errorf("Event(0, 2) = %v", e)
	}
	if !panics(func() { s.Event(0, 3) }) || !panics(func() { s.Event(1, 1) }) {
		t.Error("Event out of range did not panic")
	}
	o := New(1)
	o.Add(0, wr(x))
	o.Add(0, wr(x))
	if s.Equal(o) || o.Equal(s) {
		t.Errorf("%v equals %v", s, o)
	}
}
