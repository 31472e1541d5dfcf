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
	Runs     int64  // every run sampled
	// Counted is the number of runs the promise holds for, those AtLeast
	// counts. PCT: the runs that drew all d-1 change points over Steps
	// steps; with k estimated (Options.Steps 0) that leaves out the first
	// run, which has no change point, and every run that drew over a
	// shorter estimate than the last. URW: the runs drawn with the lengths
	// in force at the end; with the lengths estimated that leaves out the
	// first run, a random walk, and every run before the estimate last
	// changed. Random walk: every run, promising nothing.
	Counted int64
	Threads int
	// PCT: the bug depth d and the step count k the counted runs drew
	// their change points over (Options.Steps, or the estimate the last
	// run used, which may be shorter than the longest run).
	Depth, Steps int
	// PerRun is the probability each run has of finding a given bug of
	// depth Depth within the first Steps steps, at least: 1/(n*k^(d-1))
	// (PCT); for URW, the probability of each interleaving when nothing
	// blocks, there are no outcomes and the lengths are exact; 0 when
	// nothing is promised (random walk).
	PerRun float64
}

// AtLeast is the probability that at least one of the counted runs finds
// such a bug (PCT) or samples a given interleaving (URW): 1 - (1 -
// PerRun)^Counted. The runs not counted can only add to it.
func (g Guarantee) AtLeast() float64 {
	if g.PerRun <= 0 || g.Counted <= 0 {
		return 0
	}
	return -math.Expm1(float64(g.Counted) * math.Log1p(-g.PerRun))
}

// String says what holds, in one sentence.
func (g Guarantee) String() string {
	switch g.Strategy {
	case "pct":
		if g.Depth > 1 && g.Counted == 0 {
			return fmt.Sprintf("pct: no probability bound: no run of %d drew its d-1 = %d change points (with k estimated, the first run has none: it measures k)", g.Runs, g.Depth-1)
		}
		return fmt.Sprintf("pct: a run whose change points were drawn over k = %d steps finds a bug of depth %d within those steps with probability at least 1/(n*k^(d-1)) = 1/(%d*%d^%d) = %.3g (outcomes chosen uniformly: times the chance of the outcomes the bug needs); %d of %d runs were: at least %.3g",
			g.Steps, g.Depth, g.Threads, g.Steps, g.Depth-1, g.PerRun, g.Counted, g.Runs, g.AtLeast())
	case "urw":
		return fmt.Sprintf("urw: if no thread blocks, no transition has several outcomes and the thread lengths are exact, each run drawn with the final lengths is each interleaving with probability %.3g (uniform); %d of %d runs were", g.PerRun, g.Counted, g.Runs)
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
	g = Guarantee{Strategy: "random", Runs: st[StatRuns], Counted: st[StatRuns], Threads: int(st[StatThreads])}
	if d, pct := st[StatDepth]; pct {
		g.Strategy, g.Depth, g.Steps, g.Counted = "pct", int(d), int(st[StatSteps]), st[StatCounted]
		g.PerRun = PCTBound(g.Threads, g.Steps, g.Depth)
	}
	if l, urw := st[StatLogInterl]; urw {
		g.Strategy, g.Counted = "urw", st[StatCounted]
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
