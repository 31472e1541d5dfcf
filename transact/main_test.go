package transact_test

import (
	"flag"
	"os"
	"testing"
)

// TestMain runs 2000 cases per rapid property unless -rapid.checks says
// otherwise.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.checks" })
	if !set {
		flag.Set("rapid.checks", "2000")
	}
	os.Exit(m.Run())
}
