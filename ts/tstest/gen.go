package tstest

import (
	"fmt"

	"pgregory.net/rapid"
)

// GenOptions shape the programs [Programs] generates. The zero value gives
// 1 to 3 threads of up to 4 visible steps over up to 2 data variables, 1
// synchronization variable and 2 locks, with values 0..3 and every feature
// on, the extended model's included (transitions of several objects and of
// several outcomes, idle threads, invariants); the No fields switch features
// off, and Core switches the extended model off. Generated programs are
// acyclic (jumps go forward), so every execution terminates.
type GenOptions struct {
	MinThreads int // 0 means 1
	MaxThreads int // 0 means 3; at most 8
	MaxSteps   int // visible instructions per thread, at least 1; 0 means 4
	Vars       int // data variables, at least 1; 0 means 2
	SyncVars   int // synchronization variables (unless NoSync); 0 means 1
	Locks      int // locks (unless NoLocks); 0 means 2
	Mod        int // values 0..Mod-1; 0 means 4

	NoRMW       bool // no fetch-add or compare-and-swap
	NoLocks     bool // no locks
	NoBranches  bool // no conditional jumps
	NoAsserts   bool // no check can fail: no assertions, no invariant, no release of a lock not held
	NoDeadlocks bool // locks taken in one global order and always released; await is still allowed to block forever
	NoSync      bool // no synchronization variables (and so no await)
	NoAwait     bool // no await

	NoMixed      bool // awaits only on synchronization variables, so that no object has both synchronization and plain accesses
	NoMulti      bool // no transitions of several objects (Copy, AwaitAny, Acquire2)
	NoChoices    bool // no transitions of several outcomes (Pick, StoreMaybe)
	NoIdle       bool // no idle waits (Wait)
	NoInvariants bool // no invariant

	// CASReads draws programs with value-dependent steps: compare-and-swaps
	// are drawn more often, and in three programs of four a failed one is a
	// Read (Program.CASReads, which declares ts.ValueDependent), in the
	// fourth a Write as before. It is off by default because only some
	// strategies take such systems (the others refuse them); their tests
	// switch it on. Programs drawn without it are drawn as before.
	CASReads bool
}

// Core returns o with the extended model switched off: every transition
// touches one object and has one outcome, no thread is ever Idle, there is
// no invariant, no object has both synchronization and plain accesses, and
// every compare-and-swap is a Write (no CASReads).
// It is for strategies that refuse the rest; its programs are drawn as
// before the rest existed, so that rapid's regression files for it keep
// their meaning.
func (o GenOptions) Core() GenOptions {
	o.NoMulti, o.NoChoices, o.NoIdle, o.NoInvariants, o.NoMixed = true, true, true, true, true
	o.CASReads = false
	return o
}

// withDefaults fills in the zero fields.
func (o GenOptions) withDefaults() GenOptions {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.MinThreads, 1)
	def(&o.MaxThreads, 3)
	def(&o.MaxSteps, 4)
	def(&o.Vars, 2)
	def(&o.SyncVars, 1)
	def(&o.Locks, 2)
	def(&o.Mod, 4)
	o.MaxThreads = min(max(o.MaxThreads, o.MinThreads), 8)
	o.MinThreads = min(o.MinThreads, o.MaxThreads)
	o.Mod = min(max(o.Mod, 2), 256)
	if o.NoSync {
		o.SyncVars, o.NoAwait = 0, true
	}
	if o.NoLocks {
		o.Locks = 0
	}
	if o.NoAsserts {
		o.NoInvariants = true
	}
	return o
}

var dataNames = []string{"x", "y", "z", "w"}

// Programs returns a generator of random valid programs shaped by opt.
// rapid shrinks a failing program toward fewer threads and instructions and
// smaller constants; Program.String lists it and Program.GoString (what
// rapid logs) is Go source that rebuilds it.
func Programs(opt GenOptions) *rapid.Generator[*Program] {
	o := opt.withDefaults()
	return rapid.Custom(func(t *rapid.T) *Program {
		p := &Program{Mod: o.Mod}
		nvars := rapid.IntRange(1, o.Vars).Draw(t, "vars")
		for i := range nvars {
			name := fmt.Sprintf("x%d", i)
			if i < len(dataNames) {
				name = dataNames[i]
			}
			p.Vars = append(p.Vars, Var{Name: name, Init: rapid.IntRange(0, o.Mod-1).Draw(t, "init")})
		}
		nsync := 0
		if o.SyncVars > 0 {
			nsync = rapid.IntRange(0, o.SyncVars).Draw(t, "syncvars")
		}
		for i := range nsync {
			p.Vars = append(p.Vars, Var{Name: fmt.Sprintf("s%d", i), Init: rapid.IntRange(0, o.Mod-1).Draw(t, "init"), Sync: true})
		}
		nlocks := 0
		if o.Locks > 0 {
			nlocks = rapid.IntRange(0, o.Locks).Draw(t, "locks")
		}
		for i := range nlocks {
			p.Locks = append(p.Locks, fmt.Sprintf("m%d", i))
		}
		n := rapid.IntRange(o.MinThreads, o.MaxThreads).Draw(t, "threads")
		g := &gen{t: t, o: o, p: p, nvars: nvars, nsync: nsync}
		for range n {
			p.Code = append(p.Code, g.thread())
		}
		if !o.NoInvariants && rapid.IntRange(0, 2).Draw(t, "invariant") == 0 {
			nv := nvars + nsync
			c := Cond{X: rapid.IntRange(0, nv-1).Draw(t, "inv.x"), Y: -1, K: g.val()}
			if nv > 1 && rapid.Bool().Draw(t, "inv.sum") {
				c.Y = (c.X + 1 + rapid.IntRange(0, nv-2).Draw(t, "inv.y")) % nv
			}
			// Start from a state where it holds: pick K away from the
			// initial values.
			v := p.Vars[c.X].Init
			if c.Y >= 0 {
				v = (v + p.Vars[c.Y].Init) % o.Mod
			}
			if c.K == v {
				c.K = (c.K + 1) % o.Mod
			}
			p.Invariants = append(p.Invariants, c)
		}
		if o.CASReads {
			p.CASReads = rapid.IntRange(0, 3).Draw(t, "casreads") != 0
		}
		if err := p.Validate(); err != nil {
			panic(fmt.Sprintf("tstest: generated an invalid program: %v\n%v", err, p))
		}
		return p
	})
}

// gen generates the threads of one program.
type gen struct {
	t            *rapid.T
	o            GenOptions
	p            *Program
	nvars, nsync int
}

func (g *gen) val() int      { return rapid.IntRange(0, g.o.Mod-1).Draw(g.t, "k") }
func (g *gen) reg() int      { return rapid.IntRange(0, 1).Draw(g.t, "r") }
func (g *gen) variable() int { return rapid.IntRange(0, g.nvars+g.nsync-1).Draw(g.t, "x") }

// awaited returns the variable an await waits on: a synchronization
// variable, or with mixed objects any variable.
func (g *gen) awaited() int {
	if g.o.NoMixed {
		return g.nvars + g.choose(g.nsync)
	}
	return g.choose(g.nvars + g.nsync)
}

// other returns a variable other than x, or -1 when there is none.
func (g *gen) other(x int) int {
	n := g.nvars + g.nsync
	if n < 2 {
		return -1
	}
	return (x + 1 + rapid.IntRange(0, n-2).Draw(g.t, "y")) % n
}
func (g *gen) choose(n int) int { return rapid.IntRange(0, n-1).Draw(g.t, "choice") }

// Choices of a visible instruction.
const (
	cLoad = iota
	cStore
	cStoreReg
	cFetchAdd
	cCAS
	cAcquire
	cRelease
	cAwait
	cCopy
	cAwaitAny
	cAcquire2
	cPick
	cStoreMaybe
	cWait
)

// thread generates one thread: visible instructions with local ones between
// them. Locks are taken and released as the options allow.
func (g *gen) thread() []Instr {
	o := g.o
	steps := rapid.IntRange(1, o.MaxSteps).Draw(g.t, "steps")
	var code []Instr
	var held []int // locks held, in the order taken
	lockInstr := map[int]bool{}
	for v := 0; v < steps; v++ {
		code = g.locals(code)
		remaining := steps - v - 1 // visible slots after this one
		choices := []int{cLoad, cStore, cStoreReg}
		if !o.NoRMW {
			choices = append(choices, cFetchAdd, cCAS)
			if o.CASReads {
				choices = append(choices, cCAS, cCAS) // more races between them
			}
		}
		if acq := g.acquirable(held); len(acq) > 0 && (!o.NoDeadlocks || remaining >= len(held)+1) {
			choices = append(choices, cAcquire)
		}
		if len(held) > 0 {
			choices = append(choices, cRelease)
		}
		canAwait := !o.NoAwait && (g.nsync > 0 || !o.NoMixed)
		if canAwait {
			choices = append(choices, cAwait)
			if !o.NoIdle {
				choices = append(choices, cWait)
			}
		}
		if !o.NoMulti && g.nvars+g.nsync > 1 {
			choices = append(choices, cCopy)
			if canAwait {
				choices = append(choices, cAwaitAny)
			}
		}
		if acq := g.acquirable(held); !o.NoMulti && len(acq) > 1 && (!o.NoDeadlocks || remaining >= len(held)+2) {
			choices = append(choices, cAcquire2)
		}
		if !o.NoChoices {
			choices = append(choices, cPick, cStoreMaybe)
		}
		// Without deadlocks, the last slots are kept for releases.
		if o.NoDeadlocks && remaining < len(held) {
			choices = []int{cRelease}
		}
		var in Instr
		switch choices[g.choose(len(choices))] {
		case cLoad:
			in = Load(g.reg(), g.variable())
		case cStore:
			in = Store(g.variable(), g.val())
		case cStoreReg:
			in = StoreReg(g.variable(), g.reg(), g.val())
		case cFetchAdd:
			in = FetchAdd(g.reg(), g.variable(), rapid.IntRange(1, o.Mod-1).Draw(g.t, "k"))
		case cCAS:
			in = CAS(g.reg(), g.variable(), g.val(), g.val())
		case cAcquire:
			acq := g.acquirable(held)
			l := acq[g.choose(len(acq))]
			held = append(held, l)
			in = Acquire(l)
		case cRelease:
			i := len(held) - 1 // last taken, first released
			if !o.NoDeadlocks {
				i = g.choose(len(held))
			}
			in = Release(held[i])
			held = append(held[:i], held[i+1:]...)
		case cAwait:
			in = Await(g.awaited(), rapid.IntRange(0, 1).Draw(g.t, "k"))
		case cWait:
			in = Wait(g.awaited(), rapid.IntRange(0, 1).Draw(g.t, "k"))
		case cCopy:
			x := g.variable()
			in = Copy(x, g.other(x))
		case cAwaitAny:
			x := g.awaited()
			in = AwaitAny(g.reg(), x, g.other(x), rapid.IntRange(0, 1).Draw(g.t, "k"))
		case cAcquire2:
			acq := g.acquirable(held)
			i := g.choose(len(acq))
			j := (i + 1 + g.choose(len(acq)-1)) % len(acq)
			if g.o.NoDeadlocks && acq[j] < acq[i] {
				i, j = j, i // taken in the global order
			}
			held = append(held, acq[i], acq[j])
			in = Acquire2(acq[i], acq[j])
		case cPick:
			in = Pick(g.reg(), g.variable(), rapid.IntRange(2, 3).Draw(g.t, "k"))
		case cStoreMaybe:
			in = StoreMaybe(g.variable(), g.val())
		}
		if in.Kind == KAcquire || in.Kind == KRelease || in.Kind == KAcquire2 {
			lockInstr[len(code)] = true
		}
		code = append(code, in)
	}
	code = g.locals(code)
	// Jumps go to the end at the furthest; without deadlocks or failures
	// they do not skip a lock operation, so every lock taken is released and
	// none is released unheld.
	for i := range code {
		in := &code[i]
		if in.Kind != KJump && in.Kind != KJumpEq && in.Kind != KJumpNe {
			continue
		}
		in.To = min(in.To, len(code))
		if o.NoDeadlocks || o.NoAsserts {
			for j := i + 1; j < in.To; j++ {
				if lockInstr[j] {
					in.To = j
					break
				}
			}
		}
	}
	return code
}

// acquirable returns the locks a thread holding held may take next: any it
// does not hold, or without deadlocks only those after the last it took.
func (g *gen) acquirable(held []int) []int {
	var out []int
	for l := range len(g.p.Locks) {
		ok := true
		for _, h := range held {
			if h == l || (g.o.NoDeadlocks && h > l) {
				ok = false
			}
		}
		if ok {
			out = append(out, l)
		}
	}
	return out
}

// locals appends zero, one or two local instructions. Assertions come only
// after a visible instruction, and mostly as r != k, so that most programs
// run to their end in most schedules.
func (g *gen) locals(code []Instr) []Instr {
	visible := false
	for _, in := range code {
		visible = visible || in.Kind.Visible()
	}
	for range 2 {
		var in Instr
		switch c := g.choose(20); {
		case c < 10:
			return code
		case c < 12:
			in = Set(g.reg(), g.val())
		case c < 14:
			in = Move(g.reg(), g.reg(), g.val())
		case c < 17:
			if g.o.NoBranches {
				return code
			}
			to := len(code) + 1 + rapid.IntRange(1, 3).Draw(g.t, "skip") // clamped once the thread is complete
			if rapid.Bool().Draw(g.t, "eq") {
				in = JumpEq(g.reg(), g.val(), to)
			} else {
				in = JumpNe(g.reg(), g.val(), to)
			}
		default:
			if g.o.NoAsserts || !visible {
				return code
			}
			if g.choose(3) == 0 {
				in = AssertEq(g.reg(), g.val())
			} else {
				in = AssertNe(g.reg(), g.val())
			}
		}
		code = append(code, in)
	}
	return code
}
