package hashset

import (
	"math/bits"

	"github.com/weftlab/weft/internal/offheap"
)

// Map maps 64-bit keys to 32-bit values, as Set holds keys: open
// addressing, 16 bytes a slot, at most three quarters full, in mapped
// memory past 2 MB. The zero Map is empty and ready to use; a nil *Map reads
// as empty, as a nil Go map does.
type Map struct {
	slots   []mapSlot // a power of two long; key 0 marks an empty slot
	mem     *offheap.Region
	shift   uint
	n       int
	zero    bool // the key 0 is in the map, with value zeroVal
	zeroVal uint32
}

type mapSlot struct {
	key uint64
	val uint32
}

func (m *Map) slotOf(k uint64) int {
	return int((k * 0x9e3779b97f4a7c15) >> m.shift)
}

// Get returns k's value and whether k is in m (0 and false if not).
func (m *Map) Get(k uint64) (uint32, bool) {
	if m == nil {
		return 0, false
	}
	if k == 0 {
		return m.zeroVal, m.zero
	}
	if m.slots == nil {
		return 0, false
	}
	mask := len(m.slots) - 1
	for i := m.slotOf(k); ; i = (i + 1) & mask {
		switch m.slots[i].key {
		case k:
			return m.slots[i].val, true
		case 0:
			return 0, false
		}
	}
}

// Put sets k's value to v.
func (m *Map) Put(k uint64, v uint32) {
	*m.Ref(k) = v
}

// Ref returns where k's value is, adding k with the value 0 if it is not in
// m. The pointer is valid until the next key is added.
func (m *Map) Ref(k uint64) *uint32 {
	if k == 0 {
		m.zero = true
		return &m.zeroVal
	}
	if m.slots == nil {
		m.slots, m.mem = offheap.Make[mapSlot](minSlots)
		m.shift = uint(64 - bits.TrailingZeros(minSlots))
	}
	mask := len(m.slots) - 1
	for i := m.slotOf(k); ; i = (i + 1) & mask {
		switch m.slots[i].key {
		case k:
			return &m.slots[i].val
		case 0:
			if 4*(m.n+1) > 3*len(m.slots) {
				m.grow()
				return m.Ref(k)
			}
			m.slots[i].key = k
			m.n++
			return &m.slots[i].val
		}
	}
}

// grow rebuilds the table twice as large.
func (m *Map) grow() {
	old, oldMem := m.slots, m.mem
	m.slots, m.mem = offheap.Make[mapSlot](2 * len(old))
	m.shift--
	mask := len(m.slots) - 1
	for _, s := range old {
		if s.key == 0 {
			continue
		}
		i := m.slotOf(s.key)
		for m.slots[i].key != 0 {
			i = (i + 1) & mask
		}
		m.slots[i] = s
	}
	oldMem.Free()
}

// Growth returns how many bytes the table grows by if the next key added
// is new (0 if it has the room): see Set.Growth.
func (m *Map) Growth() int64 {
	if m == nil {
		return 0
	}
	if m.slots == nil {
		return minSlots * 16
	}
	if 4*(m.n+1) > 3*len(m.slots) {
		return int64(len(m.slots)) * 16
	}
	return 0
}

// Len is the number of keys in m.
func (m *Map) Len() int {
	if m == nil {
		return 0
	}
	n := m.n
	if m.zero {
		n++
	}
	return n
}

// Bytes is the memory m's table takes.
func (m *Map) Bytes() int64 {
	if m == nil {
		return 0
	}
	return int64(len(m.slots)) * 16
}

// Clear empties m, keeping its table for the next keys.
func (m *Map) Clear() {
	clear(m.slots)
	m.n, m.zero, m.zeroVal = 0, false, 0
}

// Free empties m and gives its table back: unmapped at once where it was
// mapped, rather than when the collector finds it unreachable.
func (m *Map) Free() {
	m.mem.Free()
	*m = Map{}
}
