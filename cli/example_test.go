package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/weftlab/weft/cli"
	"github.com/weftlab/weft/ts"
)

// incr: k threads each run r := n; n := r + 1, and at the end n must be k.
type incr struct{ k int }

type incrState struct {
	pc  [8]uint8
	reg [8]int
	n   int
}

func (incr) Init() incrState       { return incrState{} }
func (c incr) Threads() int        { return c.k }
func (incr) ObjName(ts.Obj) string { return "n" }
func (incr) Next(s incrState, t ts.Tid) (ts.Step, ts.Status) {
	switch s.pc[t] {
	case 0:
		return ts.Step{Obj: 0, Op: ts.Read}, ts.Enabled
	case 1:
		return ts.Step{Obj: 0, Op: ts.Write}, ts.Enabled
	}
	return ts.Step{}, ts.Finished
}
func (incr) Apply(s incrState, t ts.Tid) incrState {
	if s.pc[t] == 0 {
		s.reg[t] = s.n
	} else {
		s.n = s.reg[t] + 1
	}
	s.pc[t]++
	return s
}
func (c incr) Check(s incrState) error {
	for t := range c.k {
		if s.pc[t] != 2 {
			return nil
		}
	}
	if s.n != c.k {
		return fmt.Errorf("lost update: n = %d", s.n)
	}
	return nil
}

// A program of one's own runs the weft command on its systems: its main is
//
//	func main() {
//		os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr,
//			cli.Model("incr", incr{2}).Describe("two threads increment n")))
//	}
//
// and every flag works on it. Here it runs with -json, and the exit status
// says a violation was found.
func ExampleModel() {
	var out bytes.Buffer
	code := cli.Main([]string{"-q", "-json", "-model", "incr"}, &out, os.Stderr,
		cli.Model("incr", incr{2}).Describe("two threads increment n"))
	var r cli.Report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		fmt.Println(err)
	}
	fmt.Println("exit status", code)
	fmt.Println(r.Model, r.Strategy, r.Verdict, r.Violation.Kind, r.Violation.Message, r.Violation.Replay)
	// Output:
	// exit status 1
	// incr odpor violation check failure lost update: n = 1 [0 1 1 0]
}

// A system with a parameter: -model incr-3 builds it with N = 3.
func ExampleFamily() {
	incrs := cli.Family[incrState]("incr", 2, 1, 8, func(n int) ts.TransitionSystem[incrState] { return incr{n} })
	var out bytes.Buffer
	code := cli.Main([]string{"-q", "-model", "incr-1", "-strategy", "dfs"}, &out, os.Stderr, incrs)
	fmt.Print(strings.SplitAfter(out.String(), "(")[0], "\n") // the time after it varies
	fmt.Println("exit status", code)
	// Output:
	// incr-1, dfs: no violation: 1 execution, 2 transitions (
	// exit status 0
}

func TestUserSystems(t *testing.T) {
	systems := []cli.System{
		cli.Model[incrState]("incr", incr{2}).Describe("two threads increment n"),
		cli.Family[incrState]("incrs", 2, 1, 8, func(n int) ts.TransitionSystem[incrState] { return incr{n} }),
	}
	run := func(args ...string) (int, string, string) {
		var out, errs bytes.Buffer
		code := cli.Main(append([]string{"-q"}, args...), &out, &errs, systems...)
		return code, out.String(), errs.String()
	}
	if code, out, _ := run("-list"); code != 0 || !strings.Contains(out, "two threads increment n") || !strings.Contains(out, "N, default 2, 1..8") || strings.Contains(out, "philosophers") {
		t.Errorf("-list: %d\n%s", code, out)
	}
	if code, out, _ := run(); code != 1 || !strings.Contains(out, "incrs-2") || !strings.Contains(out, "check failure, 1 preemption") {
		t.Errorf("summary: %d\n%s", code, out)
	}
	if code, out, _ := run("-model", "incrs-3", "-strategy", "icb-por", "-trace"); code != 1 || !strings.Contains(out, "read n") || !strings.Contains(out, "replay: ") {
		t.Errorf("-model incrs-3: %d\n%s", code, out)
	}
	if code, out, _ := run("-model", "incrs-1"); code != 0 || !strings.Contains(out, "no bug in any schedule") {
		t.Errorf("-model incrs-1: %d\n%s", code, out)
	}
	if code, _, errs := run("-model", "incrs-9"); code != 2 || !strings.Contains(errs, "must be a whole number in 1..8") {
		t.Errorf("-model incrs-9: %d %s", code, errs)
	}
	if code, _, errs := run("-model", "incr", "-strategy", "dfs-stateful"); code != 2 || !strings.Contains(errs, "needs a model that implements Hash") {
		t.Errorf("-strategy dfs-stateful: %d %s", code, errs)
	}
}
