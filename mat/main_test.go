package mat

import (
	"flag"
	"os"
	"testing"
)

// TestMain runs 400 rapid cases per property by default (rapid's own default
// is 100); -rapid.checks on the command line overrides it.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.checks" })
	if !set {
		_ = flag.Set("rapid.checks", "400")
	}
	os.Exit(m.Run())
}
