package models

import (
	"context"
	"testing"

	"github.com/weftlab/weft/ts"
)

func TestFilesystem(t *testing.T) {
	for _, tc := range []struct {
		n          int
		executions int64
		terminals  int
	}{
		{1, 1, 1},
		{2, 12870, 1},
	} {
		f := wsqExplore(t, NewFilesystem(tc.n), 0)
		if !f.res.Complete || f.res.Violation != nil {
			t.Fatalf("filesystem-%d: %v, want a complete search with no violation", tc.n, f.res)
		}
		if f.res.Executions != tc.executions || f.terminals != tc.terminals {
			t.Errorf("filesystem-%d: %d executions, %d terminal states; want %d, %d",
				tc.n, f.res.Executions, f.terminals, tc.executions, tc.terminals)
		}
		t.Logf("filesystem-%d: %d executions, %d transitions, %d terminal states",
			tc.n, f.res.Executions, f.res.Transitions, f.terminals)
	}
}

// filesysFootprint runs thread t alone from the initial state and returns
// the objects it touches.
func filesysFootprint(m *Filesystem, t ts.Tid) map[ts.Obj]bool {
	fp := map[ts.Obj]bool{}
	s := m.Init()
	for {
		step, st := m.Next(s, t)
		if st == ts.Finished {
			return fp
		}
		if st != ts.Enabled {
			panic("blocked alone")
		}
		fp[step.Obj] = true
		s = m.Apply(s, t)
	}
}

// TestFilesystemIndependence checks the claim that threads conflict first at
// N = 14: run alone, threads 0..12 touch pairwise disjoint objects (so no
// thread ever affects another, and each runs as it does alone), while thread
// 13 shares lockb[0] and busy[0] with thread 0.
func TestFilesystemIndependence(t *testing.T) {
	m := NewFilesystem(filesysMaxThreads)
	fps := make([]map[ts.Obj]bool, filesysMaxThreads)
	for i := range fps {
		fps[i] = filesysFootprint(m, ts.Tid(i))
	}
	first := -1
	for j := 1; j < filesysMaxThreads && first < 0; j++ {
		for i := range j {
			for o := range fps[j] {
				if fps[i][o] {
					first = j
					t.Logf("first conflict: threads %d and %d on %s", i, j, m.ObjName(o))
					if i != 0 || j != 13 || (o != filesysObjLockB && o != filesysObjBusy) {
						t.Errorf("first conflict between threads %d and %d on %s; want 0 and 13 on block 0", i, j, m.ObjName(o))
					}
					break
				}
			}
			if first >= 0 {
				break
			}
		}
	}
	if first != 13 {
		t.Errorf("first conflicting thread %d, want 13 (N = 14)", first)
	}
	// With N = 13 one schedule suffices: every thread in turn.
	m13 := NewFilesystem(13)
	var sched ts.Schedule
	for i := range 13 {
		for range 8 {
			sched = append(sched, ts.Move{Thread: ts.Tid(i)})
		}
	}
	run, err := ts.Replay(m13, sched)
	if err != nil || run.Violation != nil {
		t.Fatalf("filesystem-13 round robin: %v %v", run.Violation, err)
	}
	for i := range 13 {
		if run.Final.Th[i].PC != filesysDone || run.Final.Inode[i] != int8(2*i+1) {
			t.Errorf("filesystem-13: thread %d at pc %d with inode %d", i, run.Final.Th[i].PC, run.Final.Inode[i])
		}
	}
}

// TestFilesystemConflict shows the conflict at N = 14 on a schedule: thread
// 13 takes block 0 first, so thread 0 moves on to block 1.
func TestFilesystemConflict(t *testing.T) {
	m := NewFilesystem(14)
	var sched ts.Schedule
	for _, i := range []int{13, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12} {
		n := 8
		if i == 0 {
			n = 11 // 3 more: busy[0] found set, unlock(lockb[0]), then block 1
		}
		for range n {
			sched = append(sched, ts.Move{Thread: ts.Tid(i)})
		}
	}
	run, err := ts.Replay(m, sched)
	if err != nil || run.Violation != nil {
		t.Fatalf("filesystem-14: %v %v", run.Violation, err)
	}
	if run.Final.Inode[0] != 2 || run.Final.Inode[13] != 1 {
		t.Errorf("filesystem-14: inode[0] = %d, inode[13] = %d; want 2, 1", run.Final.Inode[0], run.Final.Inode[13])
	}
	res, err := ts.Explore(context.Background(), m, ts.Options{Limits: ts.Limits{Executions: 2000}})
	if err != nil || res.Violation != nil || res.Complete {
		t.Errorf("filesystem-14 (first 2000 executions): %v %v", res, err)
	}
}

func TestFilesystemPure(t *testing.T) {
	for n := 1; n <= 2; n++ {
		wsqCheckPure(t, NewFilesystem(n))
	}
}

func TestFilesystemInfo(t *testing.T) {
	i := FilesystemInfo
	if i.Name != "filesystem" || i.Summary == "" || i.Source == "" || i.Param == "" || i.Default != 14 {
		t.Errorf("%+v", i)
	}
	if !wsqPanics(func() { NewFilesystem(0) }) || !wsqPanics(func() { NewFilesystem(33) }) {
		t.Error("no panic out of range")
	}
	m := NewFilesystem(14)
	if m.Threads() != 14 {
		t.Error("threads")
	}
	for o, want := range map[ts.Obj]string{0: "locki[0]", 32: "inode[0]", 64: "lockb[0]", 90: "busy[0]", 115: "busy[25]", 116: "o116"} {
		if got := m.ObjName(o); got != want {
			t.Errorf("ObjName(%d) = %q, want %q", o, got, want)
		}
	}
	var _ ts.Checker[FilesystemState] = m
	var _ ts.Describer[FilesystemState] = m
}
