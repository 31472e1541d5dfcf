package cputime_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/weftlab/weft/internal/cputime"
)

// Spinning for 50 ms of wall time adds about that much CPU time to the
// thread and the process (at least half of it, on a loaded machine).
func TestCPUTimeGrows(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("CPU time is read on Linux only")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p0, t0 := cputime.Process(), cputime.Thread()
	x := 0
	for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
		x++
	}
	p, th := cputime.Process()-p0, cputime.Thread()-t0
	if th < 5*time.Millisecond || p < th || th > time.Second {
		t.Errorf("50 ms of spinning: thread %v, process %v (x %d)", th, p, x)
	}
}
