package hashset

import (
	"testing"

	"pgregory.net/rapid"
)

// Set behaves as a Go map of its keys, whatever the keys: small integers,
// 0, repeats, and enough of them to grow the table several times.
func TestSetIsAMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var s Set
		want := map[uint64]bool{}
		key := rapid.OneOf(rapid.Uint64Range(0, 50), rapid.Uint64(), rapid.Uint64Range(1<<63, 1<<63+5))
		for range rapid.IntRange(0, 3).Draw(t, "rounds") {
			// Drawn keys, then a run of many: m distinct keys from base,
			// each up to twice, enough to grow the table several times.
			keys := rapid.SliceOfN(key, 0, 20).Draw(t, "keys")
			n, m := rapid.IntRange(0, 6000).Draw(t, "n"), rapid.Uint64Range(1, 4000).Draw(t, "m")
			base := rapid.SampledFrom([]uint64{0, 1, 1 << 40, ^uint64(0) - 5000}).Draw(t, "base")
			for i := range n {
				keys = append(keys, base+uint64(i*7)%m)
			}
			for _, k := range keys {
				if added := s.Add(k); added == want[k] {
					t.Fatalf("Add(%d) = %v with %d in the map: %v", k, added, k, want[k])
				}
				want[k] = true
			}
			if s.Len() != len(want) {
				t.Fatalf("Len %d, want %d", s.Len(), len(want))
			}
			for _, k := range rapid.SliceOfN(key, 0, 100).Draw(t, "asked") {
				if s.Has(k) != want[k] {
					t.Fatalf("Has(%d) = %v, want %v", k, s.Has(k), want[k])
				}
			}
			if 4*s.n > 3*len(s.slots) {
				t.Fatalf("%d keys in %d slots", s.n, len(s.slots))
			}
			switch rapid.IntRange(0, 2).Draw(t, "then") {
			case 1:
				s.Clear()
				clear(want)
			case 2:
				s.Free()
				clear(want)
			}
		}
		s.Free()
	})
}

// Past 2 MB the table is in mapped memory, where it keeps its keys through
// its rebuilds; Free gives it back.
func TestSetInRegion(t *testing.T) {
	var s Set
	const n = 1 << 20 // a table of 2M slots, 16 MB
	for k := uint64(1); k <= n; k++ {
		if !s.Add(k * 7919) {
			t.Fatalf("key %d was in the set", k)
		}
	}
	if s.mem == nil {
		t.Log("no mapping here: the table is in the Go heap")
	}
	if s.Len() != n || s.Bytes() != 16<<20 {
		t.Fatalf("%d keys in %d bytes; want %d in 16 MB", s.Len(), s.Bytes(), n)
	}
	for k := uint64(1); k <= n; k++ {
		if s.Add(k*7919) || !s.Has(k*7919) || s.Has(k*7919+1) {
			t.Fatalf("key %d lost", k)
		}
	}
	s.Free()
	if s.Len() != 0 || s.Has(7919) || s.Bytes() != 0 {
		t.Fatal("a freed set is not empty")
	}
	if !s.Add(7919) || !s.Has(7919) {
		t.Fatal("a freed set takes no keys")
	}
	s.Free()
}

func BenchmarkAdd(b *testing.B) {
	b.ReportAllocs()
	var s Set
	k := uint64(0)
	for b.Loop() {
		k++
		s.Add(k * 0x9e3779b97f4a7c15)
		if s.Len() == 1<<22 {
			s.Clear()
		}
	}
	s.Free()
}
