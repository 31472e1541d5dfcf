//go:build !linux

package ts_test

import "time"

// cpuTimes is not measured here.
func cpuTimes() (process, thread time.Duration) { return 0, 0 }
