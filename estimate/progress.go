package estimate

import (
	"time"

	"github.com/weftlab/weft/ts"
)

// Progress returns a ts.Options.Progress callback that sets each report's
// Estimated from e (the fraction of e.Executions done and the time left at
// the pace so far) and hands it to f. Call it just before the search: the
// pace is measured from then. A search past the estimate reports a
// fraction of 1 and an unknown time left (-1).
func Progress(e Estimate, f func(ts.Result)) func(ts.Result) {
	start := time.Now()
	return func(r ts.Result) {
		r.Estimated = Of(e, r, time.Since(start))
		f(r)
	}
}

// Of is the progress of a search that has produced r after elapsed, by the
// estimate e.
func Of(e Estimate, r ts.Result, elapsed time.Duration) *ts.Estimated {
	out := &ts.Estimated{Executions: e.Executions, ETA: -1}
	if e.Executions <= 0 {
		return out
	}
	frac := float64(r.Executions) / e.Executions
	if frac >= 1 {
		out.Fraction = 1
		return out
	}
	out.Fraction = frac
	if frac > 0 {
		out.ETA = time.Duration(float64(elapsed) * (1 - frac) / frac)
	}
	return out
}
