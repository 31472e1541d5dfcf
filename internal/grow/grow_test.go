package grow

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// Slice and Append keep the elements, give the room asked for and grow
// geometrically, on both sides of the size where Slice switches to a loop.
func TestSliceKeepsElements(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		big := rapid.Bool().Draw(t, "big")
		n := rapid.IntRange(0, 40).Draw(t, "len")
		if big {
			n = rapid.IntRange(loopBytes/8, 3*loopBytes/8).Draw(t, "len")
		}
		s := make([]int64, n, n+rapid.IntRange(0, 3).Draw(t, "spare"))
		for i := range s {
			s[i] = int64(i*7 + 1)
		}
		want := slices.Clone(s)
		more := rapid.IntRange(0, 100).Draw(t, "more")
		g := Slice(s, more)
		if !slices.Equal(g, want) || cap(g)-len(g) < more {
			t.Fatalf("Slice(%d elements, cap %d, %d): %d elements, cap %d", len(s), cap(s), more, len(g), cap(g))
		}
		if grew := cap(s)-len(s) < more; grew && cap(g) < cap(s)+cap(s)/4 || !grew && cap(g) != cap(s) {
			t.Fatalf("cap %d -> %d for %d more", cap(s), cap(g), more)
		}
		if extra := len(s) + more - cap(s); extra > 0 {
			if want := cap(append(s[:cap(s):cap(s)], make([]int64, extra)...)); cap(g) > want {
				t.Fatalf("cap %d -> %d, append's %d", cap(s), cap(g), want)
			}
		}
		a := s
		for i := range more {
			a = Append(a, int64(-i))
		}
		if len(a) != n+more || !slices.Equal(a[:n], want) || (more > 0 && a[len(a)-1] != int64(1-more)) {
			t.Fatalf("Append: %d elements", len(a))
		}
	})
}

func TestSliceRefusesNegative(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Slice(s, -1) did not panic")
		}
	}()
	Slice([]int{1}, -1)
}

// Growing a pool of millions of nodes, as the wakeup trees do: the loop's
// cost against slices.Grow's.
func BenchmarkSlice(b *testing.B) {
	type node [4]int64 // 32 bytes, as a wakeup-tree node
	for _, grow := range []struct {
		name string
		f    func([]node, int) []node
	}{{"loop", Slice[node]}, {"slices.Grow", slices.Grow[[]node]}} {
		b.Run(grow.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var s []node
				for range 1 << 20 {
					if len(s) == cap(s) {
						s = grow.f(s, max(cap(s), 1024))
					}
					s = append(s, node{})
				}
			}
		})
	}
}
