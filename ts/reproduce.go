package ts

import (
	"unsafe"

	"github.com/weftlab/weft/internal/flat"
)

// A Reproducer confirms the violations a search only counts, one having been
// reported already: [Reproduces] for many schedules of one system. Where the
// state type holds no references, it keeps the states its last replay
// reached, and a replay goes on from the longest prefix its schedule shares
// with the last one's: those states were replayed from the initial state
// too, and no Apply, handed a copy, can have modified them. Successive
// violations of a depth-first search share most of their schedule, so a
// search that keeps going past many of them replays a few transitions for
// each instead of its whole schedule. The states kept take at most 16 MiB
// (a longer schedule is replayed whole). A deadlock is confirmed without
// naming the steps its threads wait for, so that counting one allocates
// nothing.
//
// A Reproducer is not safe for concurrent use. The zero value is not usable:
// call [NewReproducer].
type Reproducer[S any] struct {
	r    *runner[S]
	opt  Options
	flat bool
	n    int // threads, once asked; 0 before
	// maxKept is the longest schedule whose states are kept.
	maxKept int

	// states[i] is the state the last replay reached after sched[:i]
	// (flat state types only).
	states []S
	sched  Schedule
}

// NewReproducer returns a Reproducer of sys's violations under opt (which
// decides, with IgnoreDeadlocks, whether a deadlock is one).
func NewReproducer[S any](sys TransitionSystem[S], opt Options) *Reproducer[S] {
	return newReproducer(newRunner(sys), opt)
}

func newReproducer[S any](r *runner[S], opt Options) *Reproducer[S] {
	const budget = 16 << 20
	size := max(int(unsafe.Sizeof(*new(S))), 1)
	return &Reproducer[S]{r: r, opt: opt, flat: flat.Is[S](), maxKept: budget / size}
}

// Reproduces reports whether sched, replayed from the initial state, ends in
// v as [ConfirmWith] would confirm it: the same kind and, for a failed check
// or invariant, the same message. False means only that ConfirmWith must say
// (with the error a replay that disagrees is, or a panic's violation, which
// is always built with its trace).
func (p *Reproducer[S]) Reproduces(v *Violation, sched Schedule) bool {
	if v.Kind == Panic {
		return false
	}
	if p.flat && len(sched) < p.maxKept && p.fromKept(v, sched) {
		return true
	}
	_, err := confirm(p.r, v, sched, p.opt, false)
	return err == nil
}

// fromKept is Reproduces from the states the last replay kept; false means
// only that a replay from the initial state must say (a panic, a schedule
// that does not replay, another violation).
func (p *Reproducer[S]) fromKept(v *Violation, sched Schedule) (ok bool) {
	r := p.r
	defer func() {
		if x := recover(); x != nil {
			p.states, p.sched = p.states[:0], p.sched[:0]
			ok = false
		}
		r.current = -1
	}()
	r.current = -1
	if p.n == 0 {
		n, err := r.threadCount()
		if err != nil {
			return false
		}
		p.n = n
	}
	if len(p.states) == 0 {
		p.states, p.sched = append(p.states[:0], r.sys.Init()), p.sched[:0]
	}
	k := 0
	for k < len(sched) && k < len(p.sched) && sched[k] == p.sched[k] {
		k++
	}
	p.states, p.sched = p.states[:k+1], p.sched[:k]
	for _, m := range sched[k:] {
		s := p.states[len(p.states)-1]
		if r.check(s) != nil || m.Thread < 0 || int(m.Thread) >= p.n {
			return false
		}
		r.current = m.Thread
		if step, st := r.sys.Next(s, m.Thread); st != Enabled || !step.Valid() || m.Outcome < 0 || m.Outcome >= r.outcomes(s, m.Thread) {
			return false
		}
		p.states = append(p.states, r.apply(s, m))
		p.sched = append(p.sched, m)
		r.current = -1
	}
	end := p.states[len(p.states)-1]
	rv := r.check(end)
	switch {
	case rv != nil:
		return rv.Kind == v.Kind && (v.Err == nil || rv.Err == nil || errText(v.Err) == errText(rv.Err))
	case v.Kind == Deadlock:
		return !p.opt.IgnoreDeadlocks && r.deadlocked(end, p.n)
	}
	return false
}
