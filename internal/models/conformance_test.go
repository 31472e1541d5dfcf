package models

import (
	"testing"

	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// conform runs tstest.Conformance on a model at its default size and, for a
// model with a parameter, at its smallest.
func conform[S any](t *testing.T, info Info, build func(int) ts.TransitionSystem[S]) {
	t.Run(info.Name, func(t *testing.T) {
		sizes := []int{info.Default}
		if info.Param != "" && info.Min != info.Default {
			sizes = append(sizes, info.Min)
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
	conform(t, InspectExample1Info, sys[InspectExample1State](NewInspectExample1))
	conform(t, CPCFig1Info, sys[CPCFigState](NewCPCFig1))
	conform(t, CPCFig2Info, sys[CPCFigState](NewCPCFig2))
	conform(t, CPCFig2AssumeInfo, sys[CPCFigState](NewCPCFig2Assume))
	conform(t, CPCFig3Info, sys[CPCFigState](NewCPCFig3))
	conform(t, CPCFig8Info, sys[CPCFigState](NewCPCFig8))
	conform(t, MATFig1Info, sys[MATFig1State](NewMATFig1))
}
