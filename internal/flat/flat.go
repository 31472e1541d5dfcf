// Package flat tells whether a state type holds references. A copy of a
// value of a type that holds none (no pointer, slice, map, channel, function
// or interface, at any depth) shares no memory with the original, so a
// system's Apply, which is handed a copy, cannot modify the state a search
// keeps (short of package unsafe). Searches use it to skip the contract
// check that catches such an Apply, and the Hash that check costs.
package flat

import "reflect"

// Is reports whether S holds no references.
func Is[S any]() bool {
	return flat(reflect.TypeFor[S](), 0)
}

// maxDepth bounds the walk of nested arrays and structs; a type nested
// deeper is taken to hold references (the answer errs on the safe side).
const maxDepth = 32

func flat(t reflect.Type, depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128,
		reflect.String: // immutable
		return true
	case reflect.Array:
		return t.Len() == 0 || flat(t.Elem(), depth+1)
	case reflect.Struct:
		for i := range t.NumField() {
			if !flat(t.Field(i).Type, depth+1) {
				return false
			}
		}
		return true
	default: // Uintptr and UnsafePointer (may address memory), Pointer, Slice, Map, Chan, Func, Interface
		return false
	}
}
