package hb

import (
	"testing"

	"github.com/bits-and-blooms/bitset"
	"github.com/weftlab/weft/ts"
	"pgregory.net/rapid"
)

// TestTableDelta: states stored as differences (each prefix of some
// interleavings as its predecessor plus an event, and predecessors of stored
// states as that state minus an event) are found exactly as copies are:
// Lookup finds a state iff an equal one was stored, under the id it got,
// leaves the probe unchanged, and Load gives each back; also with events of
// several accesses and outcomes (TestTableDeltaWhole).
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
		}
		// states never stored are not found
		for range 5 {
			sched := g.sched(t, p, "other")
			s := p.build(sched)
			if _, seen := ids[s.String()]; tb.Contains(s) != seen {
				t.Fatalf("Contains(%v) = %v, stored %v", s, !seen, seen)
			}
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
