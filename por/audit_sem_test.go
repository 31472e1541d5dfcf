package por_test

// Outside audit: blocking writes in a shape the package's tests do not draw.
// Threads run on shared variables and counting semaphores: P (a write of the
// semaphore that blocks while it is 0), V (a write that blocks while it is at
// its capacity: a bounded buffer's two ends), a P of two semaphores in one
// transition, a tryP that is a Write when it succeeds and a Read when it
// fails (ts.ValueDependent), plain loads and stores, awaits and reads of a
// semaphore's count.

import (
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// semVD is a semProg that declares its tryPs' semaphores value-dependent.
type semVD struct{ *semProg }

func (p semVD) ValueDependentObjs() []ts.Obj {
	var objs []ts.Obj
	seen := map[int8]bool{}
	for _, code := range p.Code {
		for _, op := range code {
			if op.Kind == semTryP && !seen[op.A] {
				seen[op.A] = true
				objs = append(objs, ts.Obj(p.NVars+int(op.A)))
			}
		}
	}
	return objs
}

// semPrograms draws programs of minT..maxT threads of up to maxSteps ops.
func semPrograms(minT, maxT, maxSteps int, noMulti bool) *rapid.Generator[*semProg] {
	return rapid.Custom(func(t *rapid.T) *semProg {
		p := &semProg{
			NVars: rapid.IntRange(1, 2).Draw(t, "nvars"),
			NSems: rapid.IntRange(1, 2).Draw(t, "nsems"),
			Cap:   int8(rapid.IntRange(1, 2).Draw(t, "cap")),
			Idle:  rapid.IntRange(0, 3).Draw(t, "idle") == 0,
			Sync:  rapid.Bool().Draw(t, "sync"),
			VD:    rapid.Bool().Draw(t, "vd"),
		}
		for range p.NSems {
			p.Inits = append(p.Inits, int8(rapid.IntRange(0, int(p.Cap)).Draw(t, "init")))
		}
		n := rapid.IntRange(minT, maxT).Draw(t, "threads")
		for range n {
			steps := rapid.IntRange(1, maxSteps).Draw(t, "steps")
			var code []semOp
			for range steps {
				k := int8(rapid.IntRange(0, semKinds-1).Draw(t, "kind"))
				op := semOp{Kind: k}
				switch k {
				case semGuardP:
					op.A = int8(rapid.IntRange(0, p.NVars-1).Draw(t, "var"))
					op.B = int8(rapid.IntRange(0, p.NSems-1).Draw(t, "sem"))
					op.K = int8(rapid.IntRange(0, 1).Draw(t, "k"))
				case semLoad, semStore, semAwait:
					op.A = int8(rapid.IntRange(0, p.NVars-1).Draw(t, "var"))
					op.K = int8(rapid.IntRange(0, 2).Draw(t, "k"))
				case semP2:
					if p.NSems < 2 || noMulti {
						op.Kind = semP
					} else {
						op.A, op.B = 0, 1
						if rapid.Bool().Draw(t, "swap") {
							op.A, op.B = 1, 0
						}
					}
				default:
					op.A = int8(rapid.IntRange(0, p.NSems-1).Draw(t, "sem"))
				}
				if op.Kind == semP && noMulti && p.NSems > 1 && rapid.IntRange(0, 5).Draw(t, "pSem") == 0 {
					op.A = int8(rapid.IntRange(0, p.NSems-1).Draw(t, "sem"))
				}
				code = append(code, op)
			}
			p.Code = append(p.Code, code)
		}
		return p
	})
}

func (p *semProg) system() ts.TransitionSystem[semState] {
	if p.VD {
		return semVD{p}
	}
	return p
}

// semCheck compares every strategy with the reference on a semaphore
// program, and ODPOR's executions with its traces.
func semCheck(t *rapid.T, p *semProg, conform bool) {
	sys := p.system()
	if conform {
		tstest.Conformance(t, sys, tstest.ConformanceOptions{MaxStates: 2000})
	}
	ref := auditReference(sys, false, *auditMaxNodes)
	if ref.truncated || len(ref.traces) > *auditMaxTraces {
		auditStats["skipped"]++
		return
	}
	auditStats["checked"]++
	auditStats["traces"] += len(ref.traces)
	for _, s := range strategies[semState]() {
		red, err := auditRun(sys, s.f, por.Options{})
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		errs := compareOuts(ref, red, s.name == "odpor")
		if s.name == "odpor" {
			auditStats["sleep-blocked"] += int(red.res.Stats["sleep-blocked"])
			auditStats["infeasible-branches"] += int(red.res.Stats["infeasible-branches"])
		}
		if len(errs) > 0 {
			t.Fatalf("%s on\n%v\n%s", s.name, p, strings.Join(errs, "\n"))
		}
	}
}

// Semaphore programs of 2 to 4 threads (checked for the contract first).
func TestAuditSemSmall(t *testing.T) {
	auditChecks(t, 300, false)
	rapid.Check(t, func(t *rapid.T) {
		semCheck(t, semPrograms(2, 4, 3, false).Draw(t, "program"), true)
	})
	logStats(t)
}

// Semaphore programs of 5 to 6 threads.
func TestAuditSemWide(t *testing.T) {
	auditChecks(t, 60, false)
	rapid.Check(t, func(t *rapid.T) {
		semCheck(t, semPrograms(5, 6, 3, false).Draw(t, "program"), false)
	})
	logStats(t)
}

// Semaphore programs of 3 to 6 threads without a step of two semaphores:
// blocking writes of one object only.
func TestAuditSemSingle(t *testing.T) {
	auditChecks(t, 100, false)
	rapid.Check(t, func(t *rapid.T) {
		semCheck(t, semPrograms(3, 6, 3, true).Draw(t, "program"), false)
	})
	logStats(t)
}
