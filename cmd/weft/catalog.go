package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/symmetry"
	"github.com/weftlab/weft/ts"
)

// model is a bundled model the command can build.
type model struct {
	info  models.Info
	build func(n int) instance
}

// instance is a built model with its state type hidden, so that models of
// different state types sit in one catalog.
type instance interface {
	explore(ctx context.Context, cfg config) (ts.Result, error)
	hashed() bool
	symmetric(signatures bool) bool
	threads() int
	names() ts.ObjNamer
	replay(sched ts.Schedule) (ts.Trace, error)
}

type typed[S any] struct{ sys ts.TransitionSystem[S] }

func (m typed[S]) explore(ctx context.Context, cfg config) (ts.Result, error) {
	return explore(ctx, m.sys, cfg)
}

func (m typed[S]) hashed() bool {
	_, ok := m.sys.(ts.Hasher[S])
	return ok
}

func (m typed[S]) threads() int { return m.sys.Threads() }

// symmetric reports whether the model declares its symmetry: a canonical
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

// entry makes a catalog entry of a model constructor.
func entry[S any, T ts.TransitionSystem[S]](info models.Info, build func(n int) T) model {
	return model{info: info, build: func(n int) instance { return typed[S]{build(n)} }}
}

// catalog lists the bundled models in the order the summary table shows them.
func catalog() []model {
	return []model{
		entry[models.CBPORFig1State](models.CBPORFig1Info, models.NewCBPORFig1),
		entry[models.Inspect231State](models.Inspect231Info, models.NewInspect231),
		entry[models.Locks3State](models.Locks3Info, models.NewLocks3),
		entry[models.LostUpdateState](models.LostUpdateInfo, models.NewLostUpdate),
		entry[models.PhilosophersState](models.PhilosophersInfo, models.NewPhilosophers),
		entry[models.PetersonState](models.PetersonInfo, models.NewPeterson),
		entry[models.PetersonState](models.PetersonBuggyInfo, models.NewPetersonBuggy),
		entry[models.BluetoothState](models.BluetoothInfo, models.NewBluetooth),
		entry[models.WSQState](models.WSQInfo, models.NewWSQ),
		entry[models.WSQState](models.WSQBug1Info, models.NewWSQBug1),
		entry[models.WSQState](models.WSQBug2Info, models.NewWSQBug2),
		entry[models.WSQState](models.WSQBug3Info, models.NewWSQBug3),
		entry[models.FilesystemState](models.FilesystemInfo, models.NewFilesystem),
		entry[models.IndexerState](models.IndexerInfo, models.NewIndexer),
		entry[models.LastzeroState](models.LastzeroInfo, models.NewLastzero),
		entry[models.InspectExample1State](models.InspectExample1Info, models.NewInspectExample1),
		entry[models.CPCFigState](models.CPCFig1Info, models.NewCPCFig1),
		entry[models.CPCFigState](models.CPCFig2Info, models.NewCPCFig2),
		entry[models.CPCFigState](models.CPCFig2AssumeInfo, models.NewCPCFig2Assume),
		entry[models.CPCFigState](models.CPCFig3Info, models.NewCPCFig3),
		entry[models.CPCFigState](models.CPCFig8Info, models.NewCPCFig8),
		entry[models.PFScanState](models.PFScanInfo, models.NewPFScan),
		entry[models.PFScanState](models.PFScanBuggyInfo, models.NewPFScanBuggy),
		entry[models.AGetState](models.AGetInfo, models.NewAGet),
		entry[models.AGetState](models.AGetBuggyInfo, models.NewAGetBuggy),
		entry[models.MATFig1State](models.MATFig1Info, models.NewMATFig1),
		entry[models.TwoPhaseState](models.TwoPhaseInfo, models.NewTwoPhase),
		entry[models.TwoPhaseState](models.TwoPhaseBugInfo, models.NewTwoPhaseBug),
		entry[models.ABPState](models.ABPInfo, models.NewABP),
		entry[models.ABPState](models.ABPBugInfo, models.NewABPBug),
	}
}

// lookup resolves a command-line model name: "locks3", or "philosophers-5"
// for a model with a parameter.
func lookup(cat []model, name string) (model, int, error) {
	for _, m := range cat {
		if m.info.Name == name {
			return m, m.info.Default, nil
		}
	}
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		base, arg := name[:i], name[i+1:]
		for _, m := range cat {
			if m.info.Name != base {
				continue
			}
			if m.info.Param == "" {
				return model{}, 0, fmt.Errorf("model %s takes no parameter", base)
			}
			n, err := strconv.Atoi(arg)
			if err != nil || n < m.info.Min || (m.info.Max > 0 && n > m.info.Max) {
				return model{}, 0, fmt.Errorf("model %s: N (%s) must be a whole number in %s", base, m.info.Param, paramRange(m.info))
			}
			return m, n, nil
		}
	}
	return model{}, 0, fmt.Errorf("unknown model %q (weft -list shows the models)", name)
}

func paramRange(info models.Info) string {
	if info.Max > 0 {
		return fmt.Sprintf("%d..%d", info.Min, info.Max)
	}
	return fmt.Sprintf("%d or more", info.Min)
}

// displayName is the model's command-line name with its parameter.
func displayName(info models.Info, n int) string {
	if info.Param == "" {
		return info.Name
	}
	return fmt.Sprintf("%s-%d", info.Name, n)
}
