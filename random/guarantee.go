package random

import (
	"fmt"
	"math"

	"github.com/weftlab/weft/ts"
)

// Guarantee is what a random search's runs promise, read back from its
// Result (GuaranteeOf).
type Guarantee struct {
	Strategy string // "random", "pct" or "urw"
	Runs     int64
	Threads  int
	// PCT: the bug depth d and the step count k the change points were
	// drawn over.
	Depth, Steps int
	// PerRun is the probability each run has of finding a given bug of
	// depth Depth within the first Steps steps, at least: 1/(n*k^(d-1))
	// (PCT); for URW, the probability of each interleaving when nothing
	// blocks, there are no outcomes and the lengths are exact; 0 when
	// nothing is promised (random walk).
	PerRun float64
}

// AtLeast is the probability that at least one of the runs finds such a
// bug: 1 - (1 - PerRun)^Runs.
func (g Guarantee) AtLeast() float64 {
	if g.PerRun <= 0 || g.Runs <= 0 {
		return 0
	}
	return -math.Expm1(float64(g.Runs) * math.Log1p(-g.PerRun))
}

// String says what holds, in one sentence.
func (g Guarantee) String() string {
	switch g.Strategy {
	case "pct":
		return fmt.Sprintf("pct: each run finds a bug of depth %d within %d steps with probability at least 1/(n*k^(d-1)) = 1/(%d*%d^%d) = %.3g (outcomes chosen uniformly: times the chance of the outcomes the bug needs); %d runs: at least %.3g",
			g.Depth, g.Steps, g.Threads, g.Steps, g.Depth-1, g.PerRun, g.Runs, g.AtLeast())
	case "urw":
		return fmt.Sprintf("urw: if no thread blocks, no transition has several outcomes and the thread lengths are exact, each run is each interleaving with probability %.3g (uniform); %d runs", g.PerRun, g.Runs)
	}
	return fmt.Sprintf("random walk: no probability bound; %d runs sampled", g.Runs)
}

// GuaranteeOf reads the guarantee of a random search from its result's
// Stats; ok is false for a result without them (another strategy's).
func GuaranteeOf(res ts.Result) (g Guarantee, ok bool) {
	st := res.Stats
	if _, isRandom := st[StatRuns]; !isRandom {
		return g, false
	}
	g = Guarantee{Strategy: "random", Runs: st[StatRuns], Threads: int(st[StatThreads])}
	if d, pct := st[StatDepth]; pct {
		g.Strategy, g.Depth, g.Steps = "pct", int(d), int(st[StatSteps])
		g.PerRun = PCTBound(g.Threads, g.Steps, g.Depth)
	}
	if l, urw := st[StatLogInterl]; urw {
		g.Strategy = "urw"
		g.PerRun = math.Exp2(-float64(l) / 1000)
	}
	return g, true
}

// PCTBound is PCT's lower bound on the probability that one run finds a
// bug of depth d in a program of n threads and k steps: 1/(n*k^(d-1)).
func PCTBound(n, k, d int) float64 {
	if n < 1 || d < 1 {
		return 0
	}
	return 1 / (float64(n) * math.Pow(float64(max(k, 1)), float64(d-1)))
}
