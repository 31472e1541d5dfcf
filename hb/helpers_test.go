package hb

import (
	"fmt"
	"slices"

	"github.com/weftlab/weft/ts"
	"pgregory.net/rapid"
)

// prog is a test program: each thread's steps in order, with no control flow.
type prog [][]ts.Step

func wr(o ts.Obj) ts.Step  { return ts.Step{Obj: o, Op: ts.Write} }
func rd(o ts.Obj) ts.Step  { return ts.Step{Obj: o, Op: ts.Read} }
func acq(o ts.Obj) ts.Step { return ts.Step{Obj: o, Op: ts.Acquire} }
func rel(o ts.Obj) ts.Step { return ts.Step{Obj: o, Op: ts.Release} }

// steps returns the step each transition of sched takes.
func (p prog) steps(sched ts.Schedule) []ts.Step {
	pos := make([]int, len(p))
	out := make([]ts.Step, len(sched))
	for i, mv := range sched {
		t := mv.Thread
		out[i] = p[t][pos[t]]
		pos[t]++
	}
	return out
}

// events returns sched as trace events.
func (p prog) events(sched ts.Schedule) []ts.Event {
	st := p.steps(sched)
	out := make([]ts.Event, len(sched))
	for i, mv := range sched {
		t := mv.Thread
		out[i] = ts.Event{Thread: t, Step: st[i]}
	}
	return out
}

// build returns the state sched reaches.
func (p prog) build(sched ts.Schedule) *State {
	s := New(len(p))
	for i, st := range p.steps(sched) {
		s.Add(sched[i].Thread, st)
	}
	return s
}

// executions calls f with every complete execution of p, in which a thread
// whose next step acquires a held lock waits, and with every prefix of one
// (each distinct schedule once).
func (p prog) executions(f func(sched ts.Schedule, terminal bool)) {
	pos := make([]int, len(p))
	held := map[ts.Obj]bool{}
	var sched ts.Schedule
	var rec func()
	rec = func() {
		moved := false
		for t := range p {
			if pos[t] == len(p[t]) {
				continue
			}
			st := p[t][pos[t]]
			if st.Op == ts.Acquire && held[st.Obj] {
				continue
			}
			moved = true
			was := held[st.Obj]
			switch st.Op {
			case ts.Acquire:
				held[st.Obj] = true
			case ts.Release:
				held[st.Obj] = false
			}
			pos[t]++
			sched = append(sched, ts.Move{Thread: ts.Tid(t)})
			f(sched, false)
			rec()
			sched = sched[:len(sched)-1]
			pos[t]--
			held[st.Obj] = was
		}
		if !moved {
			f(sched, true)
		}
	}
	f(sched, false)
	rec()
}

// genProg draws a program of 1..4 threads of up to 6 steps on 1..3 objects.
func genProg(t *rapid.T) prog {
	threads := rapid.IntRange(1, 4).Draw(t, "threads")
	objs := rapid.IntRange(1, 3).Draw(t, "objs")
	p := make(prog, threads)
	for i := range p {
		n := rapid.IntRange(0, 6).Draw(t, fmt.Sprintf("len%d", i))
		for range n {
			st := ts.Step{
				Obj: ts.Obj(rapid.IntRange(0, objs-1).Draw(t, "obj")),
				Op:  ts.Op(rapid.IntRange(0, 3).Draw(t, "op")),
			}
			st.Sync = rapid.Bool().Draw(t, "sync")
			p[i] = append(p[i], st)
		}
	}
	return p
}

// genSched draws a complete interleaving of p's threads (locks ignored).
func genSched(t *rapid.T, p prog, label string) ts.Schedule {
	left := make([]int, len(p))
	total := 0
	for i := range p {
		left[i] = len(p[i])
		total += left[i]
	}
	sched := make(ts.Schedule, 0, total)
	var avail []ts.Tid
	for range total {
		avail = avail[:0]
		for i, l := range left {
			if l > 0 {
				avail = append(avail, ts.Tid(i))
			}
		}
		tid := avail[rapid.IntRange(0, len(avail)-1).Draw(t, label)]
		left[tid]--
		sched = append(sched, ts.Move{Thread: tid})
	}
	return sched
}

// edge reports whether the paper's edge sets TE and VE hold (a, b): the
// direct happens-before edges that a state's events imply.
func edge(a, b Event) bool {
	if a == b {
		return false
	}
	if a.Thread == b.Thread {
		return a.N < b.N
	}
	if a.Obj != b.Obj {
		return false
	}
	return a.Op == W && a.M <= b.M || b.Op == W && a.M < b.M
}

// bruteFrontier returns the threads whose last event has no outgoing edge.
func bruteFrontier(s *State) []int {
	evs := s.AppendEvents(nil)
	var out []int
	for t := range s.Threads() {
		last, ok := s.Last(ts.Tid(t))
		if !ok {
			continue
		}
		maximal := true
		for _, b := range evs {
			if edge(last, b) {
				maximal = false
			}
		}
		if maximal {
			out = append(out, t)
		}
	}
	return out
}

// brutePrefix reports whether x's events are a subset of s's closed under
// s's edges.
func brutePrefix(x, s *State) bool {
	xs, ss := x.AppendEvents(nil), s.AppendEvents(nil)
	for _, b := range xs {
		if !slices.Contains(ss, b) {
			return false
		}
		for _, a := range ss {
			if edge(a, b) && !slices.Contains(xs, a) {
				return false
			}
		}
	}
	return true
}
