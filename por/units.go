package por

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/weftlab/weft/internal/search"
	"github.com/weftlab/weft/ts"
)

// Units explored elsewhere (Options.Runner): a unit and its result as
// bytes, and the entry point that explores one.

// ErrBadUnit is wrapped by the error of ExploreUnit, and of a search whose
// Runner returns a result, when the bytes are not a unit or result of this
// package, were cut or changed, or do not fit the system (another thread
// count, another initial state).
var ErrBadUnit = errors.New("por: malformed unit or unit result")

// Unit is one unit of a split search, encoded: the schedule prefix from
// the initial state, what the search knows at its root (sleep set, wakeup
// subtree, what its analysis has learnt), the strategy and the options
// that change what it explores (limits, KeepGoing, IgnoreDeadlocks,
// whether terminal states are wanted). It is plain bytes, so that it can
// be shipped to another process or machine and explored there by
// [ExploreUnit] on a system equal to the search's.
type Unit []byte

// Key identifies the unit's input: units with equal keys have equal
// results.
func (u Unit) Key() string {
	k := sha256.Sum256(u)
	return string(k[:])
}

// UnitResult is the encoded result of exploring a Unit: what its
// exploration did to the frames above it (backtrack points, wakeup
// sequences), its figures, the schedules of the terminal states and
// violations it met, in order, and the error that stopped it, if any.
type UnitResult []byte

// Key returns the key of the unit r is the result of, or "" if r is not a
// result.
func (r UnitResult) Key() string {
	d := decoder{b: r}
	if !d.magic(resultMagic) {
		return ""
	}
	return string(d.bytes())
}

// Transitions returns the transitions the unit's exploration took, or -1
// if r is not a result.
func (r UnitResult) Transitions() int64 {
	d := decoder{b: r}
	if !d.magic(resultMagic) {
		return -1
	}
	d.bytes()
	t := d.num()
	if d.err != nil {
		return -1
	}
	return t
}

// UnitRunner explores the units of a search elsewhere: other processes,
// other machines, a distributed engine. A search with Options.Runner hands
// it the units in batches, each batch when the search needs a result it
// does not have: the units a predictor expects next, and the one needed.
type UnitRunner interface {
	// RunUnits explores each unit (ExploreUnit, on a system equal to the
	// search's) and returns their results in any order. Duplicates and
	// results of units not asked for are ignored; a unit left without a
	// result is explored by the search itself when it needs it. An error
	// stops the search with that error.
	RunUnits(ctx context.Context, units []Unit) ([]UnitResult, error)
}

// ExploreUnit explores unit u of a search of sys (a system equal to the
// one the search was given: the same threads, initial state and
// transitions) and returns its result, for the search's UnitRunner to hand
// back. The options the exploration needs are in the unit. An error is
// returned for bytes that are not a unit (ErrBadUnit) and for a
// cancelled context; an error of the system met while exploring (a
// contract breach, the depth limit) is part of the result, as a
// violation is.
func ExploreUnit[S any](ctx context.Context, sys ts.TransitionSystem[S], u Unit) (UnitResult, error) {
	h, in, err := decodeUnit(u)
	if err != nil {
		return nil, err
	}
	if err := search.Context(ctx); err != nil {
		return nil, err
	}
	model, err := search.NewModel(sys)
	if err != nil {
		return nil, err
	}
	if model.N != h.n {
		return nil, fmt.Errorf("%w: the unit is of a system of %d threads, this one has %d", ErrBadUnit, h.n, model.N)
	}
	opt := Options{Options: ts.Options{KeepGoing: h.keepGoing, IgnoreDeadlocks: h.ignoreDeadlocks}, EveryRace: h.everyRace}
	opt.Limits.Depth, opt.Limits.Memory = h.depth, h.memory
	if h.terminals {
		opt.OnTerminal = func(any, ts.Schedule) {}
	}
	if err := opt.validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadUnit, err)
	}
	if err := checkPrefix(sys, model, in); err != nil {
		return nil, err
	}
	var ex *explorer[S]
	cut, handBack := h.cut, (*handBackRule)(nil)
	if h.mode == modeODPOR {
		cut, handBack = 0, unitHandBack(h.cut)
	}
	r := exploreUnit(ctx, sys, model, opt, h.mode, in, h.maxT, h.maxE, cut, &ex, nil, true, handBack) // the search replays each
	release(ex)
	if r.cancelled {
		return nil, ctx.Err()
	}
	return encodeResult(u.Key(), r), nil
}

// checkPrefix reports a prefix that does not run on sys: a unit of another
// system.
func checkPrefix[S any](sys ts.TransitionSystem[S], model *search.Model[S], u *unit) error {
	s := sys.Init()
	for i, mv := range u.prefix {
		if i == len(u.prefix)-1 && u.rootHashed {
			if model.Hasher == nil {
				return fmt.Errorf("%w: the unit is of a system with Hash, this one has none", ErrBadUnit)
			}
			if h := model.Hasher.Hash(s); h != u.rootHash {
				return fmt.Errorf("%w: the unit's prefix reaches a state of hash %#x here, %#x where the search made it: another system", ErrBadUnit, h, u.rootHash)
			}
		}
		if int(mv.Thread) >= model.N {
			return fmt.Errorf("%w: move %d of the unit's prefix is thread %d, the system has %d", ErrBadUnit, i, mv.Thread, model.N)
		}
		if _, st := sys.Next(s, mv.Thread); st != ts.Enabled {
			return fmt.Errorf("%w: move %d of the unit's prefix (thread %d) is not enabled on this system", ErrBadUnit, i, mv.Thread)
		}
		k := 1
		if model.Chooser != nil {
			k = model.Chooser.Outcomes(s, mv.Thread)
		}
		if mv.Outcome < 0 || mv.Outcome >= k {
			return fmt.Errorf("%w: move %d of the unit's prefix has outcome %d of %d", ErrBadUnit, i, mv.Outcome, k)
		}
		s = model.Apply(s, mv)
	}
	return nil
}

// The formats' versions: a unit of another version is refused (ErrBadUnit,
// naming both versions), never read as this one's. Units are at 5 since a
// wakeup subtree's node names its parent by how far back it is; results at
// 5 since a log entry's wakeup sequence may start with the first events of
// the frame's previous one (logOp.keep).
const (
	unitMagic   = "weft-por-unit/5"
	resultMagic = "weft-por-result/6"
)

// notA is the error for bytes that do not start with magic m, a what: where
// they start with another version of it, it names both versions.
func notA(b []byte, m, what string) error {
	name := m[:strings.LastIndexByte(m, '/')+1]
	if v, ok := bytes.CutPrefix(b, []byte(name)); ok {
		n := 0
		for n < len(v) && n < 8 && v[n] >= '0' && v[n] <= '9' {
			n++
		}
		if n > 0 {
			return fmt.Errorf("%w: a %s of format %s%s, this version of weft reads %s", ErrBadUnit, what, name, v[:n], m)
		}
	}
	return fmt.Errorf("%w: not a %s", ErrBadUnit, what)
}

// unitHeader is what a Unit holds beside the unit's input.
type unitHeader struct {
	mode                       mode
	n                          int
	keepGoing, ignoreDeadlocks bool
	everyRace                  bool
	terminals                  bool
	depth                      int
	memory, maxT, maxE, cut    int64
}

// encodeUnit returns unit u of a search with options opt and mode m, the
// transition and execution budgets maxT and maxE.
func encodeUnit(u *unit, opt *Options, m mode, n int, maxT, maxE int64) Unit {
	var c encoder
	c.b = append(c.b, unitMagic...)
	c.num(int64(m))
	c.num(int64(n))
	c.flags(opt.KeepGoing, opt.IgnoreDeadlocks, opt.OnTerminal != nil, opt.EveryRace)
	c.num(int64(opt.Limits.Depth))
	c.num(opt.Limits.Memory)
	c.num(maxT)
	c.num(maxE)
	c.num(opt.UnitTransitions)
	c.flags(u.rootHashed)
	if u.rootHashed {
		c.b = binary.LittleEndian.AppendUint64(c.b, u.rootHash)
	}
	c.str(u.keyString())
	return Unit(c.b)
}

func decodeUnit(b Unit) (h unitHeader, u *unit, err error) {
	d := decoder{b: b}
	if !d.magic(unitMagic) {
		return h, nil, notA(b, unitMagic, "unit")
	}
	h.mode = mode(d.num())
	h.n = int(d.num())
	f := d.num()
	h.keepGoing, h.ignoreDeadlocks, h.terminals, h.everyRace = f&1 != 0, f&2 != 0, f&4 != 0, f&8 != 0
	h.depth = int(d.num())
	h.memory, h.maxT, h.maxE, h.cut = d.num(), d.num(), d.num(), d.num()
	var rootHash uint64
	hashed := d.num()&1 != 0
	if hashed {
		if len(d.b) < 8 {
			d.fail("cut short")
		} else {
			rootHash = binary.LittleEndian.Uint64(d.b)
			d.b = d.b[8:]
		}
	}
	key := d.bytes()
	if d.err == nil && len(d.b) != 0 {
		d.fail("trailing bytes")
	}
	if d.err == nil && (h.mode > modeODPOR || h.n <= 0 || h.maxT < 0 || h.maxE < 0 || h.cut < 0) {
		d.fail("header out of range")
	}
	if d.err != nil {
		return h, nil, d.err
	}
	u, err = decodeKey(key, h.n, nil, 0, nil)
	if err != nil {
		return h, nil, err
	}
	u.rootHash, u.rootHashed = rootHash, hashed
	return h, u, nil
}

// decodeKey is unit.encode backwards. With into, the subtree's nodes are
// added to that tree below root, which must have no children yet (a node
// just allocated): each is linked after the last one added, not appended by
// walking the siblings.
func decodeKey(key []byte, n int, into *wtree, root int32, ids *[]int32) (*unit, error) {
	d := decoder{b: key}
	u := &unit{keyb: key}
	u.prefix = make(ts.Schedule, d.count())
	for i := range u.prefix {
		u.prefix[i] = ts.Move{Thread: d.tid(n), Outcome: d.small()}
	}
	if len(u.prefix) == 0 {
		d.fail("empty prefix")
	}
	// The sleep sets' threads and single outcomes, and the backtrack sets,
	// of the root and every frame of the prefix share two arrays.
	var tids []ts.Tid
	var wevs []wev
	u.sleep, u.psleep = d.sleepSet(n, &tids, &wevs)
	if into != nil {
		*ids = decodeNodes(&d, n, into, root, (*ids)[:0], false)
	} else {
		for i := int64(0); ; i++ {
			p, x, extra, end := d.node(n, i)
			if end {
				break
			}
			u.tree = append(u.tree, tnode{parent: int32(p), x: x, extra: extra})
		}
	}
	u.raceFrom = d.small()
	f := d.num()
	u.strict = f&1 != 0
	u.blocked = make([]ts.Obj, d.count())
	for i := range u.blocked {
		u.blocked[i] = d.obj()
	}
	if k := d.count(); k > 0 {
		if k != len(u.prefix) {
			d.fail("sleep sets for another number of frames than the prefix's")
		}
		u.above = make([]frameSleep, k)
		for i := range u.above {
			a := &u.above[i]
			a.sleep, a.psleep = d.sleepSet(n, &tids, &wevs)
			a.bt = d.tidsTo(&tids, n)
		}
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail("trailing bytes in the unit's input")
	}
	return u, d.err
}

// decodeNodes decodes the nodes of a wakeup subtree, as unit.encode writes
// them, from d into tree into below node root: up to the list's end (its
// 0) or, with whole (d holds the list alone), to the end of d. ids is
// scratch, returned for reuse: for each node decoded its id and the id of
// its last child so far (-1: none), so that a child is linked after its
// previous sibling without walking the siblings.
func decodeNodes(d *decoder, n int, into *wtree, root int32, ids []int32, whole bool) []int32 {
	rootLast := int32(-1)
	for i := int64(0); !whole || len(d.b) > 0; i++ {
		var p int64
		var id int32
		if nd, back, ok := d.packedNode(n, i); ok {
			// The common node, read into a packed node at once.
			p = i - back
			id = into.allocPacked(nd)
		} else {
			// Anything else, number by number (node would try the
			// shortcut again).
			var x wev
			var extra, end bool
			if p, x, extra, end = d.nodeSlow(n, i); end {
				break
			}
			id = into.alloc(x)
			into.nodes[id].extra = extra
		}
		parent, last := root, &rootLast
		if p >= 0 {
			parent, last = ids[2*p], &ids[2*p+1]
		}
		if *last < 0 {
			into.nodes[parent].first = id
		} else {
			into.nodes[*last].next = id
		}
		*last = id
		ids = append(ids, id, -1)
	}
	return ids
}

// Result events.
const (
	evTerminal uint8 = iota
	evViolation
)

func encodeResult(key string, r *unitResult) UnitResult {
	var c encoder
	c.b = append(c.b, resultMagic...)
	c.str(key)
	c.num(r.transitions) // first: UnitResult.Transitions reads it
	c.num(r.executions)
	c.num(r.sleepBlocked)
	c.num(r.backtracks)
	c.num(r.replays)
	c.num(r.infeasible)
	c.num(r.waitingSleepers)
	c.num(int64(len(r.log)))
	for i := range r.log {
		op := &r.log[i]
		c.num(int64(op.kind))
		c.num(int64(op.frame))
		c.flags(op.strict)
		c.num(int64(op.keep))
		c.num(int64(len(op.w)))
		for _, x := range op.w {
			c.wev(wevOf(x, r.also))
		}
		c.num(int64(op.t))
		var bt backtrackLog
		if op.bt != nil {
			bt = *op.bt
		}
		c.words(bt.inE)
		c.words(bt.init)
	}
	c.num(int64(len(r.events)))
	for _, ev := range r.events {
		if ev.viol == nil {
			c.num(int64(evTerminal))
			c.sched(ev.sched)
			continue
		}
		v := ev.viol
		c.num(int64(evViolation))
		c.num(int64(v.Kind))
		c.num(int64(v.Thread))
		c.str(errorText(v.Err))
		c.sched(v.Trace.Schedule())
	}
	c.flags(r.err != nil)
	if r.err != nil {
		c.str(r.err.Error())
		c.num(int64(sentinelsOf(r.err)))
	}
	c.flags(r.stop, r.limited, r.strict, r.cut)
	c.num(int64(r.raceFrom))
	c.num(int64(len(r.blocked)))
	for _, o := range r.blocked {
		c.num(int64(o))
	}
	c.num(r.maxTransitions)
	c.num(r.maxExecutions)
	c.num(int64(r.moves))
	c.flags(r.rest != nil)
	if rest := r.rest; rest != nil {
		c.num(int64(rest.units))
		for i, n := range rest.tree {
			c.node(int32(i)-n.parent, n.x, n.extra)
		}
		c.num(0)
		c.num(int64(len(rest.frames)))
		for i := range rest.frames {
			f := &rest.frames[i]
			c.num(int64(f.cur))
			c.num(int64(len(f.sleep)))
			for _, t := range f.sleep {
				c.num(int64(t))
			}
			c.psleep(f.psleep)
			c.sched(f.taken)
			c.flags(f.done)
		}
	}
	return UnitResult(c.b)
}

// restOf decodes the rest of a unit handed back (see encodeResult) for a
// system of n threads, checking that it is a path down a wakeup tree.
func (d *decoder) restOf(n int) *unitRest {
	rest := &unitRest{units: d.small()}
	for i := int64(0); d.err == nil; i++ {
		p, x, extra, end := d.node(n, i)
		if end {
			break
		}
		rest.tree = append(rest.tree, tnode{parent: int32(p), x: x, extra: extra})
	}
	rest.frames = make([]restFrame, d.count())
	var tids []ts.Tid
	var wevs []wev
	for i := range rest.frames {
		f := &rest.frames[i]
		f.cur = int32(d.num())
		f.sleep, f.psleep = d.sleepSet(n, &tids, &wevs)
		f.taken = d.schedOf(n)
		f.done = d.num()&1 != 0
		// Each frame's branch is a child of the one above's (the first's,
		// of the root); the last frame's branch has ended.
		parent := int32(-1)
		if i > 0 {
			parent = rest.frames[i-1].cur
		}
		last := i == len(rest.frames)-1
		if d.err == nil && (last && f.cur != -1 || !last && (f.cur < 0 || int(f.cur) >= len(rest.tree) || rest.tree[f.cur].parent != parent)) {
			d.fail("a handed-back unit's path is not in its tree")
		}
	}
	if d.err == nil && (len(rest.frames) == 0 || rest.units < 1 || rest.units > len(rest.frames)) {
		d.fail("a handed-back unit's frames out of range")
	}
	return rest
}

// decodeResult decodes a result for a unit of a system of n threads. Its
// events are remote: commit replays their schedules.
func decodeResult(b UnitResult, n int) (key string, r *unitResult, err error) {
	d := decoder{b: b}
	if !d.magic(resultMagic) {
		return "", nil, notA(b, resultMagic, "unit result")
	}
	key = string(d.bytes())
	r = &unitResult{}
	r.transitions, r.executions = d.num(), d.num()
	r.sleepBlocked, r.backtracks, r.replays, r.infeasible = d.num(), d.num(), d.num(), d.num()
	r.waitingSleepers = d.num()
	r.log = make([]logOp, d.count())
	for i := range r.log {
		op := &r.log[i]
		op.kind = uint8(d.num())
		if op.kind > opBacktrack {
			d.fail("unknown log operation")
		}
		op.frame = int32(d.small())
		op.strict = d.num()&1 != 0
		op.keep = int32(d.small())
		w := make([]wev, d.count())
		for j := range w {
			w[j] = d.wevOf(n)
		}
		op.w = (*wevPool)(nil).logTo(&r.chunks, &r.also, w)
		op.t = int32(d.tid(n))
		if inE, init := d.words(), d.words(); op.kind == opBacktrack {
			op.bt = &backtrackLog{inE: inE, init: init}
		}
	}
	r.events = make([]unitEvent, d.count())
	for i := range r.events {
		ev := &r.events[i]
		ev.remote = true
		switch uint8(d.num()) {
		case evTerminal:
			ev.sched = d.schedOf(n)
		case evViolation:
			k := ts.ViolationKind(d.num())
			t := ts.Tid(d.num())
			msg := string(d.bytes())
			ev.viol = &ts.Violation{Kind: k, Thread: t, Err: errors.New(msg)}
			ev.sched = d.schedOf(n)
		default:
			d.fail("unknown event")
		}
	}
	if d.num()&1 != 0 {
		msg := string(d.bytes())
		r.err = &remoteError{msg: msg, is: sentinels(d.num())}
	}
	f := d.num()
	r.stop, r.limited, r.strict, r.cut = f&1 != 0, f&2 != 0, f&4 != 0, f&8 != 0
	r.raceFrom = d.small()
	r.blocked = make([]ts.Obj, d.count())
	for i := range r.blocked {
		r.blocked[i] = d.obj()
	}
	r.maxTransitions, r.maxExecutions = d.num(), d.num()
	r.moves = d.small()
	if d.num()&1 != 0 {
		r.rest = d.restOf(n)
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail("trailing bytes")
	}
	seqLen := make(map[int32]int) // per frame, the last sequence's length
	for i := range r.log {
		// The coordinator's frames and events are those of the prefix.
		op := &r.log[i]
		if d.err == nil && (op.frame < 0 || int(op.frame) >= r.moves) {
			d.fail("a log operation out of the unit's prefix")
		}
		if op.kind == opInsert {
			if d.err == nil && (op.keep < 0 || int(op.keep) > seqLen[op.frame]) {
				d.fail("a log operation keeps events the frame's last sequence does not have")
			}
			seqLen[op.frame] = int(op.keep) + len(op.w)
		}
	}
	if d.err == nil && (r.transitions < 0 || r.executions < 0) {
		d.fail("negative figures")
	}
	if d.err != nil {
		return "", nil, d.err
	}
	return key, r, nil
}

// errorText is what a remote violation's error says: what ts.Confirm
// compares when it replays the violation.
func errorText(err error) string {
	var pe *ts.PanicError
	if errors.As(err, &pe) {
		return fmt.Sprint(pe.Value)
	}
	if err == nil {
		return ""
	}
	return err.Error()
}

// knownErrors are the errors a remote error can still be matched against
// with errors.Is.
var knownErrors = [...]error{
	ts.ErrBadOptions, ts.ErrBadSystem, ts.ErrMutated, ts.ErrNondeterministic, ts.ErrThreadRange,
	ts.ErrBadStep, ts.ErrDepth, ts.ErrNotEnabled, ts.ErrNoHash, ts.ErrMemory, ts.ErrUnsupported,
	ts.ErrCallback, ErrBadUnit, context.Canceled, context.DeadlineExceeded,
}

func sentinelsOf(err error) uint64 {
	var m uint64
	for i, s := range knownErrors {
		if errors.Is(err, s) {
			m |= 1 << i
		}
	}
	return m
}

func sentinels(m int64) []error {
	var is []error
	for i, s := range knownErrors {
		if m&(1<<i) != 0 {
			is = append(is, s)
		}
	}
	return is
}

// remoteError is an error a unit met where it was explored: its message,
// and the package errors it wrapped.
type remoteError struct {
	msg string
	is  []error
}

func (e *remoteError) Error() string { return e.msg }

func (e *remoteError) Is(target error) bool {
	for _, s := range e.is {
		if s == target {
			return true
		}
	}
	return false
}

// encoder appends varints.
type encoder struct{ b []byte }

func (c *encoder) num(v int64) {
	if uint64(v) < 64 {
		// The zig-zag varint of 0..63 is one byte, 2v: most numbers of a
		// key are threads, outcomes, objects and operations.
		c.b = append(c.b, byte(v)<<1)
		return
	}
	c.b = binary.AppendVarint(c.b, v)
}

func (c *encoder) str(s string) {
	c.num(int64(len(s)))
	c.b = append(c.b, s...)
}

func (c *encoder) flags(fs ...bool) {
	var v int64
	for i, f := range fs {
		if f {
			v |= 1 << i
		}
	}
	c.num(v)
}

func (c *encoder) words(w []uint64) {
	w = trim(w)
	c.num(int64(len(w)))
	for _, x := range w {
		c.b = binary.AppendUvarint(c.b, x)
	}
}

func (c *encoder) sched(s ts.Schedule) {
	c.num(int64(len(s)))
	for _, mv := range s {
		c.num(int64(mv.Thread))
		c.num(int64(mv.Outcome))
	}
}

func (c *encoder) wev(x wev) {
	c.num(int64(x.t))
	c.num(int64(x.out))
	c.step(x.step)
}

// step writes a step's accesses, the first the step's own.
func (c *encoder) step(st ts.Step) {
	c.num(int64(st.NumAccesses()))
	c.access(st.Obj, st.Op, st.Sync)
	for _, a := range st.Also {
		c.access(a.Obj, a.Op, a.Sync)
	}
}

func (c *encoder) access(o ts.Obj, op ts.Op, sync bool) {
	c.num(int64(o))
	c.num(int64(op))
	if sync {
		c.b = append(c.b, 2) // the varint of 1
	} else {
		c.b = append(c.b, 0)
	}
}

// psleep writes a sleep set's single outcomes.
func (c *encoder) psleep(psleep []wev) {
	c.num(int64(len(psleep)))
	for _, x := range psleep {
		c.wev(x)
	}
}

// node writes a node of a unit's wakeup subtree, whose parent is back
// nodes before it (see unit.encode).
func (c *encoder) node(back int32, x wev, extra bool) {
	if p := uint32(back); p < 64 && uint(x.t) < 64 && uint(x.out) < 64 && len(x.step.Also) == 0 &&
		uint32(x.step.Obj) < 8192 && x.step.Op < 64 {
		// Every number one byte (the common node) but the object, in one
		// or two (indexer's table has 128 cells): written at once.
		var sync, ext byte
		if x.step.Sync {
			sync = 2
		}
		if extra {
			ext = 2
		}
		if o := uint32(x.step.Obj) << 1; o < 128 {
			c.b = append(c.b, byte(p)<<1, byte(x.t)<<1, byte(x.out)<<1, 2, byte(o), byte(x.step.Op)<<1, sync, ext)
		} else {
			c.b = append(c.b, byte(p)<<1, byte(x.t)<<1, byte(x.out)<<1, 2, byte(o)|0x80, byte(o>>7), byte(x.step.Op)<<1, sync, ext)
		}
		return
	}
	c.nodeSlow(back, x, extra)
}

// packNode returns wakeup-tree node n, its parent back nodes before, as
// the eight bytes of encoder.node's shortcut with a one-byte object (a
// little-endian word), if it takes that shortcut: appendSubtree writes the
// common node from the packed node, without unpacking its event (keys hold
// thousands of nodes, and a search with workers writes one for every unit
// it takes and most it hands out).
func packNode(n *wnode, back int32) (uint64, bool) {
	if uint32(back)|uint32(n.t)|uint32(n.out)|uint32(n.obj) >= 64 || n.also != 0 || n.op >= 64 {
		return 0, false
	}
	x := uint64(back)<<1 | uint64(n.t)<<9 | uint64(n.out)<<17 | 2<<24 | uint64(n.obj)<<33 | uint64(n.op)<<41
	if n.sync {
		x |= 2 << 48
	}
	if n.extra {
		x |= 2 << 56
	}
	return x, true
}

// packNode2 is packNode for a node whose object takes two bytes (64 to
// 8191, as indexer's table cells): the first eight bytes of the nine
// encoder.node writes, and the ninth.
func packNode2(n *wnode, back int32) (uint64, byte, bool) {
	if uint32(back)|uint32(n.t)|uint32(n.out) >= 64 || n.also != 0 || n.op >= 64 || uint32(n.obj)-64 >= 8192-64 {
		return 0, 0, false
	}
	o := uint64(n.obj) << 1
	x := uint64(back)<<1 | uint64(n.t)<<9 | uint64(n.out)<<17 | 2<<24 | (o&0x7f|0x80)<<32 | (o>>7)<<40 | uint64(n.op)<<49
	if n.sync {
		x |= 2 << 56
	}
	var ext byte
	if n.extra {
		ext = 2
	}
	return x, ext, true
}

// nodeSlow is node, number by number.
func (c *encoder) nodeSlow(back int32, x wev, extra bool) {
	c.num(int64(back))
	c.wev(x)
	if extra {
		c.b = append(c.b, 2)
	} else {
		c.b = append(c.b, 0)
	}
}

// decoder reads what encoder wrote, keeping the first error; after one,
// every read returns zero.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", ErrBadUnit, what)
	}
	d.b = nil
}

func (d *decoder) magic(m string) bool {
	if len(d.b) < len(m) || string(d.b[:len(m)]) != m {
		return false
	}
	d.b = d.b[len(m):]
	return true
}

func (d *decoder) num() int64 {
	if len(d.b) > 0 && d.b[0] < 0x80 {
		x := d.b[0] // a one-byte varint (d.b is empty after an error)
		d.b = d.b[1:]
		return zigzag(x)
	}
	if d.err != nil {
		return 0
	}
	v, k := binary.Varint(d.b)
	if k <= 0 {
		d.fail("cut short")
		return 0
	}
	d.b = d.b[k:]
	return v
}

// small reads a number that must fit an int32.
func (d *decoder) small() int {
	v := d.num()
	if v < math.MinInt32 || v > math.MaxInt32 {
		d.fail("number out of range")
		return 0
	}
	return int(v)
}

// count reads a length, which cannot be more than the bytes left.
// sleepSet reads a sleep set of a system of n threads: the threads asleep
// with every outcome, then the single outcomes, appended to *tids and *wevs
// (shared by the sets of a unit; each set is a slice of them that cannot
// grow into the next).
func (d *decoder) sleepSet(n int, tids *[]ts.Tid, wevs *[]wev) ([]ts.Tid, []wev) {
	sleep := d.tidsTo(tids, n)
	k := d.count()
	if k == 0 {
		return sleep, nil
	}
	i := len(*wevs)
	for range k {
		*wevs = append(*wevs, wev{t: d.tid(n), out: d.small(), step: d.step()})
	}
	return sleep, (*wevs)[i:len(*wevs):len(*wevs)]
}

// tidsTo reads a list of threads of a system of n threads, appended to
// *tids, and returns it (nil if empty).
func (d *decoder) tidsTo(tids *[]ts.Tid, n int) []ts.Tid {
	k := d.count()
	if k == 0 {
		return nil
	}
	if *tids == nil {
		*tids = make([]ts.Tid, 0, 64)
	}
	i := len(*tids)
	for range k {
		*tids = append(*tids, d.tid(n))
	}
	return (*tids)[i:len(*tids):len(*tids)]
}

func (d *decoder) count() int {
	v := d.num()
	switch {
	case v < 0:
		d.fail("length out of range")
		return 0
	case v > int64(len(d.b)):
		// Every element takes a byte at least: more than the bytes left.
		d.fail("cut short")
		return 0
	}
	return int(v)
}

func (d *decoder) bytes() []byte {
	k := d.count()
	if d.err != nil {
		return nil
	}
	s := d.b[:k]
	d.b = d.b[k:]
	return s
}

func (d *decoder) tid(n int) ts.Tid {
	v := d.num()
	if v < 0 || v >= int64(n) {
		d.fail("thread out of range")
		return 0
	}
	return ts.Tid(v)
}

func (d *decoder) obj() ts.Obj {
	v := d.num()
	if v < math.MinInt32 || v > math.MaxInt32 {
		d.fail("object out of range")
		return 0
	}
	return ts.Obj(v)
}

func (d *decoder) words() []uint64 {
	k := d.count()
	if k == 0 {
		return nil
	}
	w := make([]uint64, k)
	for i := range w {
		if d.err != nil {
			return nil
		}
		x, j := binary.Uvarint(d.b)
		if j <= 0 {
			d.fail("cut short")
			return nil
		}
		w[i] = x
		d.b = d.b[j:]
	}
	return w
}

func (d *decoder) schedOf(n int) ts.Schedule {
	s := make(ts.Schedule, d.count())
	for i := range s {
		s[i] = ts.Move{Thread: d.tid(n), Outcome: d.small()}
	}
	return s
}

// step reads a step as unit.encode writes it: its accesses, the first the
// step's own.
func (d *decoder) step() ts.Step {
	k := d.count()
	if k == 0 {
		d.fail("a step without an access")
		return ts.Step{}
	}
	acc := func() ts.Access {
		o := d.obj()
		op := d.num()
		if op < 0 || op > 255 {
			d.fail("operation out of range")
		}
		return ts.Access{Obj: o, Op: ts.Op(op), Sync: d.num()&1 != 0}
	}
	first := acc()
	st := ts.Step{Obj: first.Obj, Op: first.Op, Sync: first.Sync}
	if k > 1 {
		st.Also = make([]ts.Access, k-1)
		for i := range st.Also {
			st.Also[i] = acc()
		}
	}
	return st
}

// node reads node i of a wakeup subtree of a system of n threads as
// encoder.node writes it: its parent's index (-1: the subtree's root), its
// event, and whether it is extra; end at the list's end or an error.
func (d *decoder) node(n int, i int64) (p int64, x wev, extra, end bool) {
	if nd, back, ok := d.packedNode(n, i); ok {
		// The common node, every number one byte but the object, in one or
		// two (as encoder.node writes it at once): a valid parent and
		// thread, a step of one access with an operation in range.
		// Anything else, and every error, is read number by number
		// (nodeSlow), which decodes the same.
		return i - back, wev{t: ts.Tid(nd.t), out: int(nd.out), step: ts.Step{Obj: nd.obj, Op: nd.op, Sync: nd.sync}}, nd.extra, false
	}
	return d.nodeSlow(n, i)
}

// packedNode reads the common node (node's shortcut: every number one byte
// but the object, in one or two) as a packed node, with its parent's
// distance, or reports false for anything else: decodeNodes allocates it as
// it is, without making an event of it first.
func (d *decoder) packedNode(n int, i int64) (nd wnode, back int64, ok bool) {
	if len(d.b) < 8 {
		return nd, 0, false
	}
	x := binary.LittleEndian.Uint64(d.b)
	// The distance, thread and operation even (a one-byte zig-zag number
	// of their sign), a step of one access, and every byte below 0x80 but
	// a two-byte object's first.
	back, t := int64(byte(x)>>1), int(byte(x>>8)>>1)
	if x&0x8080_8000_8080_8080|x&0x0101 != 0 || byte(x>>24) != 2 || back == 0 || back > i+1 || t >= n {
		return nd, 0, false
	}
	nd = wnode{t: int32(t), out: int32(zigzag(byte(x >> 16)))}
	if byte(x>>32)&0x80 == 0 {
		// A one-byte object.
		if byte(x>>40)&1 != 0 {
			return wnode{}, 0, false
		}
		nd.obj, nd.op, nd.sync, nd.extra = ts.Obj(zigzag(byte(x>>32))), ts.Op(byte(x>>40)>>1), zigzag(byte(x>>48))&1 != 0, byte(x>>56) != 0
		d.b = d.b[8:]
		return nd, back, true
	}
	// A two-byte object, and a ninth byte.
	if len(d.b) < 9 || d.b[8]&0x80 != 0 || byte(x>>48)&1 != 0 {
		return wnode{}, 0, false
	}
	o := uint32(byte(x>>32)&0x7f) | uint32(byte(x>>40))<<7
	nd.obj, nd.op, nd.sync, nd.extra = ts.Obj(int32(o>>1)^-int32(o&1)), ts.Op(byte(x>>48)>>1), zigzag(byte(x>>56))&1 != 0, d.b[8] != 0
	d.b = d.b[9:]
	return nd, back, true
}

// zigzag is the value of a one-byte zig-zag varint.
func zigzag(x byte) int64 { return int64(x>>1) ^ -int64(x&1) }

// nodeSlow is node, number by number.
func (d *decoder) nodeSlow(n int, i int64) (p int64, x wev, extra, end bool) {
	back := d.num()
	if d.err != nil || back == 0 {
		return 0, wev{}, false, true
	}
	p = i - back
	if back < 0 || p < -1 {
		d.fail("wakeup tree node's parent out of range")
		return 0, wev{}, false, true
	}
	x = d.wevOf(n)
	extra = d.num() != 0
	return p, x, extra, false
}

func (d *decoder) wevOf(n int) wev {
	return wev{t: d.tid(n), out: d.small(), step: d.step()}
}

// remoteEvent takes an event of a unit explored elsewhere: a violation is
// replayed (ts.ConfirmWith) as the search replays its own, a terminal state
// reached again by its schedule for OnTerminal. It reports false if the
// replay failed: the search then stops with that error.
func (e *explorer[S]) remoteEvent(ev unitEvent) bool {
	if ev.viol != nil {
		search.Confirm(&e.Outcome, e.sys, ev.viol, ev.sched)
		return e.Err == nil
	}
	if e.opt.OnTerminal == nil {
		return true
	}
	run, err := ts.ReplayWith(e.sys, ev.sched, e.opt.Options)
	if err != nil {
		e.Fail(fmt.Errorf("replaying a terminal state of a unit explored elsewhere: %w", err))
		return false
	}
	search.Callback("OnTerminal", func() { e.opt.OnTerminal(run.Final, ev.sched) })
	return true
}

// runnerBatch is the most units a batch holds.
const runnerBatch = 1 << 14

// runBatch hands a batch to the runner: every unit the predictor has
// handed out and not had explored, and u, the one the coordinator needs
// now (need, if the predictor handed it out). It returns u's job with its
// result, or nil if the runner gave none; an error if the runner failed.
func (p *parallel[S]) runBatch(u *unit, need *job) (*job, error) {
	// A batch is a round trip: first the units the predictor expects.
	p.pump()
	p.mu.Lock()
	batch := p.queue
	p.queue = nil
	if need == nil {
		need = &job{u: u, done: make(chan struct{})}
	}
	if !slices.Contains(batch, need) {
		batch = append(batch, need)
	}
	for _, j := range batch {
		j.running, j.queued = true, false
	}
	p.mu.Unlock()

	units := make([]Unit, 0, len(batch))
	byKey := make(map[string]*job, len(batch))
	for _, j := range batch {
		u := encodeUnit(j.u, &p.opt, p.mode, p.model.N, p.opt.Limits.Transitions, p.opt.Limits.Executions)
		if k := u.Key(); byKey[k] == nil {
			byKey[k] = j
			units = append(units, u)
		}
	}
	results, err := p.callRunner(units)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.batches++
	if err == nil {
		for _, b := range results {
			key, r, derr := decodeResult(b, p.model.N)
			if derr != nil {
				err = fmt.Errorf("por: a result of the unit runner: %w", derr)
				break
			}
			if j := byKey[key]; j != nil && j.r == nil {
				p.remote++
				for _, x := range batch { // the jobs of one key share its result
					if x.r == nil && x.u.keyString() == j.u.keyString() {
						x.r = r
						close(x.done)
					}
				}
			}
		}
	}
	for _, j := range batch {
		j.running = false
	}
	if err != nil {
		return nil, err
	}
	if need.r == nil {
		return nil, nil
	}
	return need, nil
}

// callRunner calls the runner, turning a panic in it into an error: it is
// not the system's.
func (p *parallel[S]) callRunner(units []Unit) (res []UnitResult, err error) {
	defer func() {
		if x := recover(); x != nil {
			err = fmt.Errorf("%w: the unit runner panicked: %v", ts.ErrCallback, x)
		}
	}()
	res, err = p.opt.Runner.RunUnits(p.ctx, units)
	if err != nil {
		err = fmt.Errorf("por: the unit runner failed: %w", err)
	}
	return res, err
}
