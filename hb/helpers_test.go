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

// build returns the state sched reaches, each move with its outcome.
func (p prog) build(sched ts.Schedule) *State {
	s := New(len(p))
	for i, st := range p.steps(sched) {
		s.AddOutcome(sched[i].Thread, st, sched[i].Outcome)
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

// genWhole draws a program as genProg does, on up to 4 objects (the last
// one ts.InvariantObj, which a sparse index holds), whose steps may touch
// several objects (ts.Step.Also), each once.
func genWhole(t *rapid.T) prog {
	ids := []ts.Obj{0, 1, 2, ts.InvariantObj}
	threads := rapid.IntRange(1, 4).Draw(t, "threads")
	objs := rapid.IntRange(1, 4).Draw(t, "objs")
	p := make(prog, threads)
	for i := range p {
		n := rapid.IntRange(0, 5).Draw(t, fmt.Sprintf("len%d", i))
		for range n {
			first := rapid.IntRange(0, objs-1).Draw(t, "obj")
			st := ts.Step{Obj: ids[first], Op: ts.Op(rapid.IntRange(0, 3).Draw(t, "op"))}
			for o := range objs {
				if o != first && rapid.IntRange(0, 2).Draw(t, "also") == 0 {
					st.Also = append(st.Also, ts.Access{Obj: ids[o], Op: ts.Op(rapid.IntRange(0, 3).Draw(t, "op"))})
				}
			}
			p[i] = append(p[i], st)
		}
	}
	return p
}

// genMoves draws a complete interleaving of p's threads as genSched does,
// each move with an outcome 0..2.
func genMoves(t *rapid.T, p prog, label string) ts.Schedule {
	sched := genSched(t, p, label)
	for i := range sched {
		sched[i].Outcome = rapid.IntRange(0, 2).Draw(t, label+".outcome")
	}
	return sched
}

// generator draws a program and its schedules: the basic one (one object
// per step, outcome 0) or the whole one.
type generator struct {
	prog  func(*rapid.T) prog
	sched func(*rapid.T, prog, string) ts.Schedule
}

var (
	basicGen = generator{genProg, genSched}
	wholeGen = generator{genWhole, genMoves}
)

// bev is an event with its accesses.
type bev struct {
	Event
	acc []EventAccess
}

// events returns the events of s with their accesses.
func events(s *State) []bev {
	var out []bev
	for _, e := range s.AppendEvents(nil) {
		out = append(out, bev{e, s.AppendAccesses(nil, e.Thread, e.N)})
	}
	return out
}

// edge reports whether the paper's edge sets TE and VE hold (a, b): the
// direct happens-before edges that a state's events imply, through some
// object both access.
func edge(a, b bev) bool {
	if a.Event == b.Event {
		return false
	}
	if a.Thread == b.Thread {
		return a.N < b.N
	}
	for _, x := range a.acc {
		for _, y := range b.acc {
			if x.Obj == y.Obj && (x.Op == W && x.M <= y.M || y.Op == W && x.M < y.M) {
				return true
			}
		}
	}
	return false
}

// bruteFrontier returns the threads whose last event has no outgoing edge.
func bruteFrontier(s *State) []int {
	evs := events(s)
	var out []int
	for t := range s.Threads() {
		last, ok := s.Last(ts.Tid(t))
		if !ok {
			continue
		}
		maximal := true
		for _, a := range evs {
			if a.Event != last {
				continue
			}
			for _, b := range evs {
				if edge(a, b) {
					maximal = false
				}
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
	xs, ss := events(x), events(s)
	has := func(evs []bev, e bev) bool {
		return slices.ContainsFunc(evs, func(f bev) bool { return f.Event == e.Event && slices.Equal(f.acc, e.acc) })
	}
	for _, b := range xs {
		if !has(ss, b) {
			return false
		}
		for _, a := range ss {
			if edge(a, b) && !has(xs, a) {
				return false
			}
		}
	}
	return true
}
