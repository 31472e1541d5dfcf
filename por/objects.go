package por

import "github.com/weftlab/weft/ts"

// lastTable holds the last event of the execution on each object: by index
// for the small object numbers systems mostly use, in a map for the others,
// so that the engine's per-transition bookkeeping costs no hashing.
type lastTable struct {
	dense  []int32 // dense[o], -1 for none; objects from len(dense) to denseObjs have none
	sparse map[ts.Obj]int32
}

// denseObjs bounds the objects kept by index.
const denseObjs = 1 << 12

// get returns the last event on o, or -1.
func (t *lastTable) get(o ts.Obj) int32 {
	if uint32(o) < uint32(len(t.dense)) {
		return t.dense[o]
	}
	if o >= 0 && o < denseObjs {
		return -1
	}
	if j, ok := t.sparse[o]; ok {
		return j
	}
	return -1
}

// set makes j (an event, or -1) the last event on o.
func (t *lastTable) set(o ts.Obj, j int32) {
	if uint32(o) < uint32(len(t.dense)) {
		t.dense[o] = j
		return
	}
	if o >= 0 && o < denseObjs {
		for len(t.dense) <= int(o) {
			t.dense = append(t.dense, -1)
		}
		t.dense[o] = j
		return
	}
	if t.sparse == nil {
		t.sparse = make(map[ts.Obj]int32)
	}
	t.sparse[o] = j
}

// swap makes j the last event on o and returns the one before.
func (t *lastTable) swap(o ts.Obj, j int32) int32 {
	if uint32(o) < uint32(len(t.dense)) {
		p := t.dense[o]
		t.dense[o] = j
		return p
	}
	p := t.get(o)
	t.set(o, j)
	return p
}

// reset forgets every object.
func (t *lastTable) reset() {
	t.dense = t.dense[:0]
	clear(t.sparse)
}

// copyTo makes dst a copy of t.
func (t *lastTable) copyTo(dst *lastTable) {
	dst.dense = append(dst.dense[:0], t.dense...)
	clear(dst.sparse)
	for o, j := range t.sparse {
		dst.set(o, j)
	}
}
