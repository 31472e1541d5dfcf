package ts_test

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
	"pgregory.net/rapid"
)

// A Reproducer agrees with ConfirmWith on every schedule it is asked about,
// in any order: the violations a full search reports, their prefixes, the
// same schedules with another kind of violation or with a move changed, on
// random programs, both with a state type that holds no references (the
// Reproducer keeps the states it replayed) and with one that does.
func TestReproducerIsConfirmWith(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{}).Draw(t, "program")
		ignore := rapid.Bool().Draw(t, "ignoreDeadlocks")
		opt := ts.Options{KeepGoing: true, IgnoreDeadlocks: ignore, Limits: ts.Limits{Transitions: 20000}}
		type found struct {
			v     *ts.Violation
			sched ts.Schedule
		}
		var all []found
		opt.OnViolation = func(v *ts.Violation) { all = append(all, found{v, v.Trace.Schedule()}) }
		if _, err := ts.Explore(ctx, p, opt); err != nil {
			t.Fatal(err)
		}
		opt.OnViolation = nil
		rng := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 0))
		var asks []found
		for _, f := range all {
			asks = append(asks, f)
			if k := len(f.sched); k > 0 {
				asks = append(asks, found{f.v, f.sched[:rng.IntN(k)]})
				moved := f.sched.Clone()
				moved[rng.IntN(k)].Thread = ts.Tid(rng.IntN(p.Threads() + 1))
				asks = append(asks, found{f.v, moved})
			}
			other := *f.v
			other.Kind = []ts.ViolationKind{ts.CheckFailure, ts.InvariantFailure, ts.Deadlock}[rng.IntN(3)]
			asks = append(asks, found{&other, f.sched})
		}
		rng.Shuffle(len(asks), func(i, j int) { asks[i], asks[j] = asks[j], asks[i] })
		flatRep := ts.NewReproducer(newHandles(p), opt)
		rep := ts.NewReproducer[tstest.State](p, opt)
		for i, a := range asks {
			_, err := ts.ConfirmWith[tstest.State](p, a.v, a.sched, opt)
			want := err == nil && a.v.Kind != ts.Panic
			if got := flatRep.Reproduces(a.v, a.sched); got != want {
				t.Fatalf("ask %d (%v at %v): flat Reproducer says %v, ConfirmWith %v", i, a.v.Kind, a.sched, got, err)
			}
			if got := rep.Reproduces(a.v, a.sched); got != want {
				t.Fatalf("ask %d (%v at %v): Reproducer says %v, ConfirmWith %v", i, a.v.Kind, a.sched, got, err)
			}
		}
	})
}

// threeDone is three threads of one step each, on objects of their own; its
// Check fails once all three have moved. It counts its Apply calls.
type threeDone struct{ applies *int }

func (threeDone) Init() [3]bool { return [3]bool{} }
func (threeDone) Threads() int  { return 3 }
func (threeDone) Check(s [3]bool) error {
	if s == [3]bool{true, true, true} {
		return errDone
	}
	return nil
}
func (threeDone) Next(s [3]bool, t ts.Tid) (ts.Step, ts.Status) {
	if s[t] {
		return ts.Step{}, ts.Finished
	}
	return ts.Step{Obj: ts.Obj(t), Op: ts.Write}, ts.Enabled
}
func (d threeDone) Apply(s [3]bool, t ts.Tid) [3]bool {
	*d.applies++
	s[t] = true
	return s
}

var errDone = errors.New("all three done")

// A Reproducer of a state type that holds no references replays only what
// a schedule does not share with the last one's.
func TestReproducerReplaysSuffixes(t *testing.T) {
	var applies int
	rep := ts.NewReproducer(threeDone{&applies}, ts.Options{})
	v := &ts.Violation{Kind: ts.CheckFailure, Err: errDone}
	for _, c := range []struct {
		sched   ts.Schedule
		applies int
	}{
		{ts.Schedule{{Thread: 0}, {Thread: 1}, {Thread: 2}}, 3},
		{ts.Schedule{{Thread: 0}, {Thread: 2}, {Thread: 1}}, 2},
		{ts.Schedule{{Thread: 0}, {Thread: 2}, {Thread: 1}}, 0},
		{ts.Schedule{{Thread: 1}, {Thread: 0}, {Thread: 2}}, 3},
		// Goes on past the failing state: the shared part is taken as
		// kept, the fourth move refused, and the replay from the initial
		// state that says why takes the three transitions again.
		{ts.Schedule{{Thread: 1}, {Thread: 0}, {Thread: 2}, {Thread: 2}}, 3},
	} {
		applies = 0
		want := len(c.sched) == 3
		if got := rep.Reproduces(v, c.sched); got != want {
			t.Errorf("schedule %v: Reproduces says %v, want %v", c.sched, got, want)
		}
		if applies != c.applies {
			t.Errorf("schedule %v: %d transitions replayed, want %d", c.sched, applies, c.applies)
		}
	}
}
