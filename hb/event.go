package hb

import (
	"fmt"

	"github.com/weftlab/weft/ts"
)

// Kind is the kind of a canonical event: a read or a write. Lock operations
// are writes of the lock object.
type Kind uint8

const (
	// R reads an object: a ts.Read.
	R Kind = iota
	// W writes an object: a ts.Write, ts.Acquire or ts.Release.
	W
)

// String returns "R" or "W".
func (k Kind) String() string {
	switch k {
	case R:
		return "R"
	case W:
		return "W"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// KindOf returns the kind of event an access makes: R for ts.Read, W for every
// other operation (Write, Acquire, Release).
func KindOf(op ts.Op) Kind {
	if op == ts.Read {
		return R
	}
	return W
}

// Event is a canonical event <op, t, n, obj, m> of section 3.3 of the cbpor
// paper. N is 1-based: the first event of a thread has N = 1. For a write, M is
// the write's number among the writes of Obj (the first write has M = 1); for a
// read, M is the number of the write whose value it reads, 0 for the initial
// value. The happens-before edges follow from the fields alone: a thread's
// events are ordered by N, and per object a write M precedes the reads of M and
// the write M+1, and the reads of M precede the write M+1.
type Event struct {
	Op     Kind
	Thread ts.Tid
	N      int
	Obj    ts.Obj
	M      int
}

// String formats e as the paper writes it: <W,T0,1,o3,2>.
func (e Event) String() string {
	return fmt.Sprintf("<%v,T%d,%d,o%d,%d>", e.Op, e.Thread, e.N, e.Obj, e.M)
}

// maxM is the largest write number an event can carry: M shares a word with
// Obj and the kind bit.
const maxM = 1<<31 - 1

// word packs an event's (op, obj, m), the part a thread's sequence stores: its
// thread and N are implied by the position.
type word uint64

func pack(op Kind, obj ts.Obj, m int) word {
	return word(uint32(obj))<<32 | word(uint32(m))<<1 | word(op&1)
}

func (w word) op() Kind    { return Kind(w & 1) }
func (w word) obj() ts.Obj { return ts.Obj(int32(uint32(w >> 32))) }
func (w word) m() int      { return int(uint32(w) >> 1) }
func (w word) event(t ts.Tid, n int) Event {
	return Event{Op: w.op(), Thread: t, N: n, Obj: w.obj(), M: w.m()}
}

// DefaultSeed is the seed of the event hash family that [New] uses. It is
// fixed, so hashes, and everything ordered by them, are the same on every run.
const DefaultSeed uint64 = 0x77656674_68627374 // "wefthbst"

// keys is one member of the family of event hashes, picked by a seed.
type keys struct{ k0, k1 uint64 }

func keysOf(seed uint64) keys {
	return keys{k0: mix(seed ^ 0x9e3779b97f4a7c15), k1: mix(seed + 0x2545f4914f6cdd1d)}
}

// hash is the event hash: two rounds of the splitmix64 finalizer (a bijection
// of 64-bit words) over the event's two words, each keyed by the seed.
func (k keys) hash(t ts.Tid, n int, w word) uint64 {
	w1 := uint64(uint32(t))<<32 | uint64(uint32(n))
	return mix(mix(w1^k.k0) ^ uint64(w) ^ k.k1)
}

// mix is the splitmix64 finalizer (Stafford's variant 13), a bijection.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
