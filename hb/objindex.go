package hb

import "github.com/weftlab/weft/ts"

// denseObjs bounds the objects looked up through a slice rather than a map.
// Users number their objects from 0 as a rule; a slice of this many int32 is
// at most 256 KiB, and only as long as the largest object seen.
const denseObjs = 1 << 16

// objIndex numbers the objects a structure has seen with dense slots 0, 1, 2,
// ... in the order first seen. Objects in [0, denseObjs) are found through a
// slice, ts.InvariantObj (which every step that writes what a global
// invariant reads also writes) through a field of its own, others through a
// map. Looking up a known object never allocates.
type objIndex struct {
	dense  []int32 // dense[o] = slot+1, 0 for unseen
	inv    int32   // ts.InvariantObj's slot+1, 0 for unseen
	sparse map[ts.Obj]int32
	n      int
}

// lookup returns o's slot, if o has one.
func (x *objIndex) lookup(o ts.Obj) (int, bool) {
	if o >= 0 && o < denseObjs {
		if int(o) < len(x.dense) && x.dense[o] != 0 {
			return int(x.dense[o]) - 1, true
		}
		return 0, false
	}
	if o == ts.InvariantObj {
		return int(x.inv) - 1, x.inv != 0
	}
	i, ok := x.sparse[o]
	return int(i), ok
}

// slot returns o's slot, giving it the next one if it has none; fresh reports
// whether it did.
func (x *objIndex) slot(o ts.Obj) (i int, fresh bool) {
	if i, ok := x.lookup(o); ok {
		return i, false
	}
	i = x.n
	x.n++
	if o >= 0 && o < denseObjs {
		if int(o) >= len(x.dense) {
			x.dense = append(x.dense, make([]int32, int(o)+1-len(x.dense))...)
		}
		x.dense[o] = int32(i) + 1
	} else if o == ts.InvariantObj {
		x.inv = int32(i) + 1
	} else {
		if x.sparse == nil {
			x.sparse = make(map[ts.Obj]int32)
		}
		x.sparse[o] = int32(i)
	}
	return i, true
}

// reset forgets every object, keeping the memory.
func (x *objIndex) reset() {
	clear(x.dense)
	clear(x.sparse)
	x.inv, x.n = 0, 0
}

// copyFrom makes x number objects as y does.
func (x *objIndex) copyFrom(y *objIndex) {
	if len(x.dense) < len(y.dense) {
		x.dense = append(x.dense, make([]int32, len(y.dense)-len(x.dense))...)
	}
	copy(x.dense, y.dense)
	clear(x.dense[len(y.dense):])
	clear(x.sparse)
	if len(y.sparse) > 0 && x.sparse == nil {
		x.sparse = make(map[ts.Obj]int32, len(y.sparse))
	}
	for o, i := range y.sparse {
		x.sparse[o] = i
	}
	x.inv, x.n = y.inv, y.n
}
