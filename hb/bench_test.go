package hb

import (
	"math/rand/v2"
	"testing"

	"github.com/bits-and-blooms/bitset"
	"github.com/weftlab/weft/ts"
)

// workload is a random execution of 4 threads of 50 steps each on 8
// objects, half of them synchronization objects.
type workload struct {
	p     prog
	sched ts.Schedule
	steps []ts.Step
	evs   []ts.Event
}

func newWorkload() *workload {
	r := rand.New(rand.NewPCG(1, 2))
	w := &workload{p: make(prog, 4)}
	for t := range w.p {
		for range 50 {
			o := ts.Obj(r.IntN(8))
			st := ts.Step{Obj: o, Op: ts.Op(r.IntN(2)), Sync: o >= 4}
			if o >= 6 {
				st.Op = ts.Acquire + ts.Op(r.IntN(2))
			}
			w.p[t] = append(w.p[t], st)
		}
	}
	left := []int{50, 50, 50, 50}
	for len(w.sched) < 200 {
		t := r.IntN(4)
		if left[t] > 0 {
			left[t]--
			w.sched = append(w.sched, ts.Move{Thread: ts.Tid(t)})
		}
	}
	w.steps = w.p.steps(w.sched)
	w.evs = w.p.events(w.sched)
	return w
}

// newWholeWorkload is newWorkload where every third step also touches
// one or two more objects and every fifth move takes outcome 1 or 2.
func newWholeWorkload() *workload {
	w := newWorkload()
	r := rand.New(rand.NewPCG(3, 4))
	for t := range w.p {
		for i := range w.p[t] {
			if i%3 != 0 {
				continue
			}
			st := &w.p[t][i]
			for k := range 1 + r.IntN(2) {
				o := (st.Obj + ts.Obj(k+1)) % 8
				st.Also = append(st.Also, ts.Access{Obj: o, Op: ts.Op(r.IntN(2))})
			}
		}
	}
	for i := range w.sched {
		if i%5 == 0 {
			w.sched[i].Outcome = 1 + r.IntN(2)
		}
	}
	w.steps = w.p.steps(w.sched)
	w.evs = w.p.events(w.sched)
	return w
}

// addRemove adds the whole execution to s and removes it again, last first.
func (w *workload) addRemove(s *State) {
	for i, mv := range w.sched {
		s.AddOutcome(mv.Thread, w.steps[i], mv.Outcome)
	}
	for i := len(w.sched) - 1; i >= 0; i-- {
		s.Remove(w.sched[i].Thread)
	}
}

func (w *workload) detect(d *Detector) int {
	d.Reset()
	n := 0
	for _, e := range w.evs {
		n += len(d.Step(e.Thread, e.Step))
	}
	return n
}

// TestZeroAllocs: once warm, the operations that strategies run at every
// step allocate nothing.
func TestZeroAllocs(t *testing.T) {
	w := newWorkload()
	s := New(4)
	w.addRemove(s)
	full := w.p.build(w.sched)
	other := full.Clone()
	var f bitset.BitSet
	full.Frontier(&f)
	var sched ts.Schedule
	sched = full.Linearize(sched[:0])
	var tb Table
	tb.Insert(full)
	d := NewDetector(4)
	w.detect(d)
	half := w.p.build(w.sched[:100])
	var sink uint64
	ops := []struct {
		name string
		f    func()
	}{
		{"Add+Remove", func() { w.addRemove(s) }},
		{"NextEvent+EventHash", func() { sink += s.EventHash(full.NextEvent(1, wr(3))) }},
		{"Equal", func() {
			if !full.Equal(other) {
				t.Fatal("not equal")
			}
		}},
		{"PrefixOf", func() {
			if !half.PrefixOf(full) {
				t.Fatal("not a prefix")
			}
		}},
		{"Frontier", func() { full.Frontier(&f) }},
		{"Linearize", func() { sched = full.Linearize(sched[:0]) }},
		{"CopyFrom", func() { other.CopyFrom(full) }},
		{"Table.Lookup", func() {
			if !tb.Contains(other) {
				t.Fatal("not found")
			}
		}},
		{"Detector", func() { w.detect(d) }},
		{"VC", func() {
			a, b := d.Clock(0), d.Clock(1)
			a.Join(b)
			a.Tick(0)
			_ = b.LessEq(a)
		}},
	}
	for _, op := range ops {
		if n := testing.AllocsPerRun(20, op.f); n != 0 {
			t.Errorf("%s: %v allocations per run, want 0", op.name, n)
		}
	}

	// The same with events of several accesses and outcomes.
	ww := newWholeWorkload()
	ws := New(4)
	ww.addRemove(ws)
	wfull := ww.p.build(ww.sched)
	wother := wfull.Clone()
	var wtb Table
	wtb.Insert(wfull)
	prev, _ := wtb.Insert(New(4))
	chain := New(4)
	for i, mv := range ww.sched {
		chain.AddOutcome(mv.Thread, ww.steps[i], mv.Outcome)
		prev, _ = wtb.InsertAdded(chain, prev, mv.Thread)
	}
	many := ts.Step{Obj: 1, Op: ts.Write, Also: []ts.Access{{Obj: 2, Op: ts.Read}, {Obj: 5, Op: ts.Write}}}
	for _, op := range []struct {
		name string
		f    func()
	}{
		{"whole Add+Remove", func() { ww.addRemove(ws) }},
		{"whole NextEvent+EventHash", func() { sink += wfull.EventHash(wfull.NextEventOutcome(1, many, 2)) }},
		{"whole Frontier", func() { wfull.Frontier(&f) }},
		{"whole Linearize", func() { sched = wfull.Linearize(sched[:0]) }},
		{"whole CopyFrom", func() { wother.CopyFrom(wfull) }},
		{"whole Table.Lookup", func() {
			if !wtb.Contains(wother) || !wtb.Contains(chain) {
				t.Fatal("not found")
			}
		}},
	} {
		if n := testing.AllocsPerRun(20, op.f); n != 0 {
			t.Errorf("%s: %v allocations per run, want 0", op.name, n)
		}
	}
	_ = sink
}

func BenchmarkAddRemove(b *testing.B) {
	w := newWorkload()
	s := New(4)
	w.addRemove(s)
	b.ReportAllocs()
	for b.Loop() {
		w.addRemove(s)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*2*len(w.sched)), "ns/event")
}

// BenchmarkAddRemoveWhole is BenchmarkAddRemove with every third step
// touching two or three objects and every fifth move an outcome.
func BenchmarkAddRemoveWhole(b *testing.B) {
	w := newWholeWorkload()
	s := New(4)
	w.addRemove(s)
	b.ReportAllocs()
	for b.Loop() {
		w.addRemove(s)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*2*len(w.sched)), "ns/event")
}

func BenchmarkSuccessorHash(b *testing.B) {
	w := newWorkload()
	s := w.p.build(w.sched)
	b.ReportAllocs()
	var h uint64
	for b.Loop() {
		h ^= s.Hash() ^ s.EventHash(s.NextEvent(2, wr(3)))
	}
	_ = h
}

func BenchmarkEqual(b *testing.B) {
	w := newWorkload()
	s := w.p.build(w.sched)
	o := s.Clone()
	b.ReportAllocs()
	for b.Loop() {
		if !s.Equal(o) {
			b.Fatal("not equal")
		}
	}
}

func BenchmarkPrefixOf(b *testing.B) {
	w := newWorkload()
	s := w.p.build(w.sched)
	x := w.p.build(w.sched[:100])
	b.ReportAllocs()
	for b.Loop() {
		if !x.PrefixOf(s) {
			b.Fatal("not a prefix")
		}
	}
}

func BenchmarkFrontier(b *testing.B) {
	w := newWorkload()
	s := w.p.build(w.sched)
	var f bitset.BitSet
	s.Frontier(&f)
	b.ReportAllocs()
	for b.Loop() {
		s.Frontier(&f)
	}
}

func BenchmarkLinearize(b *testing.B) {
	w := newWorkload()
	s := w.p.build(w.sched)
	sched := s.Linearize(nil)
	b.ReportAllocs()
	for b.Loop() {
		sched = s.Linearize(sched[:0])
	}
}

func BenchmarkCopyFrom(b *testing.B) {
	w := newWorkload()
	s := w.p.build(w.sched)
	c := s.Clone()
	b.ReportAllocs()
	for b.Loop() {
		c.CopyFrom(s)
	}
}

func BenchmarkTableLookup(b *testing.B) {
	w := newWorkload()
	var tb Table
	s := New(4)
	for i, mv := range w.sched {
		t := mv.Thread
		s.Add(t, w.steps[i])
		tb.Insert(s)
	}
	b.ReportAllocs()
	for b.Loop() {
		if !tb.Contains(s) {
			b.Fatal("not found")
		}
	}
}

func BenchmarkTableInsert(b *testing.B) {
	w := newWorkload()
	var tb Table
	s := New(4)
	b.ReportAllocs()
	for b.Loop() {
		tb.Reset()
		s.Reset()
		for i, mv := range w.sched {
			t := mv.Thread
			s.Add(t, w.steps[i])
			tb.Insert(s)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(w.sched)), "ns/insert")
}

func BenchmarkDetector(b *testing.B) {
	w := newWorkload()
	d := NewDetector(4)
	w.detect(d)
	b.ReportAllocs()
	for b.Loop() {
		w.detect(d)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(w.evs)), "ns/access")
}
