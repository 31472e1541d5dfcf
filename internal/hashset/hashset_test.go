package hashset

import (
	"testing"

	"pgregory.net/rapid"
)

// anyKey generates a key: small, large, or near the top bit.
func anyKey() *rapid.Generator[uint64] {
	return rapid.OneOf(rapid.Uint64Range(0, 50), rapid.Uint64(), rapid.Uint64Range(1<<63, 1<<63+5))
}

// drawKeys draws keys of every kind (small integers, 0, large, repeats),
// then a run of many: m distinct keys from a base, each up to twice, enough
// to grow a table several times.
func drawKeys(t *rapid.T) []uint64 {
	keys := rapid.SliceOfN(anyKey(), 0, 20).Draw(t, "keys")
	n, m := rapid.IntRange(0, 6000).Draw(t, "n"), rapid.Uint64Range(1, 4000).Draw(t, "m")
	base := rapid.SampledFrom([]uint64{0, 1, 1 << 40, ^uint64(0) - 5000}).Draw(t, "base")
	for i := range n {
		keys = append(keys, base+uint64(i*7)%m)
	}
	return keys
}

// Set behaves as a Go map of its keys, whatever the keys: small integers,
// 0, repeats, and enough of them to grow the table several times.
func TestSetIsAMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var s Set
		want := map[uint64]bool{}
		for range rapid.IntRange(0, 3).Draw(t, "rounds") {
			for _, k := range drawKeys(t) {
				if added := s.Add(k); added == want[k] {
					t.Fatalf("Add(%d) = %v with %d in the map: %v", k, added, k, want[k])
				}
				want[k] = true
			}
			if s.Len() != len(want) {
				t.Fatalf("Len %d, want %d", s.Len(), len(want))
			}
			for _, k := range rapid.SliceOfN(anyKey(), 0, 100).Draw(t, "asked") {
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

// Map behaves as a Go map, whatever the keys (see TestSetIsAMap), through
// Put, Ref and Get.
func TestMapIsAMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var m Map
		want := map[uint64]uint32{}
		for range rapid.IntRange(0, 3).Draw(t, "rounds") {
			for i, k := range drawKeys(t) {
				switch i % 3 {
				case 0:
					m.Put(k, uint32(i))
					want[k] = uint32(i)
				case 1:
					*m.Ref(k) |= 1 << 31
					want[k] |= 1 << 31
				case 2:
					v, ok := m.Get(k)
					w, wok := want[k]
					if v != w || ok != wok {
						t.Fatalf("Get(%d) = %d, %v; want %d, %v", k, v, ok, w, wok)
					}
				}
			}
			if m.Len() != len(want) {
				t.Fatalf("Len %d, want %d", m.Len(), len(want))
			}
			for k, w := range want {
				if v, ok := m.Get(k); v != w || !ok {
					t.Fatalf("Get(%d) = %d, %v; want %d", k, v, ok, w)
				}
			}
			if 4*m.n > 3*len(m.slots) {
				t.Fatalf("%d keys in %d slots", m.n, len(m.slots))
			}
			switch rapid.IntRange(0, 2).Draw(t, "then") {
			case 1:
				m.Clear()
				clear(want)
			case 2:
				m.Free()
				clear(want)
			}
		}
		m.Free()
	})
}

func TestNilMapIsEmpty(t *testing.T) {
	var m *Map
	if v, ok := m.Get(3); v != 0 || ok || m.Len() != 0 || m.Bytes() != 0 {
		t.Fatal("a nil Map is not empty")
	}
}

// Growth says, before an Add or a Ref of a new key, by how much the table
// will grow.
func TestGrowthForetold(t *testing.T) {
	var s Set
	var m Map
	for k := uint64(1); k < 100000; k++ {
		gs, gm := s.Growth(), m.Growth()
		bs, bm := s.Bytes(), m.Bytes()
		s.Add(k)
		m.Put(k, 1)
		if s.Bytes()-bs != gs || m.Bytes()-bm != gm {
			t.Fatalf("key %d: grew by %d and %d, foretold %d and %d", k, s.Bytes()-bs, m.Bytes()-bm, gs, gm)
		}
		// A key already there never grows the table.
		bs, bm = s.Bytes(), m.Bytes()
		s.Add(k)
		m.Put(k, 2)
		if s.Bytes() != bs || m.Bytes() != bm {
			t.Fatalf("key %d again: the tables grew", k)
		}
	}
	s.Free()
	m.Free()
}
