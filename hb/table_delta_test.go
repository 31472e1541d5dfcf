package hb

import (
	"runtime"
	"testing"

	"github.com/bits-and-blooms/bitset"
	"github.com/weftlab/weft/ts"
	"pgregory.net/rapid"
)

// TestTableDelta: states stored as differences (each prefix of some
// interleavings as its predecessor plus an event, and predecessors of stored
// states as that state minus an event) are found exactly as copies are:
// Lookup finds a state iff an equal one was stored, under the id it got,
// leaves the probe unchanged, and Load gives each back; LookupNext finds
// what Lookup finds with the event added, leaving the probe unchanged; also
// with events of several accesses and outcomes (TestTableDeltaWhole).
func TestTableDelta(t *testing.T)      { rapid.Check(t, checkTableDelta(basicGen)) }
func TestTableDeltaWhole(t *testing.T) { rapid.Check(t, checkTableDelta(wholeGen)) }

func checkTableDelta(g generator) func(*rapid.T) {
	return func(t *rapid.T) {
		p := g.prog(t)
		var tb Table
		ids := map[string]int{}
		var stored []*State
		check := func(s *State, id int, added bool) {
			k := s.String()
			old, seen := ids[k]
			if added == seen || (seen && old != id) {
				t.Fatalf("insert %v: id %d added %v, stored before as %d (%v)", s, id, added, old, seen)
			}
			if !seen {
				ids[k] = id
				stored = append(stored, s.Clone())
			}
		}
		// LookupNext of each thread's next event of one access at s
		lookupNext := func(s *State) {
			for u := range p {
				k := s.ThreadLen(ts.Tid(u))
				if k >= len(p[u]) || len(p[u][k].Also) != 0 {
					continue
				}
				before, h := s.String(), s.Hash()
				id, ok := tb.LookupNext(s, s.NextEvent(ts.Tid(u), p[u][k]))
				if s.String() != before || s.Hash() != h {
					t.Fatalf("LookupNext changed %v to %v", before, s)
				}
				y := s.Clone()
				y.Add(ts.Tid(u), p[u][k])
				if wid, wok := tb.Lookup(y); id != wid || ok != wok {
					t.Fatalf("LookupNext(%v, T%d) = %d, %v; Lookup(%v) = %d, %v", s, u, id, ok, y, wid, wok)
				}
			}
		}
		for range rapid.IntRange(1, 4).Draw(t, "runs") {
			sched := g.sched(t, p, "sched")
			s := New(len(p))
			prev, _ := tb.Insert(s)
			if len(stored) == 0 {
				check(s, prev, true)
			}
			for i, st := range p.steps(sched) {
				s.AddOutcome(sched[i].Thread, st, sched[i].Outcome)
				id, added := tb.InsertAdded(s, prev, sched[i].Thread)
				check(s, id, added)
				prev = id
			}
			// predecessors of a stored state, as differences
			from := rapid.IntRange(0, len(stored)-1).Draw(t, "from")
			x := stored[from].Clone()
			ref, ok := tb.Lookup(x)
			if !ok {
				t.Fatalf("lost %v", x)
			}
			for x.Len() > 0 {
				var f bitset.BitSet
				x.Frontier(&f)
				u, _ := f.NextSet(0)
				e := x.Remove(ts.Tid(u))
				id, added := tb.InsertRemoved(x, ref, e)
				check(x, id, added)
				lookupNext(x)
				ref = id
			}
		}
		if tb.Len() != len(ids) {
			t.Fatalf("table holds %d states, want %d", tb.Len(), len(ids))
		}
		d := NewSeeded(0, 5)
		for _, s := range stored {
			before := s.String()
			h := s.Hash()
			id, ok := tb.Lookup(s)
			if !ok || id != ids[before] || s.String() != before || s.Hash() != h {
				t.Fatalf("Lookup(%v) = %d, %v; state now %v", before, id, ok, s)
			}
			tb.Load(id, d)
			if !d.Equal(s) {
				t.Fatalf("Load(%d) = %v, want %v", id, d, s)
			}
			lookupNext(s)
		}
		// states never stored are not found
		for range 5 {
			sched := g.sched(t, p, "other")
			s := p.build(sched)
			if _, seen := ids[s.String()]; tb.Contains(s) != seen {
				t.Fatalf("Contains(%v) = %v, stored %v", s, !seen, seen)
			}
			lookupNext(s)
		}
	}
}

// TestTableDeltaMemory: a path of 10,000 states stored as differences keeps
// a constant number of bytes per state, not one word per event of each.
func TestTableDeltaMemory(t *testing.T) {
	var tb Table
	s := New(2)
	prev, _ := tb.Insert(s)
	const n = 10000
	for i := range n {
		s.Add(ts.Tid(i%2), wr(ts.Obj(i%7)))
		prev, _ = tb.InsertAdded(s, prev, ts.Tid(i%2))
	}
	if per := tb.Bytes() / n; per > int64(2*EntryBytes) {
		t.Fatalf("%d bytes per stored state, want at most %d", per, 2*EntryBytes)
	}
	if !tb.Contains(s) {
		t.Fatal("lost the last state")
	}
}

// TestTableLookupNextCollision: LookupNext compares events, not hashes: a
// probe whose hash is forced to a stored state's (a copy, a removal from
// one, or a state kept as an addition) is not found unless its events, the
// event added included, are the stored state's.
func TestTableLookupNextCollision(t *testing.T) {
	const z = l + 1
	var tb Table
	a := New(3)
	a.Add(0, wr(x))
	a.Add(1, wr(y))
	full, _ := tb.Insert(a) // T0 W x, T1 W y: a copy of two threads
	b := a.Clone()
	removed, _ := tb.InsertRemoved(b, full, b.Remove(1)) // T0 W x
	c := a.Clone()
	c.Add(0, wr(z))
	added, _ := tb.InsertAdded(c, full, 0) // T0 W x, W z; T1 W y
	forced := func(s *State, u ts.Tid, st ts.Step, id int) (int, bool) {
		e := s.NextEvent(u, st)
		s.hash = tb.entries[id].hash ^ s.EventHash(e)
		return tb.LookupNext(s, e)
	}
	probe := func(evs ...ts.Event) *State {
		s := New(3)
		for _, e := range evs {
			s.Add(e.Thread, e.Step)
		}
		return s
	}
	t0x := ts.Event{Thread: 0, Step: wr(x)}
	t1y := ts.Event{Thread: 1, Step: wr(y)}
	for _, tc := range []struct {
		name string
		s    *State
		u    ts.Tid
		st   ts.Step
		id   int
		want bool
	}{
		{"the copy itself", probe(t0x), 1, wr(y), full, true},
		{"the copy, another last event", probe(t0x), 1, wr(z), full, false},
		{"the copy, another thread's event", probe(t1y), 0, wr(y), full, false},
		{"the removal itself", probe(), 0, wr(x), removed, true},
		{"the removal, a thread the copy lacks", probe(), 2, wr(x), removed, false},
		{"the removal, one event more", probe(t1y), 0, wr(x), removed, false},
		{"the addition itself", probe(t0x, t1y), 0, wr(z), added, true},
		{"the addition, another last event", probe(t0x, t1y), 0, wr(y), added, false},
	} {
		s := tc.s
		before := s.String()
		id, ok := forced(s, tc.u, tc.st, tc.id)
		if ok != tc.want || ok && id != tc.id {
			t.Errorf("%s: LookupNext(%v, T%d %v) = %d, %v; want %d, %v", tc.name, before, tc.u, tc.st, id, ok, tc.id, tc.want)
		}
		if s.String() != before {
			t.Errorf("%s: the probe changed from %v to %v", tc.name, before, s)
		}
	}
}

// TestTableInRegions: a table of 100,000 states, its entries and events past
// 2 MB and so in mapped memory (internal/offheap), finds and loads the
// states it stored as it did in the heap.
func TestTableInRegions(t *testing.T) {
	var tb Table
	s := New(3)
	prev, _ := tb.Insert(s)
	const n = 100000
	var kept []*State
	var ids []int
	for i := range n {
		s.Add(ts.Tid(i%3), wr(ts.Obj(i%11)))
		if i%5000 == 0 {
			prev, _ = tb.Insert(s) // a full copy now and then: words grow too
		} else {
			prev, _ = tb.InsertAdded(s, prev, ts.Tid(i%3))
		}
		if i%997 == 0 {
			kept, ids = append(kept, s.Clone()), append(ids, prev)
		}
	}
	if runtime.GOOS == "linux" && tb.OffHeapBytes() == 0 {
		t.Fatalf("a table of %d bytes, none of it mapped", tb.Bytes())
	}
	got := New(3)
	for i, k := range kept {
		if id, ok := tb.Lookup(k); !ok || id != ids[i] {
			t.Fatalf("state %d: Lookup %d %v, want %d", i, id, ok, ids[i])
		}
		tb.Load(ids[i], got)
		if !got.Equal(k) {
			t.Fatalf("state %d loaded differs", i)
		}
	}
	// Free gives the memory back and leaves a table ready for use.
	tb.Free()
	if tb.Len() != 0 || tb.Bytes() != 0 || tb.OffHeapBytes() != 0 || tb.Contains(kept[0]) {
		t.Fatalf("a freed table holds %d states, %d bytes", tb.Len(), tb.Bytes())
	}
	if id, added := tb.Insert(kept[0]); !added || id != 0 || !tb.Contains(kept[0]) {
		t.Fatal("a freed table does not take a state")
	}
}
