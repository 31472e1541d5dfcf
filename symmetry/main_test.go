package symmetry_test

import (
	"flag"
	"os"
	"testing"
)

// TestMain runs 500 cases per rapid property unless -rapid.checks says
// otherwise.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.checks" })
	if !set {
		flag.Set("rapid.checks", "500")
	}
	os.Exit(m.Run())
}
