package search

import (
	"fmt"

	"github.com/weftlab/weft/ts"
)

// Model is a system with its capabilities found once, as the strategies that
// support the whole model see it: steps of several objects and outcomes,
// Idle threads, global invariants (whose read set marks the steps that write
// it, so that they are all dependent), and the contract checks.
type Model[S any] struct {
	Sys       ts.TransitionSystem[S]
	Checker   ts.Checker[S]
	Hasher    ts.Hasher[S]
	Chooser   ts.Chooser[S]
	Invariant ts.Invariant[S]
	Inv       *ts.InvariantWrites // nil without an invariant
	N         int                 // the thread count
	// VD holds the objects the system declares ts.ValueDependent (a step's
	// operation on them may switch between Write and Read as other
	// threads write them); nil when it declares none.
	VD map[ts.Obj]struct{}
	// Blocking holds the objects the system names ts.Blocking (a step on
	// them can wait); nil when it names none.
	Blocking []ts.Obj
}

// ValueDependent reports whether the system declares value-dependent
// objects (ts.ValueDependent).
func (m *Model[S]) ValueDependent() bool { return len(m.VD) > 0 }

// ValueDependentObj reports whether o is one of them.
func (m *Model[S]) ValueDependentObj(o ts.Obj) bool {
	_, ok := m.VD[o]
	return ok
}

// TouchesValueDependent reports whether step st touches a declared
// value-dependent object: its operation there may differ at another state.
func (m *Model[S]) TouchesValueDependent(st ts.Step) bool {
	if len(m.VD) == 0 {
		return false
	}
	for i := range st.NumAccesses() {
		if _, ok := m.VD[st.At(i).Obj]; ok {
			return true
		}
	}
	return false
}

// ValueDependentObjs returns the objects sys declares ts.ValueDependent
// (nil for none). A panic in ValueDependentObjs, or an object out of range,
// is an error wrapping ts.ErrBadSystem.
func ValueDependentObjs(sys any) (objs []ts.Obj, err error) {
	vd, ok := sys.(ts.ValueDependent)
	if !ok {
		return nil, nil
	}
	return declaredObjs("ValueDependentObjs", vd.ValueDependentObjs)
}

// BlockingObjs returns the objects sys names ts.Blocking (nil for none),
// with the errors of ValueDependentObjs.
func BlockingObjs(sys any) (objs []ts.Obj, err error) {
	b, ok := sys.(ts.Blocking)
	if !ok {
		return nil, nil
	}
	return declaredObjs("BlockingObjs", b.BlockingObjs)
}

// declaredObjs calls a system's method name, f, that names objects: a
// panic is an error wrapping ts.ErrBadSystem, an object out of range one
// wrapping ts.ErrBadStep.
func declaredObjs(name string, f func() []ts.Obj) (objs []ts.Obj, err error) {
	defer func() {
		if p := recover(); p != nil {
			objs, err = nil, &ts.SystemError{Err: ts.ErrBadSystem, Thread: -1, Detail: fmt.Sprintf("%s panicked: %v", name, p)}
		}
	}()
	objs = f()
	for _, o := range objs {
		if o < 0 || o == ts.InvariantObj {
			return nil, &ts.SystemError{Err: ts.ErrBadStep, Thread: -1,
				Detail: fmt.Sprintf("%s names object %d, want 0..%d", name, o, ts.InvariantObj-1)}
		}
	}
	return objs, nil
}

// RefuseValueDependent returns an error wrapping ts.ErrUnsupported, naming
// the strategy, when sys declares value-dependent objects
// (ts.ValueDependent), and nil otherwise; for strategies whose reduction
// relies on steps that other threads never change.
func RefuseValueDependent(sys any, strategy string) error {
	objs, err := ValueDependentObjs(sys)
	if err != nil {
		return err
	}
	if len(objs) > 0 {
		return fmt.Errorf("%w: %s does not support value-dependent steps (the system implements ts.ValueDependent, declaring %d objects)",
			ts.ErrUnsupported, strategy, len(objs))
	}
	return nil
}

// NewModel finds sys's capabilities, its thread count and its invariant's
// read set. A panic in Threads, InvariantReads, ValueDependentObjs or
// BlockingObjs, or a thread count out of range, is an error wrapping
// ts.ErrBadSystem.
func NewModel[S any](sys ts.TransitionSystem[S]) (*Model[S], error) {
	m := &Model[S]{Sys: sys}
	m.Checker, _ = sys.(ts.Checker[S])
	m.Hasher, _ = sys.(ts.Hasher[S])
	m.Chooser, _ = sys.(ts.Chooser[S])
	m.Invariant, _ = sys.(ts.Invariant[S])
	n, err := threads(sys)
	if err != nil {
		return nil, err
	}
	m.N = n
	vd, err := ValueDependentObjs(sys)
	if err != nil {
		return nil, err
	}
	if len(vd) > 0 {
		m.VD = make(map[ts.Obj]struct{}, len(vd))
		for _, o := range vd {
			m.VD[o] = struct{}{}
		}
	}
	if m.Blocking, err = BlockingObjs(sys); err != nil {
		return nil, err
	}
	if m.Invariant != nil {
		reads, err := invariantReads(m.Invariant)
		if err != nil {
			return nil, err
		}
		for _, o := range reads {
			if o < 0 || o == ts.InvariantObj {
				return nil, &ts.SystemError{Err: ts.ErrBadStep, Thread: -1,
					Detail: fmt.Sprintf("InvariantReads names object %d, want 0..%d", o, ts.InvariantObj-1)}
			}
		}
		m.Inv = ts.NewInvariantWrites(reads)
	}
	return m, nil
}

func invariantReads[S any](inv ts.Invariant[S]) (reads []ts.Obj, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &ts.SystemError{Err: ts.ErrBadSystem, Thread: -1, Detail: fmt.Sprintf("InvariantReads panicked: %v", p)}
		}
	}()
	return inv.InvariantReads(), nil
}

// Next returns thread t's next step at s, marked as a write of
// ts.InvariantObj when it writes what the invariant reads.
func (m *Model[S]) Next(s S, t ts.Tid) (ts.Step, ts.Status) {
	step, st := m.Sys.Next(s, t)
	if m.Inv != nil { // Mark's own test, without its call
		step = m.Inv.Mark(step)
	}
	return step, st
}

// Counts are the threads of a state by status, and the moves enabled there
// (the outcomes of the enabled threads' transitions).
type Counts struct {
	Enabled, Blocked, Idle, Moves int
}

// Look fills steps and status with every thread's next step (marked) and
// status at s, and outs with the number of outcomes of each unfinished
// thread's transition (1 for finished threads, and for every thread of a
// system that is not a ts.Chooser). *current names the thread whose Next is
// running, for the violation a panic becomes; Look leaves it -1. A step or
// status outside the defined values, or a number of outcomes below 1, is an
// error wrapping ts.ErrBadStep; its Schedule is for the caller to fill
// (WithSchedule).
func (m *Model[S]) Look(s S, steps []ts.Step, status []ts.Status, outs []int, current *ts.Tid) (c Counts, err error) {
	n := len(status)
	steps, outs = steps[:n], outs[:n]
	inv, chooser := m.Inv, m.Chooser
	for t := range ts.Tid(n) {
		*current = t
		// Stored as returned, before any other call: a step kept on the
		// stack across a call and then copied here as a whole is read back
		// with wider loads than the byte stores that wrote it, which stalls
		// the processor (store forwarding fails) on every thread's step.
		steps[t], status[t] = m.Sys.Next(s, t)
		st := status[t]
		if !st.Valid() || st != ts.Finished && !steps[t].Valid() {
			*current = -1
			return c, validate(t, steps[t], st)
		}
		if inv != nil {
			steps[t] = inv.Mark(steps[t])
		}
		k := 1
		if chooser != nil && st != ts.Finished {
			if k = chooser.Outcomes(s, t); k < 1 {
				*current = -1
				return c, &ts.SystemError{Err: ts.ErrBadStep, Thread: t,
					Detail: fmt.Sprintf("Outcomes returned %d, want at least 1", k)}
			}
		}
		outs[t] = k
		switch st {
		case ts.Enabled:
			c.Enabled++
			c.Moves += k
		case ts.Blocked:
			c.Blocked++
		case ts.Idle:
			c.Idle++
		}
	}
	*current = -1
	return c, nil
}

// LookAfter is Look at a state s that thread mover's transition reached
// from a state where Look gave prevSteps, prevStatus and prevOuts. It asks
// Next only of the mover and of the threads whose step there is dependent
// with the mover's (and, for a ts.Chooser, of the threads that were Blocked
// or Idle, whose number of outcomes the contract leaves free), and copies
// the others' answers: by the contract of ts.Dependent, a transition changes
// neither the step nor the status of a thread whose step is independent of
// its own, and a Finished thread stays Finished (tstest.Conformance checks
// both); Kept says which it keeps, so that Unchanged, asking one of them
// again later, can tell a broken contract from a Next that is not a
// function of the state.
// For the reductions, whose soundness rests on that contract anyway; the
// reference search (ts.Explore) asks every thread.
func (m *Model[S]) LookAfter(s S, mover ts.Tid, prevSteps []ts.Step, prevStatus []ts.Status, prevOuts []int,
	steps []ts.Step, status []ts.Status, outs []int, current *ts.Tid) (c Counts, err error) {
	n := len(status)
	if n < lookAfterMin {
		return m.Look(s, steps, status, outs, current)
	}
	steps, outs = steps[:n], outs[:n]
	// Copied whole, then asked again where needed: cheaper, per thread,
	// than a model's Next (a call through an interface with the state
	// copied), even a trivial one.
	copy(steps, prevSteps[:n])
	copy(status, prevStatus[:n])
	copy(outs, prevOuts[:n])
	inv, chooser := m.Inv, m.Chooser
	moved := prevSteps[mover]
	obj, reads, single := moved.Obj, moved.Op == ts.Read, len(moved.Also) == 0
	for t := range ts.Tid(n) {
		st := status[t]
		if t != mover && st != ts.Finished && (st == ts.Enabled || chooser == nil) {
			var dep bool
			if x := &steps[t]; single && len(x.Also) == 0 {
				dep = x.Obj == obj && (!reads || x.Op != ts.Read) // ts.Dependent's usual case
			} else {
				dep = ts.Dependent(*x, moved)
			}
			if !dep {
				if st == ts.Enabled {
					c.Enabled++
					c.Moves += outs[t]
				} else {
					c.count(st)
				}
				continue
			}
		}
		if t != mover && st == ts.Finished {
			continue
		}
		// Look's body, inline: as a call (the state passed again) it cost
		// 3% more instructions on lastzero-12 and on wsq-1.
		*current = t
		steps[t], status[t] = m.Sys.Next(s, t) // at once: see Look
		st = status[t]
		if !st.Valid() || st != ts.Finished && !steps[t].Valid() {
			*current = -1
			return c, validate(t, steps[t], st)
		}
		if inv != nil {
			steps[t] = inv.Mark(steps[t])
		}
		k := 1
		if chooser != nil && st != ts.Finished {
			if k = chooser.Outcomes(s, t); k < 1 {
				*current = -1
				return c, &ts.SystemError{Err: ts.ErrBadStep, Thread: t,
					Detail: fmt.Sprintf("Outcomes returned %d, want at least 1", k)}
			}
		}
		outs[t] = k
		if st == ts.Enabled {
			c.Moves += k
		}
		c.count(st)
	}
	*current = -1
	return c, nil
}

// Kept reports whether LookAfter, at the state that thread mover's
// transition reached from a state with the answers prevSteps and
// prevStatus, keeps thread t's answer instead of asking Next.
func (m *Model[S]) Kept(prevSteps []ts.Step, prevStatus []ts.Status, mover, t ts.Tid) bool {
	if prevSteps == nil || len(prevStatus) < lookAfterMin || t == mover {
		return false
	}
	switch st := prevStatus[t]; {
	case st == ts.Finished:
		return true
	case st != ts.Enabled && m.Chooser != nil:
		return false
	}
	return !ts.Dependent(prevSteps[t], prevSteps[mover])
}

// lookAfterMin is the least thread count for which LookAfter copies
// answers: with fewer, the three copies cost more than the Next calls they
// save on the bundled models (instructions under callgrind: wsq-1, 2
// threads, +7% for a Sleep search, bluetooth-2, 3 threads, +2% for ODPOR;
// lastzero-4, 5 threads, -1.4%; lastzero-12, 13 threads, -13.5%).
const lookAfterMin = 4

// count counts a thread of status st (but its moves).
func (c *Counts) count(st ts.Status) {
	switch st {
	case ts.Enabled:
		c.Enabled++
	case ts.Blocked:
		c.Blocked++
	case ts.Idle:
		c.Idle++
	}
}

// Outcomes returns the number of outcomes of thread t's transition at s: 1
// unless the system is a ts.Chooser.
func (m *Model[S]) Outcomes(s S, t ts.Tid) int {
	if m.Chooser == nil {
		return 1
	}
	return m.Chooser.Outcomes(s, t)
}

// Apply takes move mv at s: Apply for outcome 0, ApplyOutcome otherwise.
func (m *Model[S]) Apply(s S, mv ts.Move) S {
	if mv.Outcome == 0 {
		return m.Sys.Apply(s, mv.Thread)
	}
	return m.Chooser.ApplyOutcome(s, mv.Thread, mv.Outcome)
}

// Check runs Check and then Invariant at s and returns the violation it
// shows (Thread -1, no trace), or nil.
func (m *Model[S]) Check(s S) *ts.Violation {
	if m.Checker != nil {
		if err := m.Checker.Check(s); err != nil {
			return &ts.Violation{Kind: ts.CheckFailure, Err: err, Thread: -1}
		}
	}
	if m.Invariant != nil {
		if err := m.Invariant.Invariant(s); err != nil {
			return &ts.Violation{Kind: ts.InvariantFailure, Err: err, Thread: -1}
		}
	}
	return nil
}

// Deadlock reports whether a state with the counts c, where no thread is
// enabled, is a deadlock under opt: a thread is Blocked (not Idle) and
// deadlocks are not ignored.
func Deadlock(c Counts, opt *ts.Options) bool {
	return c.Enabled == 0 && c.Blocked > 0 && !opt.IgnoreDeadlocks
}

// Finds is what a strategy that reports every violation of the system's
// own making finds under opt (ts.FindsOf).
func Finds(opt *ts.Options) ts.Kinds { return ts.FindsOf(*opt) }

// ThreadsAgain asks Threads once more, at the end of a search: a count that
// changed makes everything the search did suspect.
func (m *Model[S]) ThreadsAgain() error { return ThreadsStill(m.Sys, m.N) }

// ThreadsStill asks Threads once more, at the end of a search that found n
// threads at its start, and returns an error wrapping ts.ErrNondeterministic
// if the count changed.
func ThreadsStill[S any](sys ts.TransitionSystem[S], n int) error {
	now, err := threads(sys)
	if err != nil {
		return err
	}
	if now != n {
		return &ts.SystemError{Err: ts.ErrNondeterministic, Thread: -1,
			Detail: fmt.Sprintf("Threads() returned %d, then %d", n, now)}
	}
	return nil
}

// Baseline is what a search recorded of a state when it pushed it: its
// hash, if it took one, and every thread's step (marked), status and
// number of outcomes (nil Outs: all 1).
type Baseline struct {
	Hash   uint64
	Hashed bool
	// Flat says the state holds no references (package flat): Apply, handed
	// a copy, cannot have modified it, so no hash is needed and one thread's
	// answer is asked again, for a Next that is not a function of the state.
	Flat   bool
	Steps  []ts.Step
	Status []ts.Status
	Outs   []int
	// PrevSteps and PrevStatus are the answers at the state before, from
	// which Mover's transition led here, where Model.LookAfter recorded
	// this state's: it kept some of them (Model.Kept). nil: Look asked
	// every thread.
	PrevSteps  []ts.Step
	PrevStatus []ts.Status
	Mover      ts.Tid
}

// Unchanged makes sure that state s, from which a search took the moves
// taken, is what it was when the search recorded b: the same hash, if b has
// one, and the same steps and statuses. Otherwise an Apply modified its
// argument, or Next is not deterministic, and the search's answers would be
// silently wrong: the error says which (ErrMutated naming the thread whose
// Apply did it, found by replaying path on a fresh copy and taking the moves
// in order, or ErrNondeterministic). Searches call it where they leave a
// state from which they could take two moves or more: with b's hash taken
// then, the check costs a Hash and one Next per such state. It holds
// unchanged for value-dependent steps (ts.ValueDependent): they differ
// between states, never at one state, so any difference here is still a
// modified state or a Next that is not a function of it.
func (m *Model[S]) Unchanged(s S, b Baseline, path ts.Schedule, taken []ts.Move, current *ts.Tid) error {
	if b.Flat && !b.Hashed {
		// The usual case, without the deferred reset below: one thread's
		// answer asked again. A difference is diagnosed by the full check.
		u := ts.Tid(uint32(len(path)) % uint32(m.N)) // a 32-bit division: a 64-bit one is slow
		*current = u
		step, st := m.Next(s, u)
		same := sameAnswer(step, st, b.Steps[u], b.Status[u]) && m.sameOutcomes(s, u, &b)
		*current = -1
		if same {
			return nil
		}
		if err := m.unchanged(s, &b, path, taken, current); err != nil {
			return err
		}
		return &ts.SystemError{Err: ts.ErrNondeterministic, Thread: u, Schedule: path.Clone(),
			Detail: fmt.Sprintf("two calls of Next on one state returned %v %v and %v %v", b.Steps[u], b.Status[u], step, st)}
	}
	return m.unchanged(s, &b, path, taken, current)
}

func (m *Model[S]) unchanged(s S, b *Baseline, path ts.Schedule, taken []ts.Move, current *ts.Tid) error {
	defer func() { *current = -1 }()
	if b.Hashed {
		*current = -1
		if h := m.Hasher.Hash(s); h != b.Hash {
			return m.diagnose(b, path, taken, fmt.Sprintf("the state's hash was %#x, now %#x", b.Hash, h))
		}
	}
	// The hash shows a modified state; without it, every thread's answer
	// must be asked again. With it, one thread's (a different one at each
	// depth) still catches a Next that is not a function of the state.
	from, to := ts.Tid(0), ts.Tid(m.N)
	if b.Hashed || b.Flat {
		from = ts.Tid(uint32(len(path)) % uint32(m.N)) // a 32-bit division: a 64-bit one is slow
		to = from + 1
	}
	for u := from; u < to; u++ {
		*current = u
		step, st := m.Next(s, u)
		if sameAnswer(step, st, b.Steps[u], b.Status[u]) && m.sameOutcomes(s, u, b) {
			continue
		}
		step2, st2 := m.Next(s, u)
		if !sameAnswer(step, st, step2, st2) {
			return &ts.SystemError{Err: ts.ErrNondeterministic, Thread: u, Schedule: path.Clone(),
				Detail: fmt.Sprintf("two calls of Next on one state returned %v %v and %v %v", step, st, step2, st2)}
		}
		*current = -1
		return m.diagnose(b, path, taken, fmt.Sprintf("thread %d's next step changed from %v %v to %v %v",
			u, b.Steps[u], b.Status[u], step, st))
	}
	return nil
}

func sameAnswer(a ts.Step, as ts.Status, b ts.Step, bs ts.Status) bool {
	return as == bs && (as == ts.Finished || a.Equal(b))
}

// sameOutcomes reports whether an unfinished thread u has at s the number
// of outcomes b recorded.
func (m *Model[S]) sameOutcomes(s S, u ts.Tid, b *Baseline) bool {
	if m.Chooser == nil || b.Outs == nil || b.Status[u] == ts.Finished {
		return true
	}
	return m.Chooser.Outcomes(s, u) == b.Outs[u]
}

// diagnose finds which of the moves taken from the state path reaches
// modified it.
func (m *Model[S]) diagnose(b *Baseline, path ts.Schedule, taken []ts.Move, seen string) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &ts.SystemError{Err: ts.ErrNondeterministic, Thread: -1, Schedule: path.Clone(),
				Detail: fmt.Sprintf("%s, and replaying the schedule panicked: %v", seen, p)}
		}
	}()
	s := m.Sys.Init()
	for _, mv := range path {
		s = m.Apply(s, mv)
	}
	// differs returns the first thread whose answer at s is not b's, -1
	// for none, or -2 if the hash differs.
	differs := func() ts.Tid {
		if b.Hashed && m.Hasher.Hash(s) != b.Hash {
			return -2
		}
		for u := range ts.Tid(m.N) {
			if step, st := m.Next(s, u); !sameAnswer(step, st, b.Steps[u], b.Status[u]) || !m.sameOutcomes(s, u, b) {
				return u
			}
		}
		return -1
	}
	if u := differs(); u != -1 {
		if u >= 0 && m.Kept(b.PrevSteps, b.PrevStatus, b.Mover, u) {
			// Not asked here: kept from the state before, the previous
			// move's step being independent of the thread's.
			step, st := m.Next(s, u)
			return &ts.SystemError{Err: ts.ErrBadSystem, Thread: u, Schedule: path.Clone(),
				Detail: fmt.Sprintf("%s: the thread's answer here is %v %v; the search kept %v %v from an earlier state, the steps of the moves since then being independent of it, "+
					"and a transition must leave the step and status of a thread whose step is independent of its own as they were (ts.Dependent; tstest.Conformance finds where)",
					seen, step, st, b.Steps[u], b.Status[u])}
		}
		return &ts.SystemError{Err: ts.ErrNondeterministic, Thread: -1, Schedule: path.Clone(),
			Detail: seen + ", and replaying the schedule does not reach the state it reached first"}
	}
	same := func() bool { return differs() == -1 }
	for _, mv := range taken {
		m.Apply(s, mv)
		if !same() {
			return &ts.SystemError{Err: ts.ErrMutated, Thread: mv.Thread, Schedule: path.Clone(),
				Detail: fmt.Sprintf("%s: its Apply (outcome %d) modified the state it was given", seen, mv.Outcome)}
		}
	}
	return &ts.SystemError{Err: ts.ErrMutated, Thread: -1, Schedule: path.Clone(),
		Detail: seen + " while the states after it were explored: a later Apply modified memory this state shares"}
}
