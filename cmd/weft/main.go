// Command weft explores weft's bundled models with any strategy and prints
// results, traces and happens-before graphs. Run weft -h for the flags and
// the exit status, weft -list for the models and strategies.
//
// It is package cli's Main with the bundled models: a program that calls
// cli.Main with its own systems is the same command for its models.
package main

import (
	"os"

	"github.com/weftlab/weft/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, cli.Bundled()...))
}
