package por_test

// A greedy shrinker for mwProgs, for the audit's minimal programs (rapid
// shrinks the drawn choices, which leaves programs of six threads). Run it
// as: go test ./por -run TestAuditMultiShrink -audit.shrink FILE, where FILE
// holds the program as JSON (mwProg's fields) and optionally
// "Ignore": true; it logs the smallest program that fails the same way.

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/bits"
	"os"
	"strings"
	"testing"

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
)

var auditShrink = flag.String("audit.shrink", "", "audit: shrink the mwProg in this JSON file")

// mwFailure classifies how ODPOR does on p against the reference: "" when
// it agrees, else "lost-state" (a terminal state or violation missed, or
// one reported that the reference does not have), "lost-trace" (a trace
// missed),
// "duplicate" (a trace explored twice or an extra execution), or
// "sleep-blocked", in that order of precedence. Optimality is judged only
// where no check fails.
func mwFailure(p ts.TransitionSystem[mwState], ignore bool) (string, []string) {
	ref := auditReference[mwState](p, ignore, 1<<20)
	if ref.truncated {
		return "", nil
	}
	failures := 0
	for k := range ref.violations {
		if !strings.HasPrefix(k, "deadlock") {
			failures++
		}
	}
	red, err := auditRun[mwState](p, por.ODPOR[mwState], por.Options{Options: ts.Options{IgnoreDeadlocks: ignore}})
	if err != nil {
		return "error", []string{err.Error()}
	}
	errs := compareOuts(ref, red, true)
	kind := ""
	for _, e := range errs {
		switch {
		case strings.Contains(e, "terminal states"), strings.Contains(e, "violation"):
			return "lost-state", errs
		}
	}
	for _, e := range errs {
		switch {
		case strings.Contains(e, "misses"), strings.Contains(e, "problem"), strings.Contains(e, "reports violation"),
			strings.Contains(e, "reaches"), strings.Contains(e, "incomplete"), strings.Contains(e, "does not have"):
			return "lost-trace", errs
		case failures == 0:
			kind = "duplicate"
		}
	}
	if kind != "" {
		return kind, errs
	}
	if failures == 0 && unexplainedSleepBlocked(red.res) > 0 {
		return "sleep-blocked", append(errs, fmt.Sprintf("sleep-blocked %d, %d executions, %d traces", red.res.Stats["sleep-blocked"], red.res.Executions, len(ref.traces)))
	}
	return "", errs
}

func (p *mwProg) clone() *mwProg {
	q := *p
	q.Inits = append([]int8(nil), p.Inits...)
	q.Code = make([][]mwOp, len(p.Code))
	for i, c := range p.Code {
		q.Code[i] = append([]mwOp(nil), c...)
	}
	return &q
}

// mwShrinks lists the programs one simplification away from p.
func mwShrinks(p *mwProg) []*mwProg {
	var out []*mwProg
	add := func(q *mwProg) { out = append(out, q) }
	for t := range p.Code {
		if len(p.Code) > 1 {
			q := p.clone()
			q.Code = append(q.Code[:t], q.Code[t+1:]...)
			add(q)
		}
	}
	for t, code := range p.Code {
		for i, op := range code {
			if len(code) > 1 {
				q := p.clone()
				q.Code[t] = append(q.Code[t][:i], q.Code[t][i+1:]...)
				add(q)
			}
			set := func(f func(o *mwOp)) {
				q := p.clone()
				f(&q.Code[t][i])
				if q.Code[t][i] != op {
					add(q)
				}
			}
			set(func(o *mwOp) { o.Idle = false })
			set(func(o *mwOp) { o.Rot = 0 })
			set(func(o *mwOp) { o.K = 0 })
			set(func(o *mwOp) { o.A = 0 })
			if bits.OnesCount8(op.Set) > 1 {
				for _, m := range members(op.Set) {
					set(func(o *mwOp) { o.Set &^= 1 << m })
				}
			}
			switch op.Kind {
			case mwPStore, mwPGuard, mwPLock:
				set(func(o *mwOp) { o.Kind = mwP; o.A, o.K = 0, 0 })
			case mwTryP, mwGet:
				set(func(o *mwOp) { o.Kind = mwLoad; o.A = 0 })
			case mwAssert, mwStore:
				set(func(o *mwOp) { o.Kind = mwLoad })
			}
		}
	}
	if p.Sync {
		q := p.clone()
		q.Sync = false
		add(q)
	}
	for i, v := range p.Inits {
		if v > 0 {
			q := p.clone()
			q.Inits[i]--
			add(q)
		}
	}
	if p.Cap > 1 {
		q := p.clone()
		q.Cap--
		for i := range q.Inits {
			q.Inits[i] = min(q.Inits[i], q.Cap)
		}
		add(q)
	}
	// Drop the last semaphore, variable or lock if nothing uses it.
	uses := func(kind func(op mwOp) (uint8, int)) uint8 {
		var used uint8
		for _, code := range p.Code {
			for _, op := range code {
				set, a := kind(op)
				used |= set
				if a >= 0 {
					used |= 1 << a
				}
			}
		}
		return used
	}
	sems := uses(func(op mwOp) (uint8, int) {
		switch op.Kind {
		case mwP, mwV, mwPGuard, mwPLock, mwPStore:
			return op.Set, -1
		case mwTryP, mwGet:
			return 0, int(op.A)
		}
		return 0, -1
	})
	if p.NSems > 1 && sems&(1<<(p.NSems-1)) == 0 {
		q := p.clone()
		q.NSems--
		q.Inits = q.Inits[:q.NSems]
		add(q)
	}
	vars := uses(func(op mwOp) (uint8, int) {
		switch op.Kind {
		case mwAwait, mwLockGuard:
			return op.Set, -1
		case mwLoad, mwStore, mwAssert, mwPGuard, mwPStore:
			return 0, int(op.A)
		}
		return 0, -1
	})
	if p.NVars > 1 && vars&(1<<(p.NVars-1)) == 0 {
		q := p.clone()
		q.NVars--
		add(q)
	}
	locks := uses(func(op mwOp) (uint8, int) {
		switch op.Kind {
		case mwLock:
			return op.Set, -1
		case mwUnlock, mwPLock, mwLockGuard:
			return 0, int(op.A)
		}
		return 0, -1
	})
	if p.NLocks > 0 && locks&(1<<(p.NLocks-1)) == 0 {
		q := p.clone()
		q.NLocks--
		add(q)
	}
	return out
}

// mwValid reports whether p's ops name objects it has.
func mwValid(p *mwProg) bool {
	if len(p.Inits) != p.NSems || len(p.Code) > 6 || p.NVars+p.NSems+p.NLocks > 10 {
		return false
	}
	for _, code := range p.Code {
		for _, op := range code {
			switch op.Kind {
			case mwP, mwV, mwPGuard, mwPLock, mwPStore:
				if op.Set == 0 || op.Set>>p.NSems != 0 {
					return false
				}
			case mwAwait, mwLockGuard:
				if op.Set == 0 || op.Set>>p.NVars != 0 {
					return false
				}
			case mwLock:
				if op.Set == 0 || op.Set>>p.NLocks != 0 {
					return false
				}
			}
			switch op.Kind {
			case mwLoad, mwStore, mwAssert, mwPGuard, mwPStore:
				if int(op.A) >= p.NVars {
					return false
				}
			case mwTryP, mwGet:
				if int(op.A) >= p.NSems {
					return false
				}
			case mwUnlock, mwPLock, mwLockGuard:
				if int(op.A) >= p.NLocks {
					return false
				}
			}
		}
	}
	return true
}

// mwShrink shrinks p greedily while it fails as kind.
func mwShrink(p *mwProg, ignore bool, kind string) *mwProg {
	for {
		better := false
		for _, q := range mwShrinks(p) {
			if !mwValid(q) {
				continue
			}
			if k, _ := mwFailure(q, ignore); k == kind {
				p, better = q, true
				break
			}
		}
		if !better {
			return p
		}
	}
}

func TestAuditMultiShrink(t *testing.T) {
	if *auditShrink == "" {
		t.Skip("no -audit.shrink file")
	}
	data, err := os.ReadFile(*auditShrink)
	if err != nil {
		t.Fatal(err)
	}
	var in struct {
		mwProg
		Ignore bool
		Want   string // the kind of failure to keep (default: the program's)
	}
	if err := json.Unmarshal(data, &in); err != nil {
		t.Fatal(err)
	}
	p := &in.mwProg
	kind, errs := mwFailure(p, in.Ignore)
	if kind == "" {
		t.Fatalf("the program does not fail: %v", errs)
	}
	t.Logf("%s: %v", kind, errs)
	if in.Want != "" {
		kind = in.Want
	}
	p = mwShrink(p, in.Ignore, kind)
	_, errs = mwFailure(p, in.Ignore)
	t.Logf("shrunk (%s, ignoreDeadlocks %v):\n%v%#v\n%s", kind, in.Ignore, p, p, strings.Join(errs, "\n"))
}
