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
// paper, extended to transitions of several objects and several outcomes.
// N is 1-based: the first event of a thread has N = 1. For a write, M is the
// write's number among the writes of Obj (the first write has M = 1); for a
// read, M is the number of the write whose value it reads, 0 for the initial
// value. The happens-before edges follow from the fields alone: a thread's
// events are ordered by N, and per object a write M precedes the reads of M and
// the write M+1, and the reads of M precede the write M+1.
//
// Op, Obj and M describe the event's first access (the step's own). An event
// of a step of several objects has one such access per object, each numbered
// the same way on its object; More counts the accesses after the first, and
// [State.AppendAccesses] lists them all. Outcome is the outcome of the
// transition (see ts.Chooser): two events that differ only in it are
// different events.
type Event struct {
	Op      Kind
	Thread  ts.Tid
	N       int
	Obj     ts.Obj
	M       int
	Outcome int
	More    int
	// rest digests the event's words after the first (its other accesses
	// and its outcome), 0 for an event of one word, so that EventHash
	// covers them.
	rest uint64
}

// EventAccess is one access of an event: its kind, its object and its
// write number on the object (see [Event]).
type EventAccess struct {
	Op  Kind
	Obj ts.Obj
	M   int
}

// String formats e as the paper writes it, <W,T0,1,o3,2>, with the number of
// further accesses and the outcome after the first access when there are
// any: <W,T0,1,o3,2,+1,/2>.
func (e Event) String() string {
	s := fmt.Sprintf("<%v,T%d,%d,o%d,%d", e.Op, e.Thread, e.N, e.Obj, e.M)
	if e.More > 0 {
		s += fmt.Sprintf(",+%d", e.More)
	}
	if e.Outcome > 0 {
		s += fmt.Sprintf(",/%d", e.Outcome)
	}
	return s + ">"
}

// maxM is the largest write number an event can carry, and the largest
// outcome: each shares a word with an object and three flag bits.
const maxM = 1<<29 - 1

// word packs one access of an event, (op, obj, m), the part a thread's
// sequence stores: its thread and N are implied by the position. An event of
// one access with outcome 0, the common case, is one word; an event of
// several is one word per access, in the step's order, each after the first
// flagged as a continuation, and an outcome c > 0 adds a last continuation
// word that holds c. Equal events have equal words.
type word uint64

const (
	wWrite word = 1 // the access writes (Kind W)
	wCont  word = 2 // not the first word of its event
	wOut   word = 4 // the event's outcome; the payload is the outcome
	wShift      = 3 // the payload (M, or the outcome) starts here
)

func pack(op Kind, obj ts.Obj, m int) word {
	return word(uint32(obj))<<32 | word(uint32(m))<<wShift | word(op&1)
}

// outWord is the word of outcome c.
func outWord(c int) word { return word(uint32(c))<<wShift | wCont | wOut }

func (w word) op() Kind      { return Kind(w & wWrite) }
func (w word) obj() ts.Obj   { return ts.Obj(int32(uint32(w >> 32))) }
func (w word) m() int        { return int(uint32(w) >> wShift) }
func (w word) first() bool   { return w&wCont == 0 }
func (w word) outcome() bool { return w&wOut != 0 }

// access is the access a word that is not an outcome word packs.
func (w word) access() EventAccess { return EventAccess{Op: w.op(), Obj: w.obj(), M: w.m()} }

// event returns the event of one word, thread t's n-th.
func (w word) event(t ts.Tid, n int) Event {
	return Event{Op: w.op(), Thread: t, N: n, Obj: w.obj(), M: w.m()}
}

// eventOf returns the event whose words are ws, thread t's n-th.
func eventOf(t ts.Tid, n int, ws []word) Event {
	e := ws[0].event(t, n)
	if len(ws) == 1 {
		return e
	}
	r := uint64(0x6c62272e07bb0142)
	for _, w := range ws[1:] {
		if w.outcome() {
			e.Outcome = w.m()
		} else {
			e.More++
		}
		r = mix(r ^ uint64(w))
	}
	e.rest = r | 1
	return e
}

// lastStart returns the index of the first word of the last event of a
// thread's sequence, which is not empty.
func lastStart(seq []word) int {
	i := len(seq) - 1
	for !seq[i].first() {
		i--
	}
	return i
}

// eventEnd returns the index just past the event that starts at seq[i].
func eventEnd(seq []word, i int) int {
	for i++; i < len(seq) && !seq[i].first(); i++ {
	}
	return i
}

// DefaultSeed is the seed of the event hash family that [New] uses. It is
// fixed, so hashes, and everything ordered by them, are the same on every run.
const DefaultSeed uint64 = 0x77656674_68627374 // "wefthbst"

// keys is one member of the family of event hashes, picked by a seed.
type keys struct{ k0, k1 uint64 }

func keysOf(seed uint64) keys {
	return keys{k0: mix(seed ^ 0x9e3779b97f4a7c15), k1: mix(seed + 0x2545f4914f6cdd1d)}
}

// hash is the hash of an event of one word: two rounds of the splitmix64
// finalizer (a bijection of 64-bit words) over the event's two words, each
// keyed by the seed.
func (k keys) hash(t ts.Tid, n int, w word) uint64 {
	w1 := uint64(uint32(t))<<32 | uint64(uint32(n))
	return mix(mix(w1^k.k0) ^ uint64(w) ^ k.k1)
}

// event is the hash of event e: for an event of several words, the hash of
// its first word mixed once more with the keyed digest of the others.
func (k keys) event(e Event) uint64 {
	h := k.hash(e.Thread, e.N, pack(e.Op, e.Obj, e.M))
	if e.rest != 0 {
		h = mix(h ^ mix(e.rest^k.k0))
	}
	return h
}

// mix is the splitmix64 finalizer (Stafford's variant 13), a bijection.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
