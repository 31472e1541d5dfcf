//go:build !linux

package bare

import "time"

// threadTime is wall time where the thread's CPU time is not at hand.
func threadTime() time.Duration { return wallTime() }
