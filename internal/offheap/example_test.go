package offheap_test

import (
	"fmt"

	"github.com/weftlab/weft/internal/offheap"
)

// A pool of nodes that grows to a million, as a search's wakeup trees do:
// past offheap.MinBytes it moves to a region of its own and grows there
// without copies. The pool and its region are kept together.
func Example() {
	type node struct{ t, first int32 }
	var pool []node
	var mem *offheap.Region
	for i := range 1 << 20 {
		if len(pool) == cap(pool) {
			pool, mem = offheap.Grow(pool, mem, max(cap(pool), 1024))
		}
		pool = append(pool, node{t: int32(i % 4), first: -1})
	}
	fmt.Println(len(pool), pool[5].t, pool[1<<20-1].first)
	// Output:
	// 1048576 1 -1
}
