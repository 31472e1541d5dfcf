package models

import (
	"testing"

	"github.com/weftlab/weft/ts"
)

func TestIndexer(t *testing.T) {
	for _, tc := range []struct {
		n          int
		executions int64
	}{
		{1, 1},
		{2, 70},
		{3, 34650},
	} {
		f := wsqExplore(t, NewIndexer(tc.n), 0)
		if !f.res.Complete || f.res.Violation != nil {
			t.Fatalf("indexer-%d: %v, want a complete search with no violation", tc.n, f.res)
		}
		if f.res.Executions != tc.executions || f.terminals != 1 {
			t.Errorf("indexer-%d: %d executions, %d terminal states; want %d, 1",
				tc.n, f.res.Executions, f.terminals, tc.executions)
		}
		t.Logf("indexer-%d: %d executions, %d transitions, %d terminal states",
			tc.n, f.res.Executions, f.res.Transitions, f.terminals)
	}
}

// TestIndexerConflicts computes directly which threads can meet on a cell.
// Without a failed compare-and-swap a thread only tries the hash of each of
// its messages, so threads are independent while those cells are pairwise
// distinct; the first shared cell appears at N = 12 (threads 0 and 11).
// Up to N = 20 a shared first cell is shared by two threads at most and its
// successor is nobody's first cell, so no probe goes further.
func TestIndexerConflicts(t *testing.T) {
	firstShared := 0
	for n := 1; n <= indexerMaxThreads; n++ {
		owners := map[int8][]ts.Tid{}
		for tid := range ts.Tid(n) {
			for k := int8(1); k <= indexerMsgs; k++ {
				h := indexerHash(indexerMsg(tid, k))
				owners[h] = append(owners[h], tid)
			}
		}
		for h, ts := range owners {
			if len(ts) < 2 {
				continue
			}
			if firstShared == 0 {
				firstShared = n
				t.Logf("first shared cell: table[%d] with N = %d, threads %v", h, n, ts)
			}
			if len(ts) > 2 || ts[0] == ts[1] {
				t.Errorf("N = %d: table[%d] is the first cell of threads %v", n, h, ts)
			}
			if next := int8((int(h) + 1) % indexerSize); len(owners[next]) > 0 {
				t.Errorf("N = %d: table[%d], after the shared table[%d], is a first cell", n, next, h)
			}
		}
	}
	if firstShared != 12 {
		t.Errorf("first shared cell at N = %d, want 12", firstShared)
	}
	// At N = 12 the loser of table[26] (message 22) moves on to table[27].
	m := NewIndexer(12)
	var sched ts.Schedule
	for _, tid := range []ts.Tid{11, 11, 11, 11, 0, 0, 0, 0, 0} { // thread 0 tries table[26] and table[27]
		sched = append(sched, ts.Move{Thread: tid})
	}
	for tid := ts.Tid(1); tid < 11; tid++ {
		sched = append(sched, ts.Move{Thread: tid}, ts.Move{Thread: tid}, ts.Move{Thread: tid}, ts.Move{Thread: tid})
	}
	run, err := ts.Replay(m, sched)
	if err != nil || run.Violation != nil {
		t.Fatalf("indexer-12: %v %v", run.Violation, err)
	}
	if run.Final.Table[26] != 22 || run.Final.Table[27] != 22 {
		t.Errorf("indexer-12: table[26..27] = %v", run.Final.Table[26:28])
	}
}

func TestIndexerPure(t *testing.T) {
	for n := 1; n <= 3; n++ {
		wsqCheckPure(t, NewIndexer(n))
	}
}

func TestIndexerInfo(t *testing.T) {
	i := IndexerInfo
	if i.Name != "indexer" || i.Summary == "" || i.Source == "" || i.Param == "" || i.Default != 12 {
		t.Errorf("%+v", i)
	}
	if !wsqPanics(func() { NewIndexer(0) }) || !wsqPanics(func() { NewIndexer(21) }) {
		t.Error("no panic out of range")
	}
	m := NewIndexer(12)
	if m.Threads() != 12 || m.ObjName(5) != "table[5]" {
		t.Error("threads or names")
	}
	if d := m.Describe(m.Init(), 0); d != "cas(table[77], 0, 11)" {
		t.Errorf("Describe = %q", d)
	}
	var _ ts.Checker[IndexerState] = m
}
