package ts

import (
	"fmt"
	"math"
	"strings"
)

// Tid identifies a thread. Threads are numbered 0..Threads()-1.
type Tid int

// Obj identifies a shared object (a variable, a lock, a channel). The user
// numbers objects from 0; weft only compares them. [InvariantObj] is
// reserved.
type Obj int32

// InvariantObj is the object that stands for the read set of a system's
// global [Invariant]: a strategy counts every transition that writes an
// object the invariant reads as a write of InvariantObj too (see
// [InvariantWrites]), so that all such transitions are dependent with each
// other. A system's own steps must not name it.
const InvariantObj Obj = math.MaxInt32

// Op is the kind of a visible access.
type Op uint8

const (
	// Read observes an object without changing it.
	Read Op = iota
	// Write changes an object. A read-modify-write (compare-and-swap, fetch-add)
	// is a Write, except that one whose effect depends on the value it reads
	// may report the access it actually makes at a state (a compare-and-swap
	// that fails there is a Read) when the system implements [ValueDependent].
	Write
	// Acquire takes a lock. It is a synchronization access.
	Acquire
	// Release gives a lock back. It is a synchronization access.
	Release
)

var opNames = [...]string{Read: "read", Write: "write", Acquire: "acquire", Release: "release"}

func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// Valid reports whether o is one of the four defined operations.
func (o Op) Valid() bool { return o <= Release }

// MarshalText encodes the operation as its name ("write").
func (o Op) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// UnmarshalText decodes an operation's name.
func (o *Op) UnmarshalText(text []byte) error {
	for i, n := range opNames {
		if n == string(text) {
			*o = Op(i)
			return nil
		}
	}
	return fmt.Errorf("ts: unknown operation %q", text)
}

// Access is one object a transition touches, and how.
type Access struct {
	Obj Obj `json:"obj"`
	Op  Op  `json:"op"`
	// Sync marks a synchronization access; see [Step].
	Sync bool `json:"sync,omitempty"`
}

// IsSync reports whether a is a synchronization access.
func (a Access) IsSync() bool { return a.Sync || a.Op == Acquire || a.Op == Release }

// Step is what a thread's next transition does to shared objects: one
// visible access (Obj, Op, Sync) and, for a transition that touches several
// objects, the others in Also. A transition is that access followed by the
// thread's local computation up to its next visible access. (The number of
// outcomes of a transition that has several is not part of the step: see
// [Chooser].)
//
// Step keeps to four fields of 32 bytes so that the compiler passes it in
// registers: Next is called for every thread at every state, and a larger
// step would make every search slower.
type Step struct {
	Obj Obj `json:"obj"`
	Op  Op  `json:"op"`
	// Sync marks a synchronization access (a volatile or atomic variable, a
	// semaphore): a scheduling point under sync-only scheduling, and an edge of
	// the happens-before relation used by the data-race detector. Acquire and
	// Release are synchronization accesses whatever Sync says.
	Sync bool `json:"sync,omitempty"`
	// Also lists the transition's other accesses, for a transition that
	// touches several objects: a message delivery that updates the receiver
	// and queues replies on several links, a select over several channels.
	// Each object appears once in a step (Obj and Also together); an object
	// both read and written is a Write. weft keeps the slice as long as it
	// keeps the step and never modifies it: the system must not modify it
	// either once Next has returned it (share one slice between states, or
	// build a new one). nil for the common one-object transition.
	Also []Access `json:"also,omitempty"`
}

// IsSync reports whether s makes a synchronization access.
func (s Step) IsSync() bool {
	if s.Sync || s.Op == Acquire || s.Op == Release {
		return true
	}
	for _, a := range s.Also {
		if a.IsSync() {
			return true
		}
	}
	return false
}

// NumAccesses returns the number of objects s touches: 1 plus len(Also).
func (s Step) NumAccesses() int { return 1 + len(s.Also) }

// At returns the i-th access of s, 0 <= i < NumAccesses(): the step's own
// first, then Also in order.
func (s Step) At(i int) Access {
	if i == 0 {
		return Access{Obj: s.Obj, Op: s.Op, Sync: s.Sync}
	}
	return s.Also[i-1]
}

// Single reports whether s touches exactly one object.
func (s Step) Single() bool { return len(s.Also) == 0 }

// OpOn returns the operation s makes on object o, and whether it touches o.
func (s Step) OpOn(o Obj) (Op, bool) {
	if s.Obj == o {
		return s.Op, true
	}
	for _, a := range s.Also {
		if a.Obj == o {
			return a.Op, true
		}
	}
	return 0, false
}

// Equal reports whether s and o are the same step: the same accesses in the
// same order.
func (s Step) Equal(o Step) bool {
	if s.Obj != o.Obj || s.Op != o.Op || s.Sync != o.Sync || len(s.Also) != len(o.Also) {
		return false
	}
	for i, a := range s.Also {
		if a != o.Also[i] {
			return false
		}
	}
	return true
}

// Validate reports whether s is a well-formed step of a system: defined
// operations, objects in 0..InvariantObj-1, each object once.
func (s Step) Validate() error {
	for i := range 1 + len(s.Also) {
		a := s.At(i)
		if !a.Op.Valid() {
			return fmt.Errorf("access %d has undefined operation %v", i, a.Op)
		}
		if a.Obj < 0 || a.Obj == InvariantObj {
			return fmt.Errorf("access %d names object %d, want 0..%d", i, a.Obj, InvariantObj-1)
		}
		for j := range i {
			if s.At(j).Obj == a.Obj {
				return fmt.Errorf("object %d appears twice", a.Obj)
			}
		}
	}
	return nil
}

// Valid is Validate() == nil, cheap enough to call on every step: one
// comparison chain for the one-object case.
func (s *Step) Valid() bool {
	if len(s.Also) != 0 {
		return s.Validate() == nil
	}
	return s.Op <= Release && uint32(s.Obj) < uint32(InvariantObj) // 0 <= Obj < InvariantObj
}

// Dependent reports whether steps a and b of two different threads are
// dependent: they touch a common object and at least one of them writes it
// (a Write, Acquire or Release). Two independent steps commute: executing
// them in either order, with any outcomes, from a state where both are
// enabled reaches the same state, and neither enables, disables or changes
// the other.
func Dependent(a, b Step) bool {
	if len(a.Also) == 0 && len(b.Also) == 0 {
		return a.Obj == b.Obj && (a.Op != Read || b.Op != Read)
	}
	for i := range 1 + len(a.Also) {
		x := a.At(i)
		if op, ok := b.OpOn(x.Obj); ok && (x.Op != Read || op != Read) {
			return true
		}
	}
	return false
}

func (s Step) String() string { return s.Format(nil) }

// Format renders the step as "write x", naming the object with names when it
// is not nil and "o3" otherwise. A step of several objects lists them
// ("write x, read y"); the invariant's object is "invariant".
func (s Step) Format(names ObjNamer) string {
	var b strings.Builder
	for i := range 1 + len(s.Also) {
		if i > 0 {
			b.WriteString(", ")
		}
		a := s.At(i)
		obj := ""
		switch {
		case a.Obj == InvariantObj:
			obj = "invariant"
		case names != nil:
			obj = names.ObjName(a.Obj)
		}
		if obj == "" {
			obj = fmt.Sprintf("o%d", a.Obj)
		}
		fmt.Fprintf(&b, "%v %s", a.Op, obj)
		if a.Sync && a.Op != Acquire && a.Op != Release {
			b.WriteString(" (sync)")
		}
	}
	return b.String()
}

// InvariantWrites marks the steps that write an object of an invariant's
// read set (see [Invariant]), for strategies: a marked step also writes
// [InvariantObj] (one more access at the end of Also), so that [Dependent]
// makes every two such steps dependent, and per-object bookkeeping sees the
// write. Marking a one-object step costs nothing; a step of several objects
// needs a longer Also, which the marker builds once per distinct slice the
// system returns (a system that shares its Also slices between states pays
// it once). A nil *InvariantWrites marks nothing. A marker belongs to one
// search: it is not safe for concurrent use.
type InvariantWrites struct {
	small []Obj
	big   map[Obj]struct{}
	// marked caches the marked copies of the systems' Also slices, by the
	// address and length of the original.
	marked map[alsoKey][]Access
}

type alsoKey struct {
	first *Access
	n     int
}

// invariantWrite is the Also of a marked one-object step; never modified.
var invariantWrite = []Access{{Obj: InvariantObj, Op: Write}}

// maxMarked caps the marker's cache of marked slices; past it the cache is
// emptied, so a system that builds a new Also for every call costs an
// allocation per marked step, not unbounded memory.
const maxMarked = 1 << 12

// NewInvariantWrites returns the marker for an invariant that reads the
// objects reads, or nil when reads is empty.
func NewInvariantWrites(reads []Obj) *InvariantWrites {
	if len(reads) == 0 {
		return nil
	}
	w := &InvariantWrites{}
	if len(reads) <= 8 {
		w.small = append([]Obj(nil), reads...)
		return w
	}
	w.big = make(map[Obj]struct{}, len(reads))
	for _, o := range reads {
		w.big[o] = struct{}{}
	}
	return w
}

// Reads reports whether o is in the invariant's read set.
func (w *InvariantWrites) Reads(o Obj) bool {
	if w == nil {
		return false
	}
	if w.big != nil {
		_, ok := w.big[o]
		return ok
	}
	for _, r := range w.small {
		if r == o {
			return true
		}
	}
	return false
}

// Mark returns st, marked as a write of InvariantObj if it writes an object
// of the read set.
func (w *InvariantWrites) Mark(st Step) Step {
	if w == nil {
		return st
	}
	if len(st.Also) == 0 {
		if st.Op != Read && w.Reads(st.Obj) {
			st.Also = invariantWrite
		}
		return st
	}
	writes := st.Op != Read && w.Reads(st.Obj)
	for _, a := range st.Also {
		writes = writes || (a.Op != Read && w.Reads(a.Obj))
	}
	if !writes {
		return st
	}
	k := alsoKey{&st.Also[0], len(st.Also)}
	if m, ok := w.marked[k]; ok {
		st.Also = m
		return st
	}
	if w.marked == nil || len(w.marked) >= maxMarked {
		w.marked = make(map[alsoKey][]Access)
	}
	m := append(append(make([]Access, 0, len(st.Also)+1), st.Also...), Access{Obj: InvariantObj, Op: Write})
	w.marked[k] = m
	st.Also = m
	return st
}

// Status is a thread's status at a state.
type Status uint8

const (
	// Enabled: the thread can take its next step.
	Enabled Status = iota
	// Blocked: the thread has a next step but cannot take it now (a held lock,
	// a condition not yet true, a thread not started yet).
	Blocked
	// Finished: the thread has no next step, now or ever.
	Finished
	// Idle: the thread is blocked, as for Blocked, and may stay so at the end
	// of a run without that being a deadlock: a server waiting for requests,
	// a network link with nothing in flight. A state where no thread is
	// enabled and every thread is Idle or Finished is a normal ending.
	Idle
)

var statusNames = [...]string{Enabled: "enabled", Blocked: "blocked", Finished: "finished", Idle: "idle"}

func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// Valid reports whether s is one of the four defined statuses.
func (s Status) Valid() bool { return s <= Idle }

// Waiting reports whether the thread has a next step it cannot take now:
// Blocked or Idle.
func (s Status) Waiting() bool { return s == Blocked || s == Idle }

// TransitionSystem is a concurrent system with a fixed number of threads,
// explored by weft. S is the type of its states.
//
// The contract, which [github.com/weftlab/weft/ts/tstest.Conformance] checks:
//   - Threads is constant and at least 1.
//   - Next and Apply are deterministic functions of their arguments.
//   - Apply must not modify s: every search returns to s to try another thread.
//     A system that mutates in place clones in Apply (see the examples).
//   - Apply is called only for a thread that Next reports Enabled, and it
//     performs exactly the accesses Next reported.
//   - Next reports the next step also for a Blocked or Idle thread: dynamic
//     partial-order reduction needs it. A Finished thread's step is ignored.
//   - A thread's next step depends only on its own transitions: another
//     thread's transition may enable or block it, never change the step.
//     A thread that waits for a condition reports a step on the object the
//     condition reads, so that what wakes it is dependent with it. The one
//     exception is declared with [ValueDependent]: another thread's write of
//     a declared object may turn the thread's access to that object from a
//     Write into a Read or back (see [StepVariant]); nothing else changes.
//     Since every step's object set is fixed, the step that changes is
//     dependent with the write that changed it.
//   - Steps tell the truth about independence: when two threads' next steps
//     are not Dependent, taking them in either order (with any outcomes)
//     reaches the same state and neither changes the other's status.
//     Every reduction relies on it.
//   - A Finished thread stays Finished.
type TransitionSystem[S any] interface {
	// Init returns the initial state.
	Init() S
	// Threads returns the number of threads.
	Threads() int
	// Next returns thread t's next step at s and the thread's status.
	Next(s S, t Tid) (Step, Status)
	// Apply returns the state after thread t takes its next transition at s
	// (its outcome 0, for a transition of several: see Chooser).
	Apply(s S, t Tid) S
}

// Chooser is implemented by systems whose transitions may have several
// outcomes chosen by the environment: a message delivered or lost, a timeout
// firing or not, a value 0..k-1. Every strategy explores every outcome of
// every transition it takes, and a schedule records the one taken
// ([Move.Outcome]). Choosing an outcome is not a preemption, and two
// outcomes of one transition are different transitions: no reduction merges
// them.
type Chooser[S any] interface {
	// Outcomes returns the number of outcomes of thread t's next transition
	// at s, at least 1, also when t is Blocked or Idle (dynamic partial-order
	// reduction plans the transitions of waiting threads too). Like the step,
	// it depends only on the thread's own transitions: another thread's
	// transition never changes it.
	Outcomes(s S, t Tid) int
	// ApplyOutcome returns the state after thread t takes outcome c of its
	// next transition at s, 0 <= c < Outcomes(s, t). It follows Apply's
	// contract, and ApplyOutcome(s, t, 0) must equal Apply(s, t): weft calls
	// Apply for outcome 0.
	ApplyOutcome(s S, t Tid, c int) S
}

// Checker is implemented by systems with assertions. Check is called on
// every state a search reaches, the initial state included; a non-nil error
// is a violation of kind [CheckFailure], and the search does not go on from
// that state.
//
// Reductions preserve what a thread can observe: an assertion that a thread
// evaluates over its own view (recorded in the state by Apply and reported by
// Check) is found by every sound strategy. A global invariant over
// intermediate states is found by ts.Explore but may be skipped by
// partial-order reductions, which preserve terminal states, deadlocks and
// thread-local assertions only: declare it with [Invariant] instead.
type Checker[S any] interface {
	Check(s S) error
}

// Invariant is implemented by systems with a global invariant over shared
// objects ("at most one leader per term", "no participant commits while
// another aborts"). Every strategy checks it at every state it visits; a
// non-nil error is a violation of kind [InvariantFailure], and the search
// does not go on from that state.
//
// No reduction hides a state where it fails. The invariant must depend only
// on the values of the objects InvariantReads returns, which only steps that
// write them (Write, Acquire, Release) change. Strategies then treat every
// two transitions that write any of those objects as dependent (through
// [InvariantWrites]), so every execution equivalent to one that reaches a
// failing state passes through the same sequence of values of those objects
// and fails too. The fewer objects it reads, the more a reduction can prune.
type Invariant[S any] interface {
	// Invariant reports whether the invariant holds at s.
	Invariant(s S) error
	// InvariantReads returns the objects the invariant reads. It is called
	// once per search.
	InvariantReads() []Obj
}

// ValueDependent is implemented by systems in which a read-modify-write
// reports the access it actually makes at a state, which depends on the
// value it reads there: a compare-and-swap that succeeds is a Write and one
// that fails is a Read; a receive that finds a channel closed, or a lock
// try modelled as a write of the lock's object when it takes it, can be a
// Read likewise when it fails. (Only Write and Read switch: an Acquire
// never becomes a Read, since strategies treat Acquire and Release as a
// mutex.) Reporting the failed attempt as a Read lets reductions count two
// failed attempts as independent, which can shrink the search by orders of
// magnitude on programs that race on compare-and-swaps (the bundled
// casw-N, wcas-N, casrot-N).
//
// The contract is the TransitionSystem's with one relaxation: when thread u
// moves from s to s', thread t's step at s' (t != u, unfinished at s) may
// differ from its step at s only as [StepVariant] allows, on the objects
// ValueDependentObjs returns: the same objects in the same order with the
// same Sync flags, and the operation on some of the declared objects
// switched between Write and Read. The change must come from u's step
// writing that object (so that the two steps are dependent). Everything
// else is unchanged: at one state, Next is a function of the state;
// independent steps commute and do not change each other (their steps
// included); a thread's own step never changes its objects. Strategies
// that cannot take such steps refuse the system with an error wrapping
// [ErrUnsupported]; the others explore the actual access of every
// transition, and their reductions are over the actual accesses.
// [github.com/weftlab/weft/ts/tstest.Conformance] checks the relaxation.
type ValueDependent interface {
	// ValueDependentObjs returns the objects on which a step's operation
	// may switch between Write and Read as other threads write them. nil
	// or empty means none: the plain contract. It is called once per
	// search.
	ValueDependentObjs() []Obj
}

// Blocking is implemented by a system that names the objects on which a
// step can wait: a thread whose step touches one of them may be Blocked or
// Idle (a semaphore's P, or its V at a capacity; a send on a full channel;
// a Once's Do while another thread runs it). Awaits (Step.Sync reads) and
// lock acquires (Acquire) need not be named. A thread whose step touches
// none of the objects named, and is neither, is never Blocked or Idle.
//
// Searches learn such objects where they first see a step on one waiting,
// and that comes late for a reduction that has already planned around a
// step it took for one that cannot wait: ODPOR may then plan a branch that
// turns out not enabled (Result.Stats["infeasible-branches"]) and run an
// execution cut by sleep sets, and, before the first sighting, a sleeping
// thread with such a step is taken for one that stays enabled (see package
// por). Naming the objects up front avoids both. Naming too few is no
// worse than not implementing Blocking (the searches still learn the
// others); naming too many costs replays only.
// [github.com/weftlab/weft/ts/tstest.Conformance] checks that every
// waiting step touches a named object.
type Blocking interface {
	// BlockingObjs returns the objects on which a step can wait. It is
	// called once per search.
	BlockingObjs() []Obj
}

// StepVariant reports whether b may replace a as a thread's step when
// another thread writes, under [ValueDependent] with the declared objects
// decl: a and b touch the same objects in the same order with the same
// Sync flags, and where their operations differ, the object is declared
// and one operation is Write, the other Read.
// A write of [InvariantObj] that a strategy added (see [InvariantWrites])
// comes and goes with the write it stands for, and is not compared.
func StepVariant(a, b Step, decl func(Obj) bool) bool {
	a.Also, b.Also = unmarked(a.Also), unmarked(b.Also)
	if a.Obj != b.Obj || a.Sync != b.Sync || len(a.Also) != len(b.Also) {
		return false
	}
	for i := range 1 + len(a.Also) {
		x, y := a.At(i), b.At(i)
		if x.Obj != y.Obj || x.Sync != y.Sync {
			return false
		}
		if x.Op == y.Op {
			continue
		}
		if decl == nil || !decl(x.Obj) || x.Op+y.Op != Read+Write || x.Op > Write || y.Op > Write {
			return false
		}
	}
	return true
}

// unmarked returns also without the write of InvariantObj a marker adds at
// its end.
func unmarked(also []Access) []Access {
	if n := len(also); n > 0 && also[n-1].Obj == InvariantObj {
		return also[:n-1]
	}
	return also
}

// Hasher is implemented by systems whose states can be fingerprinted, which
// lets stateful strategies store visited states and lets searches detect an
// Apply that modifies its argument (of a state type that holds references:
// one that holds none is copied, and its Apply cannot modify it). Equal states must have equal hashes;
// unequal states may collide with probability about n²/2⁶⁵ for n stored
// states, and a collision can hide states from a stateful search.
type Hasher[S any] interface {
	Hash(s S) uint64
}

// ObjHasher is implemented by systems that can fingerprint the value of each
// shared object. Strategies do not use it; it lets
// [github.com/weftlab/weft/ts/tstest.Conformance] check that a transition
// changes no object its step does not write, and that a global invariant
// depends only on the objects it declares. Equal values must have equal
// hashes.
type ObjHasher[S any] interface {
	ObjHash(s S, o Obj) uint64
}

// Describer is implemented by systems that can say in words what thread t's
// next transition at s does ("x := r1 + 1", "lock(fork[2])"). Traces use it.
type Describer[S any] interface {
	Describe(s S, t Tid) string
}

// ThreadNamer is implemented by systems that name their threads ("client
// 2", "link 0→1"). Traces and deadlock reports use the names next to the
// thread numbers; an empty name is no name.
type ThreadNamer interface {
	ThreadName(t Tid) string
}

// StatsReporter is implemented by systems that count work of their own,
// such as an adapter that replays a mutable simulator
// ([github.com/weftlab/weft/sim]): strategies add to Result.Stats the
// figures that grew during the search (the difference between the values
// before and after it).
type StatsReporter interface {
	SearchStats() map[string]int64
}

// ObjNamer is implemented by systems that name their objects ("x",
// "fork[2]"). Traces and happens-before graphs use it.
type ObjNamer interface {
	ObjName(o Obj) string
}

// Forker is implemented by systems that cannot be used from several
// goroutines at once, such as an adapter that replays one mutable simulator:
// a search with several workers (Options.Workers) calls Fork once for each
// goroutine it adds, before it starts, and each uses its own copy, which
// must behave exactly as the original (the same initial state, steps,
// outcomes and checks; states are not passed between copies). An error
// says the system cannot be copied, and the search refuses to start with
// it. A copy that has a Close method is closed when the search ends.
// Systems whose methods are pure functions of their arguments, as the
// contract asks, need not implement Forker: the goroutines share them.
type Forker[S any] interface {
	Fork() (TransitionSystem[S], error)
}
