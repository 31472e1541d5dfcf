package por

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"iter"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/bits-and-blooms/bitset"

	"github.com/weftlab/weft/internal/grow"
	"github.com/weftlab/weft/internal/search"
	"github.com/weftlab/weft/ts"
)

// Parallel search (Options.Workers > 1) for Sleep, DPOR and ODPOR.
//
// The result must be the serial search's, whatever the number of workers:
// the same executions in the same order, hence the same figures, callbacks
// and first violation. The serial search stays the one source of truth, run
// by a coordinator on the caller's goroutine over the top of the search tree
// (the frames above a split depth); each move into the split depth starts a
// unit, the subtree below that move, which the coordinator does not explore
// itself but takes as a result. A unit's exploration reads nothing of the
// coordinator's frames but the states and steps of its prefix: what it does
// to them (DPOR adds to a backtrack set, ODPOR inserts into a wakeup tree)
// is logged and done by the coordinator when it takes the result, at the
// point where the serial search would have done it, since nothing else
// touches those frames while the subtree is explored. So a unit's result is
// a function of its input (the prefix, the sleep set and wakeup subtree at
// its root, and the few facts the analysis learns as it goes), and taking
// it is taking the serial search's steps.
//
// What the coordinator does not know in advance is the input of the units
// after the current one: they depend on what the earlier units log. A
// predictor, a copy of the coordinator, walks ahead as if every unit logged
// nothing, and hands the inputs it meets to workers; the coordinator uses a
// worker's result only if its input equals the one the serial search has at
// that point, and explores the unit itself otherwise. When a result changes
// the coordinator's frames, the predictor starts again from a new copy, and
// the queue forgets the old one's guesses until the new one meets them.
// Results that miss or go stale cost time, never a different answer. The
// coordinator splits after Options.SplitAfter transitions; if it is below
// the split depth then, it finishes the subtree it is in alone, and its
// first predictor starts from a copy cut back to the split frame, as if
// that subtree were a unit handed out (splitHere, skipSubtree).
//
// A restart copies the coordinator's frames and the wakeup subtrees of the
// next units (clone), and the new predictor meets most of the old one's
// units again. Their keys are kilobytes, mostly the subtree, so wakeup
// nodes carry a version (wnode.ver) that the coordinator changes when it
// inserts below a unit's root, and a predictor writes the subtree of a unit
// whose original has the version of one written before from those bytes
// (unitHere, parallel.trees). Only guesses are written so: the coordinator
// writes its own keys from its own tree, and a worker explores the subtree
// its key holds, so a version that missed a change costs a miss. Nor does
// clone copy the units' subtrees (but the one on the coordinator's path):
// it keeps those bytes, or writes the subtree down (fewer bytes than a
// copy, and what the unit's key will hold), and the predictor decodes them
// only where it reads or changes the subtree (materialize), which it seldom
// does; most units it hands out as they are.
//
// The predictor is a coroutine of the coordinator: it walks only when the
// coordinator resumes it (pump), before each result it takes, until it is
// a window of units ahead. The coordinator explores too (the units it
// needs that no worker has started, and queued ones while it waits), so
// Workers goroutines explore in all; a predictor on a goroutine of its own
// waited for a core behind them, and the workers idled meanwhile.

// role is what an explorer does in a search.
type role uint8

const (
	roleSerial      role = iota
	roleCoordinator      // takes the units' results in order
	rolePredictor        // walks ahead, handing out units
	roleWorker           // explores one unit
)

// logOp is something a unit's worker does to a frame of the coordinator.
type logOp struct {
	kind   uint8
	strict bool // opInsert: the analysis' strict flag then
	frame  int32
	// opInsert: the wakeup sequence is the first keep events of the
	// previous opInsert's into the same frame in the log, then w. A
	// worker's reversals into one frame mostly start alike (notdep of one
	// event, up to where executions part), so it copies only what is new.
	keep int32
	t    int32 // opRootChild: the thread; opBacktrack: p
	w    []lev
	// opInsert of a race's reversal, kid is the id of the race's later
	// event in the worker (0: another sequence), prev the log entry of the
	// race's previous reversal into the frame (-1: none) and stable how
	// many first events the two share (see logRaceOf).
	kid          uint64
	prev, stable int32
	bt           *backtrackLog // opBacktrack
}

// backtrackLog is what DPOR's rule read of an execution, for an opBacktrack
// entry: E and the initials of the reversing sequence. Such entries are
// few (22 on indexer-16), and a pointer keeps the others, hundreds of
// thousands of insertions, at 64 bytes each.
type backtrackLog struct {
	inE, init []uint64
}

// lev is an event of a logged wakeup sequence: a wev packed as a wakeup
// tree's node packs it, its step's other accesses (ts.Step.Also) kept in
// the log's table (unitResult.also). A log holds nothing the collector
// scans or write barriers guard, in 16 bytes an event rather than 48:
// workers log the reversals of every race of their events for the
// search's frames, hundreds of megabytes on lastzero-15 (28 MB a search of
// indexer-16, which the search's goroutine reads back from another core),
// and a fresh process pays a page fault for each new page of them. A
// thread fits 16 bits (ts.MaxThreads).
type lev struct {
	t    uint16
	op   ts.Op
	sync bool
	out  int32
	obj  ts.Obj
	also int32 // 1 + the index of the step's Also in the table; 0: none
}

// lev.t holds every thread (the conversion does not compile otherwise).
const _ = uint16(ts.MaxThreads - 1)

// wevOf returns the event x packs, whose step's Also is in also.
func wevOf(x lev, also [][]ts.Access) wev {
	st := ts.Step{Obj: x.obj, Op: x.op, Sync: x.sync}
	if x.also != 0 {
		st.Also = also[x.also-1]
	}
	return wev{t: ts.Tid(x.t), out: int(x.out), step: st}
}

// appendWevs appends to dst the events of w, whose steps' Also are in also.
func appendWevs(dst []wev, w []lev, also [][]ts.Access) []wev {
	n := len(dst)
	dst = slices.Grow(dst, len(w))[:n+len(w)]
	for i := range w {
		x, d := &w[i], &dst[n+i]
		d.t, d.out = ts.Tid(x.t), int(x.out)
		d.step.Obj, d.step.Op, d.step.Sync, d.step.Also = x.obj, x.op, x.sync, nil
		if x.also != 0 {
			d.step.Also = also[x.also-1]
		}
	}
	return dst
}

const (
	opInsert    uint8 = iota // insertAt(frame, w)
	opRootChild              // addRootChild(frame, t)
	opBacktrack              // DPOR's rule at frame with p = t
)

// unit is the input of a unit: plain data, so that a unit can be explored
// anywhere the system can be built.
type unit struct {
	prefix ts.Schedule // from the initial state; its last move leads to the unit's root
	sleep  []ts.Tid    // asleep at the root with every outcome
	psleep []wev       // ODPOR: single outcomes asleep at the root
	tree   []tnode     // ODPOR: the wakeup subtree at the root, in preorder
	// rootHash is, for a system with Hash and a search with a Runner, the
	// hash of the state the prefix's last move is taken from: a worker
	// checks it to refuse a unit of another system.
	rootHash   uint64
	rootHashed bool
	// treeInKey: the subtree is only in key (see encode); unitRoot reads it
	// from there.
	treeInKey bool
	raceFrom  int // ODPOR: the first event whose races are not analysed
	strict    bool
	blocked   []ts.Obj // ODPOR: objects seen waiting, sorted
	// above holds, for ODPOR and DPOR, the sleep set (and DPOR's backtrack
	// set) of each frame of the prefix, which only the unit changes while
	// it is explored: a worker drops the wakeup sequences it would log for
	// a frame whose sleep set rejects them (most of them), as the
	// coordinator's insert would, and applies DPOR's backtrack rule to its
	// own copy of the frame, logging only what adds a backtrack point.
	above []frameSleep
	// key is everything above, encoded (encode); keyb the same
	// bytes, where the unit was encoded to (the coordinator's scratch: it
	// looks its units up without copying them) or decoded from.
	key  string
	keyb []byte
	// subtree, in a predictor's unit whose subtree it encoded (see
	// unitHere): the original of the subtree's root, and where the
	// subtree's encoding is in the key, which emit keeps for the next.
	subtree    srcRef
	subtreeAt  [2]int
	newSubtree bool
}

// frameSleep is a frame's sleep set (the threads asleep with every outcome,
// and single outcomes asleep) and DPOR's backtrack set.
type frameSleep struct {
	sleep  []ts.Tid
	psleep []wev
	bt     []ts.Tid
}

// tnode is a node of a serialized wakeup subtree: its parent's index in the
// list (-1: the root) and its event.
type tnode struct {
	parent int32
	x      wev
	extra  bool
}

// unitEvent is a terminal state or a violation a unit met, in order.
type unitEvent struct {
	state any
	sched ts.Schedule
	viol  *ts.Violation
	// remote: explored elsewhere (Options.Runner), the event is its
	// schedule only (and the violation's kind, thread and message): the
	// coordinator replays it for the state and the violation.
	remote bool
}

// unitResult is what exploring a unit gives.
type unitResult struct {
	log                      []logOp
	chunks                   [][]lev       // where log's sequences are (wevPool)
	also                     [][]ts.Access // the Also of their events' steps
	transitions, executions  int64
	sleepBlocked, backtracks int64
	replays, infeasible      int64
	waitingSleepers          int64
	events                   []unitEvent
	// Without every violation as an event (exploreUnit): the unit's first
	// violation and how many it met.
	viol                          *ts.Violation
	violations                    int64
	err                           error
	stop                          bool // the unit stopped the search (not for a limit)
	limited                       bool // a limit stopped it
	raceFrom                      int
	strict                        bool
	blocked                       []ts.Obj
	maxTransitions, maxExecutions int64 // the limits it ran under (0: none)
	cancelled                     bool  // stopped by the pool, not finished
	cut                           bool  // passed Options.UnitTransitions: to be split further
	moves                         int   // the prefix length, for checks
	// rest, if not nil: the worker explored the unit in part and handed
	// back the rest (handBack); the figures and log are of that part.
	rest *unitRest
}

// unitRest is what is left of a unit whose worker handed it back at the
// end of a branch (leaveRest): the wakeup tree below the unit's root (the
// branches not explored, and those being explored on the worker's path),
// and each frame of that path from the root down to the one where the
// branch ended, as the worker left it, for the coordinator to go on from
// there as the worker would have (resume).
type unitRest struct {
	tree   []tnode
	frames []restFrame
	// units is where the units of the rest start, in frames below the
	// root: the first frame of the path with a branch left but the one
	// being explored, whose other branches the goroutines with nothing to
	// do then take (the coordinator finishes the one it is in alone).
	units int
}

// restFrame is a frame of a handed-back unit's path: the branch being
// explored from it (an index in unitRest.tree; -1 at the last frame), its
// sleep sets and the moves taken from it, and whether the event that
// reached it races with nothing (event.done).
type restFrame struct {
	cur    int32
	sleep  []ts.Tid
	psleep []wev
	taken  []ts.Move
	done   bool
}

// Handing back the rest of a unit. A unit's size is known only once it is
// explored, and near the end of a search one large unit can keep a worker
// busy while the others have nothing left. A goroutine that waits with
// nothing to explore (parallel.hungry) makes an ODPOR unit's worker that
// has explored handBackAfter transitions stop where its next branch ends
// and hand back what it explored with what is left; the coordinator takes
// that as the unit's result and goes on from there itself, as the top of
// the search, and the other branches of the shallowest frame of the path
// that has any become units for the goroutines with nothing to do
// (resume). Between two branches a unit's whole state is its path's
// frames (their wakeup trees, sleep sets and moves taken), with which of
// their events race with nothing; the frames above are the coordinator's,
// which took the log. Where the units start never changes the serial
// search, so handing back never changes the result; it costs the
// coordinator a new predictor.
const handBackAfter = 2_000

// leaveRest ends a unit's exploration where the branch being explored from
// frame f, the top one, has ended, leaving in e.rest what is left, and
// reports whether anything is (the unit's worker).
func (e *explorer[S]) leaveRest(f *frame[S]) bool {
	e.branchDone(f)
	top := e.depth - 1
	units := -1
	for i := e.base; i <= top; i++ {
		g := &e.stack[i]
		c := e.wt.nodes[g.root].first
		if (i < top && (c != g.cur || e.wt.nodes[c].next >= 0)) || (i == top && c >= 0) {
			units = i - e.base + 1
			break
		}
	}
	if units < 0 {
		return false
	}
	rest := &unitRest{units: units, frames: make([]restFrame, top-e.base+1)}
	want := make([]int32, 0, top-e.base)
	for i := e.base; i < top; i++ {
		want = append(want, e.stack[i].cur)
	}
	var at []int32
	rest.tree, at = e.wt.appendNodes(nil, e.stack[e.base].root, want)
	for j := range rest.frames {
		g, x := &e.stack[e.base+j], &e.ev[e.base-1+j]
		rf := &rest.frames[j]
		rf.cur = -1
		if j < len(at) {
			rf.cur = at[j]
		}
		rf.sleep, rf.psleep, rf.taken = tids(&g.sleep), slices.Clone(g.psleep), slices.Clone(g.taken)
		rf.done = x.done
	}
	e.rest = rest
	return true
}

// handBackRule is when a unit's worker hands back the rest of the unit:
// once it has explored from transitions, where a branch ends, if always or
// a goroutine is hungry.
type handBackRule struct {
	from   int64
	always bool
	hungry *atomic.Int32
}

// unitHandBack returns the rule of a unit explored with
// Options.UnitTransitions at unitTransitions (0: nil): an ODPOR unit that
// passes them hands back the rest where the branch it is in ends.
func unitHandBack(unitTransitions int64) *handBackRule {
	if unitTransitions <= 0 {
		return nil
	}
	return &handBackRule{from: unitTransitions, always: true}
}

// resume goes on from where the worker of the unit of move mv (just taken
// from the top frame) handed the rest back (leaveRest), in a result the
// search has taken: it moves along the worker's path as the top of the
// search, as expand does, each frame taking the rest as the worker left
// it, and hands out as units the other branches of the rest's shallowest
// frame that has any, finishing alone what is below it.
func (e *explorer[S]) resume(mv ts.Move, rest *unitRest) {
	k := e.depth - 1
	e.par.handedBack++
	raceFrom := e.raceFrom // the worker's, which commit took
	var ids []int32
	for j := range rest.frames {
		f := &e.stack[k+j]
		if j > 0 {
			c := f.cur
			mv = ts.Move{Thread: ts.Tid(e.wt.nodes[c].t), Outcome: int(e.wt.nodes[c].out)}
			if f.status[mv.Thread] != ts.Enabled || mv.Outcome >= f.outs[mv.Thread] {
				// Only bytes from elsewhere (a runner's) can say so.
				e.Fail(fmt.Errorf("%w: a handed-back unit's path takes %v, not enabled", ErrBadUnit, mv))
				return
			}
			e.sched = append(e.sched[:k+j], mv)
			e.nextRoot = c
		}
		e.resuming = true
		e.move(f, mv)
		e.resuming = false
		e.res.Transitions-- // the unit's worker counted it
		if e.depth != k+j+2 {
			return // the search failed (a system's error, the memory budget)
		}
		g := &e.stack[k+j+1]
		if j == 0 {
			for c := e.wt.nodes[g.root].first; c >= 0; c = e.wt.nodes[g.root].first {
				e.wt.remove(g.root, c)
			}
			ids = e.wt.build(g.root, rest.tree)
		}
		rf := &rest.frames[j]
		clearSet(&g.sleep)
		for _, t := range rf.sleep {
			g.sleep.Set(uint(t))
		}
		g.psleep = append(g.psleep[:0], rf.psleep...)
		g.taken = append(g.taken[:0], rf.taken...)
		g.cur, g.tried = -1, true
		if rf.cur >= 0 {
			g.cur = ids[rf.cur]
		}
		e.ev[k+j].done = rf.done
	}
	e.raceFrom = raceFrom
	d := k + 1 + rest.units
	e.expanded = append(e.expanded, expansion{at: int32(k + 1), units: int32(d)})
	e.alone = e.depth > d
	e.par.restart(e)
}

func bitsOf(b *bitset.BitSet) []uint64 { return slices.Clone(b.Words()) }

func fromBits(dst *bitset.BitSet, w []uint64) {
	dst.ClearAll()
	for i, x := range w {
		for x != 0 {
			j := 0
			for x&(1<<j) == 0 {
				j++
			}
			dst.Set(uint(i*64 + j))
			x &^= 1 << j
		}
	}
}

// encode writes u's input into u.keyb, reusing buf's array (u.key is left
// to the caller: a string is made only for a unit handed out). With w, the
// wakeup subtree is node r's of w, and the prefix frames' sleep sets are
// above's (one call per frame), written straight into the key (u.tree and
// u.above are left empty, treeInKey set): most units handed out are never
// explored, and a subtree can have thousands of nodes. walk is scratch for
// the tree's walk.
//
// tree, if known, is the subtree's encoding, written as it is instead of
// r's subtree; from and to are where the subtree's encoding is in the key.
func (u *unit) encode(buf []byte, w *wtree, r int32, above func(i int) (*bitset.BitSet, []wev), walk *[]int32, tree string, known bool) (from, to int) {
	c := encoder{b: buf[:0]}
	c.num(int64(len(u.prefix)))
	for _, mv := range u.prefix {
		c.num(int64(mv.Thread))
		c.num(int64(mv.Outcome))
	}
	c.num(int64(len(u.sleep)))
	for _, t := range u.sleep {
		c.num(int64(t))
	}
	c.psleep(u.psleep)
	// The subtree's nodes in preorder, each as how far back in the list
	// its parent is (the subtree's root counts as at -1), its event and
	// whether it is extra; 0 ends them. The distance, not the parent's
	// index, so that it takes one byte in most nodes: the subtrees hold
	// long chains and thousands of nodes.
	from = len(c.b)
	if known {
		c.b = append(c.b, tree...)
		u.treeInKey = true
	} else if w != nil {
		c.b, _ = appendSubtree(c.b, w, r, walk)
		u.treeInKey = true
	} else {
		for i, n := range u.tree {
			c.node(int32(i)-n.parent, n.x, n.extra)
		}
	}
	to = len(c.b)
	c.num(0)
	c.num(int64(u.raceFrom))
	flags := int64(0)
	if u.strict {
		flags |= 1
	}
	c.num(flags)
	c.num(int64(len(u.blocked)))
	for _, o := range u.blocked {
		c.num(int64(o))
	}
	if above != nil {
		c.num(int64(len(u.prefix)))
		for i := range u.prefix {
			bits, psleep := above(i)
			c.num(int64(bits.Count()))
			for t, ok := bits.NextSet(0); ok; t, ok = bits.NextSet(t + 1) {
				c.num(int64(t))
			}
			c.psleep(psleep)
			c.num(0) // no backtrack set
		}
	} else {
		c.num(int64(len(u.above)))
		for _, a := range u.above {
			c.num(int64(len(a.sleep)))
			for _, t := range a.sleep {
				c.num(int64(t))
			}
			c.psleep(a.psleep)
			c.num(int64(len(a.bt)))
			for _, t := range a.bt {
				c.num(int64(t))
			}
		}
	}
	u.keyb = c.b
	return from, to
}

// appendSubtree appends to b the nodes of node r's subtree in w (r
// excluded), as a unit's key holds them (see unit.encode), and returns b
// and how many nodes it wrote. walk is scratch.
func appendSubtree(b []byte, w *wtree, r int32, walk *[]int32) ([]byte, int) {
	c := encoder{b: b}
	// stack holds, for each node on the path, its index in the list and
	// the next child to write.
	stack := (*walk)[:0]
	i := int32(0)
	stack = append(stack, -1, w.nodes[r].first)
	for len(stack) > 0 {
		k := len(stack) - 2
		parent, ch := stack[k], stack[k+1]
		if ch < 0 {
			stack = stack[:k]
			continue
		}
		n := &w.nodes[ch]
		stack[k+1] = n.next
		c.b = grow.Slice(c.b, 9) // a packed node: keys of large subtrees grow to megabytes
		if x, ok := packNode(n, i-parent); ok {
			c.b = binary.LittleEndian.AppendUint64(c.b, x)
		} else if x, last, ok := packNode2(n, i-parent); ok {
			c.b = append(binary.LittleEndian.AppendUint64(c.b, x), last)
		} else {
			c.node(i-parent, w.wev(ch), n.extra)
		}
		stack = append(stack, i, n.first)
		i++
	}
	*walk = stack
	return c.b, int(i)
}

// keyString returns u's key as a string, making it from u.keyb once.
func (u *unit) keyString() string {
	if u.key == "" {
		u.key = grow.String(u.keyb)
	}
	return u.key
}

// unitHere returns the unit of move mv from the top frame, whose child
// sleep set and wakeup subtree take has just set.
func (e *explorer[S]) unitHere(mv ts.Move) *unit {
	k := e.depth - 1
	u := &unit{prefix: e.sched[:k+1].Clone(), strict: e.strict}
	for t, ok := e.nextSleep.NextSet(0); ok; t, ok = e.nextSleep.NextSet(t + 1) {
		u.sleep = append(u.sleep, ts.Tid(t))
	}
	u.psleep = slices.Clone(e.nextPsleep)
	if e.mode == modeODPOR {
		u.raceFrom = e.raceFrom
		for o := range e.blockedObjs {
			u.blocked = append(u.blocked, o)
		}
		slices.Sort(u.blocked)
	}
	if e.mode == modeDPOR {
		u.above = make([]frameSleep, k+1)
		for i := range u.above {
			f := &e.stack[i]
			u.above[i].sleep, u.above[i].bt = tids(&f.sleep), tids(&f.bt)
		}
	}
	if e.par != nil && e.par.runner != nil && e.m.Hasher != nil {
		u.rootHash, u.rootHashed = e.m.Hasher.Hash(e.stack[k].state), true
	}
	if e.mode == modeODPOR {
		// A predictor's copy of a subtree the coordinator has not changed
		// since an earlier predictor wrote it: the same bytes. Only a
		// guess's key is written so (the coordinator writes its own from
		// its tree), so a version gone wrong costs a miss, not a result.
		// (Only a predictor has e.src: the coordinator must not read
		// trees, which the predictor writes as it goes.)
		ref, mapped := e.src[e.nextRoot]
		// A subtree clone did not copy: the bytes it wrote or found.
		lt, lazy := e.lazy[e.nextRoot]
		tree, reuse := lt.s, lazy
		if mapped && !lazy {
			t, ok := e.par.trees[ref.node]
			tree, reuse = t.s, ok && t.ver == ref.ver
		}
		above := func(i int) (*bitset.BitSet, []wev) { return &e.stack[i].sleep, e.stack[i].psleep }
		from, to := u.encode(e.keyBuf, &e.wt, e.nextRoot, above, &e.walkBuf, tree, reuse)
		switch {
		case mapped && (!reuse || lt.fresh):
			// emit keeps it, as part of the key's string.
			u.subtree, u.subtreeAt, u.newSubtree = ref, [2]int{from, to}, true
		case reuse && e.opt.checkKeys:
			e.par.reusedKeys++
			if lazy {
				// clone compared the bytes with the coordinator's subtree,
				// and whatever changes it since materializes it first.
				if !mapped {
					e.par.staleKeys++
				}
				break
			}
			fresh := &unit{prefix: u.prefix, sleep: u.sleep, psleep: u.psleep, raceFrom: u.raceFrom, strict: u.strict, blocked: u.blocked}
			fresh.encode(nil, &e.wt, e.nextRoot, above, &e.walkBuf, "", false)
			if !bytes.Equal(fresh.keyb, u.keyb) {
				e.par.staleKeys++
			}
		}
	} else {
		u.encode(e.keyBuf, nil, 0, nil, nil, "", false)
	}
	e.keyBuf = u.keyb
	return u
}

// build adds the serialized subtree under node r.
func (w *wtree) build(r int32, tree []tnode) []int32 {
	ids := make([]int32, len(tree))
	for i, n := range tree {
		parent := r
		if n.parent >= 0 {
			parent = ids[n.parent]
		}
		ids[i] = w.addChild(parent, n.x)
		w.nodes[ids[i]].extra = n.extra
	}
	return ids
}

// exploreUnit explores unit u of sys in mode m with a new explorer and
// returns its result. limits are the transition and execution budgets it
// may use (0: none).
//
// A positive cut stops the exploration after that many transitions, short
// of maxT: the result is then only that the unit is too large (r.cut).
//
// With everyViolation, each violation is an event of the result, with its
// trace; without, as for a search with no OnViolation, only the unit's
// first has a trace (r.viol) and the others are counted (r.violations),
// as the serial search counts those after its first: building every trace
// tripled the time of bluetooth-4's Sleep search with 2 workers.
func exploreUnit[S any](ctx context.Context, sys ts.TransitionSystem[S], model *search.Model[S], opt Options, m mode, u *unit, maxT, maxE, cut int64, ex **explorer[S], pool *wevPool, everyViolation bool, handBack *handBackRule) *unitResult {
	cutting := cut > 0 && (maxT == 0 || cut < maxT)
	if cutting {
		maxT = cut
	}
	opt.Limits.Transitions, opt.Limits.Executions = maxT, maxE
	opt.Progress = nil
	r := &unitResult{maxTransitions: maxT, maxExecutions: maxE, moves: len(u.prefix)}
	if opt.OnTerminal != nil {
		opt.OnTerminal = func(s any, sched ts.Schedule) {
			r.events = append(r.events, unitEvent{state: s, sched: sched.Clone()})
		}
	}
	opt.OnViolation = nil
	if everyViolation {
		opt.OnViolation = func(v *ts.Violation) { r.events = append(r.events, unitEvent{viol: v}) }
	}
	var res ts.Result
	var e *explorer[S]
	pub := int64(0) // what the explorer counted in the search's memory for its last unit
	if *ex != nil {
		e = *ex
		pub = e.memPub
		e.recycle(ctx, opt, &res)
	} else {
		e = newExplorer(ctx, sys, model, opt, m, &res, true)
		*ex = e
	}
	e.role = roleWorker
	if pool != nil {
		e.mem, e.memPub = &pool.mem, pub
	}
	if m == modeODPOR && handBack != nil {
		e.handBackFrom, e.handBackAlways, e.hungry = handBack.from, handBack.always, handBack.hungry
	}
	e.pool, e.log = pool, pool.logOps()
	e.logGen++ // a new log: what the explorer logged before is not in it
	e.raceFrom, e.strict = u.raceFrom, u.strict
	for _, o := range u.blocked {
		e.blockObj(o)
	}
	err := e.Drive(func() { e.unitRoot(u) }, e.loop, e.panicked)
	r.log, r.chunks, r.also = e.log, e.logChunks, e.logAlso
	e.log, e.logChunks, e.logAlso = nil, nil, nil
	r.rest, e.rest, e.handBackFrom = e.rest, nil, 0
	r.transitions, r.executions = res.Transitions, res.Executions
	if !everyViolation {
		r.viol, r.violations = res.Violation, res.Violations
	}
	r.sleepBlocked, r.backtracks, r.replays, r.infeasible = e.sleepBlocked, e.backtracks, e.replays, e.infeasible
	r.waitingSleepers = e.waitingSleepers
	r.err = err
	l := opt.Limits
	r.limited = err == nil && e.Stop && ((l.Transitions > 0 && res.Transitions >= l.Transitions) || (l.Executions > 0 && res.Executions >= l.Executions))
	if cutting && r.limited && res.Transitions >= cut {
		// Too large: the search splits it further. What it found is
		// dropped (the search finds it again below).
		pool.put(r)
		return &unitResult{cut: true, transitions: res.Transitions, maxTransitions: maxT, maxExecutions: maxE, moves: len(u.prefix)}
	}
	r.stop = e.Stop && !r.limited
	r.cancelled = err != nil && ctx.Err() != nil
	r.raceFrom = e.raceFrom
	r.strict = e.strict
	for o := range e.blockedObjs {
		r.blocked = append(r.blocked, o)
	}
	slices.Sort(r.blocked)
	return r
}

// recycle makes e, whose search is over, ready for another of the same
// system and mode with options opt filling res, keeping its buffers.
func (e *explorer[S]) recycle(ctx context.Context, opt Options, res *ts.Result) {
	e.start(ctx, e.sys, e.m, opt, e.mode, res)
	// Its events may come from another explorer (clone): backtrackAll
	// starts its record over, above their ids.
	e.ruled = nil
}

// unitRoot sets up a unit's search: the frames of its prefix, replayed from
// the initial state (the coordinator's, read-only), then the move into the
// unit's root, taken as the serial search takes it.
func (e *explorer[S]) unitRoot(u *unit) {
	s := e.sys.Init()
	k := len(u.prefix) - 1
	last := ts.Tid(-1)
	for i := 0; ; i++ {
		if !e.pushPrefix(s, last) {
			return
		}
		if i == k {
			break
		}
		mv := u.prefix[i]
		f := &e.stack[i]
		f.taken = append(f.taken[:0], mv)
		e.sched = append(e.sched[:i], mv)
		e.pushEvent(mv.Thread, mv.Outcome, f.steps[mv.Thread])
		s = e.m.Apply(s, mv)
		last = mv.Thread
	}
	// pushEvent lowered nothing: the analysis state is the input's.
	e.raceFrom = u.raceFrom
	e.base = e.depth
	top := &e.stack[k]
	mv := u.prefix[k]
	e.nextSleep.ClearAll()
	for _, t := range u.sleep {
		e.nextSleep.Set(uint(t))
	}
	e.nextPsleep = append(e.nextPsleep[:0], u.psleep...)
	e.nextRoot = -1
	above := u.above
	if e.mode == modeODPOR {
		e.nextRoot = e.wt.alloc(wev{t: mv.Thread, out: mv.Outcome, step: top.steps[mv.Thread]})
		if u.treeInKey {
			kb := u.keyb
			if kb == nil {
				// A view of the string, not a copy (keys are kilobytes,
				// mostly the subtree): decodeKey only reads it, and the
				// decoded unit, kept for its sleep sets, goes with it.
				kb = unsafe.Slice(unsafe.StringData(u.key), len(u.key))
			}
			in, err := decodeKey(kb, e.n, &e.wt, e.nextRoot, &e.treeIDs)
			if err != nil {
				e.Fail(fmt.Errorf("por: a unit's own key does not decode: %w", err))
				return
			}
			above = in.above
		} else {
			e.wt.build(e.nextRoot, u.tree)
		}
	}
	e.setAbove(k, above)
	top.taken = append(top.taken[:0], mv)
	e.sched = append(e.sched[:k], mv)
	e.move(top, mv)
}

// tids lists the threads of set b.
func tids(b *bitset.BitSet) []ts.Tid {
	var l []ts.Tid
	for t, ok := b.NextSet(0); ok; t, ok = b.NextSet(t + 1) {
		l = append(l, ts.Tid(t))
	}
	return l
}

// setAbove sets the sleep and backtrack sets of frames 0 to k, a unit's
// prefix, to above's, for insertAt's filter and backtrackAt; none known
// (aboveKnown false) rejects nothing.
func (e *explorer[S]) setAbove(k int, above []frameSleep) {
	e.aboveKnown = len(above) == k+1
	for i := 0; i <= k; i++ {
		f := &e.stack[i]
		f.sleep.ClearAll()
		f.bt.ClearAll()
		f.psleep = f.psleep[:0]
		if e.aboveKnown {
			for _, t := range above[i].sleep {
				f.sleep.Set(uint(t))
			}
			for _, t := range above[i].bt {
				f.bt.Set(uint(t))
			}
			f.psleep = append(f.psleep, above[i].psleep...)
		}
	}
}

// pushPrefix pushes a frame for state s of a unit's prefix, reached by
// thread last: what the race analysis reads of it (steps, status, counts,
// the state for replays), not what the search does from it.
func (e *explorer[S]) pushPrefix(s S, last ts.Tid) bool {
	if e.depth == len(e.stack) {
		e.growStack()
	}
	f := &e.stack[e.depth]
	c, err := e.m.Look(s, f.steps, f.status, f.outs, &e.current)
	if err != nil {
		e.Fail(search.WithSchedule(err, e.sched[:len(e.ev)]))
		return false
	}
	f.state, f.last, f.multi, f.hashed, f.after = s, last, c.Moves > 1, false, false
	if e.m.Hasher != nil && c.Moves > 1 && !e.flat {
		e.current = -1
		f.hash, f.hashed = e.m.Hasher.Hash(s), true
	}
	f.taken = f.taken[:0]
	if e.depth > 0 {
		copy(f.count, e.stack[e.depth-1].count)
		f.count[last]++
	} else {
		clear(f.count)
	}
	e.depth++
	return true
}

// delegate hands the unit of move mv, just taken from the top frame, to
// the parallel machinery: the predictor hands it out and goes on as if the
// unit logged nothing; the coordinator takes its result.
func (e *explorer[S]) delegate(mv ts.Move) {
	u := e.unitHere(mv)
	if e.role == rolePredictor {
		if !e.par.emit(u, int(e.gen)) {
			e.Stop = true // a newer predictor took over
		}
		// What the unit leaves when it logs nothing: its events analysed.
		e.raceFrom = e.depth - 1
		return
	}
	r, onTrack := e.par.result(e, u)
	if r.cut {
		e.expand(mv)
		return
	}
	changed, planOnly := e.commit(r)
	if rest := r.rest; rest != nil {
		e.par.pool.put(r)
		e.par.pool.putChunks(&e.planChunks)
		if !e.Stop {
			e.resume(mv, rest)
		}
		return
	}
	small := e.par.tooSmall(r.transitions)
	e.par.pool.put(r)
	if small && !e.Stop {
		// Units of a few transitions cost more than they save: split one
		// frame higher from here, with a new predictor.
		e.split--
		e.par.split = e.split
		e.par.pool.putChunks(&e.planChunks)
		e.par.restart(e)
		return
	}
	switch {
	case !onTrack:
	case !changed:
		e.par.pool.putChunks(&e.planChunks)
		return
	case planOnly && e.par.forward(e.plans, &e.planChunks):
		// The predictor takes the new branches where it stands.
		return
	}
	e.par.pool.putChunks(&e.planChunks)
	// The predictor went astray, or cannot follow what the result
	// changed: start it again from here.
	e.par.restart(e)
}

// expand explores the subtree below move mv, a unit too large
// (Options.UnitTransitions), as the top of the search: its own units start
// expandDepth frames further down. The serial search is the same whatever
// the units, so the result does not change.
func (e *explorer[S]) expand(mv ts.Move) {
	k := e.depth - 1
	e.par.expanded++
	d := e.unitDepth() + expandDepth
	e.move(&e.stack[k], mv)
	if e.depth == k+2 {
		e.expanded = append(e.expanded, expansion{at: int32(k + 1), units: int32(d)})
	}
	e.par.restart(e)
}

// expansion is a frame whose subtree the search explores itself instead of
// as a unit (expand, resume): until it pops the frame at, its units are
// the moves into frame units.
type expansion struct{ at, units int32 }

// unitDepth returns the depth of the frames that moves into start units.
func (e *explorer[S]) unitDepth() int {
	if n := len(e.expanded); n > 0 {
		return int(e.expanded[n-1].units)
	}
	return e.split
}

// expandDepth is how much deeper the units of a unit split further start.
const expandDepth = 4

// commit takes a unit's result as the serial search's own steps, and
// reports whether the frames or the analysis state changed otherwise than
// the predictor assumed.
func (e *explorer[S]) commit(r *unitResult) (changed, planOnly bool) {
	before := e.backtracks
	strict := e.strict
	e.plans, e.planSched = e.plans[:0], nil
	e.par.logged += int64(len(r.log))
	e.recording = e.mode == modeODPOR
	defer func() { e.recording = false; e.endCommit(len(r.log)) }()
	for k := range e.commitSeqs {
		cs := &e.commitSeqs[k]
		cs.ix.truncate(cs.w, 0)
		cs.w, cs.same, cs.strict = cs.w[:0], false, false
	}
	for i := range r.log {
		op := &r.log[i]
		f := &e.stack[op.frame]
		switch op.kind {
		case opInsert:
			cs := e.commitSeqAt(op.frame)
			// The same sequence as the frame's last, which changed nothing
			// there, into the same tree (only this frame's entries change
			// it): it changes nothing again.
			repeat := cs.same && cs.strict == op.strict && len(op.w) == 0 && int(op.keep) == len(cs.w)
			cs.ix.truncate(cs.w, int(op.keep))
			cs.w = appendWevs(cs.w[:op.keep], op.w, r.also)
			if repeat {
				e.par.repeated++
				continue
			}
			// The worker's sleep verdict is this frame's (its sleep set is
			// part of the unit's input), on the whole reversal.
			e.strict = op.strict
			if !e.opt.noDescents {
				e.commitDescent(r.log, i)
			}
			if len(cs.w) > e.chainLen(indexMin) {
				// Its tests read the index (seqIndex), extended to the
				// whole sequence.
				cs.ix.extend(cs.w, e.n)
				e.seqIdx = &cs.ix
			}
			changed := e.insertAwake(int(op.frame), cs.w)
			e.seqIdx = nil
			cs.same, cs.strict = !changed, op.strict
			e.descent, e.descentOK = nil, false
		case opRootChild:
			if e.addRootChild(op.frame, ts.Tid(op.t)) {
				e.commitSeqAt(op.frame).same = false
			}
		case opBacktrack:
			fromBits(&e.inE, op.bt.inE)
			if e.scanE(f, ts.Tid(op.t), &e.inE) {
				fromBits(&e.init, op.bt.init)
				e.backtrackInitials(f, &e.init)
			}
		}
	}
	other := r.strict != strict ||
		len(r.blocked) != len(e.blockedObjs) || (e.mode == modeODPOR && r.raceFrom != e.depth-1)
	changed = e.backtracks != before || other
	planOnly = !other && len(e.plans) == int(e.backtracks-before)
	e.backtracks += r.backtracks
	e.res.Transitions += r.transitions
	e.res.Executions += r.executions
	e.par.spentT.Store(e.res.Transitions)
	e.par.spentE.Store(e.res.Executions)
	e.sleepBlocked += r.sleepBlocked
	e.replays += r.replays
	e.infeasible += r.infeasible
	e.waitingSleepers += r.waitingSleepers
	e.strict = r.strict
	for _, o := range r.blocked {
		e.blockObj(o)
	}
	e.raceFrom = r.raceFrom
	for _, ev := range r.events {
		if ev.remote {
			if e.remoteEvent(ev) {
				continue
			}
			break
		}
		if ev.viol != nil {
			e.Record(ev.viol)
			continue
		}
		if e.opt.OnTerminal != nil {
			search.Callback("OnTerminal", func() { e.opt.OnTerminal(ev.state, ev.sched) })
		}
	}
	if r.violations > 0 {
		e.Record(r.viol)
		e.res.Violations += r.violations - 1
	}
	if r.err != nil {
		e.Fail(r.err)
	}
	if r.stop || r.limited {
		e.Stop = true
	}
	return changed, planOnly
}

// logShared returns how many first events the wakeup sequence w, which a
// worker logs for frame i, shares with the last it logged for that frame in
// the same log, and makes w that last.
func (e *explorer[S]) logShared(i int, w []wev) int {
	for len(e.logLast) <= i {
		e.logLast = append(e.logLast, nil)
		e.logLastGen = append(e.logLastGen, 0)
		e.logLastIDs = append(e.logLastIDs, logIDs{})
	}
	last, li := e.logLast[i], &e.logLastIDs[i]
	n, same := 0, 0
	if e.logLastGen[i] == e.logGen {
		if e.logRace && li.ok {
			// The first events that are still the same events of the
			// execution are equal without comparing them.
			same = e.stillShared(li.pos, li.ids, e.seqPos)
			n = same
		}
		for n < len(w) && n < len(last) && sameWev(&w[n], &last[n]) {
			n++
		}
	}
	e.logLast[i] = append(last[:n], w[n:]...)
	e.logLastGen[i] = e.logGen
	li.ok = e.logRace
	if li.ok {
		li.pos = append(li.pos[:same], e.seqPos[same:]...)
		li.ids = li.ids[:same]
		for _, p := range e.seqPos[same:] {
			li.ids = append(li.ids, e.ev[p].id)
		}
	}
	return n
}

// logIDs is, for a coordinator's frame, the execution's events of the last
// sequence a worker logged for it but its last event, by position and id,
// where that sequence was a race's reversal built from them (logRace).
type logIDs struct {
	pos []int32
	ids []uint64
	ok  bool
}

// stillShared returns how many first events of the sequence of the
// execution's events seq (positions) are those of an earlier one, pos with
// ids: while an event stays, so do the events before it, so those still in
// the execution are a prefix, found by bisection, and the sequences built
// from the same events up to them are the same.
func (e *explorer[S]) stillShared(pos []int32, ids []uint64, seq []int32) int {
	lo := e.stillThere(pos, ids, len(seq))
	if lo > 0 && pos[lo-1] != seq[lo-1] {
		return 0
	}
	return lo
}

// stillThere returns how many of the first events pos (with ids), at most
// n, are still the execution's.
func (e *explorer[S]) stillThere(pos []int32, ids []uint64, n int) int {
	lo, hi := 0, min(len(pos), n)
	for lo < hi {
		mid := (lo + hi) / 2
		if p := pos[mid]; int(p) < len(e.ev) && e.ev[p].id == ids[mid] {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// commitSeq is, in a coordinator taking a log's entries in order, the last
// wakeup sequence of an entry into a frame (an entry's sequence is the
// first logOp.keep events of it, then logOp.w), whether its insertion
// changed nothing (same) and with which strict flag.
type commitSeq struct {
	w            []wev
	same, strict bool
	ix           seqIndex // w's first events indexed, for insertMarking's tests
}

// commitSeqAt returns frame i's commitSeq.
func (e *explorer[S]) commitSeqAt(i int32) *commitSeq {
	for len(e.commitSeqs) <= int(i) {
		e.commitSeqs = append(e.commitSeqs, commitSeq{})
	}
	return &e.commitSeqs[i]
}

// valid reports whether result r, found by a worker for unit ran (whose
// key is u's), is the serial search's at a point where its input is u and
// the budgets left are maxT and maxE (0: none).
func (r *unitResult) valid(ran, u *unit, maxT, maxE int64) bool {
	if r.cancelled {
		return false
	}
	if r.limited {
		return r.maxTransitions == maxT && r.maxExecutions == maxE
	}
	if maxT > 0 && r.transitions > maxT {
		return false
	}
	if maxE > 0 && r.executions >= maxE {
		return false
	}
	return true
}

func trim(w []uint64) []uint64 {
	for len(w) > 0 && w[len(w)-1] == 0 {
		w = w[:len(w)-1]
	}
	return w
}

// clone returns a predictor: a copy of the coordinator e's search state
// (its frames, events and analysis state) over system sys, with no
// callbacks and no budgets.
// c, if not nil, is a previous predictor, stopped, whose buffers the copy
// reuses.
func (e *explorer[S]) clone(sys ts.TransitionSystem[S], model *search.Model[S], ctx context.Context, gen int64, copied bool, c *explorer[S]) *explorer[S] {
	opt := e.opt
	opt.OnTerminal, opt.OnViolation, opt.Progress = nil, nil, nil
	opt.Limits.Transitions, opt.Limits.Executions = 0, 0
	res := &ts.Result{}
	pub := int64(0) // what a previous predictor has counted of its buffers
	if c == nil {
		c = newExplorer(ctx, sys, model, opt, e.mode, res, false)
	} else {
		pub = c.memPub
		c.recycle(ctx, opt, res)
	}
	c.role, c.split, c.par, c.gen = rolePredictor, e.split, e.par, gen
	c.mem, c.memPub = e.mem, pub
	c.wt.keep = true
	c.strict, c.raceFrom = e.strict, e.raceFrom
	for o := range e.blockedObjs {
		c.blockObj(o)
	}
	// The wakeup trees, renumbered: the nodes reachable from the frames
	// (the pool keeps freed ones too), and of those only the first in the
	// search's order. The trees hold every branch planned and can be large;
	// the predictor walks only a few units ahead, and beyond that a tree
	// cut short only makes it guess wrong. The current path is the
	// leftmost (a frame explores its first branch), so it is copied first.
	var remap []int32 // a node of e's pool to the copy's
	if e.mode == modeODPOR && e.depth > 0 {
		// Only the frames' roots and current branches are looked up, all
		// on the path copied first: the other entries need no reset.
		if n := len(e.wt.nodes); cap(e.remap) < n {
			// By doubling, and kept with the coordinator's explorer for
			// the next search: grown to each new size of the pool, and
			// again in each search, it was a quarter of what a parallel
			// search of indexer-16 allocated.
			e.remap = make([]int32, max(n, 2*cap(e.remap)))
		}
		remap = e.remap[:len(e.wt.nodes)]
		// The budget counts units (moves into the split depth), whose
		// subtrees can hold thousands of nodes each: up to cloneUnits of
		// them, or cloneNodes nodes once it has cloneMin.
		units, nodes := 0, 0
		enough := func() bool {
			return units >= e.par.cloneUnits || (nodes >= cloneNodes && units >= e.par.cloneMin)
		}
		// Preorder, iteratively: each entry of the walk is a node copied,
		// its copy, the copy of its last child copied and the next child
		// to copy.
		walk := e.par.cloneWalk[:0]
		root := e.stack[0].root
		id := c.wt.alloc(e.wt.wev(root))
		c.wt.nodes[id].extra = e.wt.nodes[root].extra
		remap[root] = id
		walk = append(walk, cloneStep{dst: id, last: -1, next: e.wt.nodes[root].first})
		for len(walk) > 0 {
			top := &walk[len(walk)-1]
			ch := top.next
			// A node at the split depth or below is part of a unit's
			// input: copied whole, or the unit would be guessed wrong.
			if ch < 0 || (top.depth < e.split && enough()) {
				walk = walk[:len(walk)-1]
				continue
			}
			x := &e.wt.nodes[ch]
			top.next = x.next
			var id int32
			if top.depth+1 >= e.split {
				// A unit's root (or, where the search is below the
				// split depth, a node on its path). Its subtree's
				// encoding, as an earlier predictor wrote it at the
				// version it has now or as written here: the predictor
				// hands most units out without reading their subtrees,
				// and decodes one where it does (materialize). The one
				// on the search's path, and all of them while a unit is
				// split further (the predictor walks below the split
				// depth then), are copied whole, in one pass.
				if onPath := top.depth < e.depth && e.stack[top.depth].cur == ch; !onPath && len(e.expanded) == 0 && !e.opt.eagerClone {
					var lt lazyTree
					if t, ok := e.par.trees[ch]; ok && t.ver == x.ver {
						lt.s = t.s
						nodes++
						if e.opt.checkKeys && e.subtreeBytes(ch) != t.s {
							e.par.staleKeys++
						}
					} else {
						// Written down rather than copied: fewer bytes, and
						// the key of the unit, if handed out, takes them.
						from, n := len(c.arena), 0
						c.arena, n = appendSubtree(c.arena, &e.wt, ch, &e.walkBuf)
						lt = lazyTree{s: unsafe.String(unsafe.SliceData(c.arena[from:]), len(c.arena)-from), fresh: true}
						nodes += n + 1
					}
					id = c.wt.alloc(e.wt.wev(ch))
					c.wt.nodes[id].extra = x.extra
					remap[ch] = id
					if c.lazy == nil {
						c.lazy = make(map[int32]lazyTree)
					}
					c.lazy[id] = lt
					if e.opt.checkKeys {
						e.par.lazyTrees++
					}
				} else {
					n := len(c.wt.nodes)
					id, e.par.clonePend = c.wt.copySubtree(&e.wt, ch, remap, e.par.clonePend)
					nodes += len(c.wt.nodes) - n
				}
				units++
				if c.src == nil {
					c.src = make(map[int32]srcRef)
				}
				c.src[id] = srcRef{node: ch, ver: x.ver}
			} else {
				id = c.wt.alloc(e.wt.wev(ch))
				c.wt.nodes[id].extra = x.extra
				remap[ch] = id
				nodes++
			}
			if top.last < 0 {
				c.wt.nodes[top.dst].first = id
			} else {
				c.wt.nodes[top.last].next = id
			}
			top.last = id
			if top.depth+1 < e.split {
				walk = append(walk, cloneStep{dst: id, last: -1, next: x.first, depth: top.depth + 1})
			}
		}
		e.par.cloneWalk = walk
		e.par.keepTrees(c.src)
	}
	for len(c.stack) < e.depth {
		c.growStack()
	}
	for i := range e.depth {
		src, dst := &e.stack[i], &c.stack[i]
		steps, status, outs, count, taken := dst.steps, dst.status, dst.outs, dst.count, dst.taken
		sleep, bt, psleep := dst.sleep, dst.bt, dst.psleep
		*dst = *src
		dst.steps, dst.status, dst.outs, dst.count = steps, status, outs, count
		copy(dst.steps, src.steps)
		copy(dst.status, src.status)
		copy(dst.outs, src.outs)
		copy(dst.count, src.count)
		dst.taken = append(taken[:0], src.taken...)
		dst.sleep, dst.bt = sleep, bt
		src.sleep.CopyFull(&dst.sleep)
		src.bt.CopyFull(&dst.bt)
		dst.psleep = append(psleep[:0], src.psleep...)
		if remap != nil {
			dst.root = remap[src.root]
			if src.cur >= 0 {
				dst.cur = remap[src.cur]
			}
		}
	}
	c.depth = e.depth
	c.expanded = append(c.expanded[:0], e.expanded...)
	for len(c.evStore) < len(e.ev) {
		c.growEvents()
	}
	c.ev = c.evStore[:len(e.ev)]
	for i := range e.ev {
		src, dst := &e.ev[i], &c.ev[i]
		clock, prev, cands, memo := dst.clock, dst.prev, dst.cands, dst.memo
		*dst = *src
		dst.cands, dst.memo = append(cands[:0], src.cands...), append(memo[:0], src.memo...)
		dst.clock = clock
		dst.clock.CopyFrom(src.clock)
		dst.prev = append(prev[:0], src.prev...)
		dst.held = slices.Clone(src.held)
	}
	c.sched = e.sched.Clone()
	if copied {
		// States of the coordinator's system are not the copy's: reach
		// them again on the copy.
		s := sys.Init()
		for i := range e.depth {
			c.stack[i].state = s
			if i+1 < e.depth {
				s = model.Apply(s, e.sched[i])
			}
		}
	}
	copy(c.thrLast, e.thrLast)
	e.objLast.copyTo(&c.objLast)
	for t := range e.held {
		c.held[t] = slices.Clone(e.held[t])
	}
	return c
}

// subtreeBytes returns the encoding of node r's subtree in e's wakeup trees,
// as a unit's key holds it (tests).
func (e *explorer[S]) subtreeBytes(r int32) string {
	var u unit
	from, to := u.encode(nil, &e.wt, r, nil, &e.walkBuf, "", false)
	return string(u.keyb[from:to])
}

// materialize gives a predictor's unit root id the subtree clone left out
// (explorer.lazy), decoded from its encoding, before anything reads or
// changes its children.
func (e *explorer[S]) materialize(id int32) {
	lt, ok := e.lazy[id]
	if !ok {
		return
	}
	s := lt.s
	delete(e.lazy, id)
	if e.opt.checkKeys {
		e.par.materialized++
	}
	// The bytes are a predictor's own: they decode without an error.
	d := decoder{b: unsafe.Slice(unsafe.StringData(s), len(s))} // read only
	e.treeIDs = decodeNodes(&d, e.n, &e.wt, id, e.treeIDs[:0], true)
}

// skipSubtree leaves predictor c where it would be had the move into
// frame split on its stack been a unit handed out: the frames and events
// below are popped, and the unit's events count as analysed. A coordinator
// that splits deep in its first subtrees explores the rest of the one it
// is in alone (explorer.alone), while the predictor hands out the units
// after it; what that subtree's analysis adds to the frames above, the
// predictor learns as it learns a unit's result: the coordinator's inputs
// differ from those it handed out, or are the same and the results hold.
func (c *explorer[S]) skipSubtree(split int) {
	for c.depth > split {
		c.depth--
		c.popEvent()
	}
	c.sched = c.sched[:split]
	c.raceFrom = split - 1
}

// srcRef is a node of the coordinator's wakeup trees and its version.
type srcRef struct {
	node int32
	ver  uint32
}

// lazyTree is the subtree of a predictor's unit root that clone did not
// copy (explorer.lazy).
type lazyTree struct {
	s     string // the encoding (see unit.encode)
	fresh bool   // written by clone, not an earlier predictor's
}

// subtree is the encoding of a unit's wakeup subtree in its key, and the
// version of the subtree's root it was written at.
type subtree struct {
	ver uint32
	s   string
}

// keepTrees keeps, of the subtrees' encodings, those of the subtrees a new
// predictor copied (src), at their versions: the others are of units taken
// or changed since.
func (p *parallel[S]) keepTrees(src map[int32]srcRef) {
	next := p.spareTrees
	if next == nil {
		next = make(map[int32]subtree)
	}
	for _, ref := range src {
		if t, ok := p.trees[ref.node]; ok && t.ver == ref.ver {
			next[ref.node] = t
		}
	}
	clear(p.trees)
	p.trees, p.spareTrees = next, p.trees
}

// cloneStep is a node of the wakeup trees clone is copying: its copy, the
// copy of its last child copied, the next child to copy, and its depth.
type cloneStep struct {
	dst, last, next int32
	depth           int
}

// plan is a branch the coordinator's frames gained when it took a unit's
// result: the suffix of events added below the node reached from frame
// frame's root through the events attach, where path leads to that frame.
// A predictor still before it applies it too, instead of starting again.
type plan struct {
	frame  int
	path   ts.Schedule
	attach []lev
	suffix []lev
	also   [][]ts.Access // the Also of attach's and suffix's steps
	extra  bool
}

// planned records, in a coordinator taking a result, that w was added to
// frame i's wakeup tree below the events e.insPath.
func (e *explorer[S]) planned(i int, w []wev, extra bool) {
	if !e.recording {
		return
	}
	if e.planSched == nil {
		e.planSched = e.sched.Clone()
	}
	pool := &e.par.pool
	e.planPath = e.planPath[:0]
	for _, n := range e.insPath {
		e.planPath = append(e.planPath, e.wt.wev(n))
	}
	x := plan{frame: i, path: e.planSched[:i:i], extra: extra}
	x.attach = pool.logTo(&e.planChunks, &x.also, e.planPath)
	x.suffix = pool.logTo(&e.planChunks, &x.also, w)
	e.plans = grow.Append(e.plans, x)
}

// replan applies plan x to a predictor's frames, and reports whether it
// could: the frame is on its stack and the node it attaches to is still in
// its tree (not explored yet, or on its path, whose children come after).
func (e *explorer[S]) replan(x *plan) bool {
	node := e.attachAt(x)
	if node < 0 {
		return false
	}
	for _, y := range x.suffix {
		node = e.wt.addChild(node, wevOf(y, x.also))
		e.wt.nodes[node].extra = x.extra
	}
	return true
}

// attachAt returns the node of a predictor's frames that plan x attaches
// to, or -1 if it has none: the frame is not on its stack, or the node is
// no longer in its tree.
func (e *explorer[S]) attachAt(x *plan) int32 {
	if !e.atFrame(x) {
		return -1
	}
	node := e.stack[x.frame].root
	for _, a := range x.attach {
		// The plan changes the subtrees on its way: their bytes are not
		// the coordinator's any more (see unitHere).
		delete(e.src, node)
		e.materialize(node)
		c := e.wt.nodes[node].first
		for c >= 0 && (e.wt.nodes[c].t != int32(a.t) || e.wt.nodes[c].out != a.out) {
			c = e.wt.nodes[c].next
		}
		if c < 0 {
			return -1
		}
		node = c
	}
	delete(e.src, node)
	e.materialize(node)
	return node
}

// atFrame reports whether plan x's frame is on a predictor's stack.
func (e *explorer[S]) atFrame(x *plan) bool {
	return x.frame < e.depth && x.frame <= len(e.sched) && slices.Equal(e.sched[:x.frame], x.path)
}

// forward hands the plans of the result just taken to the predictor, and
// reports false if there is none to take them (the search must start one).
func (p *parallel[S]) forward(plans []plan, chunks *[][]lev) bool {
	// The predictor is suspended while predMu is held: if it has left a
	// plan's frame already, it will fail to apply it, so the search starts
	// a new one now rather than when it next takes a result (the workers
	// may have nothing to explore meanwhile). Whether the node a plan
	// attaches to is there is left to the predictor: an earlier plan may
	// add it.
	p.predMu.Lock()
	defer p.predMu.Unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.predNext == nil || p.predEnded || p.needRestart {
		return false
	}
	if p.predEx != nil {
		for i := range plans {
			if !p.predEx.atFrame(&plans[i]) {
				return false
			}
		}
	}
	p.plans = append(p.plans, plans...)
	p.planChunks = append(p.planChunks, *chunks...)
	*chunks = (*chunks)[:0]
	return true
}

// replanAll applies the plans forwarded to predictor e, and reports false
// if one could not be (the coordinator then starts a new predictor).
func (p *parallel[S]) replanAll(e *explorer[S]) bool {
	p.mu.Lock()
	if int64(p.gen) != e.gen {
		p.mu.Unlock()
		return false
	}
	plans, chunks := p.plans, p.planChunks
	p.plans, p.planChunks = nil, nil
	p.mu.Unlock()
	defer p.pool.putChunks(&chunks)
	for i := range plans {
		if !e.replan(&plans[i]) {
			p.mu.Lock()
			if int64(p.gen) == e.gen {
				p.needRestart = true
			}
			p.mu.Unlock()
			return false
		}
	}
	return true
}

// unitTracer is the record a test keeps of a search's units.
type unitTracer interface {
	restart()
	emit(key string)
	took(key string, cost int64)
}

// job is a unit handed to the workers.
type job struct {
	u       *unit
	r       *unitResult
	running bool
	queued  bool // in p.queue
	done    chan struct{}
	gen     int
}

// parallel is the machinery of a parallel search: the workers, the queue
// of units the predictor handed out, and the results by unit key.
type parallel[S any] struct {
	ctx    context.Context
	cancel context.CancelFunc
	sys    ts.TransitionSystem[S]
	model  *search.Model[S]
	opt    Options
	mode   mode
	window int
	// workers is how many goroutines explore (exploring).
	workers int
	split   int // the split depth, once the search splits
	// deepest is the deepest frame the search has reached before it
	// splits; fixed, whether split is fixed (see splitHere).
	deepest int
	fixed   bool
	// sized units taken of sizes transitions since tooSmall last judged.
	sized, sizes int64
	// spentT and spentE are the search's transitions and executions when
	// it last took a unit's result, for the workers' budgets.
	spentT, spentE atomic.Int64
	// hungry counts the goroutines waiting with nothing to explore; while
	// one does, a worker hands back the rest of a large unit (handBack).
	hungry atomic.Int32
	// handBack is when the units' explorers hand back the rest of a unit
	// (nil where they never do: other modes than ODPOR, and units explored
	// by a runner without Options.UnitTransitions); cut, where they drop a
	// unit too large instead (see exploreUnit).
	handBack *handBackRule
	cut      int64
	after    int64 // transitions before it splits (negative: none)
	keep     int   // the units kept handed out before old ones are dropped
	// A predictor copies the wakeup subtrees of cloneUnits units at most,
	// and of cloneMin at least (see clone).
	cloneUnits, cloneMin int

	mu    sync.Mutex
	cond  *sync.Cond
	queue []*job
	jobs  map[string]*job
	gen   int // the current predictor's generation
	// emitted holds the keys of the units the current predictor handed
	// out, in order; taken counts those the coordinator has reached since.
	emitted     []string
	taken       int
	skip        map[string]bool // units the coordinator took before the predictor met them
	predEnded   bool            // the current predictor has walked all it saw
	needRestart bool            // a predictor could not apply a plan
	plans       []plan          // plans forwarded to the current predictor
	planChunks  [][]lev         // where their sequences are (pool)
	pool        wevPool
	done        bool
	wg          sync.WaitGroup
	// The current predictor, a coroutine (see pump): next resumes it, stop
	// ends it; yield, called by the predictor, hands control back.
	predNext  func()
	predStop  func()
	predYield func(struct{}) bool
	predMu    sync.Mutex // held to resume or stop the predictor

	// The predictor's system and model (one predictor runs at a time), and
	// whether the goroutines have copies of the system (ts.Forker).
	predSys   ts.TransitionSystem[S]
	predModel *search.Model[S]
	copied    bool
	forks     []ts.TransitionSystem[S]
	inlineEx  *explorer[S] // the coordinator's, for the units it explores itself
	predEx    *explorer[S] // the last predictor, stopped before the next reuses it
	cloneWalk []cloneStep  // clone's buffers
	clonePend []subtreeStep
	// trees holds the encodings of the coordinator's unit subtrees that
	// predictors wrote, by node (see unitHere); spareTrees is the map
	// keepTrees fills next.
	trees, spareTrees map[int32]subtree
	// Options.checkKeys: keys reused, reused keys that differ from the
	// coordinator's, subtrees clone did not copy, and those decoded.
	reusedKeys, staleKeys, lazyTrees, materialized int64

	// runner explores the units elsewhere (Options.Runner), in batches.
	runner UnitRunner

	// trace, in tests, runs without workers and records what speculation
	// could do (see parallel_trace_test.go).
	trace unitTracer

	// How long workers waited (idle), by what for.
	waitStart, waitEnded, waitWindow, waitOther time.Duration
	waitResult                                  time.Duration // the coordinator's, for a worker's result

	units, misses, reruns        int64
	inline, wasted               int64 // transitions the coordinator explored itself; worker transitions not used
	emits, restarts, queuedTaken int64
	batches, remote              int64 // batches handed to the runner; units they explored
	expanded                     int64 // units split further
	handedBack                   int64 // units whose rest a worker handed back
	logged                       int64 // log operations taken from results
	repeated                     int64 // of those, insertions of the frame's last sequence, skipped
}

// exploring returns how many goroutines a search asked for workers runs:
// workers, but no more than the scheduler runs at once (GOMAXPROCS), and
// at least 2. The search's own goroutine is on the critical path (it
// commits the units' results in order and explores those no guess had);
// sharing the cores with more explorers than there are slowed it in
// proportion: 8 workers on 2 cores took 2.2 times as long as 1 worker on
// indexer-17, 8.8 times on lastzero-16.
func exploring(workers int) int {
	return min(workers, max(runtime.GOMAXPROCS(0), 2))
}

// runParallel runs the search of runParallel's caller with opt.Workers
// workers (see the top of this file), as many of them exploring as
// exploring allows.
func runParallel[S any](ctx context.Context, sys ts.TransitionSystem[S], model *search.Model[S], opt Options, m mode, res *ts.Result) (ts.Result, error) {
	pctx, cancel := context.WithCancel(ctx)
	n := exploring(opt.Workers)
	p := &parallel[S]{ctx: pctx, cancel: cancel, sys: sys, model: model, opt: opt, mode: m, jobs: make(map[string]*job), skip: make(map[string]bool), window: 4 * n, keep: 64 * n, cloneUnits: cloneUnitsPerWorker * n, cloneMin: 8 * n, workers: n}
	p.cond = sync.NewCond(&p.mu)
	local := n - 1 // the coordinator explores too (wait)
	if opt.inline {
		local = 0 // every unit on the caller's goroutine
	}
	if opt.Runner != nil {
		// No goroutines explore: a batch is a round trip, so the predictor
		// walks as far as it can and every unit it hands out is kept.
		p.runner, local = opt.Runner, 0
		p.window, p.keep = math.MaxInt, math.MaxInt
		p.cloneUnits, p.cloneMin = math.MaxInt, 0
	}
	p.cut = opt.UnitTransitions
	if m == modeODPOR {
		// An ODPOR unit too large is handed back, not dropped.
		p.cut, p.handBack = 0, unitHandBack(opt.UnitTransitions)
		switch {
		case opt.handBackAt > 0:
			p.handBack = &handBackRule{from: opt.handBackAt, always: true}
		case p.handBack == nil && p.runner == nil && !opt.inline:
			// Handed back when another goroutine waits: inline, none
			// explores, and what a unit costs is what is measured.
			p.handBack = &handBackRule{from: handBackAfter, hungry: &p.hungry}
		}
	}
	// Every goroutine's system first: a system that cannot be copied
	// refuses the search before it starts.
	type worker struct {
		sys   ts.TransitionSystem[S]
		model *search.Model[S]
	}
	var workers []worker
	for range local + 1 {
		w, wm, own, err := forked(sys, model.N)
		if err != nil {
			p.closeForks()
			cancel()
			return *res, fmt.Errorf("%w: %d workers: %w", ts.ErrBadOptions, opt.Workers, err)
		}
		if own {
			p.forks = append(p.forks, w)
		}
		workers = append(workers, worker{w, wm})
	}
	p.predSys, p.predModel, p.copied = workers[0].sys, workers[0].model, len(p.forks) > 0
	e := newExplorer(ctx, sys, model, opt, m, res, false)
	e.role = roleCoordinator
	e.mem = &p.pool.mem
	p.pool.chunks, p.pool.logs = e.spareChunks, e.spareLogs
	e.spareChunks, e.spareLogs = nil, nil
	p.split = opt.SplitDepth
	if p.split <= 0 {
		p.split = defaultSplit(m)
	}
	p.after = opt.SplitAfter
	if p.after == 0 {
		p.after = defaultSplitAfter
	}
	e.par = p
	for _, w := range workers[1:] {
		p.wg.Add(1)
		go p.work(w.sys, w.model)
	}
	addSystemStats := search.SystemStats(sys)
	err := e.Drive(e.root, e.loop, e.panicked)
	p.close()
	e.finish(err == nil)
	err = e.Err
	e.spareChunks, e.spareLogs = p.pool.chunks, p.pool.logs
	release(e)
	res.Stats["parallel-workers"] = int64(p.workers)
	res.Stats["parallel-units"] = p.units
	res.Stats["parallel-reruns"] = p.reruns
	res.Stats["parallel-misses"] = p.misses
	res.Stats["parallel-restarts"] = p.restarts
	res.Stats["parallel-inline-transitions"] = p.inline
	res.Stats["parallel-wasted-transitions"] = p.wasted
	res.Stats["parallel-split-further"] = p.expanded
	res.Stats["parallel-handed-back"] = p.handedBack
	res.Stats["parallel-logged"] = p.logged
	res.Stats["parallel-logged-repeats"] = p.repeated
	if opt.checkKeys {
		res.Stats["parallel-reused-keys"] = p.reusedKeys
		res.Stats["parallel-stale-keys"] = p.staleKeys
		res.Stats["parallel-lazy-trees"] = p.lazyTrees
		res.Stats["parallel-materialized"] = p.materialized
	}
	res.Stats["parallel-wait-start-us"] = p.waitStart.Microseconds()
	res.Stats["parallel-wait-predictor-us"] = p.waitEnded.Microseconds()
	res.Stats["parallel-wait-window-us"] = p.waitWindow.Microseconds()
	res.Stats["parallel-wait-other-us"] = p.waitOther.Microseconds()
	res.Stats["parallel-wait-result-us"] = p.waitResult.Microseconds()
	if p.runner != nil {
		res.Stats["parallel-batches"] = p.batches
		res.Stats["parallel-remote-units"] = p.remote
	}
	addSystemStats(res)
	return *res, err
}

// closeForks closes the systems Fork made that have a Close method.
func (p *parallel[S]) closeForks() {
	for _, f := range p.forks {
		if c, ok := f.(interface{ Close() }); ok {
			c.Close()
		}
	}
	p.forks = nil
}

// splitHere reports whether a search that has not split yet splits at a
// frame of depth depth after transitions transitions. It explores alone
// until Options.SplitAfter transitions; then it fixes the split depth, no
// deeper than half the longest execution it has seen (else the units are
// the last few transitions of an execution: casrot-10's took 5 on average
// with ODPOR, and 2 workers took 6 times as long as one), and splits
// there. Below that depth the coordinator finishes the subtree it is in
// alone (explorer.alone) while the workers explore the units after it:
// making each move of its deep frames a unit made a string of small ones,
// each of which changed the next one's input, and waiting to be back at
// the split depth left the workers idle for a tenth of lastzero-12's search.
func (p *parallel[S]) splitHere(depth int, transitions int64) bool {
	p.deepest = max(p.deepest, depth)
	if transitions < p.after {
		return false
	}
	if !p.fixed {
		p.fixed = true
		if p.opt.SplitDepth <= 0 && p.after > 0 {
			p.split = max(1, min(p.split, (p.deepest-1)/2))
		}
	}
	return true
}

// tooSmall records that the search took a unit of the given transitions,
// and reports whether the units taken are too small to repay what a unit
// costs: every smallUnits units, whether their mean is below minUnit.
// Only the default split depth moves (Options.SplitDepth 0, and no
// Options.UnitTransitions, whose units split further below it), and only up:
// a split one frame higher multiplies a unit's size by the branching there,
// while a unit too large only costs balance, and deeper units were often
// the ones whose inputs the predictor guessed wrong (see splitHere).
func (p *parallel[S]) tooSmall(transitions int64) bool {
	if p.opt.SplitDepth > 0 || p.opt.UnitTransitions > 0 || p.split <= 1 {
		return false
	}
	p.sized++
	p.sizes += transitions
	if p.sized < smallUnits {
		return false
	}
	small := p.sizes < smallUnits*minUnit
	p.sized, p.sizes = 0, 0
	return small
}

// smallUnits units of fewer than minUnit transitions on average make the
// search split one frame higher (tooSmall): a unit costs its key, the replay
// of its prefix and often a new predictor, 50-150 µs, the time of a few
// hundred transitions.
const (
	smallUnits = 16
	minUnit    = 200
)

// defaultSplitAfter is Options.SplitAfter's default.
const defaultSplitAfter = 1_000

// A predictor copies the wakeup trees' nodes in the search's order until
// it has cloneUnitsPerWorker units per worker, or cloneNodes nodes and two
// windows of units (a runner's, cloneNodes nodes). Copying far ahead costs
// more than it saves, as the predictor starts again every few units on some
// models; copying less than a few windows of units starves the workers.
const (
	cloneUnitsPerWorker = 64
	cloneNodes          = 1 << 15
)

// defaultSplit is Options.SplitDepth's default for mode m: the depth of
// the frames below which the search is split into units. Measured with 2
// workers (see BenchmarkParallel): ODPOR's units carry and log the most,
// and do best at 8 (lastzero-12 to -16 and indexer-16 and -17: 1.57-1.83x,
// against 1.1-1.7x at 12); DPOR's trees branch more deeply down (indexer-16
// and -17: 1.8x at 12, 1.4x at 8); Sleep's branch at every frame, so that a
// split at 12 hands out units of a few transitions (lastzero-8 took 2.4 times
// as long as alone) and at 4 they are large enough (1.6-1.7x).
func defaultSplit(m mode) int {
	switch m {
	case modeODPOR:
		return 8
	case modeSleep:
		return 4
	}
	return 12
}

// forked returns the system a goroutine of the search uses, and a model of
// its own (a model keeps scratch state): a copy of the system from
// ts.Forker, else the shared one. own reports a copy.
func forked[S any](sys ts.TransitionSystem[S], n int) (w ts.TransitionSystem[S], m *search.Model[S], own bool, err error) {
	w = sys
	if f, ok := sys.(ts.Forker[S]); ok {
		if w, err = f.Fork(); err != nil {
			return nil, nil, false, err
		}
		if w == nil {
			return nil, nil, false, fmt.Errorf("%w: Fork returned a nil system", ts.ErrBadSystem)
		}
		own = true
	}
	m, err = search.NewModel(w)
	if err != nil {
		return nil, nil, false, err
	}
	if m.N != n {
		return nil, nil, false, fmt.Errorf("%w: Fork returned a system of %d threads, the original has %d", ts.ErrBadSystem, m.N, n)
	}
	return w, m, own, nil
}

// work explores the units of the queue until the search is over.
func (p *parallel[S]) work(sys ts.TransitionSystem[S], model *search.Model[S]) {
	defer p.wg.Done()
	var ex *explorer[S] // reused from unit to unit
	defer func() {
		if ex != nil {
			release(ex)
		}
	}()
	for {
		p.mu.Lock()
		for len(p.queue) == 0 && !p.done {
			if !p.walkIdle() {
				p.idle()
			}
		}
		if p.done {
			p.mu.Unlock()
			return
		}
		j := p.dequeue()
		p.mu.Unlock()
		p.explore(j, sys, model, &ex)
	}
}

// idle waits for the next change (p.mu held), a worker with nothing to
// explore and no predictor to walk, and adds the time to what it waited
// for: the search to split, the predictor (at the end of what it sees, or
// waiting to start again), or the search to take results (the window of
// units handed out is full).
func (p *parallel[S]) idle() {
	why := &p.waitOther
	switch {
	case p.predNext == nil && p.restarts == 0:
		why = &p.waitStart
	case p.predEnded:
		why = &p.waitEnded
	case p.full():
		why = &p.waitWindow
	}
	start := time.Now()
	p.hungry.Add(1)
	p.cond.Wait()
	p.hungry.Add(-1)
	*why += time.Since(start)
}

// dequeue takes the first unit of the queue, which must not be empty
// (p.mu held).
func (p *parallel[S]) dequeue() *job {
	j := p.queue[0]
	p.queue = p.queue[1:]
	j.running, j.queued = true, false
	return j
}

// explore explores job j's unit on sys with explorer *ex (reused from unit
// to unit), as a worker.
func (p *parallel[S]) explore(j *job, sys ts.TransitionSystem[S], model *search.Model[S], ex **explorer[S]) {
	// The budgets the search has left when it takes the unit are at most
	// what it has left now: a unit explored beyond them is wasted, and near
	// the end of a limited search a unit may be large.
	maxT, maxE := p.opt.Limits.Transitions, p.opt.Limits.Executions
	if maxT > 0 {
		maxT = max(maxT-p.spentT.Load(), 1)
	}
	if maxE > 0 {
		maxE = max(maxE-p.spentE.Load(), 1)
	}
	r := exploreUnit(p.ctx, sys, model, p.opt, p.mode, j.u, maxT, maxE, p.cut, ex, &p.pool, p.opt.OnViolation != nil, p.handBack)
	p.mu.Lock()
	j.r = r
	close(j.done)
	p.cond.Broadcast()
	p.mu.Unlock()
}

// wait waits for job j's result on coordinator e's goroutine, exploring
// units of the queue meanwhile: the coordinator is one of the workers, so
// that Workers goroutines explore, not one more than the cores asked for.
func (p *parallel[S]) wait(e *explorer[S], j *job) {
	p.mu.Lock()
	for j.r == nil {
		if len(p.queue) > 0 && !p.done {
			k := p.dequeue()
			p.mu.Unlock()
			p.explore(k, e.sys, e.m, &p.inlineEx)
			p.mu.Lock()
			continue
		}
		if !p.walkIdle() {
			start := time.Now()
			p.hungry.Add(1)
			p.cond.Wait()
			p.hungry.Add(-1)
			p.waitResult += time.Since(start)
		}
	}
	p.mu.Unlock()
}

// walkIdle, called by a goroutine with nothing to explore (p.mu held),
// walks the predictor there rather than wait for the coordinator to, if it
// can hand out more, and reports whether it did. The walk ends with the
// window full or the predictor done, so a caller that loops does not spin.
func (p *parallel[S]) walkIdle() bool {
	if !p.canWalk() {
		return false
	}
	p.mu.Unlock()
	p.pump()
	p.mu.Lock()
	return true
}

// emit hands unit u out (the predictor's call, with u's key still in its
// scratch, u.keyb), first handing control back to the coordinator while the
// predictor is far enough ahead of it. It reports false when a newer
// predictor has taken over or the search is over.
func (p *parallel[S]) emit(u *unit, gen int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.full() && p.gen == gen && !p.done && p.predYield != nil {
		p.mu.Unlock()
		more := p.predYield(struct{}{})
		p.mu.Lock()
		if !more {
			return false
		}
	}
	if p.gen != gen || p.done {
		return false
	}
	// The key is in the predictor's scratch (u.keyb): it becomes a string
	// only for a unit not handed out before (a restart meets most again;
	// keys are kilobytes).
	if j, ok := p.jobs[string(u.keyb)]; ok {
		u.key = j.u.key
	} else {
		u.key = grow.String(u.keyb)
	}
	u.keyb = nil
	if u.newSubtree {
		// A substring: the key's memory, no copy.
		p.trees[u.subtree.node] = subtree{ver: u.subtree.ver, s: u.key[u.subtreeAt[0]:u.subtreeAt[1]]}
	}
	p.emitted = append(p.emitted, u.key)
	p.emits++
	if p.trace != nil {
		p.trace.emit(u.key)
		return true
	}
	if p.skip[u.key] {
		delete(p.skip, u.key) // the coordinator took it already
		return true
	}
	if j, ok := p.jobs[u.key]; ok {
		j.gen = gen
		if !j.queued && !j.running && j.r == nil {
			// Met again by a new predictor (restart emptied the queue):
			// queued in this one's order.
			j.queued = true
			p.queue = append(p.queue, j)
			p.cond.Broadcast()
		}
		return true
	}
	j := &job{u: u, done: make(chan struct{}), gen: gen, queued: true}
	p.jobs[u.key] = j
	p.queue = append(p.queue, j)
	p.cond.Broadcast()
	return true
}

// full reports whether the predictor is far enough ahead (p.mu held): the
// window of units handed out and not taken is full, or a runner's batch is.
func (p *parallel[S]) full() bool {
	return len(p.emitted)-p.taken >= p.window || (p.runner != nil && len(p.queue) >= runnerBatch)
}

// pump lets the predictor walk until it is far enough ahead or has walked
// all it saw. The predictor is a coroutine (iter.Pull): it walks only when
// resumed here, by the coordinator before each result it takes or by a
// goroutine that would otherwise wait for work, so it never waits for a
// core behind the goroutines that explore (its walk is a few percent of
// the work, but they starve without it). One goroutine at a time resumes
// or stops it (predMu). With a runner, only the coordinator resumes it, so
// the batches do not depend on timing.
func (p *parallel[S]) pump() {
	p.predMu.Lock()
	defer p.predMu.Unlock()
	p.mu.Lock()
	next := p.predNext
	resume := p.canWalk()
	p.mu.Unlock()
	if resume {
		next()
	}
}

// canWalk reports whether the predictor has more to hand out now (p.mu
// held).
func (p *parallel[S]) canWalk() bool {
	return p.predNext != nil && !p.predEnded && !p.needRestart && !p.full() && !p.done
}

// result returns the result of unit u for the coordinator e, and whether
// the predictor is still on the coordinator's track: a worker's result, if
// one has the same input and it holds at this point, else the
// coordinator's own exploration.
func (p *parallel[S]) result(e *explorer[S], u *unit) (r *unitResult, onTrack bool) {
	maxT, maxE := remaining(e.opt.Limits.Transitions, e.res.Transitions), remaining(e.opt.Limits.Executions, e.res.Executions)
	if p.trace != nil {
		r := exploreUnit(e.ctx, e.sys, e.m, e.opt, e.mode, u, maxT, maxE, 0, &p.inlineEx, &p.pool, e.opt.OnViolation != nil, nil)
		p.trace.took(u.keyString(), r.transitions)
		p.units++
		return r, true
	}
	p.pump()
	p.mu.Lock()
	p.units++
	i := p.taken
	p.taken++
	behind := i >= len(p.emitted)
	// Behind a predictor that is still walking is on track; behind one
	// that has walked all it saw is not: it must start again from here.
	onTrack = ((behind && !p.predEnded) || (!behind && p.emitted[i] == string(u.keyb))) && !p.needRestart
	j := p.jobs[string(u.keyb)]
	if j != nil {
		delete(p.jobs, j.u.key)
		if !j.running && j.r == nil {
			// Still queued: taken out, so that it is not handed out again
			// beside a new job of the same key. Without a runner the
			// coordinator explores it itself; a runner gets it in the
			// next batch (runBatch).
			p.queuedTaken++
			if j.queued {
				p.queue = slices.DeleteFunc(p.queue, func(x *job) bool { return x == j })
				j.queued = false
			}
			if p.runner == nil {
				j = nil
			}
		}
	} else if behind && p.predNext != nil && !p.predEnded {
		p.skip[u.keyString()] = true // the predictor is to meet it, not hand it out
	}
	if j == nil && p.runner == nil {
		p.misses++
	}
	p.dropPassed(u, j)
	p.mu.Unlock()
	if !onTrack && p.runner == nil && !p.opt.inline {
		// The predictor guessed this unit wrong, or ended before it: what
		// it handed out after it is most likely wrong too, and the workers
		// would explore that while this unit is taken. A new predictor
		// from here, as if this unit logged nothing, as any predictor
		// assumes: delegate starts it again only if the result changes
		// the frames.
		p.restart(e)
		onTrack = true
	}
	if p.runner != nil && (j == nil || j.r == nil) {
		var err error
		if j, err = p.runBatch(u, j); err != nil {
			return &unitResult{err: err}, onTrack
		}
		if j == nil {
			p.mu.Lock()
			p.misses++
			p.mu.Unlock()
		}
	}
	if j != nil {
		if p.runner == nil {
			p.wait(e, j)
		} else {
			<-j.done
		}
		if j.r.cut && !j.r.cancelled {
			p.mu.Lock()
			p.wasted += j.r.transitions
			p.mu.Unlock()
			return j.r, onTrack
		}
		if j.r.valid(j.u, u, maxT, maxE) {
			return j.r, onTrack
		}
		p.mu.Lock()
		p.reruns++
		p.wasted += j.r.transitions
		p.mu.Unlock()
	}
	r = exploreUnit(e.ctx, e.sys, e.m, e.opt, e.mode, u, maxT, maxE, p.cut, &p.inlineEx, &p.pool, e.opt.OnViolation != nil, p.handBack)
	if r.cut {
		p.wasted += r.transitions
		return r, onTrack
	}
	p.inline += r.transitions
	return r, onTrack
}

// dropPassed drops the finished jobs of units at u's root other than j (p.mu
// held): guesses that missed, which the search, taking u there, will never
// ask for again. Their memory goes back to the pool now rather than at the
// end of the search, where a fresh process would otherwise take new pages
// for the logs of later units.
func (p *parallel[S]) dropPassed(u *unit, j *job) {
	for k, x := range p.jobs {
		if x != j && x.r != nil && slices.Equal(x.u.prefix, u.prefix) {
			p.wasted += x.r.transitions
			p.pool.put(x.r)
			delete(p.jobs, k)
		}
	}
}

// remaining is what is left of limit after used (0: no limit).
func remaining(limit, used int64) int64 {
	if limit <= 0 {
		return 0
	}
	return max(limit-used, 0)
}

// restart starts a predictor from a copy of the coordinator e, after
// stopping the previous one.
func (p *parallel[S]) restart(e *explorer[S]) {
	p.mu.Lock()
	p.restarts++
	p.gen++
	p.emitted, p.taken = p.emitted[:0], 0
	p.predEnded = false
	p.needRestart = false
	p.plans = nil
	p.pool.putChunks(&p.planChunks)
	clear(p.skip)
	gen := p.gen
	if p.runner == nil {
		// The queue is the old predictor's guesses, in its order: the
		// workers would explore them first, most of them wrong after a
		// restart. The new predictor queues again those it meets.
		for _, j := range p.queue {
			j.queued = false
		}
		clear(p.queue)
		p.queue = p.queue[:0]
	}
	// Units handed out earlier stay known, with their results: a
	// predictor that starts again from the coordinator meets most of them
	// again, further on. Only when there are many are the oldest dropped.
	if len(p.jobs) > p.keep {
		oldest := gen
		for _, j := range p.jobs {
			oldest = min(oldest, j.gen)
		}
		p.queue = slices.DeleteFunc(p.queue, func(j *job) bool { return j.gen == oldest })
		for k, j := range p.jobs {
			if j.gen == oldest && (j.r != nil || !j.running) {
				if j.r != nil {
					p.wasted += j.r.transitions
					p.pool.put(j.r)
				}
				delete(p.jobs, k)
			}
		}
	}
	p.mu.Unlock()
	p.stopPredictor()
	if e.depth == 0 || e.Stop || p.opt.inline {
		return
	}
	c := e.clone(p.predSys, p.predModel, p.ctx, int64(gen), p.copied, p.predEx)
	p.predEx = c
	if e.alone {
		c.skipSubtree(e.unitDepth())
	}
	if p.trace != nil {
		p.trace.restart()
		c.Drive(func() {}, c.loop, c.panicked)
		return
	}
	next, stop := iter.Pull(func(yield func(struct{}) bool) {
		p.predYield = yield
		c.Drive(func() {}, c.loop, c.panicked)
		p.mu.Lock()
		if p.gen == gen {
			p.predEnded = true
		}
		p.mu.Unlock()
	})
	p.mu.Lock()
	p.predNext, p.predStop = func() { next() }, stop
	p.mu.Unlock()
	p.pump()
}

// stopPredictor stops the current predictor, if any: resumed with its
// yield returning false, it stops at once.
func (p *parallel[S]) stopPredictor() {
	p.predMu.Lock()
	defer p.predMu.Unlock()
	p.mu.Lock()
	stop := p.predStop
	p.predNext, p.predStop = nil, nil
	p.mu.Unlock()
	if stop != nil {
		stop()
	}
	p.predYield = nil
}

// close stops the predictor and the workers and waits for them.
func (p *parallel[S]) close() {
	p.mu.Lock()
	p.done = true
	p.cond.Broadcast()
	p.mu.Unlock()
	p.cancel()
	p.stopPredictor()
	p.wg.Wait()
	for _, e := range []*explorer[S]{p.inlineEx, p.predEx} {
		if e != nil {
			release(e)
		}
	}
	p.inlineEx, p.predEx = nil, nil
	for _, j := range p.jobs {
		if j.r != nil {
			p.wasted += j.r.transitions
		}
	}
	p.closeForks()
}

// wevPool recycles the memory of the wakeup sequences a parallel ODPOR
// search hands between goroutines: those a worker logs, read by the
// coordinator when it takes the result, and the plans the coordinator
// forwards to the predictor. Packed (lev) into chunks that come back once
// read, they cost no allocation in a search's steady state; a copy each
// (what the search did before) allocated most of its bytes, and the
// collector's write barriers then slowed every goroutine. A nil pool
// allocates.
type wevPool struct {
	mu     sync.Mutex
	chunks [][]lev // spare chunks, for logs and plans
	logs   [][]logOp
	// mem is what the explorers of the parallel search that owns the pool
	// keep, for its memory budget (explorer.memoryOK).
	mem memAcct
}

// memAcct is the memory a parallel search keeps, by its explorers' count:
// the coordinator's, the predictor's and the workers', each adding what it
// keeps when it checks its budget, and what the coordinator counts of the
// units, results and sequences handed between them.
type memAcct struct {
	explorers, machinery atomic.Int64
}

// chunkEvents is the room, in events, of chunks.
func chunkEvents(chunks [][]lev) int64 {
	var n int64
	for _, c := range chunks {
		n += int64(cap(c))
	}
	return n
}

// bytes estimates what a result keeps: its log with the sequences it
// points into, and its events' schedules.
func (r *unitResult) bytes() int64 {
	b := int64(unsafe.Sizeof(*r)) + int64(cap(r.log))*int64(unsafe.Sizeof(logOp{})) + chunkEvents(r.chunks)*int64(unsafe.Sizeof(lev{})) +
		int64(cap(r.also))*int64(unsafe.Sizeof([]ts.Access{}))
	for i := range r.log {
		if bt := r.log[i].bt; bt != nil {
			b += int64(unsafe.Sizeof(*bt)) + int64(cap(bt.inE)+cap(bt.init))*8
		}
	}
	for _, ev := range r.events {
		b += int64(unsafe.Sizeof(ev)) + int64(cap(ev.sched))*int64(unsafe.Sizeof(ts.Move{}))
	}
	if r.rest != nil {
		b += int64(cap(r.rest.tree))*int64(unsafe.Sizeof(tnode{})) + int64(cap(r.rest.frames))*int64(unsafe.Sizeof(restFrame{}))
	}
	return b
}

// machineryBytes estimates what the parallel search keeps besides its
// explorers: the units handed out with their keys (a unit's key encodes
// all of it; counted twice, for the decoded unit beside it) and results,
// the plans forwarded to the predictor and the subtrees predictors wrote
// (the pool's spare chunks, kept for reuse as the explorers keep their
// buffers, are not counted). The coordinator counts it when it checks its
// budget.
func (p *parallel[S]) machineryBytes() int64 {
	const perJob = int64(unsafe.Sizeof(job{})) + int64(unsafe.Sizeof(unit{})) + mapEntryBytes + 16
	p.mu.Lock()
	b := int64(cap(p.emitted))*16 + int64(cap(p.queue))*8 + chunkEvents(p.planChunks)*int64(unsafe.Sizeof(lev{})) +
		int64(cap(p.plans))*int64(unsafe.Sizeof(plan{}))
	for k, j := range p.jobs {
		b += perJob + 2*int64(len(k))
		if j.r != nil {
			b += j.r.bytes()
		}
	}
	for k := range p.skip {
		b += int64(len(k)) + mapEntryBytes
	}
	for _, t := range p.trees {
		b += int64(len(t.s)) + mapEntryBytes
	}
	p.mu.Unlock()
	return b
}

// wevChunk is the size of a chunk, in events.
const wevChunk = 1024

// logTo appends w to the last of *chunks, packed (its steps' Also go to
// *also), or to a new chunk if it has no room, and returns the copy.
func (p *wevPool) logTo(chunks *[][]lev, also *[][]ts.Access, w []wev) []lev {
	n := len(*chunks)
	if n == 0 || cap((*chunks)[n-1])-len((*chunks)[n-1]) < len(w) {
		*chunks = append(*chunks, p.chunk(len(w)))
		n++
	}
	c := (*chunks)[n-1]
	k := len(c)
	for i := range w {
		x := &w[i]
		if uint(x.t) >= ts.MaxThreads {
			panic("por: a logged event of no thread") // a marked or placeholder event: lev.t would wrap
		}
		l := lev{t: uint16(x.t), out: int32(x.out), obj: x.step.Obj, op: x.step.Op, sync: x.step.Sync}
		if x.step.Also != nil {
			*also = append(*also, x.step.Also)
			l.also = int32(len(*also))
		}
		c = append(c, l)
	}
	(*chunks)[n-1] = c
	return c[k:len(c):len(c)]
}

// chunk returns an empty chunk with room for n events at least: a spare
// one if the pool has one (a nil pool allocates).
func (p *wevPool) chunk(n int) []lev {
	if p != nil {
		p.mu.Lock()
		if k := len(p.chunks); k > 0 && cap(p.chunks[k-1]) >= n {
			c := p.chunks[k-1]
			p.chunks = p.chunks[:k-1]
			p.mu.Unlock()
			return c
		}
		p.mu.Unlock()
	}
	return make([]lev, 0, max(n, wevChunk))
}

// logOps returns an empty log.
func (p *wevPool) logOps() []logOp {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if k := len(p.logs); k > 0 {
		l := p.logs[k-1]
		p.logs = p.logs[:k-1]
		return l
	}
	return nil
}

// put takes back the memory of result r, which nothing reads any more.
func (p *wevPool) put(r *unitResult) {
	if p == nil {
		return
	}
	p.putChunks(&r.chunks)
	clear(r.also)
	r.also = nil
	if cap(r.log) > 0 {
		clear(r.log)
		p.mu.Lock()
		p.logs = append(p.logs, r.log[:0])
		p.mu.Unlock()
	}
	r.log = nil
}

// putChunks takes back *chunks, which nothing reads any more, and empties
// it.
func (p *wevPool) putChunks(chunks *[][]lev) {
	if p == nil || len(*chunks) == 0 {
		return
	}
	p.mu.Lock()
	for _, c := range *chunks {
		p.chunks = append(p.chunks, c[:0])
	}
	p.mu.Unlock()
	clear(*chunks)
	*chunks = (*chunks)[:0]
}
