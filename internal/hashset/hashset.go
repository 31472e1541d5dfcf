package hashset

import (
	"math/bits"

	"github.com/weftlab/weft/internal/offheap"
)

// minSlots is a table's first size: a small search never grows it.
const minSlots = 1024

// Set is a set of 64-bit keys. The zero Set is empty and ready to use.
type Set struct {
	slots []uint64 // a power of two long; 0 marks an empty slot
	mem   *offheap.Region
	shift uint // 64 - log2(len(slots))
	n     int  // keys in slots
	zero  bool // the key 0, which no slot can hold
}

// slotOf is where the probe for k starts. A key need not be well spread
// (small integers are valid hashes): it is multiplied by an odd constant
// and the product's top bits are taken.
func (s *Set) slotOf(k uint64) int {
	return int((k * 0x9e3779b97f4a7c15) >> s.shift)
}

// Add adds k and reports whether it was not in s.
func (s *Set) Add(k uint64) bool {
	if k == 0 {
		added := !s.zero
		s.zero = true
		return added
	}
	if s.slots == nil {
		s.slots, s.mem = offheap.Make[uint64](minSlots)
		s.shift = uint(64 - bits.TrailingZeros(minSlots))
	}
	mask := len(s.slots) - 1
	for i := s.slotOf(k); ; i = (i + 1) & mask {
		switch s.slots[i] {
		case k:
			return false
		case 0:
			if 4*(s.n+1) > 3*len(s.slots) {
				s.grow()
				return s.Add(k)
			}
			s.slots[i] = k
			s.n++
			return true
		}
	}
}

// Has reports whether k is in s.
func (s *Set) Has(k uint64) bool {
	if k == 0 {
		return s.zero
	}
	if s.slots == nil {
		return false
	}
	mask := len(s.slots) - 1
	for i := s.slotOf(k); ; i = (i + 1) & mask {
		switch s.slots[i] {
		case k:
			return true
		case 0:
			return false
		}
	}
}

// grow rebuilds the table twice as large.
func (s *Set) grow() {
	old, oldMem := s.slots, s.mem
	s.slots, s.mem = offheap.Make[uint64](2 * len(old))
	s.shift--
	mask := len(s.slots) - 1
	for _, k := range old {
		if k == 0 {
			continue
		}
		i := s.slotOf(k)
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = k
	}
	oldMem.Free()
}

// Growth returns how many bytes the table grows by if the next key added
// is new (0 if it has the room), for a caller that keeps to a memory
// budget: it can refuse before the table doubles rather than after.
func (s *Set) Growth() int64 {
	if s.slots == nil {
		return minSlots * 8
	}
	if 4*(s.n+1) > 3*len(s.slots) {
		return int64(len(s.slots)) * 8
	}
	return 0
}

// Len is the number of keys in s.
func (s *Set) Len() int {
	n := s.n
	if s.zero {
		n++
	}
	return n
}

// Bytes is the memory s's table takes.
func (s *Set) Bytes() int64 { return int64(len(s.slots)) * 8 }

// Clear empties s, keeping its table for the next keys.
func (s *Set) Clear() {
	clear(s.slots)
	s.n, s.zero = 0, false
}

// Free empties s and gives its table back: unmapped at once where it was
// mapped, rather than when the collector finds it unreachable.
func (s *Set) Free() {
	s.mem.Free()
	*s = Set{}
}
