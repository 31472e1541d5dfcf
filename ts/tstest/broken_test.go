package tstest_test

import (
	"context"
	"testing"

	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

// The reference searches notice every breach, with and without Hash
// (ts.ExploreStateful needs it).
func TestBrokenIsNoticed(t *testing.T) {
	for _, b := range tstest.Breaches {
		for _, hashed := range []bool{false, true} {
			if _, err := ts.Explore(context.Background(), tstest.Broken(b, hashed), ts.Options{}); !b.Noticed(err) {
				t.Errorf("ts.Explore, %v, hashed %v: %v", b, hashed, err)
			}
		}
		if _, err := ts.ExploreStateful(context.Background(), tstest.Broken(b, true), ts.Options{}); !b.Noticed(err) {
			t.Errorf("ts.ExploreStateful, %v: %v", b, err)
		}
	}
	// Unbroken, the same system is fine: Noticed is not true of nil.
	for _, b := range tstest.Breaches {
		if b.Noticed(nil) {
			t.Errorf("%v: Noticed(nil)", b)
		}
	}
}
