package por_test

import (
	"flag"
	"os"
	"testing"
)

// TestMain raises rapid's default number of cases to 300 (rapid's own default
// is 100); -rapid.checks on the command line overrides it.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.checks" })
	if !set {
		_ = flag.Set("rapid.checks", "300")
	}
	os.Exit(m.Run())
}
