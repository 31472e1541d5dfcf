// Command weft explores weft's bundled models with any strategy and prints
// results, traces and happens-before graphs. Run weft -h for the flags and
// the exit status, weft -list for the models and strategies.
//
// It is package cli's Main with the bundled models: a program that calls
// cli.Main with its own systems is the same command for its models.
//
// Unless GOGC or GOMEMLIMIT is set, the command keeps a ballast of 64 MB
// (allocated, never touched, so it takes no memory but address space): the
// collector's target is twice the live heap, and a search of a few
// megabytes that starts with every pool empty would otherwise be collected
// over and over while it grows, with write barriers on for most of its run.
// With 2 workers on lastzero-12, four collections marked for 29 ms of a
// 55 ms run, on the cores the search keeps busy; with the ballast, none. A
// large search's heap is at most 128 MB over what it was.
package main

import (
	"os"
	"runtime"

	"github.com/weftlab/weft/cli"
)

func main() {
	var ballast []byte
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		ballast = make([]byte, 64<<20)
	}
	code := cli.Main(os.Args[1:], os.Stdout, os.Stderr, cli.Bundled()...)
	runtime.KeepAlive(ballast)
	os.Exit(code)
}
