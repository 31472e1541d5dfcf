package models

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

// hashInt8s is hashInts for int8 fields, eight to a step: the bundled
// models keep their states in int8 arrays, and a search that stores states
// hashes every one it reaches.
func hashInt8s(h uint64, xs []int8) uint64 {
	i := 0
	for ; i+8 <= len(xs); i += 8 {
		w := uint64(uint8(xs[i])) | uint64(uint8(xs[i+1]))<<8 | uint64(uint8(xs[i+2]))<<16 | uint64(uint8(xs[i+3]))<<24 |
			uint64(uint8(xs[i+4]))<<32 | uint64(uint8(xs[i+5]))<<40 | uint64(uint8(xs[i+6]))<<48 | uint64(uint8(xs[i+7]))<<56
		h = (h ^ w) * 0x100000001b3
		h ^= h >> 29
	}
	for ; i < len(xs); i++ {
		h = (h ^ uint64(uint8(xs[i]))) * 0x100000001b3
		h ^= h >> 29
	}
	return mix(h, uint64(len(xs)))
}
