// Command weft explores weft's bundled models with any strategy and prints
// results, traces and happens-before graphs. Run weft -h for the flags and
// the exit status, weft -list for the models and strategies.
//
// It is package cli's Main with the bundled models: a program that calls
// cli.Main with its own systems is the same command for its models.
//
// Unless GOGC or GOMEMLIMIT is set, the command lets the heap reach 64 MB
// before its first collection, then keeps a ballast of 64 MB (allocated,
// never touched, so it takes no memory but address space): the
// collector's target is twice the live heap, and a search of a few
// megabytes that starts with every pool empty would otherwise be collected
// over and over while it grows, with write barriers on for most of its run.
// With 2 workers on lastzero-12, four collections marked for 29 ms of a
// 55 ms run, on the cores the search keeps busy; with the ballast, none. A
// large search's heap is at most 128 MB over what it was. The ballast
// waits for the first collection because allocating it costs one: 3-4 ms
// of the 20 ms a process took for the searches that never reach 64 MB
// (most bundled models).
package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync/atomic"

	"github.com/weftlab/weft/cli"
)

func main() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		ballastAfterFirstCollection()
	}
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, cli.Bundled()...))
}

// ballast is the 64 MB the collector counts as live once the heap has first
// reached 64 MB (set by a cleanup, on the runtime's goroutine).
var ballast atomic.Pointer[[]byte]

// ballastAfterFirstCollection raises the collector's target so that the
// first collection comes at 64 MB of heap (GOGC 1600 times the runtime's 4
// MB minimum), and after it sets GOGC back to 100 and allocates the
// ballast: from then on, as if the ballast had been there from the start.
func ballastAfterFirstCollection() {
	debug.SetGCPercent(1600)
	type sentinel struct{ _ *int } // not a tiny allocation: collected on its own
	runtime.AddCleanup(new(sentinel), func(struct{}) {
		debug.SetGCPercent(100)
		b := make([]byte, 64<<20)
		ballast.Store(&b)
	}, struct{}{})
}
