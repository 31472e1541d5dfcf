package ts

import "fmt"

// Tid identifies a thread. Threads are numbered 0..Threads()-1.
type Tid int

// Obj identifies a shared object (a variable, a lock, a channel). The user
// numbers objects; weft only compares them.
type Obj int32

// Op is the kind of a visible access.
type Op uint8

const (
	// Read observes an object without changing it.
	Read Op = iota
	// Write changes an object. A read-modify-write (compare-and-swap, fetch-add)
	// is a Write.
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

// Step is the one visible access that a thread's next transition makes. A
// transition is that access followed by the thread's local computation up to
// its next visible access.
type Step struct {
	Obj Obj
	Op  Op
	// Sync marks a synchronization access (a volatile or atomic variable, a
	// semaphore): a scheduling point under sync-only scheduling, and an edge of
	// the happens-before relation used by the data-race detector. Acquire and
	// Release are synchronization accesses whatever Sync says.
	Sync bool
}

// IsSync reports whether s is a synchronization access.
func (s Step) IsSync() bool { return s.Sync || s.Op == Acquire || s.Op == Release }

// Dependent reports whether steps a and b of two different threads are
// dependent: they touch the same object and at least one is not a Read. Two
// independent steps commute: executing them in either order from a state
// where both are enabled reaches the same state, and neither disables the
// other.
func Dependent(a, b Step) bool {
	return a.Obj == b.Obj && (a.Op != Read || b.Op != Read)
}

func (s Step) String() string { return s.Format(nil) }

// Format renders the step as "write x", naming the object with names when it
// is not nil and "o3" otherwise.
func (s Step) Format(names ObjNamer) string {
	obj := ""
	if names != nil {
		obj = names.ObjName(s.Obj)
	}
	if obj == "" {
		obj = fmt.Sprintf("o%d", s.Obj)
	}
	if s.Sync && s.Op != Acquire && s.Op != Release {
		return fmt.Sprintf("%v %s (sync)", s.Op, obj)
	}
	return fmt.Sprintf("%v %s", s.Op, obj)
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
)

var statusNames = [...]string{Enabled: "enabled", Blocked: "blocked", Finished: "finished"}

func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// TransitionSystem is a concurrent system with a fixed number of threads,
// explored by weft. S is the type of its states.
//
// The contract, which [github.com/weftlab/weft/ts/tstest.Conformance] checks:
//   - Threads is constant and at least 1.
//   - Next and Apply are deterministic functions of their arguments.
//   - Apply must not modify s: every search returns to s to try another thread.
//     A system that mutates in place clones in Apply (see the examples).
//   - Apply is called only for a thread that Next reports Enabled, and it
//     performs exactly the access Next reported.
//   - Next reports the next step also for a Blocked thread: dynamic
//     partial-order reduction needs it. A Finished thread's step is ignored.
//   - A thread's next step depends only on its own transitions: another
//     thread's transition may enable or block it, never change the step.
//     A thread that waits for a condition reports a step on the object the
//     condition reads, so that what wakes it is dependent with it.
//   - Steps tell the truth about independence: when two threads' next steps
//     are not Dependent, taking them in either order reaches the same state
//     and neither disables the other. Every reduction relies on it.
//   - A Finished thread stays Finished.
type TransitionSystem[S any] interface {
	// Init returns the initial state.
	Init() S
	// Threads returns the number of threads.
	Threads() int
	// Next returns thread t's next step at s and the thread's status.
	Next(s S, t Tid) (Step, Status)
	// Apply returns the state after thread t takes its next transition at s.
	Apply(s S, t Tid) S
}

// Checker is implemented by systems with assertions or invariants. Check is
// called on every state a search reaches, the initial state included; a
// non-nil error is a violation of kind [CheckFailure], and the search does not
// go on from that state.
//
// Reductions preserve what a thread can observe: an assertion that a thread
// evaluates over its own view (recorded in the state by Apply and reported by
// Check) is found by every sound strategy. A global invariant over
// intermediate states is found by ts.Explore but may be skipped by
// partial-order reductions, which preserve terminal states, deadlocks and
// thread-local assertions only.
type Checker[S any] interface {
	Check(s S) error
}

// Hasher is implemented by systems whose states can be fingerprinted, which
// lets stateful strategies store visited states and lets searches detect an
// Apply that modifies its argument. Equal states must have equal hashes;
// unequal states may collide with probability about n²/2⁶⁵ for n stored
// states, and a collision can hide states from a stateful search.
type Hasher[S any] interface {
	Hash(s S) uint64
}

// Describer is implemented by systems that can say in words what thread t's
// next transition at s does ("x := r1 + 1", "lock(fork[2])"). Traces use it.
type Describer[S any] interface {
	Describe(s S, t Tid) string
}

// ObjNamer is implemented by systems that name their objects ("x",
// "fork[2]"). Traces and happens-before graphs use it.
type ObjNamer interface {
	ObjName(o Obj) string
}
