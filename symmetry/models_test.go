package symmetry_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/symmetry"
	"github.com/weftlab/weft/ts"
)

// The bundled models' declared symmetry holds on their state spaces (as far
// as Verify looks).
func TestVerifyModels(t *testing.T) {
	check := func(name string, err error) {
		t.Helper()
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	opt := symmetry.VerifyOptions{MaxStates: 3000}
	for n := 2; n <= 5; n++ {
		check(fmt.Sprint("philosophers-", n), symmetry.Verify[models.PhilosophersState](models.NewPhilosophers(n), opt))
	}
	check("locks3", symmetry.Verify[models.Locks3State](models.NewLocks3(0), opt))
	for n := 1; n <= 4; n++ {
		check(fmt.Sprint("pfscan-", n), symmetry.Verify[models.PFScanState](models.NewPFScan(n), opt))
		check(fmt.Sprint("pfscan-bug-", n), symmetry.Verify[models.PFScanState](models.NewPFScanBuggy(n), opt))
		check(fmt.Sprint("aget-", n), symmetry.Verify[models.AGetState](models.NewAGet(n), opt))
		check(fmt.Sprint("aget-bug-", n), symmetry.Verify[models.AGetState](models.NewAGetBuggy(n), opt))
	}
}

// On the bundled symmetric models, sym and sympor reach every terminal state
// and violation of ts.ExploreStateful up to symmetry, with schedules that replay on
// the model.
func TestModelsUpToSymmetry(t *testing.T) {
	for n := 2; n <= 4; n++ {
		compareModel[models.PhilosophersState](t, fmt.Sprint("philosophers-", n), models.NewPhilosophers(n), false)
	}
	compareModel[models.Locks3State](t, "locks3", models.NewLocks3(0), true)
	for n := 1; n <= 3; n++ {
		compareModel[models.PFScanState](t, fmt.Sprint("pfscan-", n), models.NewPFScan(n), true)
		compareModel[models.AGetState](t, fmt.Sprint("aget-", n), models.NewAGet(n), true)
	}
	// With KeepGoing the buggy models have many violating executions,
	// each replayed: keep them small.
	for n := 1; n <= 2; n++ {
		compareModel[models.PFScanState](t, fmt.Sprint("pfscan-bug-", n), models.NewPFScanBuggy(n), true)
		compareModel[models.AGetState](t, fmt.Sprint("aget-bug-", n), models.NewAGetBuggy(n), true)
	}
}

func compareModel[S any](t *testing.T, name string, sys symSystem[S], signs bool) {
	t.Run(name, func(t *testing.T) {
		// ts.ExploreStateful reaches every reachable state, so every
		// terminal state and violating state ts.Explore reaches, faster.
		ref := collect(t, sys, ts.Options{}, func(o ts.Options) (ts.Result, error) { return ts.ExploreStateful[S](context.Background(), sys, o) })
		sym := collect(t, sys, ts.Options{}, withOpts[S](sys, symmetry.Explore[S], symmetry.Options{}))
		sameOrbits(t, "sym", ref, sym)
		if signs {
			sp := collect(t, sys, ts.Options{}, withOpts[S](sys, symmetry.DPOR[S], symmetry.Options{}))
			sameOrbits(t, "sympor", ref, sp)
		}
	})
}

// The growth tables: states stored by ts.ExploreStateful and by sym
// (philosophers-N, pfscan-N), executions of DPOR without and with discovered
// symmetry (pfscan-N), for N = 2..6. The figures are exact.
func TestGrowthTables(t *testing.T) {
	ctx := context.Background()
	type row struct{ plain, sym int64 }
	table := func(title string, want map[int]row, run func(n int) (row, bool)) {
		t.Helper()
		t.Logf("%s", title)
		t.Logf("%3s %10s %10s %8s", "N", "plain", "symmetry", "ratio")
		for n := 2; n <= 6; n++ {
			r, complete := run(n)
			plain := fmt.Sprint(r.plain)
			if !complete {
				plain = fmt.Sprint(">", r.plain)
			}
			ratio := fmt.Sprintf("%.1f", float64(r.plain)/float64(r.sym))
			if !complete {
				ratio = ">" + ratio
			}
			t.Logf("%3d %10s %10d %8s", n, plain, r.sym, ratio)
			if w, ok := want[n]; ok && w != r {
				t.Errorf("N = %d: got %+v, want %+v", n, r, w)
			}
		}
	}
	table("philosophers-N, states (ts.ExploreStateful vs sym)", map[int]row{
		2: {17, 10}, 3: {75, 27}, 4: {321, 86}, 5: {1363, 275}, 6: {5777, 982},
	}, func(n int) (row, bool) {
		sys := models.NewPhilosophers(n)
		a, err := ts.ExploreStateful[models.PhilosophersState](ctx, sys, ts.Options{KeepGoing: true})
		b, err2 := symmetry.Explore[models.PhilosophersState](ctx, sys, symmetry.Options{Options: ts.Options{KeepGoing: true}})
		if err != nil || err2 != nil {
			t.Fatal(err, err2)
		}
		return row{a.States, b.States}, true
	})
	table("pfscan-N, states (ts.ExploreStateful vs sym)", map[int]row{
		2: {267, 136}, 3: {1478, 276}, 4: {6707, 408}, 5: {27860, 540}, 6: {107011, 672},
	}, func(n int) (row, bool) {
		sys := models.NewPFScan(n)
		a, err := ts.ExploreStateful[models.PFScanState](ctx, sys, ts.Options{})
		b, err2 := symmetry.Explore[models.PFScanState](ctx, sys, symmetry.Options{})
		if err != nil || err2 != nil || a.Violation != nil || b.Violation != nil {
			t.Fatal(err, err2, a, b)
		}
		return row{a.States, b.States}, true
	})
	const limit = 100_000
	// sympor needs one execution at every N; dpor's figures past N = 3 are
	// cut at the limit.
	table(fmt.Sprintf("pfscan-N, executions (dpor vs sympor; dpor stopped at %d)", limit), map[int]row{
		2: {392, 1}, 3: {20468, 1},
	}, func(n int) (row, bool) {
		sys := models.NewPFScan(n)
		a, err := symmetry.DPOR[models.PFScanState](ctx, sys, symmetry.Options{NoSymmetry: true, Options: ts.Options{Limits: ts.Limits{Executions: limit}}})
		b, err2 := symmetry.DPOR[models.PFScanState](ctx, sys, symmetry.Options{})
		if err != nil || err2 != nil || a.Violation != nil || b.Violation != nil || !b.Complete {
			t.Fatal(err, err2, a, b)
		}
		if b.Executions != 1 || (n > 3 && a.Complete) {
			t.Errorf("pfscan-%d: sympor %d executions (want 1), dpor complete %v (want cut at %d)", n, b.Executions, a.Complete, limit)
		}
		return row{a.Executions, b.Executions}, a.Complete
	})
}
