// Package wefttest runs a weft search inside a Go test.
//
// [Check] explores a system with a strategy and fails the test with the
// counterexample when the search finds a violation:
//
//	func TestCounter(t *testing.T) {
//		wefttest.Check(t, counter{}, wefttest.Options{})
//	}
//
// The failure shows the violation, its trace (preemptions marked), and a
// replay token with the command that reruns exactly that schedule:
//
//	WEFT_REPLAY='TestCounter=[0 1 1 0]' go test -run '^TestCounter$'
//
// # The default strategy
//
// With no strategy given, Check runs [weft.ODPOR]: it takes the whole model,
// explores one execution per Mazurkiewicz trace, and so proves a clean
// acyclic system correct for every schedule, usually at a fraction of the
// cost of every interleaving. Its first violation may have more
// preemptions than needed; Check then searches again with iterative context
// bounding ([weft.ICB]) below that count, within the same budget, and
// reports the violation with the fewest preemptions it finds: the
// counterexample a person reads most easily. (A strategy whose first
// violation already has the fewest, such as weft.ICB or weft.ICBPOR, is
// not searched again; Options.NoMinimize turns the second search off.)
//
// A cyclic system (one whose threads can loop back to a state they were
// in) makes ODPOR stop with ts.ErrDepth; give it weft.ICB() (with Hash:
// its cache makes it terminate) or weft.DFSStateful().
//
// # Budget
//
// A test must end: when Options.Options.Limits.Transitions is zero, Check
// caps the search at [DefaultBudget] transitions, or [ShortBudget] under
// go test -short. A search that stops at its budget without a violation
// passes, with a log line saying it was incomplete; Options.RequireComplete
// makes it fail instead.
//
// # Replay
//
// When the environment variable WEFT_REPLAY (or Options.Replay) holds a
// token "TestName=schedule" for the running test (t.Name(), subtests
// included), Check does not search: it replays exactly that schedule with
// ts.ReplayWith and fails with the violation it ends in, or passes, saying
// so in the log, when the schedule runs to the end of its execution (no
// thread left enabled) and shows none (the bug is fixed). A schedule that
// stops while some thread is still enabled, with no violation, fails the
// test: it does not show the execution the token was made from (a token cut
// short, or a system changed since), so it proves nothing. A token that does
// not parse fails the test too. A token for another test is ignored, so
// that one variable can be set for a whole package. The schedule's text
// form is ts.Schedule's ("[0 1 1/2 0]": thread, and /outcome for a step of
// several outcomes), parsed by ts.ParseSchedule, which refuses a bracket
// without its pair and an empty schedule text. Check reads the variable
// itself: no flag is registered and no state is kept between calls.
package wefttest

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/weftlab/weft"
	"github.com/weftlab/weft/ts"
)

// EnvReplay is the environment variable Check reads a replay token from.
const EnvReplay = "WEFT_REPLAY"

// The transition budgets of a search whose Limits.Transitions is zero.
const (
	DefaultBudget int64 = 5_000_000
	ShortBudget   int64 = 100_000
)

// Options configure Check. The zero value runs weft.ODPOR within the
// default budget, minimizes the preemptions of a violation, and replays
// the token in WEFT_REPLAY.
type Options struct {
	// Strategy is the search; the zero Strategy means weft.ODPOR().
	Strategy weft.Strategy
	// Options are the search's options. A zero Limits.Transitions means
	// DefaultBudget (ShortBudget under -short).
	Options ts.Options
	// NoMinimize reports the first violation as found, without the second
	// search for one with fewer preemptions.
	NoMinimize bool
	// RequireComplete fails the test when the search stops at a limit
	// without a violation.
	RequireComplete bool
	// Replay is a replay token ("TestName=[0 1 1 0]") to use instead of the
	// environment variable WEFT_REPLAY.
	Replay string
}

// Check runs sys under opt.Strategy and fails t, with the counterexample
// and a replay token, when the search finds a violation; it fails t too on
// an error (bad options, a system that breaks the contract or that the
// strategy does not take). A replay token for t in WEFT_REPLAY (or
// opt.Replay) replays that schedule instead of searching (see the package
// documentation). It returns the result (after a replay, the violation
// alone), so that a test can assert more.
func Check[S any](t testing.TB, sys ts.TransitionSystem[S], opt Options) ts.Result {
	t.Helper()
	token := opt.Replay
	if token == "" {
		token = os.Getenv(EnvReplay)
	}
	if token != "" {
		name, sched, err := ParseToken(token)
		switch {
		case err != nil:
			t.Fatalf("weft: %s: %v", EnvReplay, err)
			return ts.Result{}
		case name == t.Name():
			return replay(t, sys, sched, opt)
		}
		t.Logf("weft: the replay token is for %s, not %s: searching", name, t.Name())
	}
	strat := opt.Strategy
	if strat.IsZero() {
		strat = weft.ODPOR()
	}
	so := opt.Options
	if so.Limits.Transitions == 0 {
		so.Limits.Transitions = DefaultBudget
		if testing.Short() {
			so.Limits.Transitions = ShortBudget
		}
	}
	res, err := weft.Run(t.Context(), sys, strat, so)
	if err != nil {
		hint := ""
		if errors.Is(err, ts.ErrDepth) {
			hint = "\n(a system that loops back to a state it was in needs a strategy that stores states: weft.ICB() with Hash, or weft.DFSStateful())"
		}
		t.Fatalf("weft: %v: %v%s", strat, clean(err), hint)
		return res
	}
	v := res.Violation
	if v == nil {
		if !res.Complete && opt.RequireComplete {
			t.Fatalf("weft: %v: %v: the search stopped at a limit (Limits.Transitions %d)", strat, res, so.Limits.Transitions)
			return res
		}
		t.Logf("weft: %v: %v", strat, res)
		return res
	}
	note := fmt.Sprintf("found by %v after %d execution%s", strat, res.Executions, plural(res.Executions))
	if !opt.NoMinimize && !strat.FewestPreemptions() && v.Trace.Preemptions > 0 {
		if fewer := minimize(t, sys, so, v.Trace.Preemptions); fewer != nil {
			note += fmt.Sprintf("; %s as found, %d after a search by iterative context bounding", preemptions(v.Trace.Preemptions), fewer.Trace.Preemptions)
			v = fewer
			res.Violation = fewer
		}
	}
	fail(t, sys, v, note)
	return res
}

// minimize searches for a violation with fewer than k preemptions by
// iterative context bounding, within the same limits, and returns it, or
// nil when there is none (or the search could not finish).
func minimize[S any](t testing.TB, sys ts.TransitionSystem[S], opt ts.Options, k int) *ts.Violation {
	s, err := weft.ICB().WithBound(k - 1)
	if err != nil {
		return nil
	}
	// The caller's callbacks saw the first search; this one is Check's own.
	opt.OnTerminal, opt.OnViolation, opt.Progress, opt.KeepGoing = nil, nil, nil, false
	res, err := weft.Run(t.Context(), sys, s, opt)
	if err != nil || res.Violation == nil || res.Violation.Trace.Preemptions >= k {
		return nil
	}
	return res.Violation
}

// replay runs the token's schedule and fails t with the violation it ends
// in, or because it ends before its execution does.
func replay[S any](t testing.TB, sys ts.TransitionSystem[S], sched ts.Schedule, opt Options) ts.Result {
	t.Helper()
	run, err := ts.ReplayWith(sys, sched, opt.Options)
	if err != nil {
		t.Fatalf("weft: replaying %v: %v", sched, clean(err))
		return ts.Result{}
	}
	res := ts.Result{Bound: ts.NoBound, Executions: 1, Transitions: int64(len(sched)), Violation: run.Violation}
	if run.Violation == nil && len(run.Enabled) > 0 {
		// Passing here would say the bug is gone on the strength of an
		// execution that was never finished.
		t.Fatalf("weft: replayed %v from %s: the schedule stops before the execution ends (threads %v still enabled) without a violation; the token may be cut short",
			sched, EnvReplay, run.Enabled)
		return res
	}
	if run.Violation == nil {
		t.Logf("weft: replayed %v from %s: no violation", sched, EnvReplay)
		return res
	}
	res.Violations = 1
	fail(t, sys, run.Violation, "replayed from "+EnvReplay)
	return res
}

// fail fails t with v: the verdict, the trace and the replay token.
func fail[S any](t testing.TB, sys ts.TransitionSystem[S], v *ts.Violation, note string) {
	t.Helper()
	names, _ := sys.(ts.ObjNamer)
	msg := "violation"
	if v.Err != nil {
		msg = v.Err.Error()
	}
	sched := v.Trace.Schedule()
	if sched == nil {
		sched = ts.Schedule{}
	}
	t.Fatalf("weft: %v: %s, %s (%s)\n%sreplay: %s=%s go test -run %s",
		v.Kind, msg, preemptions(v.Trace.Preemptions), note, v.Trace.Format(names), EnvReplay,
		shellQuote(Token(t.Name(), sched)), shellQuote(RunPattern(t.Name())))
}

// Token returns the replay token of a test and a schedule: "name=schedule".
func Token(test string, sched ts.Schedule) string {
	return test + "=" + sched.String()
}

// ParseToken splits a replay token into the test name and the schedule.
func ParseToken(token string) (test string, sched ts.Schedule, err error) {
	// The schedule's text has no '=', the test name may (a subtest "n=3").
	i := strings.LastIndexByte(token, '=')
	if i <= 0 {
		return "", nil, fmt.Errorf("replay token %q: want TestName=[schedule]", token)
	}
	sched, err = ts.ParseSchedule(token[i+1:])
	if err != nil {
		return "", nil, fmt.Errorf("replay token %q: %w", token, err)
	}
	return token[:i], sched, nil
}

// RunPattern returns the go test -run pattern that selects exactly the test
// named name (a subtest's levels matched one by one).
func RunPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// clean drops the "weft: " prefixes an error's wrapped parts repeat: the
// message starts with one already.
func clean(err error) string {
	return strings.ReplaceAll(err.Error(), "weft: ", "")
}

// preemptions writes n preemptions, in the singular for one.
func preemptions(n int) string {
	if n == 1 {
		return "1 preemption"
	}
	return fmt.Sprintf("%d preemptions", n)
}

// plural is "s" unless n is 1.
func plural(n int64) string {
	if n == 1 {
		return ""
	}
	return "s"
}
