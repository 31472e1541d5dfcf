package hb

import (
	"slices"
	"strings"
	"testing"

	"github.com/weftlab/weft/ts"
	"pgregory.net/rapid"
)

// bruteRaces computes the races of an execution from the transitive closure
// of its synchronization happens-before order, in the form Detector reports
// them: for each access, each other thread's last conflicting unordered data
// access. It also returns each access's clock after it: per thread, how many
// of its events happen before or are the access.
func bruteRaces(evs []ts.Event, threads int) ([]Race, [][]uint32) {
	n := len(evs)
	hb := make([][]bool, n) // hb[i][j]: i happens before j (i < j)
	for j := range n {
		hb[j] = make([]bool, n)
		for i := j - 1; i >= 0; i-- { // hb[k][j] for k > i is known
			a, b := evs[i], evs[j]
			if a.Thread == b.Thread || a.Step.IsSync() && b.Step.IsSync() && a.Step.Obj == b.Step.Obj {
				hb[i][j] = true
			}
			for k := i + 1; k < j && !hb[i][j]; k++ {
				hb[i][j] = hb[i][k] && hb[k][j]
			}
		}
	}
	var races []Race
	clocks := make([][]uint32, n)
	for j, b := range evs {
		clocks[j] = make([]uint32, threads)
		clocks[j][b.Thread]++
		for i := range j {
			if hb[i][j] {
				clocks[j][evs[i].Thread]++
			}
		}
		if b.Step.IsSync() {
			continue
		}
		for u := range threads {
			if ts.Tid(u) == b.Thread {
				continue
			}
			for i := j - 1; i >= 0; i-- {
				a := evs[i]
				if a.Thread != ts.Tid(u) || a.Step.IsSync() || a.Step.Obj != b.Step.Obj ||
					a.Step.Op == ts.Read && b.Step.Op == ts.Read {
					continue
				}
				if !hb[i][j] {
					races = append(races, Race{
						First:  Access{Thread: a.Thread, Index: i, Step: a.Step},
						Second: Access{Thread: b.Thread, Index: j, Step: b.Step}})
				}
				break // the last conflicting access decides
			}
		}
	}
	return races, clocks
}

// TestRacesBrute: the detector finds exactly the races of the brute-force
// closure, and its clocks count exactly the events that happen before.
func TestRacesBrute(t *testing.T) {
	d := NewDetector(4)
	rapid.Check(t, func(t *rapid.T) {
		p := genProg(t)
		evs := p.events(genSched(t, p, "sched"))
		want, clocks := bruteRaces(evs, len(p))
		got := Races(evs)
		if !slices.EqualFunc(got, want, sameRace) {
			t.Fatalf("execution %v:\nraces %v\nwant  %v", evs, got, want)
		}
		// Again with a reused detector of more threads, checking clocks.
		d.Reset()
		got = got[:0]
		for j, e := range evs {
			got = append(got, d.Step(e.Thread, e.Step)...)
			c := d.Clock(e.Thread)[:len(p)]
			if !slices.Equal(c, clocks[j]) {
				t.Fatalf("execution %v: clock of T%d after step %d = %v, want %v", evs, e.Thread, j, c, clocks[j])
			}
		}
		if d.Len() != len(evs) || !slices.EqualFunc(got, want, sameRace) {
			t.Fatalf("reused detector: races %v, want %v", got, want)
		}
	})
}

func TestRacesFixtures(t *testing.T) {
	dataW := func(o ts.Obj) ts.Step { return wr(o) }
	syncW := func(o ts.Obj) ts.Step { return ts.Step{Obj: o, Op: ts.Write, Sync: true} }
	syncR := func(o ts.Obj) ts.Step { return ts.Step{Obj: o, Op: ts.Read, Sync: true} }
	ev := func(t ts.Tid, st ts.Step) ts.Event { return ts.Event{Thread: t, Step: st} }
	tests := []struct {
		name string
		evs  []ts.Event
		want []string
	}{
		{"unprotected", []ts.Event{ev(0, dataW(x)), ev(1, rd(x))},
			[]string{"data race on o0: T0 write at step 0 and T1 read at step 1"}},
		{"reads only", []ts.Event{ev(0, rd(x)), ev(1, rd(x))}, nil},
		{"locked", []ts.Event{
			ev(0, acq(l)), ev(0, dataW(x)), ev(0, rel(l)),
			ev(1, acq(l)), ev(1, dataW(x)), ev(1, rel(l)),
		}, nil},
		{"lock released too early", []ts.Event{
			ev(0, acq(l)), ev(0, rel(l)), ev(0, dataW(x)),
			ev(1, acq(l)), ev(1, dataW(x)), ev(1, rel(l)),
		}, []string{"data race on o0: T0 write at step 2 and T1 write at step 4"}},
		{"flag publication", []ts.Event{ // x = 1; flag = 1 || if flag { read x }
			ev(0, dataW(x)), ev(0, syncW(y)), ev(1, syncR(y)), ev(1, rd(x)),
		}, nil},
		{"two racing partners", []ts.Event{
			ev(0, rd(x)), ev(1, rd(x)), ev(2, dataW(x)),
		}, []string{
			"data race on o0: T0 read at step 0 and T2 write at step 2",
			"data race on o0: T1 read at step 1 and T2 write at step 2",
		}},
		{"transitive order", []ts.Event{ // T0 -> T1 via l, T1 -> T2 via y
			ev(0, dataW(x)), ev(0, rel(l)), ev(1, acq(l)), ev(1, syncW(y)), ev(2, syncR(y)), ev(2, dataW(x)),
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, r := range Races(tc.evs) {
				got = append(got, r.Error())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("races:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestDetectorThreadRange(t *testing.T) {
	d := NewDetector(2)
	if !panics(func() { d.Step(2, wr(x)) }) || !panics(func() { NewDetector(0) }) {
		t.Error("no panic for a thread out of range")
	}
}

func TestVC(t *testing.T) {
	a, b := NewVC(3), NewVC(3)
	a.Tick(0)
	a.Tick(0)
	b.Tick(1)
	if !a.Concurrent(b) || a.LessEq(b) || a.Before(b) {
		t.Errorf("%v and %v should be concurrent", a, b)
	}
	b.Join(a)
	if b.String() != "[2 1 0]" || !a.Before(b) || !a.LessEq(b) || b.LessEq(a) || a.Concurrent(b) {
		t.Errorf("after join: %v, %v", a, b)
	}
	if !b.Covers(0, 2) || b.Covers(0, 3) || b.Covers(2, 1) {
		t.Errorf("Covers wrong on %v", b)
	}
	c := b.Clone()
	c.Tick(2)
	if b.Equal(c) || !b.Before(c) || b.Before(b) {
		t.Errorf("clone shares memory or Before is wrong: %v %v", b, c)
	}
	c.CopyFrom(a)
	if !c.Equal(a) {
		t.Errorf("CopyFrom: %v, want %v", c, a)
	}
	c.Reset()
	if !c.Equal(NewVC(3)) {
		t.Errorf("Reset: %v", c)
	}
}

func sameRace(a, b Race) bool {
	same := func(x, y Access) bool { return x.Thread == y.Thread && x.Index == y.Index && x.Step.Equal(y.Step) }
	return same(a.First, b.First) && same(a.Second, b.Second)
}
