package tstest

import (
	"context"
	"fmt"
	"slices"

	"github.com/weftlab/weft/ts"
)

// ReductionOptions configure [CheckReduction].
//
// Bound is compared with preemption counts, so its zero value means "bound
// 0"; set it to ts.NoBound (or any negative number) for a reduction without
// a preemption bound.
type ReductionOptions struct {
	// Bound is the reduction's preemption bound: it must reach exactly the
	// terminal states and violations that some schedule with at most Bound
	// preemptions reaches. Negative (ts.NoBound): it must reach everything
	// the reference reaches.
	Bound int
	// Key identifies a state (boxed, as in ts.Options.OnTerminal). The
	// default is the hash when the system implements ts.Hasher, and fmt's
	// %#v otherwise; give Key for states with pointers.
	Key func(state any) string
	// Stateful makes ts.ExploreStateful the reference instead of ts.Explore,
	// for systems with cycles; it needs ts.Hasher.
	Stateful bool
	// Limits are passed to both searches; keep them zero but for Depth, or
	// the searches are incomplete.
	Limits ts.Limits
	// Opaque says the reduction's schedules are not schedules of the system
	// (it explores a transformed system: coarser transactions, sync-only
	// steps). They are then not replayed, terminal states and violations are
	// matched by key only, and the bound is not checked on what the reduction
	// reports (deadlocks are matched by their message, not their state).
	Opaque bool
	// MaxReports caps the discrepancies reported; 0 means DefaultMaxReports.
	MaxReports int
	// IgnoreDeadlocks is passed to both searches (ts.Options.IgnoreDeadlocks).
	IgnoreDeadlocks bool
	// SomeViolation weakens the check on violations to what a reduction
	// that stops each explored schedule at its first failure can promise
	// (mat does): it reports some violation if and only if the reference
	// finds one, and every violation it reports is one the reference finds.
	// Which of several failures it meets first is then its own choice.
	SomeViolation bool
}

// ReductionReport is what CheckReduction compared.
type ReductionReport struct {
	Reference Outcomes // everything ts.Explore (or ExploreStateful) reaches
	Reduction Outcomes // what the reduction reached
	// Expected counts the reference's terminal states and violations within
	// the bound: what the reduction must reach.
	ExpectedTerminals, ExpectedViolations int
	// Errors lists the discrepancies, at most MaxReports of them.
	Errors []error
}

// CheckReduction checks the property every reduction in weft must have: run
// with KeepGoing, explore reaches exactly the terminal states the reference
// search reaches (within opt.Bound preemptions, when bounded), finds every
// violation the reference finds (within the bound) and none that it does
// not. Violations are matched by [ViolationKey]: check failures and panics by
// kind and message, deadlocks by state. Data races are not compared (the
// reference does not look for them). It reports each discrepancy with
// t.Errorf, naming a schedule that shows it, and returns the report so the
// caller can assert more, such as execution counts.
//
// The system must be deterministic and terminate (or be finite, with
// opt.Stateful); run [Conformance] on it first.
func CheckReduction[S any](t TB, sys ts.TransitionSystem[S], explore Explorer[S], opt ReductionOptions) ReductionReport {
	t.Helper()
	rep, err := CompareReduction(context.Background(), sys, explore, opt)
	if err != nil {
		t.Errorf("tstest: %v", err)
		return rep
	}
	for _, err := range rep.Errors {
		t.Errorf("%v", err)
	}
	return rep
}

// CompareReduction is CheckReduction without a test: it returns the report,
// whose Errors are the discrepancies, and an error if a search failed.
func CompareReduction[S any](ctx context.Context, sys ts.TransitionSystem[S], explore Explorer[S], opt ReductionOptions) (ReductionReport, error) {
	var rep ReductionReport
	ref, err := Reference(ctx, sys, opt)
	rep.Reference = ref
	if err != nil {
		return rep, fmt.Errorf("reference search: %w", err)
	}
	red, err := Collect(ctx, sys, explore, opt)
	rep.Reduction = red
	if err != nil {
		return rep, fmt.Errorf("reduction: %w", err)
	}
	rep.Errors = Compare(ref, red, opt)
	for _, oc := range ref.Terminals {
		if within(oc, opt.Bound) {
			rep.ExpectedTerminals++
		}
	}
	for _, oc := range ref.Violations {
		if within(oc, opt.Bound) && oc.Violation.Kind != ts.DataRace {
			rep.ExpectedViolations++
		}
	}
	return rep, nil
}

func within(oc Outcome, bound int) bool { return bound < 0 || oc.Preemptions <= bound }

// Compare returns the discrepancies between a reference's outcomes and a
// reduction's under opt (Bound, Opaque, MaxReports), as CheckReduction
// reports them.
func Compare(ref, red Outcomes, opt ReductionOptions) []error {
	limit := opt.MaxReports
	if limit <= 0 {
		limit = DefaultMaxReports
	}
	var errs []error
	more := 0
	add := func(format string, args ...any) {
		if len(errs) < limit {
			errs = append(errs, fmt.Errorf(format, args...))
		} else {
			more++
		}
	}
	bound := "no bound"
	if opt.Bound >= 0 {
		bound = fmt.Sprintf("bound %d", opt.Bound)
	}
	for _, p := range ref.Problems {
		add("reference: %v", p)
	}
	for _, p := range red.Problems {
		add("reduction: %v", p)
	}
	if !red.Result.Complete {
		add("reduction: %v: %v", errIncomplete, red.Result)
	}
	for _, k := range sortedKeys(ref.Terminals) {
		oc := ref.Terminals[k]
		if _, ok := red.Terminals[k]; !ok && within(oc, opt.Bound) {
			add("reduction (%s) misses terminal state %v, reached by schedule %v with %d preemptions", bound, oc.State, oc.Schedule, oc.Preemptions)
		}
	}
	for _, k := range sortedKeys(red.Terminals) {
		oc := red.Terminals[k]
		switch r, ok := ref.Terminals[k]; {
		case !ok:
			add("reduction reaches terminal state %v, which ts.Explore does not, by schedule %v", oc.State, oc.Schedule)
		case !opt.Opaque && !within(r, opt.Bound):
			add("reduction (%s) reaches terminal state %v, which needs %d preemptions, by schedule %v with %d", bound, oc.State, r.Preemptions, oc.Schedule, oc.Preemptions)
		}
	}
	// With Opaque, deadlocks are matched by message: rekey the reference's.
	refV := ref.Violations
	if opt.Opaque {
		refV = make(map[string]Outcome, len(ref.Violations))
		for k, oc := range ref.Violations {
			if oc.Violation.Kind == ts.Deadlock {
				k = ViolationKey(oc.Violation, "?"+oc.Violation.Err.Error())
			}
			if old, ok := refV[k]; !ok || oc.Preemptions < old.Preemptions {
				refV[k] = oc
			}
		}
	}
	var missed []Outcome
	for _, k := range sortedKeys(refV) {
		oc := refV[k]
		if oc.Violation.Kind == ts.DataRace || !within(oc, opt.Bound) {
			continue
		}
		if _, ok := red.Violations[k]; !ok {
			missed = append(missed, oc)
		}
	}
	reported := 0
	for _, oc := range red.Violations {
		if oc.Violation.Kind != ts.DataRace {
			reported++
		}
	}
	switch {
	case !opt.SomeViolation:
		for _, oc := range missed {
			add("reduction (%s) misses violation %v", bound, describeViolation(oc))
		}
	case reported == 0 && len(missed) > 0:
		add("reduction (%s) reports no violation; the reference finds %d, such as %v", bound, len(missed), describeViolation(missed[0]))
	}
	for _, k := range sortedKeys(red.Violations) {
		oc := red.Violations[k]
		if oc.Violation.Kind == ts.DataRace {
			continue
		}
		switch r, ok := refV[k]; {
		case !ok:
			add("reduction reports violation %v, which ts.Explore does not find", describeViolation(oc))
		case !opt.Opaque && !within(r, opt.Bound):
			add("reduction (%s) reports violation %v, which needs %d preemptions", bound, describeViolation(oc), r.Preemptions)
		}
	}
	if more > 0 {
		errs = append(errs, fmt.Errorf("and %d more discrepancies", more))
	}
	return errs
}

func describeViolation(oc Outcome) string {
	v := oc.Violation
	s := fmt.Sprintf("%v: %v (schedule %v, %d preemptions)", v.Kind, v.Err, oc.Schedule, oc.Preemptions)
	if v.Kind == ts.Deadlock && oc.State != nil {
		s += fmt.Sprintf(" at %v", oc.State)
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
