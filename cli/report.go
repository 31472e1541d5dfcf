package cli

import (
	"errors"
	"time"

	"github.com/weftlab/weft"
	"github.com/weftlab/weft/estimate"
	"github.com/weftlab/weft/random"
	"github.com/weftlab/weft/ts"
)

// Schema is the version of the JSON that -json prints, in every Report's
// "schema" field. Fields are only ever added within a version.
const Schema = 1

// Report is one search as -json prints it: one JSON object a line, one
// line per search (one for -model M, one per strategy for -strategy a,b,
// one per model for the summary). Every field is always present, names are
// lower case with underscores, and enumerations are strings.
type Report struct {
	Schema   int    `json:"schema"`   // Schema
	Model    string `json:"model"`    // "philosophers-3"
	Strategy string `json:"strategy"` // "icb-por", "tx:odpor"
	// Bound is the preemption bound the search kept to, or null.
	Bound *int `json:"bound"`
	// Verdict is "violation" (a violation was found), "ok" (a complete
	// search found none, within Bound if there is one), "incomplete" (the
	// search stopped at a limit or -timeout without one), "skipped" (the
	// strategy cannot run on the model: Error says why), or "error".
	Verdict     string  `json:"verdict"`
	Complete    bool    `json:"complete"`
	Executions  int64   `json:"executions"`
	Transitions int64   `json:"transitions"`
	States      int64   `json:"states"` // 0 for stateless searches
	Seconds     float64 `json:"seconds"`
	// Finds lists the kinds of violation the search looks for, and
	// NotLookedFor those of the kinds every system can show that it does
	// not ("check failure", "invariant failure", "deadlock", "panic",
	// "data race").
	Finds        []string `json:"finds"`
	NotLookedFor []string `json:"not_looked_for"`
	// Violations counts the violations found: at most 1 without
	// -keep-going.
	Violations int64            `json:"violations"`
	Violation  *ViolationReport `json:"violation"` // the first one, or null
	// Coverage has the figures per bound of the iterative strategies.
	Coverage []CoverageReport `json:"coverage"`
	// Stats has strategy-specific figures by name.
	Stats map[string]int64 `json:"stats"`
	Error string           `json:"error"` // "" unless Verdict is "error" or "skipped"
	// Sampled is what a sampler (random, pct, urw) sampled and what its
	// runs guarantee; null for the other strategies.
	Sampled *SampleReport `json:"sampled"`
	// Estimate is the size estimated before the search (-estimate), or
	// null.
	Estimate *EstimateReport `json:"estimate"`
}

// SampleReport is what a random search sampled (package random).
type SampleReport struct {
	Runs      int64 `json:"runs"`
	Schedules int64 `json:"schedules"` // distinct schedules, by a 64-bit hash
	Traces    int64 `json:"traces"`    // distinct Mazurkiewicz traces, by the hash of the run's happens-before state
	// TerminalStates counts the distinct terminal states (by Hash), or is
	// null for a system without Hash.
	TerminalStates *int64 `json:"terminal_states"`
	Seed           uint64 `json:"seed"`
	LongestRun     int64  `json:"longest_run"` // transitions
	// Guarantee says what the runs promise, in a sentence; PerRun is the
	// probability each run has of finding a bug of depth Depth within
	// Steps steps, at least (pct), or of each interleaving (urw, when
	// nothing blocks), or 0 (random); AtLeast is 1 - (1 - PerRun)^Runs.
	Guarantee string  `json:"guarantee"`
	PerRun    float64 `json:"per_run"`
	AtLeast   float64 `json:"at_least"`
	Depth     int     `json:"depth"` // pct's d, else 0
	Steps     int     `json:"steps"` // pct's k, else 0
}

// EstimateReport is the size of a search estimated before it (package
// estimate), or a sampler's runs.
type EstimateReport struct {
	Tree        string  `json:"tree"` // "dfs tree", "sleep-set tree", or "runs" for a sampler
	Probes      int     `json:"probes"`
	Executions  float64 `json:"executions"`
	Transitions float64 `json:"transitions"` // 0 when not estimated
	RelErr      float64 `json:"relative_error"`
}

func estimateReport(e estimate.Estimate, s weft.Strategy) *EstimateReport {
	if s.IsSampler() {
		return &EstimateReport{Tree: "runs", Executions: e.Executions}
	}
	return &EstimateReport{Tree: e.Tree.String(), Probes: e.Probes, Executions: e.Executions, Transitions: e.Transitions, RelErr: e.RelErr}
}

// sampleReport is what a sampler's result says it sampled, or nil.
func sampleReport(res ts.Result) *SampleReport {
	g, ok := random.GuaranteeOf(res)
	if !ok {
		return nil
	}
	st := res.Stats
	sr := &SampleReport{Runs: st[random.StatRuns], Schedules: st[random.StatSchedules], Traces: st[random.StatTraces], Seed: uint64(st[random.StatSeed]),
		LongestRun: st[random.StatLongest], Guarantee: g.String(), PerRun: g.PerRun, AtLeast: g.AtLeast(), Depth: g.Depth, Steps: g.Steps}
	if n, ok := st[random.StatTerminals]; ok {
		sr.TerminalStates = &n
	}
	return sr
}

// ViolationReport is a violation with the schedule that shows it.
type ViolationReport struct {
	Kind        string `json:"kind"`    // "deadlock", "check failure", ...
	Message     string `json:"message"` // what went wrong
	Thread      int    `json:"thread"`  // the thread whose step showed it, or -1
	Preemptions int    `json:"preemptions"`
	// Replay is the schedule in the text form ts.ParseSchedule reads
	// ("[0 1 1/2 0]"), as a wefttest replay token takes it.
	Replay   string       `json:"replay"`
	Schedule []MoveReport `json:"schedule"`
	Steps    []StepReport `json:"steps"`
}

// MoveReport is one move of a schedule: a thread and the outcome it took
// (0 for a step of one outcome).
type MoveReport struct {
	Thread  int `json:"thread"`
	Outcome int `json:"outcome"`
}

// StepReport is one transition of a violation's trace.
type StepReport struct {
	Thread   int            `json:"thread"`
	Accesses []AccessReport `json:"accesses"` // the objects it touches, the step's own first
	Outcome  int            `json:"outcome"`
	Outcomes int            `json:"outcomes"` // 1 for a step of one outcome
	Preempt  bool           `json:"preempt"`  // it preempted the previous thread
	Desc     string         `json:"desc"`     // the system's description, or ""
}

// AccessReport is one object a step touches.
type AccessReport struct {
	Object int    `json:"object"`
	Name   string `json:"name"` // the system's name for it, or ""
	Op     string `json:"op"`   // "read", "write", "acquire", "release"
	Sync   bool   `json:"sync"`
}

// CoverageReport is what an iterative search covered up to a bound.
type CoverageReport struct {
	Bound          int   `json:"bound"`
	Executions     int64 `json:"executions"`
	TerminalStates int64 `json:"terminal_states"`
	States         int64 `json:"states"`
}

// report builds the Report of a search.
func report(model string, s weft.Strategy, res ts.Result, err error, elapsed time.Duration, names ts.ObjNamer) Report {
	r := Report{Schema: Schema, Model: model, Strategy: s.Name(), Complete: res.Complete,
		Executions: res.Executions, Transitions: res.Transitions, States: res.States, Seconds: elapsed.Seconds(),
		Finds: []string{}, NotLookedFor: []string{}, Violations: res.Violations,
		Coverage: []CoverageReport{}, Stats: map[string]int64{}}
	if res.Bound != ts.NoBound {
		b := res.Bound
		r.Bound = &b
	}
	for _, k := range res.Finds.List() {
		r.Finds = append(r.Finds, k.String())
	}
	if res.Finds != 0 {
		for _, k := range []ts.ViolationKind{ts.CheckFailure, ts.InvariantFailure, ts.Deadlock, ts.Panic} {
			if !res.Finds.Has(k) {
				r.NotLookedFor = append(r.NotLookedFor, k.String())
			}
		}
	}
	for _, c := range res.Coverage {
		r.Coverage = append(r.Coverage, CoverageReport{Bound: c.Bound, Executions: c.Executions, TerminalStates: c.TerminalStates, States: c.States})
	}
	for k, v := range res.Stats {
		r.Stats[k] = v
	}
	switch {
	case err != nil:
		r.Verdict, r.Error = "error", message(err)
	case res.Violation != nil:
		r.Verdict = "violation"
	case res.Complete:
		r.Verdict = "ok"
	default:
		r.Verdict = "incomplete"
	}
	if v := res.Violation; v != nil {
		r.Violation = violationReport(v, names)
	}
	r.Sampled = sampleReport(res)
	return r
}

func violationReport(v *ts.Violation, names ts.ObjNamer) *ViolationReport {
	vr := &ViolationReport{Kind: v.Kind.String(), Thread: int(v.Thread), Preemptions: v.Trace.Preemptions,
		Schedule: []MoveReport{}, Steps: []StepReport{}}
	if v.Err != nil {
		vr.Message = v.Err.Error()
	}
	sched := v.Trace.Schedule()
	if sched == nil {
		sched = ts.Schedule{}
	}
	vr.Replay = sched.String()
	for _, m := range sched {
		vr.Schedule = append(vr.Schedule, MoveReport{Thread: int(m.Thread), Outcome: m.Outcome})
	}
	for _, e := range v.Trace.Events {
		st := StepReport{Thread: int(e.Thread), Outcome: e.Outcome, Outcomes: max(e.Outcomes, 1), Preempt: e.Preempt, Desc: e.Desc,
			Accesses: []AccessReport{}}
		for i := range e.Step.NumAccesses() {
			a := e.Step.At(i)
			ar := AccessReport{Object: int(a.Obj), Op: a.Op.String(), Sync: a.IsSync()}
			switch {
			case a.Obj == ts.InvariantObj:
				ar.Name = "invariant"
			case names != nil:
				ar.Name = names.ObjName(a.Obj)
			}
			st.Accesses = append(st.Accesses, ar)
		}
		vr.Steps = append(vr.Steps, st)
	}
	return vr
}

// skipped is the Report of a strategy that cannot run on a model.
func skipped(model string, s weft.Strategy, why string) Report {
	r := report(model, s, ts.Result{Bound: ts.NoBound}, errors.New(why), 0, nil)
	r.Verdict = "skipped"
	r.Error = why
	return r
}
