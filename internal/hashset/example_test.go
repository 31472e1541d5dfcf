package hashset_test

import (
	"fmt"

	"github.com/weftlab/weft/internal/hashset"
)

func Example() {
	var visited hashset.Set
	defer visited.Free()
	for _, h := range []uint64{42, 7, 42, 0, 0} {
		fmt.Println(h, visited.Add(h))
	}
	fmt.Println(visited.Len(), visited.Has(7), visited.Has(8))
	// Output:
	// 42 true
	// 7 true
	// 42 false
	// 0 true
	// 0 false
	// 3 true false
}
