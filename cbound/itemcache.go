package cbound

import (
	"math/bits"

	"github.com/weftlab/weft/internal/offheap"
	"github.com/weftlab/weft/ts"
)

// itemCache is the set of visited work items: (the hash of a state, the
// thread that moved last). It is an open-addressing table with linear
// probing, so that the usual question, "is this item new, and if so add it",
// costs one probe sequence, most often one cache line, where a Go map takes
// two lookups.
type itemCache struct {
	slots []itemSlot // a power of two long; tag 0 is an empty slot
	// The mapped memory slots is in from 2 MB (nil: the Go heap): a table
	// of millions of items probed at random gains most from huge pages.
	mem   *offheap.Region
	shift uint // 64 - log2(len(slots))
	n     int
	// own is the slots the table would have had this search grown it from
	// itemCacheMinSlots (it may be an earlier search's, larger: icbPool):
	// what the memory budget counts.
	own int
}

// itemSlot is an item: its hash and its last thread plus 2 (so that 0 is
// free).
type itemSlot struct {
	h   uint64
	tag int32
}

// itemCacheMinSlots is the table's first size: small searches (a few
// hundred items) never grow it.
const itemCacheMinSlots = 1024

// newItemCache returns an empty cache, its table the one an earlier
// search left in b (cleared) if there is one.
func newItemCache(b *icbBuffers) *itemCache {
	if b != nil && len(b.slots) >= itemCacheMinSlots {
		return &itemCache{slots: b.slots, shift: uint(64 - bits.TrailingZeros(uint(len(b.slots)))), own: itemCacheMinSlots}
	}
	return &itemCache{slots: make([]itemSlot, itemCacheMinSlots), shift: uint(64 - bits.TrailingZeros(itemCacheMinSlots)), own: itemCacheMinSlots}
}

// slotOf returns where the probe for item (h, last) starts. The user's hash
// need not be well spread (small integers are valid hashes): it is mixed
// with the thread, and the top bits of the product are taken.
func (c *itemCache) slotOf(h uint64, tag int32) int {
	return int(((h ^ uint64(tag)<<48) * 0x9e3779b97f4a7c15) >> c.shift)
}

// find returns the slot that holds item (h, last), with found true, or the
// empty slot where it goes, for insert.
func (c *itemCache) find(h uint64, last ts.Tid) (slot int, found bool) {
	tag := int32(last) + 2
	mask := len(c.slots) - 1
	for i := c.slotOf(h, tag); ; i = (i + 1) & mask {
		s := &c.slots[i]
		if s.tag == 0 {
			return i, false
		}
		if s.h == h && s.tag == tag {
			return i, true
		}
	}
}

// insert adds item (h, last) at slot, which find returned for it with no
// insert since.
func (c *itemCache) insert(slot int, h uint64, last ts.Tid) {
	c.slots[slot] = itemSlot{h: h, tag: int32(last) + 2}
	c.n++
	if 2*c.n > c.own {
		c.own *= 2
	}
	if 2*c.n > len(c.slots) { // at most half full: probes stay short
		c.grow()
	}
}

func (c *itemCache) grow() {
	old, oldMem := c.slots, c.mem
	c.slots, c.mem = offheap.Make[itemSlot](2 * len(old))
	c.shift--
	mask := len(c.slots) - 1
	for _, s := range old {
		if s.tag == 0 {
			continue
		}
		i := c.slotOf(s.h, s.tag)
		for c.slots[i].tag != 0 {
			i = (i + 1) & mask
		}
		c.slots[i] = s
	}
	oldMem.Free()
}

// free unmaps the table's memory, for a search that is over.
func (c *itemCache) free() {
	if c != nil {
		c.mem.Free()
		c.slots, c.mem = nil, nil
	}
}

// len is the number of items in the cache; 0 for no cache.
func (c *itemCache) len() int {
	if c == nil {
		return 0
	}
	return c.n
}

// ownBytes is the memory the table would hold had it grown from its first
// size in this search (it may be an earlier search's, larger: icbPool); 0
// for no cache.
func (c *itemCache) ownBytes() int64 {
	if c == nil {
		return 0
	}
	return int64(c.own) * 16
}

// ownGrowth is how many bytes ownBytes grows by when the next item is
// inserted (0 if none), for a budget asked before the table doubles.
func (c *itemCache) ownGrowth() int64 {
	if c == nil || 2*(c.n+1) <= c.own {
		return 0
	}
	return int64(c.own) * 16
}

// bytes is the memory the table holds; 0 for no cache.
func (c *itemCache) bytes() int64 {
	if c == nil {
		return 0
	}
	return int64(len(c.slots)) * 16
}
