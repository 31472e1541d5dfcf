package cbound

import (
	"sync"

	"github.com/weftlab/weft/internal/grow"
	"github.com/weftlab/weft/internal/offheap"
)

// icbBuffers are the slices of a finished ICB or cb-dfs search that the
// next search, of any state type, takes over: its queues, schedule nodes
// and cache table. A search of a few thousand transitions otherwise spends
// a good part of its time growing them from nothing and clearing their new
// memory. Only slices in the Go heap are kept (smaller than
// offheap.MinBytes): the larger ones, in mapped memory, are unmapped when
// their search returns.
type icbBuffers struct {
	queue, next []icbItem
	nodes       []schedNode
	slots       []itemSlot // the cache's table, cleared
}

// icbPool holds icbBuffers.
var icbPool sync.Pool

// takeBuffers returns buffers from the pool, or nil.
func takeBuffers() *icbBuffers {
	b, _ := icbPool.Get().(*icbBuffers)
	return b
}

// queueRoom is the room a search gives its queues and nodes first.
const queueRoom = 128

// ownRoom is the room a slice grown from queueRoom by append's rule has
// for n elements: what a search counts of a slice it may have taken,
// larger, from the pool.
func ownRoom(n int) int {
	c := queueRoom
	for c < n {
		c = grow.Cap(c, c+1)
	}
	return c
}

// keptBuffer reports whether a slice of n elements of size bytes, in region
// r, goes back to the pool.
func keptBuffer(n, size int, r *offheap.Region) bool {
	return r == nil && n*size < offheap.MinBytes
}
