package models

import (
	"testing"

	"github.com/weftlab/weft/ts"
)

func TestLastzero(t *testing.T) {
	for _, tc := range []struct {
		n          int
		executions int64
		terminals  int
	}{
		{1, 3, 2},
		{2, 35, 5},
		{3, 920, 12},
		{4, 44300, 28},
	} {
		if tc.n == 4 && testing.Short() {
			continue
		}
		f := wsqExplore(t, NewLastzero(tc.n), 0)
		if !f.res.Complete || f.res.Violation != nil {
			t.Fatalf("lastzero-%d: %v, want a complete search with no violation", tc.n, f.res)
		}
		if f.res.Executions != tc.executions || f.terminals != tc.terminals {
			t.Errorf("lastzero-%d: %d executions, %d terminal states; want %d, %d",
				tc.n, f.res.Executions, f.terminals, tc.executions, tc.terminals)
		}
		t.Logf("lastzero-%d: %d executions, %d transitions, %d terminal states",
			tc.n, f.res.Executions, f.res.Transitions, f.terminals)
	}
}

// TestLastzeroResult checks what thread 0 finds on two schedules: before any
// writer moves it stops at array[N]; after all have written, at array[0].
func TestLastzeroResult(t *testing.T) {
	m := NewLastzero(3)
	run, err := ts.Replay(m, ts.ScheduleOf(0))
	if err != nil || !run.Final.Found || run.Final.I != 3 {
		t.Errorf("thread 0 first: %+v %v", run.Final, err)
	}
	run, err = ts.Replay(m, ts.ScheduleOf(1, 1, 2, 2, 3, 3, 0, 0, 0, 0))
	if err != nil || !run.Final.Found || run.Final.I != 0 || run.Final.Array != [lastzeroMax + 1]int8{0, 1, 2, 3} {
		t.Errorf("writers first: %+v %v", run.Final, err)
	}
}

func TestLastzeroPure(t *testing.T) {
	for n := 1; n <= 4; n++ {
		wsqCheckPure(t, NewLastzero(n))
	}
}

func TestLastzeroInfo(t *testing.T) {
	i := LastzeroInfo
	if i.Name != "lastzero" || i.Summary == "" || i.Source == "" || i.Param == "" || i.Default != 5 {
		t.Errorf("%+v", i)
	}
	if !wsqPanics(func() { NewLastzero(0) }) || !wsqPanics(func() { NewLastzero(21) }) {
		t.Error("no panic out of range")
	}
	m := NewLastzero(5)
	if m.Threads() != 6 || m.ObjName(5) != "array[5]" || m.ObjName(6) != "o6" {
		t.Error("threads or names")
	}
	if d := m.Describe(m.Init(), 0); d != "array[5] != 0" {
		t.Errorf("Describe = %q", d)
	}
	var _ ts.Describer[LastzeroState] = m
}
