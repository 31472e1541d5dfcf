package hb

import (
	"slices"
	"testing"

	"github.com/bits-and-blooms/bitset"
	"github.com/weftlab/weft/ts"
	"pgregory.net/rapid"
)

// TestSwaps: swapping two adjacent transitions of different threads keeps
// the state and its hash iff the two are independent; with steps of several
// objects and outcomes too (TestSwapsWhole).
func TestSwaps(t *testing.T)      { rapid.Check(t, checkSwaps(basicGen)) }
func TestSwapsWhole(t *testing.T) { rapid.Check(t, checkSwaps(wholeGen)) }

func checkSwaps(g generator) func(*rapid.T) {
	return func(t *rapid.T) {
		p := g.prog(t)
		sched := g.sched(t, p, "sched")
		s := p.build(sched)
		steps := p.steps(sched)
		for i := 0; i+1 < len(sched); i++ {
			if sched[i].Thread == sched[i+1].Thread {
				continue
			}
			sw := slices.Clone(sched)
			sw[i], sw[i+1] = sw[i+1], sw[i]
			s2 := p.build(sw)
			if ts.Dependent(steps[i], steps[i+1]) {
				if s.Equal(s2) || s.Hash() == s2.Hash() {
					t.Fatalf("dependent swap at %d of %v: %v (%#x) and %v (%#x) not told apart", i, sched, s, s.Hash(), s2, s2.Hash())
				}
			} else if !s.Equal(s2) || s.Hash() != s2.Hash() {
				t.Fatalf("independent swap at %d of %v: %v (%#x) and %v (%#x) differ", i, sched, s, s.Hash(), s2, s2.Hash())
			}
		}
	}
}

// TestRemoveReadd: removing the last event of a frontier thread and adding it
// back gives the same state and hash; the removed state is the one its
// linearization reaches; other threads cannot be removed.
func TestRemoveReadd(t *testing.T)      { rapid.Check(t, checkRemoveReadd(basicGen)) }
func TestRemoveReaddWhole(t *testing.T) { rapid.Check(t, checkRemoveReadd(wholeGen)) }

func checkRemoveReadd(g generator) func(*rapid.T) {
	return func(t *rapid.T) {
		p := g.prog(t)
		sched := g.sched(t, p, "sched")
		k := rapid.IntRange(0, len(sched)).Draw(t, "prefix")
		s := p.build(sched[:k])
		var f bitset.BitSet
		s.Frontier(&f)
		c := New(0)
		for tid := range s.Threads() {
			tt := ts.Tid(tid)
			if !f.Test(uint(tid)) {
				if s.ThreadLen(tt) > 0 && !panics(func() { s.Clone().Remove(tt) }) {
					t.Fatalf("Remove(T%d) of %v did not panic", tid, s)
				}
				continue
			}
			c.CopyFrom(s)
			e := c.Remove(tt)
			if c.Len() != s.Len()-1 || c.Hash() != s.Hash()^s.EventHash(e) {
				t.Fatalf("Remove(T%d) of %v: %v, hash %#x", tid, s, c, c.Hash())
			}
			if got := s.LastHash(tt); got != s.EventHash(e) {
				t.Fatalf("LastHash(T%d) of %v = %#x, want the removed event's %#x", tid, s, got, s.EventHash(e))
			}
			if r := p.build(c.Linearize(nil)); !r.Equal(c) || r.Hash() != c.Hash() {
				t.Fatalf("Remove(T%d) of %v gave %v, its linearization reaches %v", tid, s, c, r)
			}
			if !c.PrefixOf(s) || s.PrefixOf(c) {
				t.Fatalf("Remove(T%d) of %v: %v not a strict prefix", tid, s, c)
			}
			st := p[tid][e.N-1]
			if got := c.NextEventOutcome(tt, st, e.Outcome); got != e || e.More != len(st.Also) {
				t.Fatalf("NextEvent(T%d) = %v, removed %v", tid, got, e)
			}
			if got := c.Hash() ^ c.EventHash(c.NextEventOutcome(tt, st, e.Outcome)); got != s.Hash() {
				t.Fatalf("successor hash %#x, want %#x", got, s.Hash())
			}
			if got := c.AddOutcome(tt, st, e.Outcome); got != e {
				t.Fatalf("Add(T%d) = %v, removed %v", tid, got, e)
			}
			if !c.Equal(s) || c.Hash() != s.Hash() {
				t.Fatalf("Remove then Add(T%d) of %v gave %v", tid, s, c)
			}
		}
	}
}

func panics(f func()) (p bool) {
	defer func() { p = recover() != nil }()
	f()
	return false
}

// TestLinearize: the linearization of a state is a schedule of the program
// that reaches an equal state, and so does every schedule it equals.
func TestLinearize(t *testing.T)      { rapid.Check(t, checkLinearize(basicGen)) }
func TestLinearizeWhole(t *testing.T) { rapid.Check(t, checkLinearize(wholeGen)) }

func checkLinearize(g generator) func(*rapid.T) {
	return func(t *rapid.T) {
		p := g.prog(t)
		sched := g.sched(t, p, "sched")
		s := p.build(sched)
		lin := s.Linearize(ts.ScheduleOf(99))[1:]
		got, want := slices.Sorted(slices.Values(lin.Threads())), slices.Sorted(slices.Values(sched.Threads()))
		if !slices.Equal(got, want) {
			t.Fatalf("linearization %v of %v is not a permutation", lin, sched)
		}
		r := p.build(lin)
		if !r.Equal(s) || r.Hash() != s.Hash() {
			t.Fatalf("schedule %v gave %v; its linearization %v gives %v", sched, s, lin, r)
		}
	}
}

// TestFrontierBrute: Frontier agrees with the definition: no event has an
// edge out of the thread's last one. Removing frontier events in any order
// walks down through prefixes to the empty state.
func TestFrontierBrute(t *testing.T)      { rapid.Check(t, checkFrontier(basicGen)) }
func TestFrontierBruteWhole(t *testing.T) { rapid.Check(t, checkFrontier(wholeGen)) }

func checkFrontier(g generator) func(*rapid.T) {
	return func(t *rapid.T) {
		p := g.prog(t)
		sched := g.sched(t, p, "sched")
		s := p.build(sched)
		top := s.Clone()
		var f bitset.BitSet
		for {
			s.Frontier(&f)
			var got []int
			for i, ok := f.NextSet(0); ok; i, ok = f.NextSet(i + 1) {
				got = append(got, int(i))
			}
			if want := bruteFrontier(s); !slices.Equal(got, want) {
				t.Fatalf("frontier of %v = %v, want %v", s, got, want)
			}
			if !s.PrefixOf(top) {
				t.Fatalf("%v is not a prefix of %v", s, top)
			}
			if len(got) == 0 {
				break
			}
			s.Remove(ts.Tid(got[rapid.IntRange(0, len(got)-1).Draw(t, "remove")]))
		}
		if s.Len() != 0 || s.Hash() != 0 {
			t.Fatalf("frontier empty at %v", s)
		}
	}
}

// TestPrefixBrute: PrefixOf agrees with the definition (a subset closed under
// the larger state's edges) on prefixes of two interleavings of one program,
// and on near misses: a state with the later transitions of one thread left
// out of a schedule, which keeps every thread's events but may miss a read
// that the larger state orders before a write.
func TestPrefixBrute(t *testing.T)      { rapid.Check(t, checkPrefixes(basicGen)) }
func TestPrefixBruteWhole(t *testing.T) { rapid.Check(t, checkPrefixes(wholeGen)) }

func checkPrefixes(g generator) func(*rapid.T) {
	return func(t *rapid.T) {
		p := g.prog(t)
		for range 8 {
			checkPrefix(t, g, p)
		}
	}
}

func checkPrefix(t *rapid.T, g generator, p prog) {
	genSched := g.sched
	b := genSched(t, p, "b")
	b = b[:rapid.IntRange(0, len(b)).Draw(t, "j")]
	var a ts.Schedule
	switch rapid.IntRange(0, 2).Draw(t, "mode") {
	case 0: // another interleaving
		a = genSched(t, p, "a")
		a = a[:rapid.IntRange(0, len(a)).Draw(t, "i")]
	case 1: // one that follows b for a while
		k := rapid.IntRange(0, len(b)).Draw(t, "shared")
		a = append(slices.Clone(b[:k]), p.rest(b[:k], genSched(t, p, "a"))...)
		a = a[:rapid.IntRange(k, len(a)).Draw(t, "i")]
	case 2: // b without a thread's later transitions
		u := ts.Tid(rapid.IntRange(0, len(p)-1).Draw(t, "u"))
		keep := rapid.IntRange(0, len(p[u])).Draw(t, "keep")
		for _, tid := range b {
			if tid.Thread == u {
				if keep == 0 {
					continue
				}
				keep--
			}
			a = append(a, tid)
		}
	}
	x, s := p.build(a), p.build(b)
	if got, want := x.PrefixOf(s), brutePrefix(x, s); got != want {
		t.Fatalf("%v.PrefixOf(%v) = %v, want %v", x, s, got, want)
	}
}

// rest returns the transitions of b left once done has run, in b's order.
func (p prog) rest(done, b ts.Schedule) ts.Schedule {
	left := make([]int, len(p))
	for _, mv := range done {
		t := mv.Thread
		left[t]++
	}
	var out ts.Schedule
	for _, mv := range b {
		t := mv.Thread
		if left[t] > 0 {
			left[t]--
		} else {
			out = append(out, mv)
		}
	}
	return out
}

// TestTableBrute: a table of every prefix state of a few interleavings holds
// exactly the distinct event sets, and Load gives each back.
func TestTableBrute(t *testing.T)      { rapid.Check(t, checkTable(basicGen)) }
func TestTableBruteWhole(t *testing.T) { rapid.Check(t, checkTable(wholeGen)) }

func checkTable(g generator) func(*rapid.T) {
	return func(t *rapid.T) {
		p := g.prog(t)
		var tb Table
		distinct := map[string]bool{}
		hashes := map[uint64]bool{}
		var ids []int
		var states []*State
		for range rapid.IntRange(1, 4).Draw(t, "runs") {
			sched := g.sched(t, p, "sched")
			s := New(len(p))
			for i, st := range p.steps(sched) {
				s.AddOutcome(sched[i].Thread, st, sched[i].Outcome)
				id, added := tb.Insert(s)
				if added != !distinct[s.String()] {
					t.Fatalf("Insert(%v) added = %v", s, added)
				}
				distinct[s.String()] = true
				if !tb.Contains(s) {
					t.Fatalf("table lost %v", s)
				}
				hashes[s.Hash()] = true
				if !tb.MayContain(s.Hash()) {
					t.Fatalf("MayContain(%#x) false for %v, just inserted", s.Hash(), s)
				}
				if h := rapid.Uint64().Draw(t, "hash"); tb.MayContain(h) != hashes[h] {
					t.Fatalf("MayContain(%#x) = %v, a state of that hash inserted: %v", h, !hashes[h], hashes[h])
				}
				ids = append(ids, id)
				states = append(states, s.Clone())
			}
		}
		if tb.Len() != len(distinct) {
			t.Fatalf("table holds %d states, want %d", tb.Len(), len(distinct))
		}
		d := NewSeeded(0, 5)
		for i, id := range ids {
			tb.Load(id, d)
			if !d.Equal(states[i]) || !d.PrefixOf(states[i]) || !states[i].PrefixOf(d) {
				t.Fatalf("Load(%d) = %v, want %v", id, d, states[i])
			}
			d2 := states[i].Clone()
			tb.Load(id, d2)
			if d2.Hash() != states[i].Hash() || !slices.Equal(d2.Linearize(nil), states[i].Linearize(nil)) {
				t.Fatalf("Load(%d) into a same-seed state: hash %#x, want %#x", id, d2.Hash(), states[i].Hash())
			}
		}
	}
}

func TestTableCollision(t *testing.T) {
	a, b := New(2), New(2)
	a.Add(0, wr(x))
	b.Add(1, wr(x))
	a.hash, b.hash = 42, 42 // force a collision
	var tb Table
	if _, added := tb.Insert(a); !added {
		t.Fatal("first insert not added")
	}
	if id, added := tb.Insert(b); !added || id != 1 {
		t.Fatalf("colliding state: id %d, added %v", id, added)
	}
	if id, ok := tb.Lookup(a); !ok || id != 0 {
		t.Errorf("Lookup(a) = %d, %v", id, ok)
	}
	if id, ok := tb.Lookup(b); !ok || id != 1 {
		t.Errorf("Lookup(b) = %d, %v", id, ok)
	}
	c := New(3)
	c.Add(2, wr(x))
	c.hash = 42
	if tb.Contains(c) || tb.Len() != 2 {
		t.Errorf("third colliding state found")
	}
	if !panics(func() { tb.Contains(NewSeeded(1, 9)) }) {
		t.Errorf("no panic for a state of another seed")
	}
	tb.Reset()
	if tb.Len() != 0 || tb.Contains(a) {
		t.Errorf("Reset left states")
	}
	tb.Insert(NewSeeded(1, 9))
	if !tb.Contains(NewSeeded(0, 9)) {
		t.Errorf("empty state of seed 9 not found after Reset")
	}
}

// TestEquivalence: two interleavings of one program reach equal states (and
// equal hashes) iff they order every dependent pair of transitions alike:
// iff they are the same Mazurkiewicz trace (with the same outcomes).
func TestEquivalence(t *testing.T)      { rapid.Check(t, checkEquivalence(basicGen)) }
func TestEquivalenceWhole(t *testing.T) { rapid.Check(t, checkEquivalence(wholeGen)) }

func checkEquivalence(g generator) func(*rapid.T) {
	return func(t *rapid.T) {
		p := g.prog(t)
		a := g.sched(t, p, "a")
		var b ts.Schedule
		if rapid.Bool().Draw(t, "swaps") {
			// Equivalent more often than chance: swap independent neighbours.
			b = slices.Clone(a)
			steps := p.steps(b)
			for range rapid.IntRange(0, 20).Draw(t, "n") {
				if len(b) < 2 {
					break
				}
				i := rapid.IntRange(0, len(b)-2).Draw(t, "i")
				if b[i].Thread != b[i+1].Thread && !ts.Dependent(steps[i], steps[i+1]) {
					b[i], b[i+1] = b[i+1], b[i]
					steps[i], steps[i+1] = steps[i+1], steps[i]
				}
			}
		} else {
			b = g.sched(t, p, "b")
		}
		sa, sb := p.build(a), p.build(b)
		want := sameTrace(p, a, b)
		if sa.Equal(sb) != want || (sa.Hash() == sb.Hash()) != want {
			t.Fatalf("%v and %v: states %v and %v, equal %v, hashes %#x %#x; same trace %v",
				a, b, sa, sb, sa.Equal(sb), sa.Hash(), sb.Hash(), want)
		}
	}
}

// sameTrace reports whether complete schedules a and b of p give every
// transition the same outcome and order every pair of dependent transitions
// alike.
func sameTrace(p prog, a, b ts.Schedule) bool {
	type tr struct {
		t ts.Tid
		n int
	}
	label := func(s ts.Schedule) ([]tr, map[tr]int) {
		cnt := make([]int, len(p))
		ids := make([]tr, len(s))
		at := map[tr]int{}
		for i, mv := range s {
			t := mv.Thread
			ids[i] = tr{t, cnt[t]}
			at[ids[i]] = i
			cnt[t]++
		}
		return ids, at
	}
	ia, _ := label(a)
	_, atB := label(b)
	for i, x := range ia {
		if a[i].Outcome != b[atB[x]].Outcome {
			return false
		}
	}
	for i := range ia {
		for j := i + 1; j < len(ia); j++ {
			x, y := ia[i], ia[j]
			if x.t == y.t || !ts.Dependent(p[x.t][x.n], p[y.t][y.n]) {
				continue
			}
			if atB[x] > atB[y] {
				return false
			}
		}
	}
	return true
}
