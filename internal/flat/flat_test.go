package flat_test

import (
	"testing"

	"github.com/weftlab/weft/internal/flat"
)

type point struct {
	X, Y int8
	Name string
	Grid [3][4]uint16
	Ok   bool
}

type withSlice struct {
	A [2]int
	B []int
}

type nested struct {
	P [2]point
	Q struct{ R *int }
}

func TestIs(t *testing.T) {
	for _, c := range []struct {
		name string
		got  bool
		want bool
	}{
		{"int", flat.Is[int](), true},
		{"string", flat.Is[string](), true},
		{"struct of values", flat.Is[point](), true},
		{"empty struct", flat.Is[struct{}](), true},
		{"array of structs", flat.Is[[5]point](), true},
		{"pointer", flat.Is[*point](), false},
		{"slice", flat.Is[[]int](), false},
		{"map", flat.Is[map[int]int](), false},
		{"chan", flat.Is[chan int](), false},
		{"func", flat.Is[func()](), false},
		{"interface", flat.Is[any](), false},
		{"uintptr", flat.Is[uintptr](), false},
		{"slice in a struct", flat.Is[withSlice](), false},
		{"pointer deep in a struct", flat.Is[nested](), false},
		{"array of slices", flat.Is[[2][]int](), false},
		{"empty array of pointers", flat.Is[[0]*int](), true},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
}
