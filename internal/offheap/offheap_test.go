package offheap

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"pgregory.net/rapid"
)

type node struct {
	a, b  int32
	c     uint64
	flags [4]bool
}

// Grow keeps a slice's elements and gives the room asked, in a region once
// the slice passes MinBytes, growing in place while the region has room:
// checked against a plain slice on random sequences of appends and growths.
func TestGrowKeepsElements(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var s []node
		var r *Region
		var ref []node
		moves := 0
		for range rapid.IntRange(1, 40).Draw(t, "steps") {
			n := rapid.IntRange(0, 1<<rapid.IntRange(0, 17).Draw(t, "log")).Draw(t, "n")
			base, region := unsafe.SliceData(s), r
			s, r = Grow(s, r, n)
			if cap(s)-len(s) < n {
				t.Fatalf("room %d, asked %d", cap(s)-len(s), n)
			}
			if bytes := cap(s) * int(unsafe.Sizeof(node{})); r == nil && bytes >= 2*MinBytes {
				t.Fatalf("%d bytes in the heap", bytes)
			}
			if r != nil && r == region && unsafe.SliceData(s) != base {
				t.Fatalf("moved within its region")
			}
			if r != region {
				moves++
			}
			k := rapid.IntRange(0, cap(s)-len(s)).Draw(t, "append")
			for i := range k {
				x := node{a: int32(len(s)), b: int32(i), c: uint64(len(s)) * 7, flags: [4]bool{i%2 == 0}}
				s = append(s, x)
				ref = append(ref, x)
			}
			for i := range ref {
				if s[i] != ref[i] {
					t.Fatalf("element %d is %v, want %v", i, s[i], ref[i])
				}
			}
		}
		if r != nil {
			r.free()
		}
	})
}

func TestGrowKeepsPointersInHeap(t *testing.T) {
	s, r := Grow[*int](nil, nil, MinBytes)
	if r != nil {
		t.Fatal("a slice of pointers moved to a region")
	}
	if cap(s) < MinBytes {
		t.Fatalf("room for %d, want %d", cap(s), MinBytes)
	}
	s = s[:1]
	s[0] = new(int)
	*s[0] = 7
	runtime.GC() // the collector sees the pointer: its target stays
	if *s[0] != 7 {
		t.Fatal("lost the value")
	}
}

func TestFree(t *testing.T) {
	s, r := Grow[int64](nil, nil, MinBytes)
	if r == nil {
		t.Skip("no mapping here")
	}
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	if !mapped(t, addr) {
		t.Fatal("the region is not mapped")
	}
	r.Free()
	if mapped(t, addr) {
		t.Fatal("the region is still mapped after Free")
	}
	r.Free() // twice: nothing
	(*Region)(nil).Free()
}

// mapped reports whether addr is in one of this process's mappings.
func mapped(t *testing.T, addr uintptr) bool {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skip("no /proc/self/maps:", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		rng, _, _ := strings.Cut(l, " ")
		a, b, ok := strings.Cut(rng, "-")
		if !ok {
			continue
		}
		lo, err1 := strconv.ParseUint(a, 16, 64)
		hi, err2 := strconv.ParseUint(b, 16, 64)
		if err1 == nil && err2 == nil && uint64(addr) >= lo && uint64(addr) < hi {
			return true
		}
	}
	return false
}

// A region is unmapped when the slice moves to a larger one, and when its
// Region is no longer reachable.
func TestRegionsUnmapped(t *testing.T) {
	s, r := Grow([]byte(nil), nil, MinBytes)
	if r == nil {
		t.Skip("no region on this system")
	}
	first := uintptr(r.base)
	s = s[:len(s)+1]
	s[0] = 1
	if !mapped(t, first) || !mapped(t, first+uintptr(r.size)-1) {
		t.Fatal("the region is not mapped")
	}
	// Past the region's room: a new region, the old one unmapped.
	s, r2 := Grow(s, r, r.size)
	if r2 == r || r2 == nil || s[0] != 1 {
		t.Fatalf("regions %p and %p, first byte %d", r, r2, s[0])
	}
	if mapped(t, first) {
		t.Fatal("the first region is still mapped after the slice left it")
	}
	second := uintptr(r2.base)
	runtime.KeepAlive(s)
	r, r2, s = nil, nil, nil
	deadline := time.Now().Add(5 * time.Second)
	for mapped(t, second) {
		if time.Now().After(deadline) {
			t.Fatal("the region is still mapped after it was dropped")
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}

func TestMake(t *testing.T) {
	small, r := Make[node](10)
	if r != nil || len(small) != 10 {
		t.Fatalf("10 nodes: %d long, region %v", len(small), r)
	}
	n := MinBytes/int(unsafe.Sizeof(node{})) + 1
	s, r := Make[node](n)
	if len(s) != n || cap(s) != n {
		t.Fatalf("%d nodes: %d long, room for %d", n, len(s), cap(s))
	}
	if r == nil {
		t.Skip("no mapping here")
	}
	for i := range s {
		if s[i] != (node{}) {
			t.Fatalf("element %d is not zero: %v", i, s[i])
		}
		s[i].c = uint64(i)
	}
	if s[n-1].c != uint64(n-1) {
		t.Fatal("lost a write")
	}
	if p, r := Make[*node](n); r != nil || len(p) != n {
		t.Fatalf("pointers: %d long, region %v", len(p), r)
	}
	r.Free()
}

// Mapped counts the capacity of the slices in regions: up as they grow,
// down when they are freed, moved or collected.
func TestMappedCounts(t *testing.T) {
	settle := func() int64 { // let the cleanups of earlier tests' regions run
		for range 3 {
			runtime.GC()
			time.Sleep(10 * time.Millisecond)
		}
		return Mapped()
	}
	base := settle()
	s, r := Grow[int64](nil, nil, MinBytes/8)
	if r == nil {
		t.Skip("no mapping here")
	}
	if got := Mapped() - base; got != int64(cap(s))*8 {
		t.Fatalf("Mapped grew by %d for a slice of %d bytes", got, cap(s)*8)
	}
	s = s[:cap(s)]
	s, r2 := Grow(s, r, 1) // in place
	if r2 != r {
		t.Fatal("moved")
	}
	if got := Mapped() - base; got != int64(cap(s))*8 {
		t.Fatalf("Mapped grew by %d for a slice of %d bytes", got, cap(s)*8)
	}
	tab, tr := Make[uint64](MinBytes)
	if got := Mapped() - base; got != int64(cap(s))*8+int64(len(tab))*8 {
		t.Fatalf("Mapped grew by %d for slices of %d and %d bytes", got, cap(s)*8, len(tab)*8)
	}
	r.Free()
	tr.Free()
	if got := Mapped() - base; got != 0 {
		t.Fatalf("Mapped is %d above where it was after both are freed", got)
	}
	func() {
		_, r := Grow[int64](nil, nil, MinBytes/8)
		_ = r // dropped: its cleanup takes it off
	}()
	if got := settle() - base; got != 0 {
		t.Fatalf("Mapped is %d above where it was after a region was collected", got)
	}
}
