package weft_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/weftlab/weft"
	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/symmetry"
	"github.com/weftlab/weft/ts"
)

func TestLookupNames(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range weft.Strategies() {
		if seen[s.Name()] {
			t.Errorf("two strategies named %s", s.Name())
		}
		seen[s.Name()] = true
		got, err := weft.Lookup(s.Name())
		if err != nil || got != s {
			t.Errorf("Lookup(%q) = %v, %v; want %v", s.Name(), got, err, s)
		}
		want, werr := weft.Transactions(s)
		got, err = weft.Lookup("tx:" + s.Name())
		if (err == nil) != (werr == nil) || got != want {
			t.Errorf("Lookup(tx:%s) = %v, %v; Transactions gives %v, %v", s.Name(), got, err, want, werr)
		}
		if err == nil && got.Name() != "tx:"+s.Name() {
			t.Errorf("Transactions(%s).Name() = %q", s, got.Name())
		}
		if s.Summary() == "" || s.Preserves() == "" || s.Model() == "" {
			t.Errorf("%s: no summary, model or preserves", s)
		}
		if s.Whole() != (s.Model() == "all") || s.Whole() == s.Needs().Has(weft.NeedsBasicModel) {
			t.Errorf("%s: Whole %v, Model %q, Needs %v disagree", s, s.Whole(), s.Model(), s.Needs())
		}
	}
	if len(seen) != 18 {
		t.Errorf("%d strategies, want the command's 18", len(seen))
	}
	for _, bad := range []string{"", "nosuch", "tx:", "tx:nosuch", "tx:cpc", "ODPOR"} {
		if _, err := weft.Lookup(bad); !errors.Is(err, ts.ErrBadOptions) {
			t.Errorf("Lookup(%q): %v, want ts.ErrBadOptions", bad, err)
		}
	}
}

func TestWithBound(t *testing.T) {
	for _, s := range weft.Strategies() {
		if !s.Bounded() {
			if s.Bound() != ts.NoBound {
				t.Errorf("%s: Bound() = %d without a bound", s, s.Bound())
			}
			_, err := s.WithBound(1)
			if !errors.Is(err, ts.ErrBadOptions) || !strings.Contains(err.Error(), "takes no preemption bound") {
				t.Errorf("%s.WithBound(1): %v, want a refusal", s, err)
			}
			continue
		}
		if s.Bound() != weft.DefaultBound {
			t.Errorf("%s: Bound() = %d, want DefaultBound", s, s.Bound())
		}
		for _, c := range []int{0, 1, 5, ts.NoBound} {
			b, err := s.WithBound(c)
			if err != nil || b.Bound() != c || b.Name() != s.Name() {
				t.Errorf("%s.WithBound(%d) = %v (bound %d), %v", s, c, b, b.Bound(), err)
			}
		}
		if _, err := s.WithBound(-2); !errors.Is(err, ts.ErrBadOptions) {
			t.Errorf("%s.WithBound(-2): %v", s, err)
		}
	}
	// The bound composes with the view: it then counts preemptions between
	// transactions.
	b, err := tx(weft.ICBPOR()).WithBound(1)
	if err != nil || b.Bound() != 1 || b.Name() != "tx:icb-por" {
		t.Errorf("tx:icb-por with bound 1: %v, %v", b, err)
	}
}

// Unsound compositions are refused when built, with the reason.
func TestCompositionsRefused(t *testing.T) {
	for _, c := range []struct {
		build func() (weft.Strategy, error)
		want  string
	}{
		{func() (weft.Strategy, error) { return weft.ODPOR().WithBound(2) }, "use CBPOR2 or ICBPOR"},
		{func() (weft.Strategy, error) { return weft.Sleep().WithBound(2) }, "unsound"},
		{func() (weft.Strategy, error) { return weft.DFSStateful().WithBound(2) }, "stateful search under a preemption bound is unsound"},
		{func() (weft.Strategy, error) { return weft.CPC().WithBound(2) }, "transaction-based"},
		{func() (weft.Strategy, error) { return weft.Strategy{}.WithBound(2) }, "zero Strategy"},
		{func() (weft.Strategy, error) { return weft.Transactions(weft.CPC()) }, "transaction-based search already"},
		{func() (weft.Strategy, error) { return weft.Transactions(tx(weft.DFS())) }, "view already"},
		{func() (weft.Strategy, error) { return weft.Transactions(weft.Sym()) }, "declares no symmetry"},
		{func() (weft.Strategy, error) { return weft.Transactions(weft.SyncOnly()) }, "no data race"},
		{func() (weft.Strategy, error) { return weft.Transactions(weft.MAT()) }, "MATs"},
		{func() (weft.Strategy, error) { return weft.Transactions(weft.Strategy{}) }, "zero Strategy"},
		{func() (weft.Strategy, error) { return weft.Symmetric(weft.ICB()) }, "preemption counts wrong"},
		{func() (weft.Strategy, error) { return weft.Symmetric(weft.SDPOR()) }, "name threads"},
		{func() (weft.Strategy, error) { return weft.Symmetric(weft.CBPOR2()) }, "name threads"},
		{func() (weft.Strategy, error) { return weft.Symmetric(weft.ODPOR()) }, "stores no states"},
		{func() (weft.Strategy, error) { return weft.Symmetric(weft.CPC()) }, "phase bits"},
		{func() (weft.Strategy, error) { return weft.Symmetric(tx(weft.DFSStateful())) }, "declares no symmetry"},
	} {
		s, err := c.build()
		if !errors.Is(err, ts.ErrBadOptions) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want ts.ErrBadOptions saying %q", s, err, c.want)
		}
	}
	for in, want := range map[weft.Strategy]weft.Strategy{
		weft.DFSStateful(): weft.Sym(), weft.Sym(): weft.Sym(), weft.DPOR(): weft.SymPOR(), weft.SymPOR(): weft.SymPOR(),
	} {
		if got, err := weft.Symmetric(in); err != nil || got != want {
			t.Errorf("Symmetric(%v) = %v, %v; want %v", in, got, err, want)
		}
	}
}

// watched counts every call into a system, so that a test can assert that
// a refusal came before any search.
type watched struct {
	ts.TransitionSystem[models.LostUpdateState]
	calls *int
}

func (w watched) Init() models.LostUpdateState { *w.calls++; return w.TransitionSystem.Init() }
func (w watched) Threads() int                 { *w.calls++; return w.TransitionSystem.Threads() }
func (w watched) Next(s models.LostUpdateState, t ts.Tid) (ts.Step, ts.Status) {
	*w.calls++
	return w.TransitionSystem.Next(s, t)
}

// A strategy that needs what the system lacks fails before it searches,
// with an error that says what is missing.
func TestValidateBeforeSearch(t *testing.T) {
	calls := 0
	sys := watched{models.NewLostUpdate(0), &calls}
	for _, c := range []struct {
		s    weft.Strategy
		want error
	}{
		{weft.DFSStateful(), ts.ErrNoHash}, {weft.SDPOR(), ts.ErrNoHash}, {weft.CPC(), ts.ErrNoHash},
		{tx(weft.ODPOR()), ts.ErrNoHash}, {weft.Sym(), ts.ErrNoHash}, {weft.SymPOR(), symmetry.ErrNoSymmetry},
		{weft.Strategy{}, ts.ErrBadOptions},
	} {
		_, err := weft.Run[models.LostUpdateState](context.Background(), sys, c.s, ts.Options{})
		if !errors.Is(err, ts.ErrBadOptions) || !errors.Is(err, c.want) {
			t.Errorf("%v: %v, want ts.ErrBadOptions and %v", c.s, err, c.want)
		}
		if calls != 0 {
			t.Errorf("%v: %d calls into the system before the refusal", c.s, calls)
			calls = 0
		}
	}
	if err := weft.Validate[models.LostUpdateState](sys, weft.ODPOR()); err != nil {
		t.Errorf("Validate(odpor): %v", err)
	}
}

// The bound a strategy carries is the bound the search keeps.
func TestRunKeepsTheBound(t *testing.T) {
	sys := models.NewLostUpdate(0) // fails with 1 preemption
	for _, s := range []weft.Strategy{weft.ICB(), weft.CBDFS(), weft.CBPOR2(), weft.ICBPOR()} {
		b0, _ := s.WithBound(0)
		res, err := weft.Run[models.LostUpdateState](context.Background(), sys, b0, ts.Options{})
		if err != nil || res.Violation != nil || !res.Complete || res.Bound != 0 {
			t.Errorf("%v: %v, %v; want no violation within bound 0", b0, res, err)
		}
		b1, _ := s.WithBound(1)
		res, err = weft.Run[models.LostUpdateState](context.Background(), sys, b1, ts.Options{})
		if err != nil || res.Violation == nil || res.Violation.Trace.Preemptions != 1 {
			t.Errorf("%v: %v, %v; want the lost update with 1 preemption", b1, res, err)
		}
	}
}

// On the transaction view, violations and terminal states come with the
// system's own schedules: they replay on it.
func TestTransactionsReportTheSystemsSchedules(t *testing.T) {
	sys := models.NewPhilosophers(3) // deadlocks
	terminals := 0
	opt := ts.Options{KeepGoing: true, OnTerminal: func(_ any, sched ts.Schedule) {
		terminals++
		if _, err := ts.Replay[models.PhilosophersState](sys, sched); err != nil {
			t.Errorf("terminal schedule %v does not replay: %v", sched, err)
		}
	}}
	res, err := weft.Run[models.PhilosophersState](context.Background(), sys, tx(weft.DFSStateful()), opt)
	if err != nil || terminals == 0 {
		t.Fatalf("%v, %v, %d terminals", res, err, terminals)
	}
	if res.Finds.Has(ts.Deadlock) {
		t.Errorf("finds %v: the view does not promise deadlocks", res.Finds)
	}
	lu := models.NewCPCFig1(0)
	res, err = weft.Run[models.CPCFigState](context.Background(), lu, tx(weft.DFSStateful()), ts.Options{})
	if err != nil || res.Violation == nil {
		t.Fatalf("cpc-fig1: %v, %v; want its failed check", res, err)
	}
	run, err := ts.Replay[models.CPCFigState](lu, res.Violation.Trace.Schedule())
	if err != nil || run.Violation == nil || run.Violation.Kind != res.Violation.Kind {
		t.Errorf("the violation's schedule %v replays to %v, %v", res.Violation.Trace.Schedule(), run.Violation, err)
	}
}
