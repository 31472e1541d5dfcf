package bare

import (
	"syscall"
	"time"
	"unsafe"
)

// threadTime returns the CPU time of the calling OS thread: time the thread
// was descheduled (a shared machine's other work) is not counted.
func threadTime() time.Duration {
	const clockThreadCPUTimeID = 3 // CLOCK_THREAD_CPUTIME_ID
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return wallTime()
	}
	return time.Duration(ts.Nano())
}
