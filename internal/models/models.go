package models

import (
	"encoding/binary"
	"unsafe"
)

// Info describes a bundled model for the command line and the docs.
type Info struct {
	Name    string // command-line name, without the -N suffix ("philosophers")
	Summary string // one line for `weft -list`
	Source  string // where the model comes from (paper, section, figure)
	Param   string // what N means ("philosophers"), or "" for a model without one
	Default int    // N when the command line gives none
	Min     int    // smallest N that makes sense
	Max     int    // largest N the model allows, 0 for no maximum
	// Cyclic says the state space has cycles: only strategies that store
	// states (or cache work items) terminate on it.
	Cyclic bool
	// Extended says the model uses more than one object per step with one
	// outcome: steps of several objects, outcomes, idle threads or a
	// global invariant. Strategies limited to the basic model refuse it.
	Extended bool
}

// mix folds v into the running hash h. It is the splitmix64 finalizer applied
// to h^v, strong enough that states differing in one field rarely collide.
func mix(h, v uint64) uint64 {
	z := h ^ v + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// hashInts hashes a sequence of small integers (program counters, variable
// values) in order: a polynomial step per element, cheap enough for states
// of hundreds of fields, and one mix at the end so that the result is well
// spread.
func hashInts[T ~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32](h uint64, xs ...T) uint64 {
	for _, x := range xs {
		h = (h ^ uint64(x)) * 0x100000001b3 // FNV-1a's prime, on whole elements
		h ^= h >> 29
	}
	return mix(h, uint64(len(xs)))
}

// hashFlat hashes the bytes of *p with hashInt8s, for state types made of
// int8 and bool fields only (arrays and structs of them included): such a
// type has no padding, and equal states have equal bytes
// (TestHashFlatTypes checks the types that use it). One pass over the whole
// state costs less than a hashInts call per field group, each with its mix.
func hashFlat[T any](h uint64, p *T) uint64 {
	return hashInt8s(h, unsafe.Slice((*int8)(unsafe.Pointer(p)), unsafe.Sizeof(*p)))
}

// hashInt8s is hashInts for int8 fields, eight to a step: the bundled
// models keep their states in int8 arrays, and a search that stores states
// (or caches work items) hashes every one it reaches, so this loop is much
// of what such a search adds to the model's own work. Words are loaded
// whole (little-endian), and the last few fields take one step too: the
// array's last eight bytes, overlapping some hashed already.
func hashInt8s(h uint64, xs []int8) uint64 {
	all := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(xs))), len(xs))
	b := all
	for len(b) >= 8 {
		h = (h ^ binary.LittleEndian.Uint64(b)) * 0x100000001b3
		h ^= h >> 29
		b = b[8:]
	}
	if len(b) > 0 {
		var w uint64
		if len(all) >= 8 {
			w = binary.LittleEndian.Uint64(all[len(all)-8:])
		} else {
			for i, x := range b {
				w |= uint64(x) << (8 * i)
			}
		}
		h = (h ^ w) * 0x100000001b3
		h ^= h >> 29
	}
	return mix(h, uint64(len(xs)))
}
