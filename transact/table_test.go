package transact_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/transact"
	"github.com/weftlab/weft/ts"
)

// tableRow is one line of the Table 1 layout: states stored with KeepGoing.
type tableRow struct {
	name                               string
	unsound, cpc, refined, cycle, full int64
	plainUnsound, plainCPC, plainCycle int64
}

func tableOf[S any](name string, sys ts.TransitionSystem[S]) (tableRow, error) {
	ctx := context.Background()
	r := tableRow{name: name}
	run := func(opt transact.Options) (int64, int64, error) {
		opt.KeepGoing = true
		res, err := transact.Explore(ctx, sys, opt)
		return res.States, res.Stats[transact.StatPlainStates], err
	}
	var err error
	if r.unsound, r.plainUnsound, err = run(transact.Options{Proviso: transact.None}); err != nil {
		return r, err
	}
	if r.cpc, r.plainCPC, err = run(transact.Options{Proviso: transact.CPC}); err != nil {
		return r, err
	}
	if r.refined, _, err = run(transact.Options{Proviso: transact.CPC, Refine: true}); err != nil {
		return r, err
	}
	if r.cycle, r.plainCycle, err = run(transact.Options{Proviso: transact.Cycle}); err != nil {
		return r, err
	}
	full, err := ts.ExploreStateful(ctx, sys, ts.Options{KeepGoing: true})
	r.full = full.States
	return r, err
}

// The state counts of the three provisos and of ts.ExploreStateful on every
// bundled model whose movers are declared or inferred, in the layout of
// Table 1 of the paper, with the exact figures asserted. Movers are inferred
// from lock discipline, except for the CPC figures, which declare theirs
// (declaredFig). Peterson and Bluetooth have no locks: every shared access
// is racy, every transition a non-mover, so nothing is reduced (the paper's
// versions came from predicate abstraction, with local loops); Philosophers
// has only locks, and the reduction runs each philosopher's transaction
// whole (and so misses the deadlock: deadlocks are not preserved).
func TestTable(t *testing.T) {
	var rows []tableRow
	add := func(r tableRow, err error) {
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		rows = append(rows, r)
	}
	for _, n := range []int{1, 2, 3} {
		add(tableOf(fmt.Sprintf("peterson-%d", n), models.NewPeterson(n)))
	}
	for _, n := range []int{2, 3, 4, 5} {
		add(tableOf(fmt.Sprintf("philosophers-%d", n), models.NewPhilosophers(n)))
	}
	for _, n := range []int{1, 2, 3} {
		add(tableOf(fmt.Sprintf("bluetooth-%d", n), models.NewBluetooth(n)))
	}
	add(tableOf("locks3", models.NewLocks3(0)))
	for _, c := range figCases {
		add(tableOf(c.name, declaredFig(c.fig(0))))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-16s %9s %9s %9s %9s %11s\n", "Example", "Unsound", "CPC", "CPC+L19", "Cycle", "Stateful")
	for _, r := range rows {
		fmt.Fprintf(&b, "%-16s %9d %9d %9d %9d %11d\n", r.name, r.unsound, r.cpc, r.refined, r.cycle, r.full)
	}
	t.Logf("states stored (instrumented: state and phase bits), KeepGoing:\n%s", b.String())
	for _, r := range rows {
		if r.plainCPC > r.full || r.plainCycle > r.full || r.plainUnsound > r.plainCPC {
			t.Errorf("%s: distinct states unsound %d, cpc %d, cycle %d, stateful %d", r.name, r.plainUnsound, r.plainCPC, r.plainCycle, r.full)
		}
	}
	want := map[string][5]int64{ // unsound, cpc, cpc+L19, cycle, stateful
		"peterson-1":      {58, 58, 58, 58, 58},
		"peterson-2":      {210, 210, 210, 210, 210},
		"peterson-3":      {458, 458, 458, 458, 458},
		"philosophers-2":  {16, 16, 16, 16, 17},
		"philosophers-3":  {44, 44, 44, 44, 75},
		"philosophers-4":  {112, 112, 112, 112, 321},
		"philosophers-5":  {272, 272, 272, 272, 1363},
		"bluetooth-1":     {51, 51, 51, 51, 51},
		"bluetooth-2":     {418, 418, 418, 418, 418},
		"bluetooth-3":     {3278, 3278, 3278, 3278, 3278},
		"locks3":          {20, 20, 20, 20, 20},
		"cpc-fig1":        {8, 9, 9, 9, 11},
		"cpc-fig2":        {33, 35, 35, 36, 43},
		"cpc-fig2-assume": {6, 7, 7, 7, 8},
		"cpc-fig3":        {24, 32, 32, 32, 36},
		"cpc-fig8":        {34, 37, 37, 38, 46},
	}
	if len(want) != len(rows) {
		t.Errorf("%d rows, %d expected", len(rows), len(want))
	}
	for _, r := range rows {
		if w := want[r.name]; w != [5]int64{r.unsound, r.cpc, r.refined, r.cycle, r.full} {
			t.Errorf("%s: %v, want %v", r.name, [5]int64{r.unsound, r.cpc, r.refined, r.cycle, r.full}, w)
		}
	}
}
