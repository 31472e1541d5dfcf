package heapcap

import (
	"slices"

	"github.com/weftlab/weft/ts"
)

// MaxThreads is the most threads a Spread has.
const MaxThreads = 24

// SpreadState is a Spread's state: the transitions each thread has taken.
type SpreadState [MaxThreads]uint8

// Spread is a system whose search keeps much for little work: N threads
// of K transitions each (at most MaxThreads and 255), each a
// write of the thread's own object, or with Shared of object 0, so that
// every two transitions of different threads are dependent. Independent
// threads have (K+1)^N states and one Mazurkiewicz trace; shared
// ones have as many traces as interleavings. It implements ts.Hasher and
// declares its symmetry (symmetry.Canonicalizer and Signer).
type Spread struct {
	N, K   int
	Shared bool
}

func (s Spread) Init() SpreadState { return SpreadState{} }
func (s Spread) Threads() int      { return s.N }

// Next: every thread writes until it has taken K transitions.
func (s Spread) Next(x SpreadState, t ts.Tid) (ts.Step, ts.Status) {
	if int(x[t]) >= s.K {
		return ts.Step{}, ts.Finished
	}
	o := ts.Obj(t)
	if s.Shared {
		o = 0
	}
	return ts.Step{Obj: o, Op: ts.Write}, ts.Enabled
}

// Apply counts the thread's transition.
func (s Spread) Apply(x SpreadState, t ts.Tid) SpreadState {
	x[t]++
	return x
}

// Hash is FNV-1a over the counts.
func (s Spread) Hash(x SpreadState) uint64 {
	h := uint64(14695981039346656037)
	for _, b := range x[:s.N] {
		h = (h ^ uint64(b)) * 1099511628211
	}
	return h
}

// Canonical sorts the threads by their counts, highest first (a thread
// and its object are renamed together): every thread runs the same code,
// so the system is symmetric under any renaming (symmetry.Canonicalizer).
// p[t] is the thread that thread t becomes.
func (s Spread) Canonical(x SpreadState) (SpreadState, []ts.Tid) {
	order := make([]ts.Tid, s.N)
	for t := range order {
		order[t] = ts.Tid(t)
	}
	slices.SortStableFunc(order, func(a, b ts.Tid) int { return int(x[b]) - int(x[a]) })
	var rep SpreadState
	p := make([]ts.Tid, s.N)
	for i, t := range order {
		rep[i] = x[t]
		p[t] = ts.Tid(i)
	}
	return rep, p
}

// Signature is the thread's count (symmetry.Signer).
func (s Spread) Signature(x SpreadState, t ts.Tid) uint64 { return uint64(x[t]) }
