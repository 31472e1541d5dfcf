package por

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/ts"
)

// The one-byte paths of encoder.node and decoder.node are shortcuts: they
// must write and read exactly what the number-by-number paths do, on any
// node and on any bytes (a unit's key is compared as bytes, and a worker
// elsewhere may decode bad ones).
func TestNodeShortcuts(t *testing.T) {
	small := func(t *rapid.T, name string) int {
		// Mostly one-byte numbers, some not, some negative.
		return rapid.OneOf(rapid.IntRange(0, 63), rapid.IntRange(-70, 200)).Draw(t, name)
	}
	packedWrites, packedWrites2 := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		back := int32(small(t, "back"))
		x := wev{t: ts.Tid(small(t, "thread")), out: small(t, "out"), step: ts.Step{
			Obj: ts.Obj(rapid.OneOf(rapid.IntRange(-70, 200), rapid.IntRange(-9000, 9000), rapid.IntRange(8000, 20000)).Draw(t, "obj")), Op: ts.Op(rapid.IntRange(0, 255).Draw(t, "op")), Sync: rapid.Bool().Draw(t, "sync")}}
		for range rapid.IntRange(0, 2).Draw(t, "also") {
			x.step.Also = append(x.step.Also, ts.Access{Obj: ts.Obj(small(t, "alsoObj")), Op: ts.Op(rapid.IntRange(0, 3).Draw(t, "alsoOp"))})
		}
		extra := rapid.Bool().Draw(t, "extra")
		if rapid.Bool().Draw(t, "common") {
			// The node most keys hold: every number in one byte, one
			// access.
			back, x.t, x.out, x.step.Obj, x.step.Op, x.step.Also = back&63, x.t&63, x.out&63, x.step.Obj&63, x.step.Op&63, nil
			if rapid.Bool().Draw(t, "twoByteObject") {
				x.step.Obj = ts.Obj(rapid.OneOf(rapid.IntRange(64, 70), rapid.IntRange(64, 8191), rapid.IntRange(8185, 8191)).Draw(t, "wideObj"))
			}
		}
		var fast, slow encoder
		fast.node(back, x, extra)
		slow.nodeSlow(back, x, extra)
		if !bytes.Equal(fast.b, slow.b) {
			t.Fatalf("node writes %v, number by number %v", fast.b, slow.b)
		}
		// Written from a packed node (a wakeup tree's): the same bytes,
		// wherever node takes its shortcut with a one-byte object.
		var w wtree
		id := w.alloc(x)
		w.nodes[id].extra = extra
		if p, ok := packNode(&w.nodes[id], back); ok {
			packedWrites++
			if got := binary.LittleEndian.AppendUint64(nil, p); !bytes.Equal(got, fast.b) {
				t.Fatalf("packNode writes %v, node %v", got, fast.b)
			}
		} else if common := back >= 0 && back < 64 && x.t >= 0 && x.t < 64 && x.out >= 0 && x.out < 64 && x.step.Also == nil && x.step.Op < 64; common && x.step.Obj >= 0 && x.step.Obj < 64 {
			t.Fatalf("packNode refuses a node that node writes in eight bytes: %v", fast.b)
		} else if p, last, ok := packNode2(&w.nodes[id], back); ok {
			packedWrites2++
			if got := append(binary.LittleEndian.AppendUint64(nil, p), last); !bytes.Equal(got, fast.b) {
				t.Fatalf("packNode2 writes %v, node %v", got, fast.b)
			}
		} else if common && x.step.Obj >= 64 && x.step.Obj < 8192 {
			t.Fatalf("packNode2 refuses a node that node writes in nine bytes: %v", fast.b)
		}
		// Read back both ways: the same node.
		i := int64(max(back, 0))
		fd, sd := decoder{b: bytes.Clone(fast.b)}, decoder{b: bytes.Clone(fast.b)}
		fp, fx, fe, fend := fd.node(64, i)
		sp, sx, se, send := sd.nodeSlow(64, i)
		if fend != send || fp != sp || fe != se || !reflect.DeepEqual(fx, sx) || len(fd.b) != len(sd.b) || (fd.err == nil) != (sd.err == nil) {
			t.Fatalf("%v: node reads %d %+v %v end %v, number by number %d %+v %v end %v", fast.b, fp, fx, fe, fend, sp, sx, se, send)
		}
	})
	packedNodes := 0
	rapid.Check(t, func(t *rapid.T) {
		// Bytes that are mostly a node's (each number near what the
		// shortcut takes), or anything.
		typical := []byte{4, 2, 1, 2, 5, 2, 1, 3}
		if rapid.Bool().Draw(t, "twoByteObject") {
			typical = []byte{4, 2, 1, 2, 0x85, 3, 2, 1, 3}
		}
		var b []byte
		for k := range rapid.SampledFrom([]int{8, 8, 8, 9, 9, 10, rapid.IntRange(0, 12).Draw(t, "length")}).Draw(t, "n") {
			v := rapid.OneOf(rapid.Uint8Range(0, 6), rapid.Uint8Range(0x80, 0x86), rapid.Byte()).Draw(t, "byte")
			if k < len(typical) && rapid.IntRange(0, 2).Draw(t, "typical") == 0 {
				v = typical[k]
			}
			b = append(b, v)
		}
		if rapid.Bool().Draw(t, "nearTypical") {
			// A typical node but for one byte near its edges (a thread
			// one past the last, say): where the shortcuts must agree
			// on refusing.
			b = append(b[:0], typical...)
			b[rapid.IntRange(0, len(b)-1).Draw(t, "at")] = rapid.SampledFrom([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 0x7f, 0x80, 0x81, 0x82, 0x84, 0xfe}).Draw(t, "edge")
		}
		n := rapid.IntRange(1, 8).Draw(t, "threads")
		i := int64(rapid.OneOf(rapid.IntRange(0, 5), rapid.IntRange(0, 300)).Draw(t, "index"))
		fast, slow := decoder{b: bytes.Clone(b)}, decoder{b: bytes.Clone(b)}
		fp, fx, fe, fend := fast.node(n, i)
		sp, sx, se, send := slow.nodeSlow(n, i)
		if fend != send || fp != sp || fe != se || !reflect.DeepEqual(fx, sx) || !bytes.Equal(fast.b, slow.b) || (fast.err == nil) != (slow.err == nil) {
			t.Fatalf("%v: node reads %d %+v %v end %v (left %v, %v), number by number %d %+v %v end %v (left %v, %v)",
				b, fp, fx, fe, fend, fast.b, fast.err, sp, sx, se, send, slow.b, slow.err)
		}
		// Read into a packed node at once (decodeNodes' shortcut): the
		// node that node reads, allocated as alloc does, and the same
		// bytes left.
		packed := decoder{b: bytes.Clone(b)}
		nd, back, ok := packed.packedNode(n, i)
		if !ok {
			if !bytes.Equal(packed.b, b) {
				t.Fatalf("%v: packedNode refused the node but read %d bytes", b, len(b)-len(packed.b))
			}
			return
		}
		packedNodes++
		var wp, wn wtree
		pid, nid := wp.allocPacked(nd), wn.alloc(fx)
		wn.nodes[nid].extra = fe
		if fend || i-back != fp || wp.nodes[pid] != wn.nodes[nid] || !bytes.Equal(packed.b, fast.b) {
			t.Fatalf("%v: packedNode reads %+v, parent %d (left %v); node reads %+v %v, parent %d, end %v (left %v)",
				b, wp.nodes[pid], i-back, packed.b, fx, fe, fp, fend, fast.b)
		}
	})
	if packedWrites == 0 || packedWrites2 == 0 || packedNodes == 0 {
		t.Errorf("shortcuts not exercised: %d nodes drawn written by packNode, %d by packNode2, %d read by packedNode", packedWrites, packedWrites2, packedNodes)
	}
}
