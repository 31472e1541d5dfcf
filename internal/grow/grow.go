package grow

import (
	"slices"
	"strings"
	"unsafe"
)

// loopBytes is the size above which Slice copies in a loop, and String in
// steps.
const loopBytes = 64 << 10

// Slice returns s with room for n more elements (n >= 0), as slices.Grow
// does: s itself if it has the room, else a copy of s in an array of the
// capacity append would give it (twice the old one for a small slice, a
// quarter more for a large one, at least what is asked), so that the
// memory a table of states holds beyond its contents stays as it was. A
// slice that stays small grows by slices.Grow itself: its copy is over
// before a collection would notice.
func Slice[E any](s []E, n int) []E {
	if cap(s)-len(s) >= n && n >= 0 {
		return s // inlined: the usual case costs a comparison
	}
	return larger(s, n)
}

// larger is Slice where s has not the room.
func larger[E any](s []E, n int) []E {
	if n < 0 {
		panic("grow.Slice: negative count")
	}
	if (len(s)+n)*int(unsafe.Sizeof(*new(E))) <= loopBytes {
		return slices.Grow(s, n)
	}
	t := make([]E, len(s), Cap(cap(s), len(s)+n))
	//lint:ignore S1001 copy is the one memmove this package avoids
	for i := range s {
		t[i] = s[i]
	}
	return t
}

// Cap is the capacity append's growth gives a slice of capacity old that
// must hold want elements (the runtime's rule, before its rounding to a
// size class): the capacity Slice gives a large slice.
func Cap(old, want int) int {
	if want > 2*old {
		return want
	}
	const threshold = 256
	if old < threshold {
		return 2 * old
	}
	c := old
	for c < want {
		c += (c + 3*threshold) >> 2
	}
	return c
}

// Append appends x to s, as append does, growing s with Slice.
func Append[E any](s []E, x E) []E {
	if len(s) == cap(s) {
		s = larger(s, 1)
	}
	return append(s, x)
}

// String returns b as a string, as string(b) does, copying a large b in
// steps (a unit's key can be megabytes).
func String(b []byte) string {
	if len(b) <= loopBytes {
		return string(b)
	}
	var s strings.Builder
	s.Grow(len(b))
	for len(b) > 0 {
		k := min(len(b), loopBytes)
		s.Write(b[:k])
		b = b[k:]
	}
	return s.String()
}
