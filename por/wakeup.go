package por

import (
	"github.com/weftlab/weft/internal/grow"
	"github.com/weftlab/weft/internal/offheap"
	"github.com/weftlab/weft/ts"
)

// Wakeup trees: section 6 of Abdulla, Aronis, Jonsson and Sagonas, "Optimal
// dynamic partial order reduction" (POPL 2014).
//
// A wakeup tree at a state is an ordered tree of sequences of events (each a
// thread, the outcome of its transition and its step) that the search must
// explore from there:
// every leaf is a wakeup sequence, inserted to reverse a race, and the
// children of a node are ordered by insertion, the first being the next to
// explore. Inserting a sequence w descends from the root through the first
// child whose thread is a weak initial of what is left of w, removing that
// thread's first transition from w; reaching a leaf means some sequence
// already in the tree starts an execution equivalent to one starting with w,
// and w is dropped; otherwise what is left of w becomes a new branch.

// wev is an event of a wakeup sequence: a thread, the outcome of its
// transition, and its step. Two outcomes of one transition are two events.
type wev struct {
	t    ts.Tid
	out  int
	step ts.Step
}

// wnode is a node of a wakeup tree: its event, its first child and its next
// sibling (indices in the pool, -1 for none). The event is packed, its
// step's other accesses (ts.Step.Also) kept aside in the pool: a node holds
// no pointer, so that the collector neither scans the pool nor slows its
// growth, and takes 32 bytes, half a wev's node, so that the siblings a
// search reads one after the other share cache lines.
type wnode struct {
	// A thread (at most ts.MaxThreads) and an outcome's index: no search
	// reaches a transition's 2^31st outcome.
	t, out      int32
	obj         ts.Obj
	op          ts.Op
	sync        bool
	extra       bool
	also        int32 // 1 + the index of the step's Also in wtree.also; 0: none
	first, next int32
	// ver is set anew when the node is allocated and, for a unit's root
	// in a coordinator's tree, when the coordinator inserts below it (see
	// the top of parallel.go): such a node and a version stand for one
	// subtree, so that a predictor can write a unit's key from the bytes
	// of an earlier one.
	ver uint32
}

// step returns node n's step, whose Also is in w.
func (w *wtree) step(n *wnode) ts.Step {
	st := ts.Step{Obj: n.obj, Op: n.op, Sync: n.sync}
	if n.also != 0 {
		st.Also = w.also[n.also-1]
	}
	return st
}

// wev returns node i's event.
func (w *wtree) wev(i int32) wev {
	n := &w.nodes[i]
	return wev{t: ts.Tid(n.t), out: int(n.out), step: w.step(n)}
}

// keepAlso keeps a step's Also for a node and returns its wnode.also.
func (w *wtree) keepAlso(also []ts.Access) int32 {
	if k := len(w.alsoSpare); k > 0 {
		a := w.alsoSpare[k-1]
		w.alsoSpare = w.alsoSpare[:k-1]
		w.also[a-1] = also
		return a
	}
	w.also = append(w.also, also)
	return int32(len(w.also))
}

// wtree is a pool of wakeup-tree nodes shared by every frame of a search, so
// that trees cost no allocation once the pool has grown.
type wtree struct {
	nodes []wnode
	// mem is where nodes is once the pool is large (offheap): keep the
	// two together.
	mem   *offheap.Region
	spare []int32
	// also holds the Also of the nodes' steps that have one; alsoSpare the
	// entries of freed nodes (1 + the index, as wnode.also).
	also      [][]ts.Access
	alsoSpare []int32
	// keep: removed nodes are not freed. A predictor's pool is dropped
	// whole when it starts again, and the subtrees it drops are those of
	// the units it hands out, thousands of nodes each, which it would
	// free one by one for nothing.
	keep bool
	// clock is the last version handed out.
	clock uint32
}

func (w *wtree) alloc(x wev) int32 {
	w.clock++
	var also int32
	if x.step.Also != nil {
		also = w.keepAlso(x.step.Also)
	}
	i := w.slot()
	w.nodes[i] = wnode{t: int32(x.t), out: int32(x.out), obj: x.step.Obj, op: x.step.Op, sync: x.step.Sync, also: also, first: -1, next: -1, ver: w.clock}
	return i
}

// allocPacked is alloc for an event already packed in n (decodeNodes reads
// the common node so); its links and version are set here.
func (w *wtree) allocPacked(n wnode) int32 {
	w.clock++
	n.first, n.next, n.ver = -1, -1, w.clock
	i := w.slot()
	w.nodes[i] = n
	return i
}

// slot returns a node's index for a new node: one freed, or a new one.
func (w *wtree) slot() int32 {
	if k := len(w.spare); k > 0 {
		i := w.spare[k-1]
		w.spare = w.spare[:k-1]
		return i
	}
	w.room()
	w.nodes = append(w.nodes, wnode{})
	return int32(len(w.nodes) - 1)
}

// minNodes is the pool's first capacity, in nodes.
const minNodes = 1024

// room makes room for one more node, doubling the pool when it is full.
// append alone grows a large slice by a quarter at a time, and each step
// is new memory that the old copies leave behind: a search that grew its
// pool to 66,000 nodes had allocated five times that on the way (10 MB on
// lastzero-12), and a fresh page costs a fault the first time it is
// written, some 13 microseconds each in a virtual machine. A pool past 2
// MB grows in memory of its own, without copies and in huge pages where
// the system has them (offheap): lastzero-15's search faulted 15,200 times
// before, 5,500 since.
func (w *wtree) room() {
	if len(w.nodes) == cap(w.nodes) {
		w.nodes, w.mem = offheap.Grow(w.nodes, w.mem, max(cap(w.nodes), minNodes))
	}
}

// subtreeStep is a node copySubtree has copied whose next sibling it is
// still to copy: the copy, and the sibling in the source.
type subtreeStep struct{ dst, srcNext int32 }

// copySubtree appends to w a copy of node r of src with its subtree, in
// preorder, and returns the copy of r (its next sibling -1). remap[x], for
// each node x copied, is set to its copy. pend is scratch, returned for
// reuse. w's free list must be empty: the copies take consecutive indices,
// so that a node's first child is the node after it.
func (w *wtree) copySubtree(src *wtree, r int32, remap []int32, pend []subtreeStep) (int32, []subtreeStep) {
	root := int32(len(w.nodes))
	pend = pend[:0]
	x := r
	for {
		k := int32(len(w.nodes))
		n := &src.nodes[x]
		w.room()
		w.nodes = append(w.nodes, wnode{t: n.t, out: n.out, obj: n.obj, op: n.op, sync: n.sync, first: -1, next: -1, extra: n.extra})
		if n.also != 0 {
			w.nodes[k].also = w.keepAlso(src.also[n.also-1])
		}
		remap[x] = k
		if n.first >= 0 {
			w.nodes[k].first = k + 1
			if n.next >= 0 && x != r {
				pend = append(pend, subtreeStep{dst: k, srcNext: n.next})
			}
			x = n.first
			continue
		}
		if n.next >= 0 && x != r {
			w.nodes[k].next = k + 1
			x = n.next
			continue
		}
		if len(pend) == 0 {
			return root, pend
		}
		p := pend[len(pend)-1]
		pend = pend[:len(pend)-1]
		w.nodes[p.dst].next = int32(len(w.nodes))
		x = p.srcNext
	}
}

// addChild appends a child event x to parent's children and returns it.
func (w *wtree) addChild(parent int32, x wev) int32 {
	c := w.alloc(x)
	p := &w.nodes[parent]
	if p.first < 0 {
		p.first = c
		return c
	}
	i := p.first
	for w.nodes[i].next >= 0 {
		i = w.nodes[i].next
	}
	w.nodes[i].next = c
	return c
}

// remove unlinks child c of parent and frees its subtree.
func (w *wtree) remove(parent, c int32) {
	p := &w.nodes[parent]
	if p.first == c {
		p.first = w.nodes[c].next
	} else {
		for i := p.first; i >= 0; i = w.nodes[i].next {
			if w.nodes[i].next == c {
				w.nodes[i].next = w.nodes[c].next
				break
			}
		}
	}
	w.nodes[c].next = -1
	if !w.keep {
		w.free1(c)
	}
}

// free frees node c and its subtree.
func (w *wtree) free(c int32) {
	if !w.keep {
		w.free1(c)
	}
}

func (w *wtree) free1(c int32) {
	for ch := w.nodes[c].first; ch >= 0; {
		next := w.nodes[ch].next
		w.free1(ch)
		ch = next
	}
	if a := w.nodes[c].also; a != 0 {
		w.also[a-1] = nil
		w.alsoSpare = append(w.alsoSpare, a)
	}
	w.spare = grow.Append(w.spare, c)
}

// leaves appends to dst the sequences from below node c to each leaf of its
// subtree (c excluded).
func (w *wtree) leaves(c int32, prefix []wev, dst [][]wev) [][]wev {
	for ch := w.nodes[c].first; ch >= 0; ch = w.nodes[ch].next {
		seq := append(append([]wev(nil), prefix...), w.wev(ch))
		if w.nodes[ch].first < 0 {
			dst = append(dst, seq)
		} else {
			dst = w.leaves(ch, seq, dst)
		}
	}
	return dst
}

// anyOutcome, as the outcome of weakInitial, stands for every outcome of a
// thread: a thread asleep with all of them.
const anyOutcome = -1

// weakInitial reports whether the event of thread q with outcome out (or any
// outcome, for anyOutcome), whose step is st, is a weak initial of the
// sequence w: either q's first event in w is that event and has no
// dependent event before it in w, so it can go first; or q has no event in w
// and st is independent of all of w, so it can go first without changing w's
// outcome (whatever its own outcome).
//
// The second case holds with blocking steps too: a step independent of all
// of w is neither enabled nor disabled by it. It needs every execution to
// run on until no thread can move, which a failed check under KeepGoing
// breaks; initialsOnly then keeps to the first case.
//
// Events of w whose thread is negative have been removed (see insert) and
// are skipped.
func weakInitial(q ts.Tid, out int, st ts.Step, w []wev, initialsOnly bool) bool {
	ok, _ := weakInitialIdx(q, out, &st, w, initialsOnly)
	return ok
}

// weakInitialIdx is weakInitial, which also returns the index in w of q's
// first event (not removed), or -1 if w has none.
func weakInitialIdx(q ts.Tid, out int, st *ts.Step, w []wev, initialsOnly bool) (bool, int) {
	// By index, and with dependent's single-access case inline: on the
	// bundled models this runs a few times per transition. One pass: the
	// events before q's first are tested against st on the way, for the
	// case where q has none (a fifth of the calls on indexer-16, where w
	// is 46 events long; q's first event is mostly w's first, so the tests
	// cost little where it has one).
	stDep := initialsOnly // then only q's first event can be an initial
	single, obj, reads := len(st.Also) == 0, st.Obj, st.Op == ts.Read
	for j := range w {
		x := &w[j]
		if x.t != q {
			if x.t >= 0 && !stDep {
				y := &x.step
				if single && len(y.Also) == 0 { // dependent, inline
					stDep = y.Obj == obj && (y.Op != ts.Read || !reads)
				} else {
					stDep = ts.Dependent(*st, *y)
				}
			}
			continue
		}
		if out != anyOutcome && x.out != out {
			return false, j // another event of q
		}
		xs, xo, xr := len(x.step.Also) == 0, x.step.Obj, x.step.Op == ts.Read
		for k := range j {
			y := &w[k]
			if y.t < 0 {
				continue
			}
			if xs && len(y.step.Also) == 0 { // dependent, inline
				if y.step.Obj == xo && (y.step.Op != ts.Read || !xr) {
					return false, j
				}
			} else if ts.Dependent(y.step, x.step) {
				return false, j
			}
		}
		return true, j
	}
	return !initialsOnly && !stDep, -1
}

// dependent is ts.Dependent, without copying the steps.
func dependent(a, b *ts.Step) bool {
	if len(a.Also) == 0 && len(b.Also) == 0 {
		return a.Obj == b.Obj && (a.Op != ts.Read || b.Op != ts.Read)
	}
	return ts.Dependent(*a, *b)
}

// dependentNode is dependent for node n's step, without building it.
func dependentNode(w *wtree, n *wnode, b *ts.Step) bool {
	if n.also == 0 && len(b.Also) == 0 {
		return n.obj == b.Obj && (n.op != ts.Read || b.Op != ts.Read)
	}
	st := w.step(n)
	return dependent(&st, b)
}

// appendUntaken appends to dst the events of w not taken (thread not
// negative), in order.
func appendUntaken(dst, w []wev) []wev {
	for j := range w {
		if w[j].t >= 0 {
			dst = append(dst, w[j])
		}
	}
	return dst
}

// appendNodes appends to dst the subtree below node r (r excluded) in
// preorder, each node with its parent's index in the list (-1: r), and
// returns with it the indices of the nodes of want, a path down from r.
func (w *wtree) appendNodes(dst []tnode, r int32, want []int32) ([]tnode, []int32) {
	at := make([]int32, 0, len(want))
	dst = w.appendBelow(dst, r, -1, want, &at)
	return dst, at
}

func (w *wtree) appendBelow(dst []tnode, r, parent int32, want []int32, at *[]int32) []tnode {
	for c := w.nodes[r].first; c >= 0; c = w.nodes[c].next {
		i := int32(len(dst))
		if n := len(*at); n < len(want) && want[n] == c {
			*at = append(*at, i)
		}
		dst = append(dst, tnode{parent: parent, x: w.wev(c), extra: w.nodes[c].extra})
		dst = w.appendBelow(dst, c, i, want, at)
	}
	return dst
}
