package por

import (
	"context"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// ODPOR decides whether a frame's sleep set rejects the reversal of a race
// with a step that never blocks before it builds the sequence
// (sleepRejects): on random programs of the whole model (locks, awaits,
// outcomes, steps of several objects, value-dependent steps, failed checks
// under KeepGoing), that verdict is asleepIn's on the sequence built, every
// time.
func TestODPORSleepVerdicts(t *testing.T) {
	chk := &sleepCheck{}
	rapid.Check(t, func(t *rapid.T) {
		shape := tstest.GenOptions{}
		if rapid.Bool().Draw(t, "four") {
			shape = tstest.GenOptions{MaxThreads: 4, MaxSteps: 3}
		}
		shape.CASReads = rapid.Bool().Draw(t, "casReads")
		p := tstest.Programs(shape).Draw(t, "program")
		var opt Options
		opt.KeepGoing = rapid.Bool().Draw(t, "keepGoing")
		opt.checkSleep = chk
		misses := chk.misses
		if _, err := ODPOR[tstest.State](context.Background(), p, opt); err != nil {
			t.Fatal(err)
		}
		if chk.misses > misses {
			t.Fatalf("%d sleep-set verdicts differ from asleepIn's", chk.misses-misses)
		}
	})
	if chk.rejected == 0 || chk.rejected == chk.checks {
		t.Fatalf("%d of %d verdicts rejected the sequence", chk.rejected, chk.checks)
	}
	t.Logf("%d of %d verdicts rejected the sequence", chk.rejected, chk.checks)
}

// On bundled models, the verdicts agree with asleepIn's, and most reject the
// sequence without building it. They include the races of the shared prefix,
// analysed again in every execution (see ODPOR; analysed until their
// reversal reached the wakeup tree: 851 verdicts on lastzero-6, 686
// rejecting, 299 and 192 on indexer-13, 546 and 357 on bluetooth-2).
func TestODPORSleepVerdictsModels(t *testing.T) {
	for _, c := range []struct {
		name                         string
		run                          func(Options) (ts.Result, error)
		executions, checks, rejected int64
	}{
		{"lastzero-6", func(o Options) (ts.Result, error) {
			return ODPOR(context.Background(), models.NewLastzero(6), o)
		}, 144, 1024, 686},
		{"indexer-13", func(o Options) (ts.Result, error) {
			return ODPOR(context.Background(), models.NewIndexer(13), o)
		}, 64, 384, 192},
		{"bluetooth-2", func(o Options) (ts.Result, error) {
			return ODPOR(context.Background(), models.NewBluetooth(2), o)
		}, 161, 879, 357},
	} {
		chk := &sleepCheck{}
		res, err := c.run(Options{Options: ts.Options{KeepGoing: true}, checkSleep: chk})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d executions, %d of %d verdicts rejected, %d misses", c.name, res.Executions, chk.rejected, chk.checks, chk.misses)
		if res.Executions != c.executions || chk.checks != c.checks || chk.rejected != c.rejected || chk.misses != 0 {
			t.Errorf("%s: %d executions, %d of %d verdicts rejected, %d misses; want %d executions, %d of %d rejected, none missed",
				c.name, res.Executions, chk.rejected, chk.checks, chk.misses, c.executions, c.rejected, c.checks)
		}
	}
}
