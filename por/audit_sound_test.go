package por_test

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// assertShape is wideShape with assertions (and sometimes an invariant).
func assertShape(t *rapid.T) tstest.GenOptions {
	o := wideShape(t)
	o.NoAsserts = false
	o.NoInvariants = rapid.Bool().Draw(t, "noInvariants")
	return o
}

// Every strategy of package por, under KeepGoing, on random programs of 5
// to 7 threads with assertions and invariants: exactly the terminal states
// and violations (kind and message; deadlocks by state) of the reference.
// For ODPOR without failures, also one execution per trace.
func TestAuditReductionWide(t *testing.T) {
	auditChecks(t, 10, false)
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(assertShape(t)).Draw(t, "program")
		ignore := rapid.IntRange(0, 3).Draw(t, "ignoreDeadlocks") == 0
		reductionCase(t, p, ignore)
	})
	logStats(t)
}

// TestAuditReductionWide on long threads.
func TestAuditReductionLong(t *testing.T) {
	auditChecks(t, 10, false)
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(longShape(t)).Draw(t, "program")
		ignore := rapid.IntRange(0, 3).Draw(t, "ignoreDeadlocks") == 0
		reductionCase(t, p, ignore)
	})
	logStats(t)
}

func reductionCase(t *rapid.T, p *tstest.Program, ignore bool) {
	{
		ref := auditReference[tstest.State](p, ignore, *auditMaxNodes)
		if ref.truncated || len(ref.traces) > *auditMaxTraces {
			auditStats["skipped"]++
			return
		}
		auditStats["checked"]++
		failures := 0
		for k := range ref.violations {
			if !strings.HasPrefix(k, "deadlock") {
				failures++
			}
		}
		if failures > 0 {
			auditStats["with-failures"]++
		}
		for _, s := range strategies[tstest.State]() {
			if s.name == "sdpor" && len(ref.traces) > 5000 {
				continue // slow
			}
			red, err := auditRun[tstest.State](p, s.f, por.Options{Options: ts.Options{IgnoreDeadlocks: ignore}})
			if err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			errs := compareOuts(ref, red, false)
			if s.name == "odpor" && failures == 0 {
				errs = compareOuts(ref, red, true)
				if !programHasChoices(p) && unexplainedSleepBlocked(red.res) != 0 {
					errs = append(errs, fmt.Sprintf("sleep-blocked executions: %d", red.res.Stats["sleep-blocked"]))
				}
			}
			if s.name == "odpor" && failures > 0 {
				for k, c := range red.traces {
					if c > 1 {
						errs = append(errs, "explores a trace twice under KeepGoing with failures: "+k)
					}
				}
			}
			if s.name == "sdpor" {
				for k, c := range red.termCalls {
					if c > 1 {
						errs = append(errs, fmt.Sprintf("sdpor calls OnTerminal %d times for state %s", c, red.terminals[k]))
					}
				}
			}
			if len(errs) > 0 {
				t.Fatalf("%s (ignoreDeadlocks %v) on\n%v\n%s", s.name, ignore, p, strings.Join(errs, "\n"))
			}
		}
	}
}

// unexplainedSleepBlocked is res's sleep-blocked executions where no
// sleeping thread whose step may wait let a wakeup sequence through
// (Stats["waiting-sleepers"], which costs such executions; see ODPOR),
// else zero.
func unexplainedSleepBlocked(res ts.Result) int64 {
	if res.Stats["waiting-sleepers"] != 0 {
		return 0
	}
	return res.Stats["sleep-blocked"]
}

// parRecord is what a search did as its caller sees it.
type parRecord struct {
	res   ts.Result
	viol  string // the first violation: kind, thread, message, schedule, preemptions
	err   string
	calls []string
}

func parRun[S any](p ts.TransitionSystem[S], f func(context.Context, ts.TransitionSystem[S], por.Options) (ts.Result, error), opt por.Options) parRecord {
	var r parRecord
	opt.OnTerminal = func(s any, sched ts.Schedule) {
		if st, ok := s.(interface{ Schedule() ts.Schedule }); ok {
			r.calls = append(r.calls, fmt.Sprintf("terminal %v state of %v", sched, st.Schedule()))
			return
		}
		r.calls = append(r.calls, fmt.Sprintf("terminal %v %v", sched, s))
	}
	_, forker := any(p).(interface {
		Fork() (ts.TransitionSystem[S], error)
	})
	opt.OnViolation = func(v *ts.Violation) {
		if forker {
			// Its message may name objects through a worker's fork, which
			// the worker is running (TestAuditParallelViolationRace).
			r.calls = append(r.calls, fmt.Sprintf("violation %v %d %v", v.Kind, v.Thread, v.Trace.Schedule()))
			return
		}
		r.calls = append(r.calls, fmt.Sprintf("violation %v %d %v %v", v.Kind, v.Thread, v.Err, v.Trace.Schedule()))
	}
	res, err := f(context.Background(), p, opt)
	if err != nil {
		r.err = err.Error()
	}
	res.Stats = maps.Clone(res.Stats)
	if opt.Workers > 1 {
		auditStats["parallel-runs"]++
		if res.Stats["parallel-units"] > 0 {
			auditStats["parallel-split-runs"]++
		}
		auditStats["parallel-units"] += int(res.Stats["parallel-units"])
		auditStats["parallel-misses"] += int(res.Stats["parallel-misses"])
		auditStats["parallel-handed-back"] += int(res.Stats["parallel-handed-back"])
		auditStats["parallel-split-further"] += int(res.Stats["parallel-split-further"])
		if !res.Complete {
			auditStats["parallel-incomplete"]++
		}
	}
	for k := range res.Stats {
		if strings.HasPrefix(k, "parallel-") || strings.HasPrefix(k, "sim.") || k == "feasibility-replays" || k == "waiting-sleepers" {
			delete(res.Stats, k)
		}
	}
	if v := res.Violation; v != nil {
		r.viol = fmt.Sprintf("%v %d %v %v %d", v.Kind, v.Thread, v.Err, v.Trace.Schedule(), v.Trace.Preemptions)
		if _, sim := any(p).(interface {
			Fork() (ts.TransitionSystem[S], error)
		}); sim {
			res.Violation = nil // its states are the fork's: compared by viol
		}
	}
	r.res = res
	return r
}

func (r parRecord) diff(o parRecord) string {
	switch {
	case r.err != o.err:
		return fmt.Sprintf("error %q, want %q", o.err, r.err)
	case r.viol != o.viol:
		return fmt.Sprintf("violation %s, want %s", o.viol, r.viol)
	case !reflect.DeepEqual(r.res, o.res):
		a, b := o.res, r.res
		if !reflect.DeepEqual(a.Stats, b.Stats) {
			return fmt.Sprintf("stats\n%v\nwant\n%v", a.Stats, b.Stats)
		}
		a.Stats, b.Stats = nil, nil
		return fmt.Sprintf("result\n%#v\nwant\n%#v", a, b)
	case !reflect.DeepEqual(r.calls, o.calls):
		for i := range min(len(r.calls), len(o.calls)) {
			if r.calls[i] != o.calls[i] {
				return fmt.Sprintf("callback %d: %s, want %s", i, o.calls[i], r.calls[i])
			}
		}
		return fmt.Sprintf("%d callbacks, want %d", len(o.calls), len(r.calls))
	}
	return ""
}

// Workers 2 and 3 give the serial search's result, error and callbacks, on
// programs of 5 to 7 threads, with KeepGoing, assertions, limits on
// transitions and executions, and the split drawn.
func TestAuditParallelWide(t *testing.T) {
	auditChecks(t, 50, true)
	rapid.Check(t, func(t *rapid.T) {
		p := tstest.Programs(assertShape(t)).Draw(t, "program")
		name := rapid.SampledFrom([]string{"sleep", "dpor", "odpor", "odpor"}).Draw(t, "strategy")
		parallelCase(t, p, name)
	})
	logStats(t)
}

// Workers 2 and 3 on semaphore programs (blocking writes) of 3 to 6
// threads and on long threads.
func TestAuditParallelSemLong(t *testing.T) {
	auditChecks(t, 50, true)
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.SampledFrom([]string{"sleep", "dpor", "odpor", "odpor"}).Draw(t, "strategy")
		if rapid.Bool().Draw(t, "sem") {
			parallelCase(t, semPrograms(3, 6, 3, false).Draw(t, "program").system(), name)
			return
		}
		parallelCase(t, tstest.Programs(longShape(t)).Draw(t, "program"), name)
	})
	logStats(t)
}

func parallelCase[S any](t *rapid.T, p ts.TransitionSystem[S], name string) {
	{
		var opt por.Options
		opt.KeepGoing = rapid.Bool().Draw(t, "keepGoing")
		opt.IgnoreDeadlocks = rapid.IntRange(0, 3).Draw(t, "ignoreDeadlocks") == 0
		switch rapid.IntRange(0, 3).Draw(t, "limits") {
		case 0:
			opt.Limits.Transitions = int64(rapid.IntRange(1, 3000).Draw(t, "transitions"))
		case 1:
			opt.Limits.Executions = int64(rapid.IntRange(1, 300).Draw(t, "executions"))
		case 2:
			opt.Limits.Transitions = int64(rapid.IntRange(1, 3000).Draw(t, "transitions"))
			opt.Limits.Executions = int64(rapid.IntRange(1, 300).Draw(t, "executions"))
		default:
			// none; keep the search small
			opt.Limits.Transitions = 60000
		}
		serial := opt
		opt.Workers = rapid.IntRange(2, 3).Draw(t, "workers")
		opt.SplitDepth = rapid.IntRange(0, 8).Draw(t, "split")
		opt.SplitAfter = int64(rapid.SampledFrom([]int{-1, 0, 1, 50, 500}).Draw(t, "splitAfter"))
		if rapid.Bool().Draw(t, "unitTransitions") {
			opt.UnitTransitions = int64(rapid.IntRange(1, 200).Draw(t, "unitTrans"))
		}
		f := map[string]func(context.Context, ts.TransitionSystem[S], por.Options) (ts.Result, error){
			"sleep": por.Sleep[S], "dpor": por.DPOR[S], "odpor": por.ODPOR[S]}[name]
		want := parRun(p, f, serial)
		got := parRun(p, f, opt)
		if d := want.diff(got); d != "" {
			t.Fatalf("%s, %d workers, split %d, after %d, unit %d, serial options %+v on\n%v\n%s", name, opt.Workers, opt.SplitDepth,
				opt.SplitAfter, opt.UnitTransitions, serial.Options, p, d)
		}
	}
}

var _ = testing.Short

// Without failing checks, DPOR never explores more executions than Sleep
// (package documentation, "Where the papers were wrong"), nor Sleep more
// than the reference's complete executions; on 5 to 7 threads and on
// semaphore programs.
func TestAuditDPORNotMoreThanSleep(t *testing.T) {
	auditChecks(t, 50, false)
	rapid.Check(t, func(t *rapid.T) {
		var sleep, dpor ts.Result
		var err error
		if rapid.Bool().Draw(t, "sem") {
			p := semPrograms(3, 6, 3, false).Draw(t, "program").system()
			sleep, err = por.Sleep(context.Background(), p, por.Options{Options: ts.Options{KeepGoing: true, Limits: ts.Limits{Transitions: 200000}}})
			if err == nil {
				dpor, err = por.DPOR(context.Background(), p, por.Options{Options: ts.Options{KeepGoing: true, Limits: ts.Limits{Transitions: 200000}}})
			}
		} else {
			p := tstest.Programs(wideShape(t)).Draw(t, "program")
			sleep, err = por.Sleep(context.Background(), p, por.Options{Options: ts.Options{KeepGoing: true, Limits: ts.Limits{Transitions: 200000}}})
			if err == nil {
				dpor, err = por.DPOR(context.Background(), p, por.Options{Options: ts.Options{KeepGoing: true, Limits: ts.Limits{Transitions: 200000}}})
			}
			if sleep.Violation != nil && sleep.Violation.Kind != ts.Deadlock {
				return // a failing check (a release of a lock not held)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		if !sleep.Complete || !dpor.Complete {
			return
		}
		auditStats["checked"]++
		if dpor.Executions > sleep.Executions {
			t.Fatalf("dpor %d executions, sleep %d", dpor.Executions, sleep.Executions)
		}
	})
	logStats(t)
}
