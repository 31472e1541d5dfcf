package cputime

import (
	"syscall"
	"time"
)

// Process returns the CPU time of the whole process so far.
func Process() time.Duration { return rusage(syscall.RUSAGE_SELF) }

// Thread returns the CPU time of the calling thread so far (lock the
// goroutine to its thread to measure it).
func Thread() time.Duration { return rusage(1) } // 1: RUSAGE_THREAD

func rusage(who int) time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(who, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
