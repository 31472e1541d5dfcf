package wefttest_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft"
	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/wefttest"
)

// recorder is a testing.TB that records what a test would print and whether
// it failed, instead of failing the real test. Fatalf returns (a real one
// stops the goroutine), which Check must allow for.
type recorder struct {
	testing.TB // the real test, for what recorder does not override
	name       string
	fatal      []string
	logs       []string
}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return r.name }
func (r *recorder) Context() context.Context {
	return context.Background()
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = append(r.fatal, fmt.Sprintf(format, args...))
}
func (r *recorder) Errorf(format string, args ...any) {
	r.fatal = append(r.fatal, fmt.Sprintf(format, args...))
}
func (r *recorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}
func (r *recorder) Failed() bool { return len(r.fatal) > 0 }

func newRecorder(t *testing.T, name string) *recorder { return &recorder{TB: t, name: name} }

// counter: two threads each run r := n; n := r + 1.
type counter struct{}

type counterState struct {
	pc  [2]uint8
	reg [2]int
	n   int
}

func (counter) Init() counterState { return counterState{} }
func (counter) Threads() int       { return 2 }
func (counter) Next(s counterState, t ts.Tid) (ts.Step, ts.Status) {
	switch s.pc[t] {
	case 0:
		return ts.Step{Obj: 0, Op: ts.Read}, ts.Enabled
	case 1:
		return ts.Step{Obj: 0, Op: ts.Write}, ts.Enabled
	}
	return ts.Step{}, ts.Finished
}
func (counter) Apply(s counterState, t ts.Tid) counterState {
	if s.pc[t] == 0 {
		s.reg[t] = s.n
	} else {
		s.n = s.reg[t] + 1
	}
	s.pc[t]++
	return s
}
func (counter) Check(s counterState) error {
	if s.pc == [2]uint8{2, 2} && s.n != 2 {
		return fmt.Errorf("lost update: n = %d", s.n)
	}
	return nil
}
func (counter) ObjName(ts.Obj) string { return "n" }

// The failing path: the violation, its trace with object names, and the
// replay command, with the fewest preemptions after the second search (dfs
// finds the lost update with 2).
func TestCheckFails(t *testing.T) {
	t.Setenv(wefttest.EnvReplay, "") // the caller\'s token is not for these tests
	r := newRecorder(t, "TestCounter")
	res := wefttest.Check[counterState](r, counter{}, wefttest.Options{Strategy: weft.DFS()})
	if len(r.fatal) != 1 {
		t.Fatalf("Fatalf calls: %q", r.fatal)
	}
	msg := r.fatal[0]
	for _, want := range []string{
		"weft: check failure: lost update: n = 1, 1 preemption (found by dfs after 2 executions; 2 preemptions as found, 1 after a search by iterative context bounding)\n",
		"read n", "* ",
		"replay: WEFT_REPLAY='TestCounter=[0 1 1 0]' go test -run '^TestCounter$'",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if res.Violation == nil || res.Violation.Trace.Preemptions != 1 {
		t.Errorf("result %v, want the minimized violation", res)
	}
	// Without the second search, the violation as found.
	r = newRecorder(t, "TestCounter")
	wefttest.Check[counterState](r, counter{}, wefttest.Options{Strategy: weft.DFS(), NoMinimize: true})
	if len(r.fatal) != 1 || !strings.Contains(r.fatal[0], "2 preemptions (found by dfs after 2 executions)") {
		t.Errorf("NoMinimize: %q", r.fatal)
	}
}

// The default strategy finds philosophers' deadlock and reports it with one
// preemption, in a subtest whose name needs quoting.
func TestCheckDefault(t *testing.T) {
	t.Setenv(wefttest.EnvReplay, "") // the caller\'s token is not for these tests
	r := newRecorder(t, "TestPhil/n=3_it's")
	wefttest.Check[models.PhilosophersState](r, models.NewPhilosophers(3), wefttest.Options{})
	if len(r.fatal) != 1 || !strings.Contains(r.fatal[0], "weft: deadlock") || !strings.Contains(r.fatal[0], ", 1 preemption (found by odpor") {
		t.Fatalf("%q", r.fatal)
	}
	if !strings.Contains(r.fatal[0], `go test -run '^TestPhil$/^n=3_it'\''s$'`) {
		t.Errorf("run pattern not quoted for the shell:\n%s", r.fatal[0])
	}
}

func TestCheckPasses(t *testing.T) {
	t.Setenv(wefttest.EnvReplay, "") // the caller\'s token is not for these tests
	r := newRecorder(t, "TestLocks")
	res := wefttest.Check[models.Locks3State](r, models.NewLocks3(0), wefttest.Options{})
	if len(r.fatal) != 0 || !res.Complete || len(r.logs) != 1 || !strings.Contains(r.logs[0], "no violation") {
		t.Errorf("fatal %q, logs %q, %v", r.fatal, r.logs, res)
	}
	// Stopped at a limit: a pass with a note, or a failure when the test
	// asks for a complete search.
	limited := wefttest.Options{Options: ts.Options{Limits: ts.Limits{Transitions: 10}}}
	r = newRecorder(t, "TestLocks")
	res = wefttest.Check[models.Locks3State](r, models.NewLocks3(0), limited)
	if len(r.fatal) != 0 || res.Complete || !strings.Contains(r.logs[0], "incomplete") {
		t.Errorf("limited: fatal %q, logs %q, %v", r.fatal, r.logs, res)
	}
	limited.RequireComplete = true
	r = newRecorder(t, "TestLocks")
	wefttest.Check[models.Locks3State](r, models.NewLocks3(0), limited)
	if len(r.fatal) != 1 || !strings.Contains(r.fatal[0], "stopped at a limit") {
		t.Errorf("RequireComplete: %q", r.fatal)
	}
}

// Errors fail the test with the reason, once, and no doubled prefixes.
func TestCheckErrors(t *testing.T) {
	t.Setenv(wefttest.EnvReplay, "") // the caller\'s token is not for these tests
	r := newRecorder(t, "TestX")
	wefttest.Check[counterState](r, counter{}, wefttest.Options{Strategy: weft.DFSStateful()})
	if len(r.fatal) != 1 || !strings.Contains(r.fatal[0], "needs the system to implement Hasher") || strings.Count(r.fatal[0], "weft: ") != 1 {
		t.Errorf("%q", r.fatal)
	}
	r = newRecorder(t, "TestX")
	wefttest.Check[models.PetersonState](r, models.NewPeterson(1), wefttest.Options{})
	if len(r.fatal) != 1 || !strings.Contains(r.fatal[0], "exceeds the depth limit") || !strings.Contains(r.fatal[0], "weft.ICB()") {
		t.Errorf("cyclic: %q", r.fatal)
	}
	// The hint's strategy works.
	r = newRecorder(t, "TestX")
	res := wefttest.Check[models.PetersonState](r, models.NewPeterson(1), wefttest.Options{Strategy: weft.ICB()})
	if len(r.fatal) != 0 || !res.Complete {
		t.Errorf("peterson under icb: %q, %v", r.fatal, res)
	}
}

// A token for the running test replays exactly its schedule, without a
// search; one for another test is ignored.
func TestReplay(t *testing.T) {
	t.Setenv(wefttest.EnvReplay, "") // the caller\'s token is not for these tests
	token := "TestCounter=[0 1 1 0]"
	for _, viaEnv := range []bool{false, true} {
		opt := wefttest.Options{Replay: token}
		if viaEnv {
			t.Setenv(wefttest.EnvReplay, token)
			opt.Replay = ""
		}
		r := newRecorder(t, "TestCounter")
		res := wefttest.Check[counterState](r, counter{}, opt)
		if len(r.fatal) != 1 || !strings.Contains(r.fatal[0], "lost update: n = 1, 1 preemption (replayed from WEFT_REPLAY)") ||
			!strings.Contains(r.fatal[0], "WEFT_REPLAY='TestCounter=[0 1 1 0]'") {
			t.Errorf("env %v: %q", viaEnv, r.fatal)
		}
		if res.Executions != 1 || res.Violation == nil || !res.Violation.Trace.Schedule().Equal(ts.ScheduleOf(0, 1, 1, 0)) {
			t.Errorf("env %v: %v", viaEnv, res)
		}
	}
	// Another test's token: a search, with a note.
	r := newRecorder(t, "TestOther")
	wefttest.Check[counterState](r, counter{}, wefttest.Options{Replay: token})
	if len(r.fatal) != 1 || !strings.Contains(r.fatal[0], "found by odpor") || !strings.Contains(r.logs[0], "is for TestCounter, not TestOther") {
		t.Errorf("other test: %q %q", r.fatal, r.logs)
	}
	// A schedule that shows no violation passes (the bug is fixed).
	r = newRecorder(t, "TestCounter")
	wefttest.Check[counterState](r, counter{}, wefttest.Options{Replay: "TestCounter=[0 0 1 1]"})
	if len(r.fatal) != 0 || !strings.Contains(r.logs[0], "no violation") {
		t.Errorf("fixed: %q %q", r.fatal, r.logs)
	}
	// Bad tokens and schedules that do not replay are errors.
	for _, bad := range []string{"[0 1]", "TestCounter=[0 x]", "TestCounter=[0 5]", "TestCounter=[0 0 0]"} {
		r = newRecorder(t, "TestCounter")
		wefttest.Check[counterState](r, counter{}, wefttest.Options{Replay: bad})
		if len(r.fatal) != 1 {
			t.Errorf("%q: %q", bad, r.fatal)
		}
	}
	// A token cut short does not pass for a fixed bug: one that does not
	// parse, and a schedule that stops while threads can still move.
	for bad, want := range map[string]string{
		"TestCounter=[0 1 1":  "no closing ']'",
		"TestCounter=":        "empty text",
		"TestCounter=[]":      "stops before the execution ends (threads [0 1] still enabled)",
		"TestCounter=[0 0 1]": "stops before the execution ends (threads [1] still enabled)",
	} {
		r = newRecorder(t, "TestCounter")
		wefttest.Check[counterState](r, counter{}, wefttest.Options{Replay: bad})
		if len(r.fatal) != 1 || !strings.Contains(r.fatal[0], want) {
			t.Errorf("%q: %q, want %q", bad, r.fatal, want)
		}
	}
}

// Tokens round-trip for every test name and schedule, and the run pattern
// selects exactly the test.
func TestTokenRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.StringMatching(`Test[A-Za-z0-9_=:'./ -]{0,12}`).Draw(t, "name")
		moves := rapid.SliceOf(rapid.Custom(func(t *rapid.T) ts.Move {
			return ts.Move{Thread: ts.Tid(rapid.IntRange(0, 4096).Draw(t, "thread")), Outcome: rapid.IntRange(0, 3).Draw(t, "outcome")}
		})).Draw(t, "schedule")
		sched := ts.Schedule(moves)
		gotName, got, err := wefttest.ParseToken(wefttest.Token(name, sched))
		if err != nil || gotName != name || !got.Equal(sched) {
			t.Fatalf("ParseToken(Token(%q, %v)) = %q, %v, %v", name, sched, gotName, got, err)
		}
		pat := strings.Split(wefttest.RunPattern(name), "/")
		parts := strings.Split(name, "/")
		if len(pat) != len(parts) {
			t.Fatalf("pattern %v for %q", pat, name)
		}
		for i := range parts {
			if ok, _ := regexp.MatchString(pat[i], parts[i]); !ok {
				t.Fatalf("pattern %q does not match %q", pat[i], parts[i])
			}
			if ok, _ := regexp.MatchString(pat[i], parts[i]+"x"); ok {
				t.Fatalf("pattern %q matches %q", pat[i], parts[i]+"x")
			}
		}
	})
}

// Check on the real *testing.T of a passing test.
func TestCheckOnARealTest(t *testing.T) {
	t.Setenv(wefttest.EnvReplay, "") // the caller\'s token is not for these tests
	res := wefttest.Check[models.Locks3State](t, models.NewLocks3(0), wefttest.Options{Strategy: weft.ICBPOR()})
	if !res.Complete || res.Bound != weft.DefaultBound {
		t.Errorf("%v", res)
	}
}

// The default strategy's violation is searched again for fewer
// preemptions: odpor finds philosophers-4's deadlock with 3, ICB with 1.
func TestDefaultMinimizes(t *testing.T) {
	t.Setenv(wefttest.EnvReplay, "")
	r := newRecorder(t, "TestPhil")
	res := wefttest.Check[models.PhilosophersState](r, models.NewPhilosophers(4), wefttest.Options{})
	if len(r.fatal) != 1 || !strings.Contains(r.fatal[0], "1 preemption (found by odpor after 8 executions; 3 preemptions as found, 1 after a search by iterative context bounding)") {
		t.Fatalf("%q", r.fatal)
	}
	run, err := ts.Replay[models.PhilosophersState](models.NewPhilosophers(4), res.Violation.Trace.Schedule())
	if err != nil || run.Violation == nil || run.Violation.Kind != ts.Deadlock || run.Trace.Preemptions != 1 {
		t.Errorf("the reported schedule replays to %v, %v", run.Violation, err)
	}
}

// The budget of a search with no transition limit: DefaultBudget, and
// ShortBudget under -short (wsq's 1,560,759 transitions fit the one, not
// the other).
func TestBudgetFollowsShort(t *testing.T) {
	t.Setenv(wefttest.EnvReplay, "")
	r := newRecorder(t, "TestWSQ")
	res := wefttest.Check[models.WSQState](r, models.NewWSQ(1), wefttest.Options{Strategy: weft.DFS()})
	if len(r.fatal) != 0 {
		t.Fatalf("%q", r.fatal)
	}
	if testing.Short() {
		if res.Complete || res.Transitions > wefttest.ShortBudget {
			t.Errorf("-short: %v, want a search stopped at %d transitions", res, wefttest.ShortBudget)
		}
	} else if !res.Complete || res.Transitions != 1_560_759 {
		t.Errorf("%v, want the whole space", res)
	}
}
