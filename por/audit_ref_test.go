package por_test

// Outside audit: a brute-force reference over Mazurkiewicz traces (not over
// interleavings), so that systems of 5-7 threads can be checked.
//
// auditReference explores every schedule of a system up to equivalence: it
// memoizes the trace of each schedule prefix (the events of each thread,
// each with, for every object it touches, which write of the object it is or
// reads, as tstest.TraceKey numbers them). Two schedules with one trace
// reach one state (ts.Dependent's contract), so the set of prefixes it
// visits is the set of all prefixes' traces, and its terminal traces are
// exactly the Mazurkiewicz traces of the complete executions that
// tstest.CheckOptimal counts by running ts.Explore.

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// auditOut is what a search reached, keyed as tstest keys it: terminal
// states by hash (those whose Check fails excluded), violations by
// tstest.ViolationKey, complete executions by tstest.TraceKey.
type auditOut struct {
	terminals  map[string]string // state key -> state (String)
	violations map[string]string // violation key -> a schedule showing it
	traces     map[string]int    // trace key of each complete execution -> times explored
	termCalls  map[string]int    // reduction: OnTerminal calls per state key (Check passing)
	nodes      int               // reference: trace prefixes visited
	truncated  bool              // reference: stopped at the node cap
	res        ts.Result         // reduction: its result
	problems   []string
}

func newAuditOut() *auditOut {
	return &auditOut{terminals: map[string]string{}, violations: map[string]string{}, traces: map[string]int{}, termCalls: map[string]int{}}
}

type refNode[S any] struct {
	s      S
	events [][]string
	writes map[ts.Obj]int
	sched  ts.Schedule
}

func (n *refNode[S]) key() string {
	var b strings.Builder
	for t, evs := range n.events {
		if len(evs) == 0 {
			continue
		}
		fmt.Fprintf(&b, "T%d[%s]", t, strings.Join(evs, " "))
	}
	return b.String()
}

func stateKey[S any](sys ts.TransitionSystem[S], s S) string {
	if h, ok := sys.(ts.Hasher[S]); ok {
		return fmt.Sprintf("%#016x", h.Hash(s))
	}
	return fmt.Sprintf("%#v", s)
}

// auditReference explores every trace prefix of sys, with KeepGoing
// semantics: a state whose Check or Invariant fails is a violation and is
// not extended; a state where no thread is enabled is terminal, and a
// deadlock when some thread is Blocked (unless ignoreDeadlocks). It stops
// after maxNodes prefixes (truncated).
func auditReference[S any](sys ts.TransitionSystem[S], ignoreDeadlocks bool, maxNodes int) *auditOut {
	return auditReferenceKey(sys, ignoreDeadlocks, maxNodes, nil)
}

// auditReferenceKey is auditReference with states keyed by key (nil: the
// hash, or %#v).
func auditReferenceKey[S any](sys ts.TransitionSystem[S], ignoreDeadlocks bool, maxNodes int, key func(any) string) *auditOut {
	out := newAuditOut()
	stateKey := func(sys ts.TransitionSystem[S], s S) string {
		if key != nil {
			return key(s)
		}
		return stateKey(sys, s)
	}
	n := sys.Threads()
	var inv *ts.InvariantWrites
	invariant, hasInv := sys.(ts.Invariant[S])
	if hasInv {
		inv = ts.NewInvariantWrites(invariant.InvariantReads())
	}
	checker, _ := sys.(ts.Checker[S])
	chooser, _ := sys.(ts.Chooser[S])
	seen := map[string]bool{}
	root := &refNode[S]{s: sys.Init(), events: make([][]string, n), writes: map[ts.Obj]int{}}
	stack := []*refNode[S]{root}
	seen[root.key()] = true
	for len(stack) > 0 {
		nd := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		out.nodes++
		if out.nodes > maxNodes {
			out.truncated = true
			return out
		}
		if checker != nil {
			if err := checker.Check(nd.s); err != nil {
				out.violations[tstest.ViolationKey(&ts.Violation{Kind: ts.CheckFailure, Err: err}, "")] = nd.sched.String()
				continue
			}
		}
		if hasInv {
			if err := invariant.Invariant(nd.s); err != nil {
				out.violations[tstest.ViolationKey(&ts.Violation{Kind: ts.InvariantFailure, Err: err}, "")] = nd.sched.String()
				continue
			}
		}
		enabled, blocked := 0, 0
		for t := range n {
			step, st := sys.Next(nd.s, ts.Tid(t))
			switch st {
			case ts.Blocked:
				blocked++
			case ts.Enabled:
				enabled++
				k := 1
				if chooser != nil {
					k = chooser.Outcomes(nd.s, ts.Tid(t))
				}
				step = inv.Mark(step)
				for c := range k {
					child := &refNode[S]{events: make([][]string, n), writes: make(map[ts.Obj]int, len(nd.writes)+1)}
					copy(child.events, nd.events)
					for o, w := range nd.writes {
						child.writes[o] = w
					}
					var b strings.Builder
					for j := range step.NumAccesses() {
						if j > 0 {
							b.WriteByte('+')
						}
						a := step.At(j)
						if a.Op == ts.Read {
							fmt.Fprintf(&b, "R o%d:%d", a.Obj, child.writes[a.Obj])
						} else {
							child.writes[a.Obj]++
							fmt.Fprintf(&b, "W o%d:%d", a.Obj, child.writes[a.Obj])
						}
					}
					if c > 0 {
						fmt.Fprintf(&b, "/%d", c)
					}
					evs := make([]string, len(nd.events[t]), len(nd.events[t])+1)
					copy(evs, nd.events[t])
					child.events[t] = append(evs, b.String())
					k := child.key()
					if seen[k] {
						continue
					}
					seen[k] = true
					if c == 0 {
						child.s = sys.Apply(nd.s, ts.Tid(t))
					} else {
						child.s = chooser.ApplyOutcome(nd.s, ts.Tid(t), c)
					}
					child.sched = append(nd.sched.Clone(), ts.Move{Thread: ts.Tid(t), Outcome: c})
					stack = append(stack, child)
				}
			}
		}
		if enabled > 0 {
			continue
		}
		sk := stateKey(sys, nd.s)
		out.terminals[sk] = fmt.Sprint(nd.s)
		tk, err := tstest.TraceKey(sys, nd.sched)
		if err != nil {
			out.problems = append(out.problems, err.Error())
		}
		out.traces[tk]++
		if blocked > 0 && !ignoreDeadlocks {
			out.violations[tstest.ViolationKey(&ts.Violation{Kind: ts.Deadlock}, sk)] = nd.sched.String()
		}
	}
	return out
}

// auditRun runs a strategy of package por with KeepGoing and collects what
// it reports.
func auditRun[S any](sys ts.TransitionSystem[S], f func(context.Context, ts.TransitionSystem[S], por.Options) (ts.Result, error), opt por.Options) (*auditOut, error) {
	return auditRunKey(sys, f, opt, nil)
}

// auditRunKey is auditRun with states keyed by key (nil: the hash, or %#v).
func auditRunKey[S any](sys ts.TransitionSystem[S], f func(context.Context, ts.TransitionSystem[S], por.Options) (ts.Result, error), opt por.Options, key func(any) string) (*auditOut, error) {
	out := newAuditOut()
	stateKey := func(sys ts.TransitionSystem[S], s S) string {
		if key != nil {
			return key(s)
		}
		return stateKey(sys, s)
	}
	checker, _ := sys.(ts.Checker[S])
	opt.KeepGoing = true
	opt.OnTerminal = func(state any, sched ts.Schedule) {
		s := state.(S)
		tk, err := tstest.TraceKey(sys, sched)
		if err != nil {
			out.problems = append(out.problems, err.Error())
		}
		if checker != nil && checker.Check(s) != nil {
			return
		}
		out.traces[tk]++
		out.terminals[stateKey(sys, s)] = fmt.Sprint(s)
		out.termCalls[stateKey(sys, s)]++
	}
	opt.OnViolation = func(v *ts.Violation) {
		k := ""
		if v.Kind == ts.Deadlock {
			k = stateKey(sys, replaySched(sys, v.Trace.Schedule()))
		}
		out.violations[tstest.ViolationKey(v, k)] = v.Trace.Schedule().String()
	}
	res, err := f(context.Background(), sys, opt)
	out.res = res
	return out, err
}

// compareOuts lists the differences between the reference's and a
// reduction's terminal states and violations; with traces, also the
// optimality figures (one execution per trace).
func compareOuts(ref, red *auditOut, traces bool) []string {
	var errs []string
	for _, p := range red.problems {
		errs = append(errs, "problem: "+p)
	}
	var miss, extra []string
	for k, s := range ref.terminals {
		if _, ok := red.terminals[k]; !ok {
			miss = append(miss, s)
		}
	}
	for k, s := range red.terminals {
		if _, ok := ref.terminals[k]; !ok {
			extra = append(extra, s)
		}
	}
	sort.Strings(miss)
	sort.Strings(extra)
	if len(miss) > 0 {
		errs = append(errs, fmt.Sprintf("misses %d of %d terminal states: %v", len(miss), len(ref.terminals), miss))
	}
	if len(extra) > 0 {
		errs = append(errs, fmt.Sprintf("reaches %d terminal states the reference does not: %v", len(extra), extra))
	}
	for k, sch := range ref.violations {
		if _, ok := red.violations[k]; !ok {
			errs = append(errs, fmt.Sprintf("misses violation %s (schedule %s)", k, sch))
		}
	}
	for k, sch := range red.violations {
		if _, ok := ref.violations[k]; !ok {
			errs = append(errs, fmt.Sprintf("reports violation %s the reference does not (schedule %s)", k, sch))
		}
	}
	if !red.res.Complete {
		errs = append(errs, fmt.Sprintf("incomplete: %v", red.res))
	}
	if !traces {
		return errs
	}
	if red.res.Executions != int64(len(ref.traces)) {
		errs = append(errs, fmt.Sprintf("%d executions, %d traces", red.res.Executions, len(ref.traces)))
	}
	missing, dup := 0, 0
	for k := range ref.traces {
		if red.traces[k] == 0 {
			missing++
		}
	}
	for k, c := range red.traces {
		if c > 1 {
			dup++
		}
		if ref.traces[k] == 0 {
			errs = append(errs, "explores a trace the reference does not have: "+k)
		}
	}
	if missing > 0 {
		errs = append(errs, fmt.Sprintf("misses %d of %d traces", missing, len(ref.traces)))
	}
	if dup > 0 {
		errs = append(errs, fmt.Sprintf("explores %d traces more than once", dup))
	}
	return errs
}

func programHasChoices(p *tstest.Program) bool {
	for _, code := range p.Code {
		for _, in := range code {
			if in.Kind == tstest.KPick || in.Kind == tstest.KStoreMaybe {
				return true
			}
		}
	}
	return false
}

// replaySched returns the state sched reaches from sys's initial state.
func replaySched[S any](sys ts.TransitionSystem[S], sched ts.Schedule) S {
	chooser, _ := sys.(ts.Chooser[S])
	s := sys.Init()
	for _, m := range sched {
		if m.Outcome == 0 {
			s = sys.Apply(s, m.Thread)
		} else {
			s = chooser.ApplyOutcome(s, m.Thread, m.Outcome)
		}
	}
	return s
}
