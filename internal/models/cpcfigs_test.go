package models

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/weftlab/weft/transact"
	"github.com/weftlab/weft/ts"
)

// cpcFigFacts are the documented facts of a CPC figure.
type cpcFigFacts struct {
	name    string
	newFig  func(int) *CPCFig
	info    Info
	threads int
	cyclic  bool
	// Under ts.ExploreStateful with KeepGoing.
	states, violations, terminals int64
	// The fewest preemptions of a violating schedule, and one such schedule.
	minPreempt int
	witness    ts.Schedule
	// The mover type of each thread's statements, in list order (stop
	// statements included, as both movers).
	movers [][]transact.Mover
}

const (
	cpcN = transact.NonMover
	cpcR = transact.RightMover
	cpcL = transact.LeftMover
	cpcB = transact.BothMover
)

var cpcFigTable = []cpcFigFacts{
	{
		name: "cpc-fig1", newFig: NewCPCFig1, info: CPCFig1Info, threads: 2, cyclic: true,
		states: 11, violations: 3, terminals: 0,
		minPreempt: 1, witness: ts.ScheduleOf(0, 1),
		movers: [][]transact.Mover{{cpcN, cpcB, cpcB, cpcB, cpcB}, {cpcN, cpcB}},
	},
	{
		name: "cpc-fig2", newFig: NewCPCFig2, info: CPCFig2Info, threads: 3, cyclic: true,
		states: 43, violations: 11, terminals: 1,
		minPreempt: 0, witness: ts.ScheduleOf(2, 0, 0, 0, 0, 1),
		movers: [][]transact.Mover{{cpcN, cpcN, cpcB, cpcB, cpcB, cpcB, cpcB}, {cpcN, cpcB}, {cpcN}},
	},
	{
		name: "cpc-fig2-assume", newFig: NewCPCFig2Assume, info: CPCFig2AssumeInfo, threads: 2, cyclic: false,
		states: 8, violations: 2, terminals: 1,
		minPreempt: 0, witness: ts.ScheduleOf(0, 0, 1),
		movers: [][]transact.Mover{{cpcN, cpcB, cpcB}, {cpcN, cpcB}},
	},
	{
		name: "cpc-fig3", newFig: NewCPCFig3, info: CPCFig3Info, threads: 3, cyclic: true,
		states: 36, violations: 3, terminals: 0,
		minPreempt: 1, witness: ts.ScheduleOf(0, 0, 0, 0, 1, 1),
		movers: [][]transact.Mover{{cpcR, cpcN, cpcB, cpcL, cpcB}, {cpcR, cpcB, cpcL}, {cpcN}},
	},
	{
		name: "cpc-fig8", newFig: NewCPCFig8, info: CPCFig8Info, threads: 3, cyclic: true,
		states: 46, violations: 12, terminals: 0,
		minPreempt: 1, witness: ts.ScheduleOf(0, 0, 1),
		movers: [][]transact.Mover{{cpcN, cpcN, cpcB, cpcB, cpcB, cpcB, cpcB, cpcB, cpcB}, {cpcN, cpcB}, {cpcN}},
	},
}

func TestCPCFigInfo(t *testing.T) {
	for _, f := range cpcFigTable {
		i := f.info
		if i.Name != f.name || i.Summary == "" || i.Source == "" || i.Param != "" || i.Default != 0 || i.Min != 0 || i.Max != 0 {
			t.Errorf("%s: Info = %+v", f.name, i)
		}
		p := f.newFig(12345) // n is ignored
		if p.Name() != f.name || p.Threads() != f.threads {
			t.Errorf("%s: Name %q, Threads %d, want %d", f.name, p.Name(), p.Threads(), f.threads)
		}
	}
}

func TestCPCFigMovers(t *testing.T) {
	for _, f := range cpcFigTable {
		p := f.newFig(0)
		for tid, want := range f.movers {
			var got []transact.Mover
			for _, st := range p.Program(ts.Tid(tid)) {
				got = append(got, st.Kind.Mover())
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: thread %d movers = %v, want %v", f.name, tid, got, want)
			}
		}
	}
}

func TestCPCFigStateful(t *testing.T) {
	for _, f := range cpcFigTable {
		t.Run(f.name, func(t *testing.T) {
			p := f.newFig(0)
			var viols []*ts.Violation
			terminals := 0
			res, err := ts.ExploreStateful(context.Background(), p, ts.Options{
				KeepGoing:   true,
				OnViolation: func(v *ts.Violation) { viols = append(viols, v) },
				OnTerminal:  func(any, ts.Schedule) { terminals++ },
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %v; %d terminal states", f.name, res, terminals)
			if !res.Complete || res.States != f.states || res.Violations != f.violations || int64(terminals) != f.terminals {
				t.Errorf("states %d, violations %d, terminals %d (complete %v), want %d, %d, %d",
					res.States, res.Violations, terminals, res.Complete, f.states, f.violations, f.terminals)
			}
			for _, v := range viols {
				if v.Kind != ts.CheckFailure {
					t.Errorf("violation of kind %v: %v", v.Kind, v)
				}
				run, err := ts.Replay(p, v.Trace.Schedule())
				if err != nil || run.Violation == nil || run.Violation.Kind != ts.CheckFailure {
					t.Errorf("schedule %v does not replay to the failure: %v, %v", v.Trace.Schedule(), run.Violation, err)
				}
			}
			// Without KeepGoing the search stops at the first failure.
			res, err = ts.ExploreStateful(context.Background(), p, ts.Options{})
			if err != nil || res.Violation == nil || res.Violation.Kind != ts.CheckFailure {
				t.Fatalf("stateful search: %v, %v", res, err)
			}
			t.Logf("first failure: %v\n%v", res.Violation.Err, res.Violation.Trace)
		})
	}
}

func TestCPCFigStateless(t *testing.T) {
	for _, f := range cpcFigTable {
		t.Run(f.name, func(t *testing.T) {
			p := f.newFig(0)
			res, err := ts.Explore(context.Background(), p, ts.Options{KeepGoing: true, Limits: ts.Limits{Depth: 100}})
			if f.cyclic {
				if !errors.Is(err, ts.ErrDepth) {
					t.Fatalf("ts.Explore on a cyclic figure: %v, %v; want an error wrapping ts.ErrDepth", res, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%v", res)
		})
	}
}

// TestCPCFig2AssumeExplore checks the stateless facts of the one acyclic
// figure, minimum preemptions by brute force.
func TestCPCFig2AssumeExplore(t *testing.T) {
	p := NewCPCFig2Assume(0)
	minP, terminals := -1, 0
	res, err := ts.Explore(context.Background(), p, ts.Options{
		KeepGoing:  true,
		OnTerminal: func(any, ts.Schedule) { terminals++ },
		OnViolation: func(v *ts.Violation) {
			if minP < 0 || v.Trace.Preemptions < minP {
				minP = v.Trace.Preemptions
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Executions != 3 || res.Violations != 2 || terminals != 1 || minP != 0 {
		t.Errorf("%v; %d terminal states, min preemptions %d; want 3 executions, 2 violations, 1 passing terminal state, 0 preemptions",
			res, terminals, minP)
	}
}

func TestCPCFigMinPreemptions(t *testing.T) {
	for _, f := range cpcFigTable {
		p := f.newFig(0)
		got, sched, ok := cpcMinPreemptions[CPCFigState](p)
		if !ok || got != f.minPreempt {
			t.Errorf("%s: min preemptions %d (found %v) by %v, want %d", f.name, got, ok, sched, f.minPreempt)
		}
		run, err := ts.Replay(p, f.witness)
		if err != nil || run.Violation == nil || run.Violation.Kind != ts.CheckFailure || run.Trace.Preemptions != f.minPreempt {
			t.Errorf("%s: witness %v: %v, %v", f.name, f.witness, run.Violation, err)
		}
	}
}

func TestCPCFigApplyPure(t *testing.T) {
	for _, f := range cpcFigTable {
		p := f.newFig(0)
		n := cpcReachable[CPCFigState](p, func(s CPCFigState, tid ts.Tid) {
			before := s
			h := p.Hash(s)
			p.Apply(s, tid)
			if s != before || p.Hash(s) != h {
				t.Errorf("%s: Apply(%+v, %d) modified its argument", f.name, before, tid)
			}
		})
		if n == 0 {
			t.Errorf("%s: no states", f.name)
		}
	}
}

// cpcSystem is what the CPC tests ask of a model.
type cpcSystem[S any] interface {
	ts.TransitionSystem[S]
	ts.Hasher[S]
	ts.Checker[S]
}

// cpcReachable walks every state reachable without going past a violation,
// calling visit for each enabled thread of each state, and returns the
// number of states.
func cpcReachable[S any](sys cpcSystem[S], visit func(S, ts.Tid)) int {
	seen := map[uint64]bool{}
	queue := []S{sys.Init()}
	seen[sys.Hash(queue[0])] = true
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if sys.Check(s) != nil {
			continue
		}
		for t := range ts.Tid(sys.Threads()) {
			if _, st := sys.Next(s, t); st != ts.Enabled {
				continue
			}
			visit(s, t)
			c := sys.Apply(s, t)
			if h := sys.Hash(c); !seen[h] {
				seen[h] = true
				queue = append(queue, c)
			}
		}
	}
	return len(seen)
}

// cpcMinPreemptions finds the fewest preemptions of a schedule that reaches
// a violating state, by a 0-1 breadth-first search over (state, last thread)
// pairs: it works on cyclic systems, where ts.Explore does not. It returns
// the count, a schedule with that count, and whether a violation is
// reachable at all.
func cpcMinPreemptions[S any](sys cpcSystem[S]) (int, ts.Schedule, bool) {
	type node struct {
		s     S
		last  ts.Tid
		cost  int
		sched ts.Schedule
	}
	type key struct {
		h    uint64
		last ts.Tid
	}
	best := map[key]int{}
	deque := []node{{s: sys.Init(), last: -1}}
	best[key{sys.Hash(deque[0].s), -1}] = 0
	for len(deque) > 0 {
		nd := deque[0]
		deque = deque[1:]
		if c, ok := best[key{sys.Hash(nd.s), nd.last}]; ok && c < nd.cost {
			continue // a cheaper path got there first
		}
		if sys.Check(nd.s) != nil {
			return nd.cost, nd.sched, true // 0-1 BFS pops in order of cost
		}
		lastEnabled := false
		if nd.last >= 0 {
			_, st := sys.Next(nd.s, nd.last)
			lastEnabled = st == ts.Enabled
		}
		for t := range ts.Tid(sys.Threads()) {
			if _, st := sys.Next(nd.s, t); st != ts.Enabled {
				continue
			}
			cost := nd.cost
			if nd.last >= 0 && t != nd.last && lastEnabled {
				cost++
			}
			c := sys.Apply(nd.s, t)
			k := key{sys.Hash(c), t}
			if old, ok := best[k]; ok && old <= cost {
				continue
			}
			best[k] = cost
			child := node{s: c, last: t, cost: cost, sched: append(nd.sched.Clone(), ts.Move{Thread: t})}
			if cost == nd.cost {
				deque = append([]node{child}, deque...)
			} else {
				deque = append(deque, child)
			}
		}
	}
	return 0, nil, false
}
