package bare_test

import (
	"testing"

	"github.com/weftlab/weft/internal/bare"
	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/ts"
)

type counting struct {
	*models.Philosophers
	applies, checks *int
}

func (c counting) Apply(s models.PhilosophersState, t ts.Tid) models.PhilosophersState {
	*c.applies++
	return c.Philosophers.Apply(s, t)
}

func (c counting) Check(models.PhilosophersState) error { *c.checks++; return nil }

// The loop takes exactly the transitions it is asked for, checking every
// state it reaches, and allocates nothing once made.
func TestWalk(t *testing.T) {
	applies, checks := 0, 0
	w := bare.New[models.PhilosophersState](counting{models.NewPhilosophers(3), &applies, &checks})
	w.Walk(1000)
	if applies != 1000 || checks < 1000 {
		t.Fatalf("%d transitions, %d checks; want 1000, at least 1000", applies, checks)
	}
	if a := testing.AllocsPerRun(3, func() { w.Walk(1000) }); a != 0 {
		t.Errorf("%.0f allocations per walk, want 0", a)
	}
}

// A system with no enabled thread at its initial state takes no transition
// and does not hang.
func TestWalkNothingEnabled(t *testing.T) {
	w := bare.New[int](stuck{})
	w.Walk(10)
}

type stuck struct{}

func (stuck) Init() int                             { return 0 }
func (stuck) Threads() int                          { return 1 }
func (stuck) Next(int, ts.Tid) (ts.Step, ts.Status) { return ts.Step{}, ts.Finished }
func (stuck) Apply(s int, _ ts.Tid) int             { return s }
