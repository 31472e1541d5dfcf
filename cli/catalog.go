package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/weftlab/weft"
	"github.com/weftlab/weft/estimate"
	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/mat"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/symmetry"
	"github.com/weftlab/weft/ts"
)

// System is a model the command can run: a name, optionally a parameter
// N (name-N on the command line), and how to build it. Make one with
// [Model] or [Family]; [Bundled] returns weft's own.
type System struct {
	name, summary string
	param         string // what N means, or "" for a system without one
	def, min, max int
	cyclic        bool
	// extended: the system uses more than the basic model; unknown for a
	// user's system, which the command then treats as if it did when it
	// picks a strategy, and lets the strategy refuse what it does not take.
	extended, known bool
	build           func(n int) instance
}

// Model registers a user's system under a name, for Main: weft -model
// name explores it.
func Model[S any](name string, sys ts.TransitionSystem[S]) System {
	return System{name: name, build: func(int) instance { return typed[S]{sys} }}
}

// Family registers a user's system with a parameter: weft -model name-N
// explores build(N), for N in min..max (max 0: no maximum); weft -model
// name explores build(def).
func Family[S any](name string, def, min, max int, build func(n int) ts.TransitionSystem[S]) System {
	return System{name: name, param: "N", def: def, min: min, max: max,
		build: func(n int) instance { return typed[S]{build(n)} }}
}

// Describe returns s with a one-line description for weft -list.
func (s System) Describe(summary string) System {
	s.summary = summary
	return s
}

// Cyclic returns s marked as having a cyclic state space (a thread can come
// back to a state it was in): the command then picks a strategy that stores
// states, and refuses the strategies that would not terminate.
func (s System) Cyclic() System {
	s.cyclic = true
	return s
}

// Name returns the system's name on the command line, without -N.
func (s System) Name() string { return s.name }

// bundled makes a System of a bundled model.
func bundled[S any, T ts.TransitionSystem[S]](info models.Info, build func(n int) T) System {
	return System{name: info.Name, summary: info.Summary, param: info.Param, def: info.Default, min: info.Min, max: info.Max,
		cyclic: info.Cyclic, extended: info.Extended, known: true,
		build: func(n int) instance { return typed[S]{build(n)} }}
}

// Bundled returns weft's bundled models (internal/models), in the order the
// summary table shows them: what cmd/weft runs.
func Bundled() []System {
	return []System{
		bundled[models.CBPORFig1State](models.CBPORFig1Info, models.NewCBPORFig1),
		bundled[models.Inspect231State](models.Inspect231Info, models.NewInspect231),
		bundled[models.Locks3State](models.Locks3Info, models.NewLocks3),
		bundled[models.LostUpdateState](models.LostUpdateInfo, models.NewLostUpdate),
		bundled[models.PhilosophersState](models.PhilosophersInfo, models.NewPhilosophers),
		bundled[models.PetersonState](models.PetersonInfo, models.NewPeterson),
		bundled[models.PetersonState](models.PetersonBuggyInfo, models.NewPetersonBuggy),
		bundled[models.BluetoothState](models.BluetoothInfo, models.NewBluetooth),
		bundled[models.WSQState](models.WSQInfo, models.NewWSQ),
		bundled[models.WSQState](models.WSQBug1Info, models.NewWSQBug1),
		bundled[models.WSQState](models.WSQBug2Info, models.NewWSQBug2),
		bundled[models.WSQState](models.WSQBug3Info, models.NewWSQBug3),
		bundled[models.FilesystemState](models.FilesystemInfo, models.NewFilesystem),
		bundled[models.IndexerState](models.IndexerInfo, models.NewIndexer),
		bundled[models.LastzeroState](models.LastzeroInfo, models.NewLastzero),
		bundled[models.CASState](models.CASWInfo, models.NewCASW),
		bundled[models.CASState](models.WCASInfo, models.NewWCAS),
		bundled[models.CASState](models.CASRotInfo, models.NewCASRot),
		bundled[models.InspectExample1State](models.InspectExample1Info, models.NewInspectExample1),
		bundled[models.CPCFigState](models.CPCFig1Info, models.NewCPCFig1),
		bundled[models.CPCFigState](models.CPCFig2Info, models.NewCPCFig2),
		bundled[models.CPCFigState](models.CPCFig2AssumeInfo, models.NewCPCFig2Assume),
		bundled[models.CPCFigState](models.CPCFig3Info, models.NewCPCFig3),
		bundled[models.CPCFigState](models.CPCFig8Info, models.NewCPCFig8),
		bundled[models.PFScanState](models.PFScanInfo, models.NewPFScan),
		bundled[models.PFScanState](models.PFScanBuggyInfo, models.NewPFScanBuggy),
		bundled[models.AGetState](models.AGetInfo, models.NewAGet),
		bundled[models.AGetState](models.AGetBuggyInfo, models.NewAGetBuggy),
		bundled[models.MATFig1State](models.MATFig1Info, models.NewMATFig1),
		bundled[models.TwoPhaseState](models.TwoPhaseInfo, models.NewTwoPhase),
		bundled[models.TwoPhaseState](models.TwoPhaseBugInfo, models.NewTwoPhaseBug),
		bundled[models.ABPState](models.ABPInfo, models.NewABP),
		bundled[models.ABPState](models.ABPBugInfo, models.NewABPBug),
	}
}

// instance is a built system with its state type hidden, so that systems
// of different state types sit in one catalog.
type instance interface {
	run(ctx context.Context, s weft.Strategy, opt ts.Options) (ts.Result, error)
	hashed() bool
	symmetric(signatures bool) bool
	threads() int
	names() ts.ObjNamer
	replay(sched ts.Schedule) (ts.Trace, error)
	matReport(w io.Writer, limits ts.Limits) error
	estimate(ctx context.Context, opt estimate.Options) (estimate.Estimate, error)
	porSearch(ctx context.Context, strategy string, opt por.Options) (ts.Result, error)
	exploreUnit(ctx context.Context, u por.Unit) (por.UnitResult, error)
}

func (m typed[S]) estimate(ctx context.Context, opt estimate.Options) (estimate.Estimate, error) {
	return estimate.Size(ctx, m.sys, opt)
}

type typed[S any] struct{ sys ts.TransitionSystem[S] }

func (m typed[S]) run(ctx context.Context, s weft.Strategy, opt ts.Options) (ts.Result, error) {
	return weft.Run(ctx, m.sys, s, opt)
}

func (m typed[S]) hashed() bool {
	_, ok := m.sys.(ts.Hasher[S])
	return ok
}

func (m typed[S]) threads() int { return m.sys.Threads() }

// symmetric reports whether the system declares its symmetry: a canonical
// form, or with signatures, the signatures of discovered symmetry.
func (m typed[S]) symmetric(signatures bool) bool {
	if signatures {
		_, ok := m.sys.(symmetry.Signer[S])
		return ok
	}
	_, ok := m.sys.(symmetry.Canonicalizer[S])
	return ok
}

func (m typed[S]) names() ts.ObjNamer {
	n, _ := m.sys.(ts.ObjNamer)
	return n
}

func (m typed[S]) replay(sched ts.Schedule) (ts.Trace, error) {
	run, err := ts.Replay(m.sys, sched)
	return run.Trace, err
}

// matReport prints the MATs and token-passing pairs mat computes first.
func (m typed[S]) matReport(w io.Writer, limits ts.Limits) error {
	threads, err := mat.Unroll(m.sys, limits)
	if err != nil {
		return err
	}
	names, _ := m.sys.(ts.ObjNamer)
	_, err = fmt.Fprint(w, mat.Analyze(threads).Report(names))
	return err
}

// lookup resolves a command-line model name: "locks3", or "philosophers-5"
// for a model with a parameter.
func lookup(cat []System, name string) (System, int, error) {
	for _, m := range cat {
		if m.name == name {
			return m, m.def, nil
		}
	}
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		base, arg := name[:i], name[i+1:]
		for _, m := range cat {
			if m.name != base {
				continue
			}
			if m.param == "" {
				return System{}, 0, fmt.Errorf("model %s takes no parameter", base)
			}
			n, err := strconv.Atoi(arg)
			if err != nil || n < m.min || (m.max > 0 && n > m.max) {
				return System{}, 0, fmt.Errorf("model %s: N (%s) must be a whole number in %s", base, m.param, m.paramRange())
			}
			return m, n, nil
		}
	}
	return System{}, 0, fmt.Errorf("unknown model %q (weft -list shows the models)", name)
}

func (s System) paramRange() string {
	if s.max > 0 {
		return fmt.Sprintf("%d..%d", s.min, s.max)
	}
	return fmt.Sprintf("%d or more", s.min)
}

// displayName is the model's command-line name with its parameter.
func (s System) displayName(n int) string {
	if s.param == "" {
		return s.name
	}
	return fmt.Sprintf("%s-%d", s.name, n)
}

// bestStrategy picks the strategy for a model when the command line names
// none: iterative context bounding over cb-por where it suits (the first
// bug comes with the fewest preemptions, one execution per HB class), ICB
// with its cache of visited work items on cyclic models, and optimal DPOR
// on the whole model and on wide models whose many threads are mostly
// independent (no bound is needed when the classes are few).
func bestStrategy(m System, inst instance) weft.Strategy {
	switch {
	case m.extended:
		return weft.ODPOR() // complete, and takes the whole model
	case m.cyclic && inst.hashed():
		return weft.ICB()
	case m.cyclic:
		return weft.DFSStateful()
	case !m.known || inst.threads() > 6:
		return weft.ODPOR()
	}
	return weft.ICBPOR()
}

// unfit says why strategy s cannot run on a model, or "".
func unfit(s weft.Strategy, m System, inst instance) string {
	need := s.Needs()
	switch {
	case need.Has(weft.NeedsHash) && !inst.hashed():
		return "needs a model that implements Hash"
	case m.cyclic && need.Has(weft.NeedsStraightLine):
		return "needs straight-line threads"
	case m.cyclic && need.Has(weft.NeedsAcyclic):
		return "does not terminate on a cyclic model"
	case m.cyclic && need.Has(weft.NeedsHashOnCycles) && !inst.hashed():
		return "needs Hash on a cyclic model"
	case m.extended && need.Has(weft.NeedsBasicModel):
		return "needs the basic model (one object per step, one outcome)"
	case need.Has(weft.NeedsCanonical) && !inst.symmetric(false):
		return "needs a model that declares its symmetry (a canonical form)"
	case need.Has(weft.NeedsSignatures) && !inst.symmetric(true):
		return "needs a model that gives thread signatures"
	}
	return ""
}
