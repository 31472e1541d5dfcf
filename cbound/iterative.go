package cbound

import (
	"context"
	"fmt"
	"strings"

	"github.com/weftlab/weft/hb"
	"github.com/weftlab/weft/internal/search"
	"github.com/weftlab/weft/ts"
)

// IterativePOR is iterative context bounding over cb-por: it searches bound
// 0, then 1, ..., up to Options.Bound, and stops at the first bound whose
// search finds a violation, so the violation it reports is reached within
// the fewest preemptions of any (no execution with fewer reaches one). The
// bound must be given: Unbounded is refused.
//
// Bound k's search does not redo the lower bounds' work: it explores one
// execution per terminal HB class whose context bound is exactly k, never
// one of a lower bound's classes again, so that Result.Executions is the
// number of terminal HB classes within Options.Bound, as for POR at that
// bound. It is POR's search (Algorithm 2) over the table the lower bounds
// left, in which a state counts as stored at bound k when its level, kept
// with it, is at least k: the level says that every terminal state
// reachable from the state by steps of context bound at most the level is
// stored (see the package documentation, "IterativePOR", for why this is
// exact). Its Mark looks ahead: at bound k it also stores states that only
// a higher bound reaches, with a level that covers that bound, so that the
// higher bound finds them stored. The bounds share the memo of context
// bounds and enabled sets (a state's context bound does not depend on the
// bound searched). Result
// counts the work of all bounds, and its Stats the figures of all of them;
// Limits apply to that total (a limit that runs out stops the search at
// its next transition, in whichever bound, with an incomplete result), and
// Coverage is that of the last bound searched: per bound, the terminal HB
// classes and terminal states found within it, at this bound or a lower
// one.
//
// With KeepGoing every bound is searched. Result.Violation is the first
// violation of the lowest bound that has one; each violation is handed to
// OnViolation and counted in Result.Violations once (one that a panic in a
// replay raised, whose state is not stored, may be reached again at a
// higher bound: it is recognized by its kind, its message and the
// happens-before state its trace reaches).
func IterativePOR[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options) (ts.Result, error) {
	bad := ts.Result{Bound: opt.Bound, Finds: search.Finds(&opt.Options)}
	if err := search.Context(ctx); err != nil {
		return bad, err
	}
	if opt.Bound == Unbounded {
		return bad, fmt.Errorf("%w: IterativePOR needs a preemption bound", ts.ErrBadOptions)
	}
	if err := opt.validate(); err != nil {
		return bad, err
	}
	if opt.redo || opt.resolved().Bound > maxIncrBound {
		return iterativeRedo(ctx, sys, opt, bad)
	}
	opt.incremental = true
	return runHB(ctx, sys, opt, true)
}

// Levels (the package documentation, "IterativePOR", has the argument).
// IterativePOR keeps one table H across its bounds and, for each state x in
// it, a level L(x), by table id in hbSearch.level.
//
// Invariant: every terminal state reachable from x by steps of context
// bound at most L(x) is in H. At bound k a state counts as stored iff it is
// in H with a level of at least k; Mark (mark.go) gives a predecessor x it
// stores, or whose level it raises, the level min over moves m of x of
// max(CB(x, m) - 1, L(next(x, m)) if next(x, m) is in H), at most the top
// bound; a terminal state, or one whose Check fails, has levelAll. Each
// state the search pops at bound k is stored at k (Mark, or markStuck).

// levelAll is the level of a state from which no step leads on.
const levelAll = 255

// maxIncrBound is the largest bound IterativePOR searches incrementally
// (levels are bytes); a larger one, of no use in practice (the executions
// within c grow as a power c of the threads' length), searches each bound
// afresh.
const maxIncrBound = 250

// setLevel records lv as the level of the table's state id, if more than the
// one it has (a state gets ids in insertion order).
func (e *hbSearch[S]) setLevel(id int, lv uint8) {
	if !e.incr {
		return
	}
	for len(e.level) <= id {
		e.level = append(e.level, 0)
	}
	e.level[id] = max(e.level[id], lv)
}

// runBounds searches bounds 0..c in turn over one table.
func (e *hbSearch[S]) runBounds() {
	top := e.c
	e.top = top
	for c := int32(0); c <= top; c++ {
		e.c = c
		e.res.Bound = int(c)
		e.res.Coverage = nil
		e.res.Complete = false
		e.run()
		if e.Stop {
			return
		}
	}
}

// markStuck stores the top state, from which every move reaches a stored
// state or is over the bound (they were checked, and the table only grows
// since), with its level, and runs Mark's recursion from it. It reports
// false, storing nothing, if a move turns out to be neither (which the
// search would have taken).
func (e *hbSearch[S]) markStuck() bool {
	f := &e.frames[e.depth-1]
	m := e.memo
	m.begin(e.cur, e.curH2)
	x := m.x
	lv := uint8(e.top)
	for u, ok := f.en.NextSet(0); ok; u, ok = f.en.NextSet(u + 1) {
		v := ts.Tid(u)
		within := -1
		for c := range f.outs[v] {
			m.addStep(v, f.steps[v], c)
			in, nl := e.stored(x)
			m.remove(v)
			if in {
				lv = min(lv, nl)
				continue
			}
			if within < 0 {
				within = int(b2i(e.cbWithin(v)))
			}
			if within == 1 {
				return false
			}
			lo, _ := e.cbRange(v)
			lv = e.refusedLevel(v, f.steps[v], c, lo, lv)
		}
	}
	e.markScratch()
	id, _ := e.table.Insert(x)
	e.setLevel(id, lv)
	e.stuckMarks++
	e.markRec(id, e.level[id], false)
	return true
}

// iterativeRedo is IterativePOR as it was before the incremental search
// (Options.redo, for tests): POR at bounds 0, 1, ..., Bound in turn, each
// afresh, the searches sharing only the memo, each bound's exploring the
// executions of the lower bounds again.
func iterativeRedo[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options, bad ts.Result) (ts.Result, error) {
	opt = opt.resolved()
	total := ts.Result{Bound: 0, Finds: bad.Finds}
	seen := map[string]bool{}
	var first *ts.Violation
	// One memo for every bound, its values clamped at the highest.
	opt.shared = &sharedMemo{clamp: int32(opt.Bound) + 1}
	defer func() {
		if opt.shared.m != nil {
			opt.shared.m.close()
		}
	}()
	for c := 0; c <= opt.Bound; c++ {
		o := opt
		o.Bound = AtMost(c)
		l := opt.Limits
		if l.Transitions > 0 {
			if o.Limits.Transitions = l.Transitions - total.Transitions; o.Limits.Transitions <= 0 {
				total.Complete = false
				return total, nil
			}
		}
		if l.Executions > 0 {
			if o.Limits.Executions = l.Executions - total.Executions; o.Limits.Executions <= 0 {
				total.Complete = false
				return total, nil
			}
		}
		before := total
		if opt.Progress != nil {
			o.Progress = func(r ts.Result) {
				r.Executions += before.Executions
				r.Transitions += before.Transitions
				r.Violations += before.Violations
				opt.Progress(r)
			}
		}
		var fresh int64
		if opt.KeepGoing {
			o.OnViolation = func(v *ts.Violation) {
				k := violationKey(v)
				if seen[k] {
					return
				}
				seen[k] = true
				fresh++
				if first == nil {
					first = v
				}
				if opt.OnViolation != nil {
					opt.OnViolation(v)
				}
			}
		}
		res, err := POR(ctx, sys, o)
		res.Transitions += before.Transitions
		res.Executions += before.Executions
		if opt.KeepGoing {
			res.Violations = before.Violations + fresh
			res.Violation = first
		} else {
			res.Violations += before.Violations
		}
		total = res
		if err != nil || !res.Complete || (!opt.KeepGoing && res.Violation != nil) {
			return total, err
		}
	}
	return total, nil
}

// violationKey identifies a violation across the searches of several
// bounds: its kind, its message, and the HB state of its trace (which every
// bound's search reports with the same fewest-preemption schedule).
func violationKey(v *ts.Violation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v|", v.Kind)
	if v.Err != nil {
		b.WriteString(v.Err.Error())
	}
	s := hb.New(0)
	for _, ev := range v.Trace.Events {
		s.AddOutcome(ev.Thread, ev.Step, ev.Outcome)
	}
	fmt.Fprintf(&b, "|%d|%s", len(v.Trace.Events), s.String())
	return b.String()
}
