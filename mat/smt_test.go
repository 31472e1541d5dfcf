package mat

import (
	"bytes"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/weftlab/weft/ts"
)

func TestSMTLIBText(t *testing.T) {
	a := Analyze(fig1)
	s := SMTLIB(a.TP, false)
	for _, want := range []string{"(set-logic QF_LIA)", "(declare-const e0_1 Int) ; 1a", "(declare-const e1_end Int) ; ⊣b", "(assert (< e0_1 e0_2))"} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q in\n%s", want, s)
		}
	}
	if strings.Contains(s, "(check-sat)") {
		t.Errorf("the export should leave (check-sat) to the user")
	}
}

// With z3 on PATH: the models of the exported constraints are exactly the
// schedules Count counts (10 for Figure 1 with any end order, 5 with one),
// each allowed by the pairs and each in a class of its own.
func TestSMTLIBZ3(t *testing.T) {
	z3, err := exec.LookPath("z3")
	if err != nil {
		t.Skip("z3 is not on PATH; install it (apt-get install z3) to check the SMT-LIB export with a solver")
	}
	a := Analyze(fig1)
	for _, c := range []struct {
		one  bool
		want int
	}{{false, 10}, {true, 5}} {
		base := SMTLIB(a.TP, c.one)
		var names []string
		tp := a.TP
		for g := range tp.m {
			e := tp.event(g)
			names = append(names, SMTName(e, tp.lens[e.T]))
		}
		var blocks []string
		classes := map[string]bool{}
		for n := 0; ; n++ {
			if n > c.want {
				t.Fatalf("one end order %v: more than %d models", c.one, c.want)
			}
			script := base + strings.Join(blocks, "") + "(check-sat)\n(get-value (" + strings.Join(names, " ") + "))\n"
			cmd := exec.Command(z3, "-in", "-smt2")
			cmd.Stdin = strings.NewReader(script)
			var out bytes.Buffer
			cmd.Stdout = &out
			if err := cmd.Run(); err != nil && !strings.HasPrefix(out.String(), "unsat") {
				t.Fatalf("z3: %v\n%s", err, out.String())
			}
			if strings.HasPrefix(out.String(), "unsat") {
				if n != c.want {
					t.Errorf("one end order %v: %d models, want %d", c.one, n, c.want)
				}
				break
			}
			w, eqs := parseModel(t, out.String(), names, tp)
			if !allowedWord(tp, w, c.one) {
				t.Fatalf("model %v is not an allowed schedule", w)
			}
			classes[classKey(fig1, w, true)] = true
			blocks = append(blocks, "(assert (not (and "+strings.Join(eqs, " ")+")))\n")
		}
		if len(classes) != c.want {
			t.Errorf("one end order %v: models in %d classes, want %d", c.one, len(classes), c.want)
		}
	}
}

var valueRE = regexp.MustCompile(`\((e\d+_\w+) (\d+)\)`)

// parseModel reads z3's get-value answer into a word (thread per position)
// and the equalities that pin it.
func parseModel(t *testing.T, out string, names []string, tp *Pairs) ([]ts.Tid, []string) {
	t.Helper()
	pos := map[string]int{}
	for _, m := range valueRE.FindAllStringSubmatch(out, -1) {
		v, _ := strconv.Atoi(m[2])
		pos[m[1]] = v
	}
	w := make([]ts.Tid, tp.m)
	var eqs []string
	for g, name := range names {
		p, ok := pos[name]
		if !ok {
			t.Fatalf("no value for %s in %s", name, out)
		}
		w[p] = tp.event(g).T
		eqs = append(eqs, "(= "+name+" "+strconv.Itoa(p)+")")
	}
	return w, eqs
}
