package cbound

import (
	"context"
	"github.com/weftlab/weft/hb"
	"github.com/weftlab/weft/internal/search"
	"github.com/weftlab/weft/ts"
)

// Brute is what an exhaustive enumeration of every schedule of a system
// shows about its happens-before states, nothing reused from the package's
// algorithms: per HB state (keyed by hb.State.String, which is exact), the
// fewest preemptions of the schedules that reach it; per (state, thread),
// the fewest preemptions of the schedules that reach the state and then move
// the thread; and the leaves (terminal states and states whose Check or
// Invariant fails, where the enumeration, like every search, stops). Every
// outcome of every transition is taken; the HB states are those of the
// marked steps (search.Model), as the searches see them.
type Brute struct {
	States map[string]int            // every HB state reached -> fewest preemptions
	Steps  map[string]map[ts.Tid]int // HB state -> enabled thread -> CB(s, t)
	Leaves map[string]int            // leaf HB states -> fewest preemptions
	Sched  map[string]ts.Schedule    // a schedule to each state
	Failed map[string]bool           // leaves whose Check or Invariant fails
}

// BruteForce enumerates every schedule of sys from its initial state.
func BruteForce[S any](sys ts.TransitionSystem[S]) *Brute {
	b := &Brute{States: map[string]int{}, Steps: map[string]map[ts.Tid]int{}, Leaves: map[string]int{},
		Sched: map[string]ts.Schedule{}, Failed: map[string]bool{}}
	m, err := search.NewModel(sys)
	if err != nil {
		panic(err)
	}
	n := m.N
	st := hb.New(n)
	var sched ts.Schedule
	var rec func(s S, prev ts.Tid, pre int)
	rec = func(s S, prev ts.Tid, pre int) {
		key := st.String()
		if old, ok := b.States[key]; !ok || pre < old {
			b.States[key] = pre
			b.Sched[key] = sched.Clone()
		}
		failed := m.Check(s) != nil
		enabled := make([]bool, n)
		steps := make([]ts.Step, n)
		any := false
		for t := range ts.Tid(n) {
			step, status := m.Next(s, t)
			steps[t] = step
			enabled[t] = status == ts.Enabled
			any = any || enabled[t]
		}
		if failed || !any {
			if old, ok := b.Leaves[key]; !ok || pre < old {
				b.Leaves[key] = pre
			}
			b.Failed[key] = failed
			return
		}
		if b.Steps[key] == nil {
			b.Steps[key] = map[ts.Tid]int{}
		}
		for t := range ts.Tid(n) {
			if !enabled[t] {
				continue
			}
			p := pre
			if prev >= 0 && prev != t && enabled[prev] {
				p++
			}
			if old, ok := b.Steps[key][t]; !ok || p < old {
				b.Steps[key][t] = p
			}
			for c := range m.Outcomes(s, t) {
				mv := ts.Move{Thread: t, Outcome: c}
				st.AddOutcome(t, steps[t], c)
				sched = append(sched, mv)
				rec(m.Apply(s, mv), t, p)
				sched = sched[:len(sched)-1]
				st.Remove(t)
			}
		}
	}
	rec(sys.Init(), -1, 0)
	return b
}

// Within counts the entries of m at most c.
func Within(m map[string]int, c int) int {
	k := 0
	for _, v := range m {
		if v <= c {
			k++
		}
	}
	return k
}

// CBAt replays sched and returns, computed by the package's dynamic program,
// CB(s, t) for every thread t enabled at the state s it reaches, and CB(s).
func CBAt[S any](sys ts.TransitionSystem[S], sched ts.Schedule, memoCost int64) (map[ts.Tid]int, int, error) {
	e, err := newHBSearch(context.Background(), sys, Options{MemoCost: memoCost, eagerCache: true}, false)
	if err != nil {
		return nil, 0, err
	}
	defer e.memo.close()
	s := sys.Init()
	e.push(s, ts.Move{Thread: -1}, ts.Step{})
	for _, mv := range sched {
		top := &e.frames[e.depth-1]
		step := top.steps[mv.Thread]
		s = e.m.Apply(top.state, mv)
		e.push(s, mv, step)
	}
	if e.Err != nil {
		return nil, 0, e.Err
	}
	out := map[ts.Tid]int{}
	top := &e.frames[e.depth-1]
	for t := range ts.Tid(e.n) {
		if top.status[t] == ts.Enabled {
			e.memo.begin(e.cur, e.curH2)
			out[t] = int(e.cbAt(t))
		}
	}
	e.memo.begin(e.cur, e.curH2)
	return out, int(e.cbState()), nil
}

// Eager makes the searches start their memo cache at once, so that small
// tests exercise it, and replay every enabled status they derive from the
// stack, failing with ErrNondeterministic where the two differ.
func Eager(o Options) Options {
	o.eagerCache = true
	o.auditDerive = true
	return o
}
