package models

import (
	"fmt"

	"github.com/weftlab/weft/ts"
)

// Indexer is the indexer example of Flanagan and Godefroid, "Dynamic
// partial-order reduction for model checking software" (POPL'05, from its
// experiments), also a benchmark of Yang's Inspect thesis (2009, section 6.2): N threads
// insert messages into a shared hash table with compare-and-swap and linear
// probing:
//
//	const size = 128, max = 4
//	int table[size]
//	thread(tid):
//	  for m = 1..max {
//	    w = m*11 + tid
//	    h = (w*7) % size
//	    while !cas(table[h], 0, w) { h = (h+1) % size }
//	  }
//
// Messages are numbered as in the paper's getmsg, (++m)*11 + tid with m
// starting at 0, so they are 11 + tid .. 44 + tid and never 0, the mark of an
// empty cell. Objects: table[h] is h (0..127). Each compare-and-swap is one
// transition, a Write of table[h] whether it succeeds or not; computing the
// next message and its hash is local.
//
// Two threads conflict only on a cell both try. A thread tries a cell other
// than the hash of its message only after a failed compare-and-swap, and 7 is
// invertible mod 128, so conflicts start with two equal messages mod 128:
// m*11 + tid = m'*11 + tid' with tid' - tid = 11(m - m'), first possible with
// threads 0 and 11 (message 22). So the threads are independent for N <= 11
// and the first conflict comes at N = 12; for N <= 20 every message is below
// 64, a colliding message's second cell (7w+1 mod 128) is no message's hash,
// and no three threads share a message, so every probe sequence has length
// at most 2.
//
// Check, at terminal states: the table holds exactly the messages inserted,
// each once per thread that inserted it. It cannot fail.
//
// Facts under ts.Explore: no violation; executions (4N)!/(4!)^N for N <= 11
// (N = 1: 1, N = 2: 70, N = 3: 34,650); 1 distinct terminal state (a thread
// forgets its locals when it finishes, and equal messages are equal values).
// Beyond N = 3 plain search is hopeless (N = 4: 63,063,000 executions); the
// model is there for DPOR, which needs one execution while the threads are
// independent (N <= 11).
type Indexer struct{ n int }

// Sizes of Indexer.
const (
	indexerSize       = 128
	indexerMsgs       = 4
	indexerMaxThreads = 20
)

// IndexerInfo describes Indexer.
var IndexerInfo = Info{
	Name:    "indexer",
	Summary: "threads insert 4 messages each into a hash table with compare-and-swap (first conflict at N=12)",
	Source:  "Flanagan, Godefroid POPL'05 (indexer); Yang 2009 sec. 6.2",
	Param:   "threads",
	Default: 12,
	Min:     1,
	Max:     indexerMaxThreads,
}

// NewIndexer returns the indexer with n threads (1..20).
func NewIndexer(n int) *Indexer {
	if n < IndexerInfo.Min || n > IndexerInfo.Max {
		panic(fmt.Sprintf("models: indexer needs %d..%d threads, got %d", IndexerInfo.Min, IndexerInfo.Max, n))
	}
	return &Indexer{n: n}
}

// indexerThread is a thread's local state: the message number M (1..4, or
// indexerMsgs+1 when finished) and the cell H it tries next.
type indexerThread struct {
	M, H int8
}

// IndexerState is a state of Indexer.
type IndexerState struct {
	Table [indexerSize]int8
	Th    [indexerMaxThreads]indexerThread
}

// indexerMsg is thread t's m-th message.
func indexerMsg(t ts.Tid, m int8) int8 { return m*11 + int8(t) }

// indexerHash is a message's first cell.
func indexerHash(w int8) int8 { return int8(int(w) * 7 % indexerSize) }

func (m *Indexer) Init() IndexerState {
	var s IndexerState
	for t := range m.n {
		s.Th[t] = indexerThread{M: 1, H: indexerHash(indexerMsg(ts.Tid(t), 1))}
	}
	return s
}

func (m *Indexer) Threads() int { return m.n }

func (m *Indexer) Next(s IndexerState, t ts.Tid) (ts.Step, ts.Status) {
	th := s.Th[t]
	if th.M > indexerMsgs {
		return ts.Step{}, ts.Finished
	}
	return ts.Step{Obj: ts.Obj(th.H), Op: ts.Write}, ts.Enabled
}

func (m *Indexer) Apply(s IndexerState, t ts.Tid) IndexerState {
	th := &s.Th[t]
	if th.M > indexerMsgs {
		panic(fmt.Sprintf("indexer: thread %d has finished", t))
	}
	if s.Table[th.H] != 0 {
		th.H = int8((int(th.H) + 1) % indexerSize)
		return s
	}
	s.Table[th.H] = indexerMsg(t, th.M)
	th.M++
	if th.M > indexerMsgs {
		th.H = 0 // finished: its locals are gone
	} else {
		th.H = indexerHash(indexerMsg(t, th.M))
	}
	return s
}

func (m *Indexer) Check(s IndexerState) error {
	var want [indexerSize]int
	for t := range m.n {
		if s.Th[t].M <= indexerMsgs {
			return nil // a check of terminal states only
		}
		for k := int8(1); k <= indexerMsgs; k++ {
			want[indexerMsg(ts.Tid(t), k)]++
		}
	}
	var got [indexerSize]int
	for _, w := range s.Table {
		if w != 0 {
			got[w]++
		}
	}
	for w := range want {
		if got[w] != want[w] {
			return fmt.Errorf("message %d is in the table %d times, inserted %d times", w, got[w], want[w])
		}
	}
	return nil
}

func (m *Indexer) Hash(s IndexerState) uint64 {
	h := hashInt8s(0, s.Table[:])
	for _, th := range s.Th {
		h = hashInts(h, th.M, th.H)
	}
	return h
}

func (m *Indexer) Describe(s IndexerState, t ts.Tid) string {
	th := s.Th[t]
	if th.M > indexerMsgs {
		return "done"
	}
	return fmt.Sprintf("cas(table[%d], 0, %d)", th.H, indexerMsg(t, th.M))
}

func (m *Indexer) ObjName(o ts.Obj) string {
	if o >= 0 && o < indexerSize {
		return fmt.Sprintf("table[%d]", o)
	}
	return fmt.Sprintf("o%d", o)
}
