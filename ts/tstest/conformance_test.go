package tstest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// toy is a two-thread system over a slice state [pc0, pc1, a, b, c]: each
// thread writes its own object twice (thread 0 object 0 = a, thread 1
// object 1 = b). fault injects one breach of the contract.
type toy struct {
	fault string
	calls int
}

func (s *toy) Threads() int {
	if s.fault == "threads" {
		return 0
	}
	return 2
}

func (s *toy) Init() []int { return []int{0, 0, 0, 0, 0} }

func (s *toy) Next(st []int, t ts.Tid) (ts.Step, ts.Status) {
	s.calls++
	if st[t] >= 2 {
		if s.fault == "revive" && t == 0 && st[1] == 1 {
			return ts.Step{Obj: 0, Op: ts.Write}, ts.Enabled
		}
		return ts.Step{}, ts.Finished
	}
	step := ts.Step{Obj: ts.Obj(t), Op: ts.Write}
	switch {
	case s.fault == "nondet-next" && s.calls%2 == 0:
		step.Obj = 7
	case s.fault == "step-changed" && t == 1:
		step.Obj = ts.Obj(1 + st[0])
	case s.fault == "bad-status" && t == 1 && st[0] == 1:
		return step, ts.Status(7)
	}
	return step, ts.Enabled
}

func (s *toy) Apply(st []int, t ts.Tid) []int {
	if s.fault == "panic" && t == 1 && st[0] == 1 {
		panic("boom")
	}
	if s.fault == "mutate" && t == 0 {
		st[0]++ // in place, then copied
	}
	c := append([]int(nil), st...)
	if s.fault != "mutate" || t != 0 {
		c[t]++
	}
	c[2+t] += 1 + int(t)
	if s.fault == "dishonest" {
		c[4] = int(t) // both writes secretly touch c: last writer wins
	}
	return c
}

func TestConformanceCatchesBrokenSystems(t *testing.T) {
	for _, tc := range []struct {
		fault  string
		want   error
		thread ts.Tid
	}{
		{"mutate", ts.ErrMutated, 0},
		{"nondet-next", ts.ErrNondeterministic, 0},
		{"step-changed", tstest.ErrStepChanged, 1},
		{"dishonest", tstest.ErrIndependence, 0},
		{"bad-status", ts.ErrBadStep, 1},
		{"panic", tstest.ErrPanic, 1},
		{"revive", tstest.ErrUnfinished, 0},
		{"threads", ts.ErrThreadRange, -1},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			errs := tstest.CheckConformance[[]int](&toy{fault: tc.fault}, tstest.ConformanceOptions{})
			found := false
			for _, err := range errs {
				var se *ts.SystemError
				if errors.Is(err, tc.want) && errors.As(err, &se) && se.Thread == tc.thread {
					found = true
				}
			}
			if !found {
				t.Errorf("want an error wrapping %q for thread %d, got %q", tc.want, tc.thread, errs)
			}
		})
	}
}

func TestConformanceCleanSystem(t *testing.T) {
	var tb fakeTB
	tstest.Conformance[[]int](&tb, &toy{}, tstest.ConformanceOptions{})
	if len(tb.errs) != 0 {
		t.Errorf("clean system: %q", tb.errs)
	}
}

// Conformance reports through t.Errorf, at most MaxReports times, naming the
// thread and the schedule.
func TestConformanceReports(t *testing.T) {
	var tb fakeTB
	tstest.Conformance[[]int](&tb, &toy{fault: "mutate"}, tstest.ConformanceOptions{MaxReports: 1})
	if len(tb.errs) != 1 || !strings.Contains(tb.errs[0], "Apply modified its argument: thread 0") ||
		!strings.Contains(tb.errs[0], "(schedule [])") {
		t.Errorf("got %q", tb.errs)
	}
}

// The hand-written programs of the tests keep the contract too.
func TestConformancePrograms(t *testing.T) {
	for _, p := range []*tstest.Program{fig1(), philosophers(3)} {
		tstest.Conformance(t, p, tstest.ConformanceOptions{})
	}
}

// philosophers(n) is n dining philosophers taking their forks in order,
// which deadlocks.
func philosophers(n int) *tstest.Program {
	p := &tstest.Program{}
	for i := range n {
		p.Locks = append(p.Locks, "fork"+string(rune('0'+i)))
	}
	for i := range n {
		l, r := i, (i+1)%n
		p.Code = append(p.Code, []tstest.Instr{tstest.Acquire(l), tstest.Acquire(r), tstest.Release(r), tstest.Release(l)})
	}
	return p
}

// Conformance terminates on a system whose executions never end.
func TestConformanceBoundsWork(t *testing.T) {
	errs := tstest.CheckConformance[int](counter{}, tstest.ConformanceOptions{MaxStates: 50})
	if len(errs) != 0 {
		t.Error(errs)
	}
	errs = tstest.CheckConformance[int](counter{}, tstest.ConformanceOptions{MaxDepth: 5})
	if len(errs) != 0 {
		t.Error(errs)
	}
}

// counter is one thread incrementing forever: a system that never terminates.
type counter struct{}

func (counter) Init() int                                 { return 0 }
func (counter) Threads() int                              { return 1 }
func (counter) Next(s int, t ts.Tid) (ts.Step, ts.Status) { return ts.Step{Op: ts.Write}, ts.Enabled }
func (counter) Apply(s int, t ts.Tid) int                 { return s + 1 }
