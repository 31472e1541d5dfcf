package por_test

import (
	"flag"
	"os"
	"testing"
)

// rapidChecksSet says -rapid.checks was given on the command line.
var rapidChecksSet bool

// TestMain raises rapid's default number of cases to 300 (rapid's own default
// is 100); -rapid.checks on the command line overrides it.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.checks" })
	if !set {
		_ = flag.Set("rapid.checks", "300")
	}
	rapidChecksSet = set
	os.Exit(m.Run())
}
