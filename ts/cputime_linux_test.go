package ts_test

import (
	"syscall"
	"time"
)

// cpuTimes returns the CPU time (user and system) of the process and of the
// calling thread so far.
func cpuTimes() (process, thread time.Duration) {
	return rusage(syscall.RUSAGE_SELF), rusage(1) // 1: RUSAGE_THREAD
}

func rusage(who int) time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(who, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
