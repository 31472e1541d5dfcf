package models

import (
	"fmt"

	"github.com/weftlab/weft/ts"
)

// abpMax is the largest number of messages; abpCap the frames a link holds.
const (
	abpMax = 4
	abpCap = 2
)

// ABP is the alternating-bit protocol: a sender (thread 0) sends N messages
// to a receiver (thread 1) over a data link and receives acknowledgements
// over an ack link; both links lose and duplicate frames. Message k travels
// in a frame with bit k mod 2; the receiver delivers a frame whose bit is
// the one it expects (and flips it), drops the others, and acknowledges
// every frame with its bit; the sender moves on when the ack of its bit
// comes and retransmits when its timer fires.
//
// Faults are outcomes of the sends (ts.Chooser): delivered, lost, or
// duplicated (two copies; one when only one fits). A send to a full link
// loses the frame. Each message is retransmitted at most once: the sender's
// timer, a step of its own on a private object, has two outcomes (keep
// waiting, or time out and send again) while the message has a
// retransmission left, and one after. So the space is finite and acyclic,
// and runs that lose too much end with the sender waiting.
//
// The receiver's step is one transition of three objects: it takes a frame
// from the data link, writes the output and sends the ack. Both threads wait
// Idle (a receiver with nothing to receive, a sender with no ack coming):
// every run ends normally. The invariant (ts.Invariant) reads the output
// only: the messages delivered are 0, 1, ..., in order, none twice.
// [NewABPBug] delivers every frame whatever its bit, so a duplicated or
// retransmitted frame is delivered twice.
//
// Objects: data = 0, ack = 1, out = 2, the sender's timer = 3.
//
// Facts: no violation. N = 1 under ts.Explore: 2,951 executions, 6,350
// transitions, 7 distinct terminal states; under por.ODPOR (one execution
// per Mazurkiewicz trace) 647. N = 2: 97,285,803 executions under
// ts.Explore, 3,856,411 under ODPOR (asserted by go test -models.long):
// the two threads touch the links at
// nearly every step, so there is little to reduce. The states stay few:
// 60, 225 and 390 for N = 1, 2, 3 (ts.ExploreStateful). The bug variant
// fails the invariant with 0 preemptions, the fewest (message 0 sent twice
// and delivered twice).
type ABP struct {
	n   int
	bug bool
}

// NewABP returns the alternating-bit protocol sending n messages, 1 ≤ n ≤ 4.
func NewABP(n int) *ABP { return newABP(ABPInfo, n, false) }

// NewABPBug returns the variant whose receiver ignores the bit.
func NewABPBug(n int) *ABP { return newABP(ABPBugInfo, n, true) }

func newABP(info Info, n int, bug bool) *ABP {
	if n < info.Min || n > info.Max {
		panic(fmt.Sprintf("models: %s: n = %d, want %d..%d", info.Name, n, info.Min, info.Max))
	}
	return &ABP{n: n, bug: bug}
}

// ABPInfo describes ABP.
var ABPInfo = Info{
	Name:     "abp",
	Summary:  "alternating-bit protocol over links that lose and duplicate; in-order delivery as an invariant",
	Source:   "Bartlett, Scantlebury, Wilkinson, A note on reliable full-duplex transmission over half-duplex links, CACM 1969",
	Param:    "messages",
	Default:  1,
	Min:      1,
	Max:      abpMax,
	Extended: true,
}

// ABPBugInfo describes the variant of ABP whose receiver ignores the bit.
var ABPBugInfo = Info{
	Name:     "abp-bug",
	Summary:  "alternating-bit protocol whose receiver ignores the bit; delivers a message twice",
	Source:   "ABP with the receiver's bit check left out",
	Param:    "messages",
	Default:  1,
	Min:      1,
	Max:      abpMax,
	Extended: true,
}

// Objects.
const (
	abpData ts.Obj = iota
	abpAck
	abpOut
	abpTimer
)

// Sender program counters.
const (
	abpSend  int8 = iota // send frame (k mod 2, k)
	abpTimed             // keep waiting, or time out
	abpWait              // receive an ack
	abpDone
)

// abpLink is a link's frames in order, each bit<<4 | payload, 0 when empty
// (payload is stored plus one).
type abpLink struct {
	frames [abpCap]int8
	n      int8
}

func (l *abpLink) push(f int8) {
	if l.n < abpCap {
		l.frames[l.n] = f
		l.n++
	}
}

func (l *abpLink) pop() int8 {
	f := l.frames[0]
	copy(l.frames[:], l.frames[1:l.n])
	l.n--
	l.frames[l.n] = 0
	return f
}

// ABPState is a state of ABP.
type ABPState struct {
	data, ack abpLink
	pc        int8 // the sender's
	k         int8 // the sender's message
	retried   bool // message k has been sent again
	expect    int8 // the bit the receiver expects
	out       int8 // messages delivered
	bad       int8 // 1 + the first message delivered out of order, or 0
	badAt     int8 // the message due when it was
}

func (a *ABP) Init() ABPState { return ABPState{} }
func (a *ABP) Threads() int   { return 2 }

var abpReceive = []ts.Access{{Obj: abpOut, Op: ts.Write}, {Obj: abpAck, Op: ts.Write}}

func (a *ABP) Next(s ABPState, t ts.Tid) (ts.Step, ts.Status) {
	if t == 1 {
		return ts.Step{Obj: abpData, Op: ts.Write, Also: abpReceive}, waitFor(s.data.n > 0)
	}
	switch s.pc {
	case abpSend:
		return ts.Step{Obj: abpData, Op: ts.Write}, ts.Enabled
	case abpTimed:
		return ts.Step{Obj: abpTimer, Op: ts.Write}, ts.Enabled
	case abpWait:
		return ts.Step{Obj: abpAck, Op: ts.Write}, waitFor(s.ack.n > 0)
	}
	return ts.Step{}, ts.Finished
}

// Outcomes: a send (the sender's, or the ack in the receiver's step) has
// three: delivered, lost, duplicated; the timer two while the message has a
// retransmission left.
func (a *ABP) Outcomes(s ABPState, t ts.Tid) int {
	switch {
	case t == 1, s.pc == abpSend:
		return 3
	case s.pc == abpTimed && !s.retried:
		return 2
	}
	return 1
}

// send puts frame f on l with outcome c.
func abpSendOn(l *abpLink, f int8, c int) {
	switch c {
	case 0:
		l.push(f)
	case 2:
		l.push(f)
		l.push(f)
	}
}

func (a *ABP) Apply(s ABPState, t ts.Tid) ABPState { return a.ApplyOutcome(s, t, 0) }

func (a *ABP) ApplyOutcome(s ABPState, t ts.Tid, c int) ABPState {
	if t == 1 {
		if s.data.n == 0 {
			panic("abp: the receiver takes from an empty link")
		}
		f := s.data.pop()
		bit, msg := f>>4, f&15-1
		if bit == s.expect || a.bug {
			if msg != s.out && s.bad == 0 {
				s.bad, s.badAt = msg+1, s.out
			}
			s.out++
			s.expect = bit ^ 1
		}
		abpSendOn(&s.ack, bit<<4|1, c)
		return s
	}
	switch s.pc {
	case abpSend:
		abpSendOn(&s.data, (s.k%2)<<4|(s.k+1), c)
		s.pc = abpTimed
	case abpTimed:
		s.pc = abpWait
		if c == 1 {
			s.retried, s.pc = true, abpSend
		}
	case abpWait:
		if s.ack.n == 0 {
			panic("abp: the sender takes from an empty link")
		}
		if bit := s.ack.pop() >> 4; bit != s.k%2 {
			s.pc = abpTimed // a stale ack: wait again
			break
		}
		s.k++
		s.retried, s.pc = false, abpSend
		if int(s.k) == a.n {
			s.pc = abpDone
		}
	default:
		panic("abp: the sender has finished")
	}
	return s
}

// Invariant is in-order delivery: message i is the i-th delivered, and no
// more than N are.
func (a *ABP) Invariant(s ABPState) error {
	switch {
	case s.bad != 0:
		return fmt.Errorf("message %d delivered where message %d was due", s.bad-1, s.badAt)
	case int(s.out) > a.n:
		return fmt.Errorf("%d messages delivered, %d sent", s.out, a.n)
	}
	return nil
}

// InvariantReads returns the output.
func (a *ABP) InvariantReads() []ts.Obj { return []ts.Obj{abpOut} }

func (a *ABP) Hash(s ABPState) uint64 {
	h := hashInts(0, s.data.frames[:]...)
	h = hashInts(h, s.ack.frames[:]...)
	return hashInts(h, s.data.n, s.ack.n, s.pc, s.k, abpBool(s.retried), s.expect, s.out, s.bad, s.badAt)
}

func abpBool(b bool) int8 {
	if b {
		return 1
	}
	return 0
}

// ObjHash returns the value of object o. The timer holds nothing; the
// receiver's expected bit is its own state.
func (a *ABP) ObjHash(s ABPState, o ts.Obj) uint64 {
	switch o {
	case abpData:
		return hashInts(0, s.data.frames[:]...)
	case abpAck:
		return hashInts(0, s.ack.frames[:]...)
	case abpOut:
		return hashInts(0, s.out, s.bad, s.badAt)
	}
	return 0
}

func (a *ABP) Describe(s ABPState, t ts.Tid) string {
	if t == 1 {
		return fmt.Sprintf("receive a frame (expecting bit %d), ack it: 0 delivered, 1 lost, 2 duplicated", s.expect)
	}
	switch s.pc {
	case abpSend:
		return fmt.Sprintf("send message %d with bit %d: 0 delivered, 1 lost, 2 duplicated", s.k, s.k%2)
	case abpTimed:
		if s.retried {
			return "timer: no retransmission left, wait"
		}
		return "timer: 0 wait for the ack, 1 time out and send again"
	case abpWait:
		return fmt.Sprintf("receive an ack (want bit %d)", s.k%2)
	}
	return "(finished)"
}

func (a *ABP) ObjName(o ts.Obj) string {
	switch o {
	case abpData:
		return "data"
	case abpAck:
		return "ack"
	case abpOut:
		return "out"
	}
	return "timer"
}
