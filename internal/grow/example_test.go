package grow_test

import (
	"fmt"

	"github.com/weftlab/weft/internal/grow"
)

// A pool that grows to a million nodes, as a search's wakeup trees do:
// grown by Slice, its copies can be interrupted by the collector.
func Example() {
	type node struct{ t, first int32 }
	var pool []node
	for i := range 1 << 20 {
		pool = grow.Append(pool, node{t: int32(i % 4), first: -1})
	}
	fmt.Println(len(pool), pool[5].t, pool[1<<20-1].first)
	key := grow.String(make([]byte, 1<<20))
	fmt.Println(len(key))
	// Output:
	// 1048576 1 -1
	// 1048576
}
