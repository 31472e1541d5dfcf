package models

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// hashInt8s tells apart arrays that differ anywhere: every one-element
// change of many random arrays of lengths 1 to 40, and the arrays
// themselves, hash differently.
func TestHashInt8sSpreads(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	seen := map[uint64][]int8{}
	for range 20000 {
		xs := make([]int8, 1+r.IntN(40))
		for i := range xs {
			xs[i] = int8(r.IntN(5))
		}
		add := func(ys []int8) {
			h := hashInt8s(7, ys)
			if prev, ok := seen[h]; ok && string(int8sBytes(prev)) != string(int8sBytes(ys)) {
				t.Fatalf("%v and %v share hash %#x", prev, ys, h)
			}
			seen[h] = append([]int8(nil), ys...)
		}
		add(xs)
		i := r.IntN(len(xs))
		xs[i] += int8(1 + r.IntN(100))
		add(xs)
	}
}

func int8sBytes(xs []int8) []byte {
	b := make([]byte, len(xs))
	for i, x := range xs {
		b[i] = byte(x)
	}
	return b
}

// The state types hashed by hashFlat hold int8 and bool fields only: no
// padding, and equal states have equal bytes.
func TestHashFlatTypes(t *testing.T) {
	var onlyBytes func(reflect.Type) bool
	onlyBytes = func(ty reflect.Type) bool {
		switch ty.Kind() {
		case reflect.Int8, reflect.Bool:
			return true
		case reflect.Array:
			return onlyBytes(ty.Elem())
		case reflect.Struct:
			for i := range ty.NumField() {
				if !onlyBytes(ty.Field(i).Type) {
					return false
				}
			}
			return true
		}
		return false
	}
	for _, s := range []any{LastzeroState{}, WSQState{}, PhilosophersState{}, BluetoothState{}} {
		if ty := reflect.TypeOf(s); !onlyBytes(ty) {
			t.Errorf("%v holds a field that is not int8 or bool: hashFlat cannot hash it", ty)
		}
	}
}
