package sim_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	weft "github.com/weftlab/weft"
	"github.com/weftlab/weft/cbound"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/sim"
	"github.com/weftlab/weft/transact"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// twoWriters: two threads each write x twice; 6 interleavings.
func twoWriters() *tstest.Program {
	return &tstest.Program{
		Vars: []tstest.Var{{Name: "x"}},
		Code: [][]tstest.Instr{{tstest.Store(0, 1), tstest.Store(0, 2)}, {tstest.Store(0, 3), tstest.Store(0, 1)}},
	}
}

// leaky forgets to reset one thread's progress after its first run: a replay
// from Reset goes another way.
type leaky struct {
	progSim
	runs int
}

func (l *leaky) Reset() {
	l.runs++
	l.progSim.Reset()
}

func (l *leaky) Next(t ts.Tid) (ts.Step, ts.Status) {
	step, st := l.progSim.Next(t)
	if l.runs > 1 && t == 1 && st == ts.Enabled {
		step.Obj = 7 // another object than the first time
	}
	return step, st
}

func TestNondeterministicSimulator(t *testing.T) {
	sys, err := sim.New(&leaky{progSim: progSim{p: twoWriters()}}, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ts.Explore(context.Background(), sys, ts.Options{})
	var se *ts.SystemError
	if !errors.Is(err, ts.ErrNondeterministic) || !errors.As(err, &se) || len(se.Schedule) == 0 ||
		!strings.Contains(err.Error(), "thread 1's next step") || res.Complete || res.Violation != nil {
		t.Fatalf("got %v, %v; want ErrNondeterministic naming the step", res, err)
	}
	// The same through a strategy that replays states of its own, and
	// through Replay.
	sys2, _ := sim.New(&leaky{progSim: progSim{p: twoWriters()}}, sim.Options{})
	if _, err := por.ODPOR(context.Background(), sys2, por.Options{}); !errors.Is(err, ts.ErrNondeterministic) {
		t.Errorf("odpor: %v", err)
	}
	sys3, _ := sim.New(&leaky{progSim: progSim{p: twoWriters()}}, sim.Options{})
	sys3.Init()
	if _, err := ts.Replay[sim.State](sys3, ts.ScheduleOf(0, 0, 1, 1)); err != nil {
		t.Errorf("first run: %v", err)
	}
	if _, err := ts.Replay[sim.State](sys3, ts.ScheduleOf(1, 1, 0, 0)); !errors.Is(err, ts.ErrNondeterministic) {
		t.Errorf("replay after a reset: %v", err)
	}
}

// Without snapshots, backing up replays from Reset; with a snapshot at
// every state the search comes back to, nothing is replayed. The figures
// reach Result.Stats.
func TestStats(t *testing.T) {
	p := twoWriters()
	plain, _ := sim.New(&progSim{p: p}, sim.Options{})
	res, err := ts.Explore(context.Background(), plain, ts.Options{})
	// 6 executions, 6+5+... : the tree has 1+2+4+6+6 = 19 states, so 18
	// transitions, every one taken once by the search.
	if err != nil || res.Executions != 6 || res.Transitions != 18 {
		t.Fatalf("got %v, %v", res, err)
	}
	st := plain.Stats()
	if st.Steps != 18 || st.Replayed == 0 || st.Resets != 1+int64(res.Executions)-1 || st.Snapshots != 0 || st.Restores != 0 {
		t.Errorf("without snapshots: %+v", st)
	}
	if res.Stats["sim.steps"] != 18 || res.Stats["sim.replayed"] != st.Replayed || res.Stats["sim.resets"] != st.Resets {
		t.Errorf("Result.Stats %v, adapter %+v", res.Stats, st)
	}
	snap, _ := sim.New(&snapSim{progSim{p: p}}, sim.Options{})
	res, err = ts.Explore(context.Background(), snap, ts.Options{})
	st = snap.Stats()
	// The states with two moves below the root (which Reset reaches as
	// cheaply as a snapshot would): [0], [1], [0 1], [1 0]. The search backs
	// up 5 times: to the root once (a Reset after the one of Init), to
	// each snapshot once.
	if err != nil || st.Replayed != 0 || st.Snapshots != 4 || st.Restores != 4 || st.Resets != 2 {
		t.Errorf("with snapshots: %+v, %v", st, err)
	}
	// A second search of the same System counts its own work only.
	res2, _ := ts.Explore(context.Background(), snap, ts.Options{})
	if res2.Stats["sim.steps"] != 18 || snap.Stats().Steps != 36 {
		t.Errorf("second search: %v, adapter %+v", res2.Stats, snap.Stats())
	}
}

// A panic in the simulator is a violation with its schedule, and the search
// goes on from a simulator it resets (it cannot know what the panic left).
type panicky struct{ progSim }

func (p *panicky) Step(t ts.Tid, c int) {
	if t == 1 && p.p.Describe(p.cur, 1) == "x := 1" {
		panic("boom")
	}
	p.progSim.Step(t, c)
}

func TestPanicInStep(t *testing.T) {
	sys, _ := sim.New(&panicky{progSim{p: twoWriters()}}, sim.Options{})
	var panics int
	res, err := ts.Explore(context.Background(), sys, ts.Options{KeepGoing: true, OnViolation: func(v *ts.Violation) {
		if v.Kind == ts.Panic {
			panics++
		}
	}})
	// Thread 1's second store panics wherever it comes: every one of the 6
	// executions ends there.
	if err != nil || panics != 6 || !res.Complete {
		t.Fatalf("got %v, %v, %d panics", res, err, panics)
	}
	if v := res.Violation; v == nil || v.Kind != ts.Panic {
		t.Fatalf("violation %v", res.Violation)
	} else if _, err := ts.Confirm[sim.State](sys, v, v.Trace.Schedule()); err != nil {
		t.Errorf("the panic does not replay: %v", err)
	}
}

func TestBadInput(t *testing.T) {
	if _, err := sim.New(nil, sim.Options{}); !errors.Is(err, ts.ErrBadOptions) {
		t.Errorf("nil simulator: %v", err)
	}
	if _, err := sim.New(&progSim{p: twoWriters()}, sim.Options{CheckpointEvery: -1}); !errors.Is(err, ts.ErrBadOptions) {
		t.Errorf("negative CheckpointEvery: %v", err)
	}
	if _, err := sim.New(&progSim{p: &tstest.Program{}}, sim.Options{}); !errors.Is(err, ts.ErrThreadRange) {
		t.Errorf("no threads: %v", err)
	}
	if _, err := sim.New(&threadsPanic{}, sim.Options{}); !errors.Is(err, ts.ErrBadSystem) {
		t.Errorf("Threads panics: %v", err)
	}
}

type threadsPanic struct{ progSim }

func (*threadsPanic) Threads() int { panic("no") }

// Traces use the simulator's words and names.
func TestTraceWords(t *testing.T) {
	p := twoWriters()
	sys, _ := sim.New(&progSim{p: p}, sim.Options{})
	run, err := ts.Replay[sim.State](sys, ts.ScheduleOf(0, 1, 1, 0))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"x := 1", "x := 3", "x := 1", "x := 2"}
	for i, ev := range run.Trace.Events {
		if ev.Desc != want[i] {
			t.Errorf("step %d: %q, want %q", i, ev.Desc, want[i])
		}
	}
}

// Every strategy that reports figures adds the adapter's to them: the
// transitions it took, at least one per transition of the search.
func TestStatsInEveryStrategy(t *testing.T) {
	for name, run := range strategiesOnHashed() {
		sys, _ := sim.NewHashed(&progSim{p: twoWriters()}, sim.Options{})
		res, err := run(sys)
		if err != nil || res.Stats["sim.steps"] == 0 || res.Stats["sim.steps"] != sys.Stats().Steps {
			t.Errorf("%s: %v, %v, stats %v, adapter %+v", name, res, err, res.Stats, sys.Stats())
		}
	}
}

// A simulator whose replay goes another way stops every strategy with
// ErrNondeterministic: never a violation of the system, a crash or a wrong
// answer.
func TestNondeterminismInEveryStrategy(t *testing.T) {
	for name, run := range strategiesOnHashed() {
		sys, _ := sim.NewHashed(&leaky{progSim: progSim{p: twoWriters()}}, sim.Options{})
		res, err := run(sys)
		if !errors.Is(err, ts.ErrNondeterministic) || res.Violation != nil {
			t.Errorf("%s: %v, %v; want ErrNondeterministic", name, res, err)
		}
	}
}

func strategiesOnHashed() map[string]func(sim.Hashed) (ts.Result, error) {
	return map[string]func(sim.Hashed) (ts.Result, error){
		"ts.Explore": func(s sim.Hashed) (ts.Result, error) { return ts.Explore(context.Background(), s, ts.Options{}) },
		"odpor":      func(s sim.Hashed) (ts.Result, error) { return por.ODPOR(context.Background(), s, por.Options{}) },
		"icb": func(s sim.Hashed) (ts.Result, error) {
			return cbound.ICB(context.Background(), s, cbound.Options{Bound: cbound.Unbounded})
		},
		"cb-por2": func(s sim.Hashed) (ts.Result, error) {
			return cbound.POR(context.Background(), s, cbound.Options{Bound: cbound.AtMost(2)})
		},
		"cpc": func(s sim.Hashed) (ts.Result, error) {
			return transact.Explore(context.Background(), s, transact.Options{Proviso: transact.CPC})
		},
	}
}

// The same through every strategy weft offers: each either refuses the
// system up front or stops with ErrNondeterministic.
func TestNondeterminismEveryWeftStrategy(t *testing.T) {
	ran := 0
	defer func() {
		if ran < 12 {
			t.Errorf("only %d strategies ran", ran)
		}
	}()
	for _, s := range weft.Strategies() {
		sys, _ := sim.NewHashed(&leaky{progSim: progSim{p: twoWriters()}}, sim.Options{})
		res, err := weft.Run[sim.State](context.Background(), sys, s, ts.Options{})
		if errors.Is(err, ts.ErrBadOptions) || errors.Is(err, ts.ErrUnsupported) {
			continue
		}
		ran++
		if !errors.Is(err, ts.ErrNondeterministic) || res.Violation != nil {
			t.Errorf("%s: %v, %v; want ErrNondeterministic", s, res, err)
		}
	}
}
