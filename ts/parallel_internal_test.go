package ts

import (
	"bytes"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// Keys order states depth-first: byte order of keys is the order of their
// paths compared move by move, a path before its extensions.
func TestParallelKeyOrder(t *testing.T) {
	path := rapid.SliceOfN(rapid.IntRange(0, 1000), 0, 6)
	rapid.Check(t, func(rt *rapid.T) {
		a, b := path.Draw(rt, "a"), path.Draw(rt, "b")
		key := func(p []int) []byte {
			var k []byte
			for _, i := range p {
				k = childKey(k, i)
			}
			return k
		}
		if got, want := bytes.Compare(key(a), key(b)), slices.Compare(a, b); got != want {
			rt.Fatalf("keys of %v and %v compare %d, paths %d", a, b, got, want)
		}
	})
}
