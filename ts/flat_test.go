package ts_test

import (
	"reflect"
	"testing"

	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
	"pgregory.net/rapid"
)

// handles is a program whose states are handles: indices into a table of
// the program's own states, which Apply only appends to. The state type, an
// int, holds no references, so the searches take their path for such types
// (no Hash for the contract check); everything else is the program's.
type handles struct {
	p     *tstest.Program
	table *[]tstest.State
}

func newHandles(p *tstest.Program) handles { return handles{p, &[]tstest.State{}} }

func (h handles) add(s tstest.State) int {
	*h.table = append(*h.table, s)
	return len(*h.table) - 1
}
func (h handles) at(i int) tstest.State                     { return (*h.table)[i] }
func (h handles) Init() int                                 { return h.add(h.p.Init()) }
func (h handles) Threads() int                              { return h.p.Threads() }
func (h handles) Next(s int, t ts.Tid) (ts.Step, ts.Status) { return h.p.Next(h.at(s), t) }
func (h handles) Apply(s int, t ts.Tid) int                 { return h.add(h.p.Apply(h.at(s), t)) }
func (h handles) Outcomes(s int, t ts.Tid) int              { return h.p.Outcomes(h.at(s), t) }
func (h handles) ApplyOutcome(s int, t ts.Tid, c int) int {
	return h.add(h.p.ApplyOutcome(h.at(s), t, c))
}
func (h handles) Check(s int) error               { return h.p.Check(h.at(s)) }
func (h handles) Invariant(s int) error           { return h.p.Invariant(h.at(s)) }
func (h handles) InvariantReads() []ts.Obj        { return h.p.InvariantReads() }
func (h handles) Hash(s int) uint64               { return h.p.Hash(h.at(s)) }
func (h handles) Describe(s int, t ts.Tid) string { return h.p.Describe(h.at(s), t) }
func (h handles) ObjName(o ts.Obj) string         { return h.p.ObjName(o) }
func (h handles) ValueDependentObjs() []ts.Obj    { return h.p.ValueDependentObjs() }

// A search finds the same on a system whose state type holds no references
// (and so is not hashed for the contract check) as on the same system with
// states that hold some: executions, transitions, states, violations and
// the first violation's trace.
func TestFlatStatesSameResults(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(tstest.GenOptions{}).Draw(t, "program")
		keepGoing := rapid.Bool().Draw(t, "keepGoing")
		opt := ts.Options{KeepGoing: keepGoing, Limits: ts.Limits{Transitions: 200000}}
		for _, stateful := range []bool{false, true} {
			ref, refErr := explore(p, stateful, opt)
			got, gotErr := explore(newHandles(p), stateful, opt)
			if (refErr == nil) != (gotErr == nil) {
				t.Fatalf("stateful %v: errors %v and %v", stateful, refErr, gotErr)
			}
			if ref.Executions != got.Executions || ref.Transitions != got.Transitions || ref.States != got.States ||
				ref.Violations != got.Violations || ref.Complete != got.Complete {
				t.Fatalf("stateful %v: %+v, want %+v", stateful, got, ref)
			}
			if (ref.Violation == nil) != (got.Violation == nil) ||
				ref.Violation != nil && (ref.Violation.Kind != got.Violation.Kind || !reflect.DeepEqual(ref.Violation.Trace, got.Violation.Trace)) {
				t.Fatalf("stateful %v: violation %v, want %v", stateful, got.Violation, ref.Violation)
			}
		}
	})
}

func explore[S any](sys ts.TransitionSystem[S], stateful bool, opt ts.Options) (ts.Result, error) {
	if stateful {
		return ts.ExploreStateful(ctx, sys, opt)
	}
	return ts.Explore(ctx, sys, opt)
}
