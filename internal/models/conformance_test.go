package models

import (
	"testing"

	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// conform runs tstest.Conformance on a model at its smallest size and at a
// small one (up to 4) that has the interactions of the larger ones: the code
// that keeps the contract does not depend on N.
func conform[S any](t *testing.T, info Info, build func(int) ts.TransitionSystem[S]) {
	t.Run(info.Name, func(t *testing.T) {
		sizes := []int{info.Default}
		if info.Param != "" {
			sizes = []int{info.Min, max(info.Min, min(info.Default, 4))}
		}
		for _, n := range sizes {
			tstest.Conformance(t, build(n), tstest.ConformanceOptions{MaxStates: 3000})
		}
	})
}

func sys[S any, T ts.TransitionSystem[S]](f func(int) T) func(int) ts.TransitionSystem[S] {
	return func(n int) ts.TransitionSystem[S] { return f(n) }
}

// Every bundled model keeps the TransitionSystem contract on a bounded prefix
// of its state space: deterministic, Apply never modifies its argument, steps
// depend only on the thread's own moves, and declared independence commutes.
func TestConformance(t *testing.T) {
	conform(t, CBPORFig1Info, sys[CBPORFig1State](NewCBPORFig1))
	conform(t, Inspect231Info, sys[Inspect231State](NewInspect231))
	conform(t, Locks3Info, sys[Locks3State](NewLocks3))
	conform(t, LostUpdateInfo, sys[LostUpdateState](NewLostUpdate))
	conform(t, PhilosophersInfo, sys[PhilosophersState](NewPhilosophers))
	conform(t, PetersonInfo, sys[PetersonState](NewPeterson))
	conform(t, PetersonBuggyInfo, sys[PetersonState](NewPetersonBuggy))
	conform(t, BluetoothInfo, sys[BluetoothState](NewBluetooth))
	conform(t, WSQInfo, sys[WSQState](NewWSQ))
	conform(t, WSQBug1Info, sys[WSQState](NewWSQBug1))
	conform(t, WSQBug2Info, sys[WSQState](NewWSQBug2))
	conform(t, WSQBug3Info, sys[WSQState](NewWSQBug3))
	conform(t, FilesystemInfo, sys[FilesystemState](NewFilesystem))
	conform(t, IndexerInfo, sys[IndexerState](NewIndexer))
	conform(t, LastzeroInfo, sys[LastzeroState](NewLastzero))
	conform(t, InspectExample1Info, sys[InspectExample1State](NewInspectExample1))
	conform(t, CPCFig1Info, sys[CPCFigState](NewCPCFig1))
	conform(t, CPCFig2Info, sys[CPCFigState](NewCPCFig2))
	conform(t, CPCFig2AssumeInfo, sys[CPCFigState](NewCPCFig2Assume))
	conform(t, CPCFig3Info, sys[CPCFigState](NewCPCFig3))
	conform(t, CPCFig8Info, sys[CPCFigState](NewCPCFig8))
	conform(t, PFScanInfo, sys[PFScanState](NewPFScan))
	conform(t, PFScanBuggyInfo, sys[PFScanState](NewPFScanBuggy))
	conform(t, AGetInfo, sys[AGetState](NewAGet))
	conform(t, AGetBuggyInfo, sys[AGetState](NewAGetBuggy))
	conform(t, MATFig1Info, sys[MATFig1State](NewMATFig1))
	conform(t, TwoPhaseInfo, sys[TwoPhaseState](NewTwoPhase))
	conform(t, TwoPhaseBugInfo, sys[TwoPhaseState](NewTwoPhaseBug))
	conform(t, ABPInfo, sys[ABPState](NewABP))
	conform(t, ABPBugInfo, sys[ABPState](NewABPBug))
}
