package symmetry_test

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/ts"
)

// gprog is a small concurrent program whose threads come in groups of
// identical threads, with the declared symmetry (all permutations within a
// group: Canonical, Permute) and the discovered one (Signature). Thread ids
// never enter its data but as lock owners, which permutations rename, so the
// symmetries are exact. It is the random system of the property tests.
// (gStoreTid, which writes the thread's id to a variable, breaks this on
// purpose: only the programs that test Verify's refusals use it.)
//
// The whole model's features are instructions of their own (a coin flip of
// several outcomes, a copy that reads one variable and writes another, an
// idle wait, an acquire of both locks at once) and a global invariant over
// the shared variables, which no thread id enters: it is symmetric, and its
// read set (variables only) is kept by every renaming of threads.
type gprog struct {
	vars, locks, mod int
	code             [][]ginstr  // per group
	group            []int       // per thread
	inv              *ginv       // the global invariant, or nil
	lock1            []ts.Access // the Also of gAcquire2's step: acquire lock 1
}

// ginv is an invariant that fails when variable a holds va and variable b
// holds vb.
type ginv struct{ a, va, b, vb int }

type gkind uint8

const (
	gLoad     gkind = iota // r := x
	gStore                 // x := k
	gStoreReg              // x := r + k
	gFetchAdd              // r := x; x := x + k
	gAcquire               // lock(x)
	gRelease               // unlock(x)
	gAwait                 // await x == k
	gSet                   // r := k (local)
	gJumpEq                // if r == k goto to (local, forward)
	gAssertNe              // assert r != k (local)
	gFlip                  // r := c; x := c, c an outcome 0..k-1
	gCopy                  // r := x; y := x + k (reads x, writes y: one step of two objects)
	gWait                  // await x == k, Idle until then
	gAcquire2              // lock(0) and lock(1) at once (one step of two objects)
	gStoreTid              // x := t + k, t the thread's id: not symmetric
)

type ginstr struct {
	kind    gkind
	r, x, k int
	y       int // gCopy's destination
	to      int
}

func (i ginstr) visible() bool { return i.kind != gSet && i.kind != gJumpEq && i.kind != gAssertNe }

// writeVar is the Also of gCopy's step, shared by every state: writes of
// each variable.
var writeVar = [3][]ts.Access{{{Obj: 0, Op: ts.Write}}, {{Obj: 1, Op: ts.Write}}, {{Obj: 2, Op: ts.Write}}}

const gmax = 6

type gstate struct {
	vars  [3]uint8
	owner [2]uint8 // 0 free, t+1 held by t
	pc    [gmax]uint8
	reg   [gmax][2]uint8
	fail  [gmax]uint8 // 0, or pc+1 of the failed instruction
}

func (p *gprog) Threads() int { return len(p.group) }

func (p *gprog) Init() gstate {
	var s gstate
	for t := range p.group {
		p.locals(&s, ts.Tid(t))
	}
	return s
}

func (p *gprog) codeOf(t ts.Tid) []ginstr { return p.code[p.group[t]] }

func (p *gprog) Next(s gstate, t ts.Tid) (ts.Step, ts.Status) {
	c := p.codeOf(t)
	if s.fail[t] != 0 || int(s.pc[t]) >= len(c) {
		return ts.Step{}, ts.Finished
	}
	in := c[s.pc[t]]
	lock := ts.Obj(p.vars + in.x)
	switch in.kind {
	case gLoad:
		return ts.Step{Obj: ts.Obj(in.x), Op: ts.Read}, ts.Enabled
	case gStore, gStoreReg, gFetchAdd, gStoreTid:
		return ts.Step{Obj: ts.Obj(in.x), Op: ts.Write}, ts.Enabled
	case gAcquire:
		if s.owner[in.x] != 0 {
			return ts.Step{Obj: lock, Op: ts.Acquire}, ts.Blocked
		}
		return ts.Step{Obj: lock, Op: ts.Acquire}, ts.Enabled
	case gRelease:
		return ts.Step{Obj: lock, Op: ts.Release}, ts.Enabled
	case gAwait, gWait:
		st := ts.Enabled
		if int(s.vars[in.x]) != in.k {
			st = ts.Blocked
			if in.kind == gWait {
				st = ts.Idle
			}
		}
		return ts.Step{Obj: ts.Obj(in.x), Op: ts.Read, Sync: true}, st
	case gFlip:
		return ts.Step{Obj: ts.Obj(in.x), Op: ts.Write}, ts.Enabled
	case gCopy:
		return ts.Step{Obj: ts.Obj(in.x), Op: ts.Read, Also: writeVar[in.y]}, ts.Enabled
	case gAcquire2:
		st := ts.Enabled
		if s.owner[0] != 0 || s.owner[1] != 0 {
			st = ts.Blocked
		}
		return ts.Step{Obj: ts.Obj(p.vars), Op: ts.Acquire, Also: p.lock1}, st
	}
	panic("gprog: local instruction at a visible pc")
}

// Outcomes is the number of outcomes of a coin flip, 1 for every other
// transition.
func (p *gprog) Outcomes(s gstate, t ts.Tid) int {
	c := p.codeOf(t)
	if s.fail[t] == 0 && int(s.pc[t]) < len(c) && c[s.pc[t]].kind == gFlip {
		return c[s.pc[t]].k
	}
	return 1
}

func (p *gprog) Apply(s gstate, t ts.Tid) gstate { return p.ApplyOutcome(s, t, 0) }

func (p *gprog) ApplyOutcome(s gstate, t ts.Tid, c int) gstate {
	in := p.codeOf(t)[s.pc[t]]
	m := uint8(p.mod)
	switch in.kind {
	case gLoad:
		s.reg[t][in.r] = s.vars[in.x]
	case gStore:
		s.vars[in.x] = uint8(in.k)
	case gStoreTid:
		s.vars[in.x] = (uint8(t) + uint8(in.k)) % m
	case gStoreReg:
		s.vars[in.x] = (s.reg[t][in.r] + uint8(in.k)) % m
	case gFetchAdd:
		s.reg[t][in.r] = s.vars[in.x]
		s.vars[in.x] = (s.vars[in.x] + uint8(in.k)) % m
	case gAcquire:
		if s.owner[in.x] != 0 {
			panic("gprog: acquire of a held lock")
		}
		s.owner[in.x] = uint8(t) + 1
	case gRelease:
		if s.owner[in.x] != uint8(t)+1 {
			s.fail[t] = s.pc[t] + 1
			return s
		}
		s.owner[in.x] = 0
	case gAwait, gWait:
	case gFlip:
		s.reg[t][in.r], s.vars[in.x] = uint8(c), uint8(c)
	case gCopy:
		s.reg[t][in.r] = s.vars[in.x]
		s.vars[in.y] = (s.vars[in.x] + uint8(in.k)) % m
	case gAcquire2:
		if s.owner[0] != 0 || s.owner[1] != 0 {
			panic("gprog: acquire of a held lock")
		}
		s.owner[0], s.owner[1] = uint8(t)+1, uint8(t)+1
	}
	s.pc[t]++
	p.locals(&s, t)
	return s
}

// locals runs thread t's local instructions up to its next visible one.
func (p *gprog) locals(s *gstate, t ts.Tid) {
	c := p.codeOf(t)
	for int(s.pc[t]) < len(c) && !c[s.pc[t]].visible() {
		in := c[s.pc[t]]
		switch in.kind {
		case gSet:
			s.reg[t][in.r] = uint8(in.k)
		case gJumpEq:
			if int(s.reg[t][in.r]) == in.k {
				s.pc[t] = uint8(in.to)
				continue
			}
		case gAssertNe:
			if int(s.reg[t][in.r]) == in.k {
				s.fail[t] = s.pc[t] + 1
				return
			}
		}
		s.pc[t]++
	}
}

// Check reports the failed threads by group, instruction and registers,
// sorted: a message that does not depend on which thread of a group failed.
func (p *gprog) Check(s gstate) error {
	var fails []string
	for t := range p.group {
		if s.fail[t] != 0 {
			fails = append(fails, fmt.Sprintf("g%d@%d(r=%d,%d)", p.group[t], s.fail[t]-1, s.reg[t][0], s.reg[t][1]))
		}
	}
	if fails == nil {
		return nil
	}
	slices.Sort(fails)
	return fmt.Errorf("failed: %s", strings.Join(fails, " "))
}

// Invariant fails when the two variables of p.inv hold its two values.
func (p *gprog) Invariant(s gstate) error {
	if i := p.inv; i != nil && int(s.vars[i.a]) == i.va && int(s.vars[i.b]) == i.vb {
		return fmt.Errorf("invariant: x%d = %d and x%d = %d", i.a, i.va, i.b, i.vb)
	}
	return nil
}

func (p *gprog) InvariantReads() []ts.Obj {
	switch {
	case p.inv == nil:
		return nil
	case p.inv.a == p.inv.b:
		return []ts.Obj{ts.Obj(p.inv.a)}
	}
	return []ts.Obj{ts.Obj(p.inv.a), ts.Obj(p.inv.b)}
}

func (p *gprog) Hash(s gstate) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%v", s)
	return h.Sum64()
}

// key is thread t's part of s: everything that a permutation moves with it.
func (p *gprog) key(s gstate, t ts.Tid) [6]uint8 {
	var held uint8
	for l, o := range s.owner {
		if o == uint8(t)+1 {
			held |= 1 << l
		}
	}
	return [6]uint8{uint8(p.group[t]), s.pc[t], s.reg[t][0], s.reg[t][1], s.fail[t], held}
}

func (p *gprog) Permute(s gstate, perm []ts.Tid) gstate {
	r := s
	for t := range p.group {
		u := perm[t]
		r.pc[u], r.reg[u], r.fail[u] = s.pc[t], s.reg[t], s.fail[t]
	}
	for l, o := range s.owner {
		if o != 0 {
			r.owner[l] = uint8(perm[o-1]) + 1
		}
	}
	return r
}

// Canonical sorts the threads of each group by their part of the state.
func (p *gprog) Canonical(s gstate) (gstate, []ts.Tid) {
	order := make([]ts.Tid, len(p.group))
	for t := range order {
		order[t] = ts.Tid(t)
	}
	slices.SortStableFunc(order, func(a, b ts.Tid) int {
		ka, kb := p.key(s, a), p.key(s, b)
		if c := cmp.Compare(p.group[a], p.group[b]); c != 0 {
			return c
		}
		return slices.Compare(ka[:], kb[:])
	})
	// Slots: the threads of group g, in order. Groups are contiguous
	// in thread order only if generated so; fill the slots of each group
	// with that group's threads in sorted order.
	perm := make([]ts.Tid, len(p.group))
	next := map[int]int{}
	slots := map[int][]ts.Tid{}
	for t, g := range p.group {
		slots[g] = append(slots[g], ts.Tid(t))
	}
	for _, t := range order {
		g := p.group[t]
		perm[t] = slots[g][next[g]]
		next[g]++
	}
	return p.Permute(s, perm), perm
}

func (p *gprog) Signature(s gstate, t ts.Tid) uint64 {
	k := p.key(s, t)
	h := fnv.New64a()
	h.Write(k[:])
	return h.Sum64()
}

func (p *gprog) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "vars %d, locks %d, mod %d, groups %v\n", p.vars, p.locks, p.mod, p.group)
	if p.inv != nil {
		fmt.Fprintf(&b, "invariant: not (x%d = %d and x%d = %d)\n", p.inv.a, p.inv.va, p.inv.b, p.inv.vb)
	}
	for g, c := range p.code {
		fmt.Fprintf(&b, "group %d:\n", g)
		for i, in := range c {
			fmt.Fprintf(&b, "  %d: %+v\n", i, in)
		}
	}
	return b.String()
}

// gprogs generates programs of up to maxThreads threads in one to three
// groups, each group's code up to maxSteps visible instructions.
func gprogs(maxThreads, maxSteps int) *rapid.Generator[*gprog] {
	return genProgs(maxThreads, maxSteps, false)
}

// gwholes generates programs as gprogs does, with the whole model's
// instructions too and, half of the time, an invariant.
func gwholes(maxThreads, maxSteps int) *rapid.Generator[*gprog] {
	return genProgs(maxThreads, maxSteps, true)
}

func genProgs(maxThreads, maxSteps int, whole bool) *rapid.Generator[*gprog] {
	return rapid.Custom(func(t *rapid.T) *gprog {
		p := &gprog{
			vars:  rapid.IntRange(1, 2).Draw(t, "vars"),
			locks: rapid.IntRange(0, 2).Draw(t, "locks"),
			mod:   3,
		}
		p.lock1 = []ts.Access{{Obj: ts.Obj(p.vars + 1), Op: ts.Acquire}}
		n := rapid.IntRange(1, maxThreads).Draw(t, "threads")
		groups := rapid.IntRange(1, min(3, n)).Draw(t, "groups")
		for t := range n {
			p.group = append(p.group, min(t*groups/n, groups-1))
		}
		if rapid.Bool().Draw(t, "interleave") {
			p.group = rapid.Permutation(p.group).Draw(t, "layout")
		}
		for g := range groups {
			p.code = append(p.code, genCode(t, p, maxSteps, fmt.Sprint("g", g), whole))
		}
		if whole && rapid.Bool().Draw(t, "invariant?") {
			val := rapid.IntRange(0, p.mod-1)
			p.inv = &ginv{a: rapid.IntRange(0, p.vars-1).Draw(t, "inv a"), va: val.Draw(t, "inv va"),
				b: rapid.IntRange(0, p.vars-1).Draw(t, "inv b"), vb: val.Draw(t, "inv vb")}
			if p.inv.a == p.inv.b {
				p.inv.vb = p.inv.va
			}
		}
		return p
	})
}

func genCode(t *rapid.T, p *gprog, maxSteps int, label string, whole bool) []ginstr {
	steps := rapid.IntRange(1, maxSteps).Draw(t, label+"steps")
	var c []ginstr
	for range steps {
		if rapid.IntRange(0, 3).Draw(t, label+"local?") == 0 {
			switch rapid.IntRange(0, 2).Draw(t, label+"lk") {
			case 0:
				c = append(c, ginstr{kind: gSet, r: rapid.IntRange(0, 1).Draw(t, label+"r"), k: rapid.IntRange(0, p.mod-1).Draw(t, label+"k")})
			case 1:
				c = append(c, ginstr{kind: gJumpEq, r: rapid.IntRange(0, 1).Draw(t, label+"r"), k: rapid.IntRange(0, p.mod-1).Draw(t, label+"k"), to: -1})
			case 2:
				c = append(c, ginstr{kind: gAssertNe, r: rapid.IntRange(0, 1).Draw(t, label+"r"), k: rapid.IntRange(0, p.mod-1).Draw(t, label+"k")})
			}
		}
		kinds := []gkind{gLoad, gStore, gStoreReg, gFetchAdd, gAwait}
		if p.locks > 0 {
			kinds = append(kinds, gAcquire, gRelease, gAcquire, gRelease)
		}
		if whole {
			kinds = append(kinds, gFlip, gFlip, gWait, gWait)
			if p.vars > 1 {
				kinds = append(kinds, gCopy, gCopy)
			}
			if p.locks > 1 {
				kinds = append(kinds, gAcquire2)
			}
		}
		k := rapid.SampledFrom(kinds).Draw(t, label+"kind")
		in := ginstr{kind: k, r: rapid.IntRange(0, 1).Draw(t, label+"r"), k: rapid.IntRange(0, p.mod-1).Draw(t, label+"k")}
		if k == gAcquire || k == gRelease {
			in.x = rapid.IntRange(0, p.locks-1).Draw(t, label+"l")
		} else {
			in.x = rapid.IntRange(0, p.vars-1).Draw(t, label+"x")
		}
		switch k {
		case gFetchAdd, gStoreReg:
			in.k = rapid.IntRange(1, p.mod-1).Draw(t, label+"k")
		case gFlip:
			in.k = 2 // outcomes
		case gCopy:
			in.y = (in.x + rapid.IntRange(1, p.vars-1).Draw(t, label+"y")) % p.vars
		}
		c = append(c, in)
	}
	for i := range c {
		if c[i].kind == gJumpEq {
			c[i].to = rapid.IntRange(i+1, len(c)).Draw(t, label+"to")
		}
	}
	return c
}
