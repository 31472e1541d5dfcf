package ts

import "time"

// WorkersNow returns o with the workers started at once and kept, whatever
// a probe would measure: the tests of the parallel search run on systems
// too small for the probe to start them.
func WorkersNow(o Options) Options {
	o.probe = &probeSettings{}
	return o
}

// WithProbe returns o with a probe of serial states alone, then timed with
// the workers (the first warm untimed, a hopeless slowdown checked every
// every states), on clock now; *kept learns whether the workers stayed.
func WithProbe(o Options, serial, timed, warm, every int64, now func() time.Time, kept *bool) Options {
	return WithTimedProbe(o, serial, timed, warm, every, 0, now, kept, nil)
}

// WithTimedProbe is WithProbe with the stretch alone also ended by time
// (alone), and *started learning at which state the workers started.
func WithTimedProbe(o Options, serial, timed, warm, every int64, alone time.Duration, now func() time.Time, kept *bool, started *int64) Options {
	o.probe = &probeSettings{serial: serial, timed: timed, warm: warm, every: every, alone: alone, now: now, kept: kept, started: started}
	return o
}

// Probed reports whether o sets how the workers start (WorkersNow,
// WithProbe).
func Probed(o Options) bool { return o.probe != nil }
