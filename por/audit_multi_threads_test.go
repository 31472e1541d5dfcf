package por_test

// Second outside audit: Go programs of package threads whose selects range
// over up to four channels (three buffered of drawn capacity, one
// unbuffered), with send and receive cases mixed, defaults, closes (a
// receive from a closed channel returns at once, a send panics), 3 to 5
// goroutines started as initial threads or spawned by main, and
// Program.Leaks drawn (a goroutine left waiting after main returns is Idle,
// or a deadlock). And programs with a sync.Cond, two mutexes and a channel
// (condProgram).

import (
	"fmt"
	"math/bits"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/sim"
	"github.com/weftlab/weft/threads"
	"github.com/weftlab/weft/ts"
)

const (
	chSendOp   = iota // c <- i
	chRecvOp          // acc += <-c
	chSelectOp        // select over the channels of Mask: send where Send has the bit, else receive; a default if Dflt
	chCloseOp         // close(c)
	chLoadOp          // acc += x
	chStoreOp         // x = acc + i
	chRecv2Op         // v, ok := <-c; acc += v + 100*ok
	chOpKinds
)

type chOp struct {
	Kind       int8
	C          int8  // channel of a send, receive or close
	Mask, Send uint8 // a select's channels, and which of them it sends on
	Dflt       bool
}

func (op chOp) String() string {
	name := func(c int) string { return [...]string{"c0", "c1", "c2", "u"}[c] }
	switch op.Kind {
	case chSendOp:
		return name(int(op.C)) + " <- i"
	case chRecvOp:
		return "<-" + name(int(op.C))
	case chCloseOp:
		return "close(" + name(int(op.C)) + ")"
	case chLoadOp:
		return "load x"
	case chStoreOp:
		return "store x"
	case chRecv2Op:
		return "v, ok := <-" + name(int(op.C))
	}
	var cases []string
	for _, c := range members(op.Mask) {
		if op.Send&(1<<c) != 0 {
			cases = append(cases, name(c)+" <- i")
		} else {
			cases = append(cases, "<-"+name(c))
		}
	}
	if op.Dflt {
		cases = append(cases, "default")
	}
	return "select{" + strings.Join(cases, "; ") + "}"
}

// chProgram is a drawn Go program: Caps are c0, c1, c2's capacities (u is
// unbuffered), Fill the values main puts in c0 and c1 first, Ops each
// goroutine's operations (goroutine 0 is main).
type chProgram struct {
	Caps  [3]int
	Fill  [2]bool
	Spawn bool // main spawns the others after making the channels
	Leaks bool
	Ops   [][]chOp
}

func (c *chProgram) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "caps c0 %d c1 %d c2 %d, u 0; fill %v; spawn %v; leaks %v\n", c.Caps[0], c.Caps[1], c.Caps[2], c.Fill, c.Spawn, c.Leaks)
	for i, ops := range c.Ops {
		fmt.Fprintf(&b, "g%d:", i)
		for _, op := range ops {
			fmt.Fprintf(&b, " %v;", op)
		}
		b.WriteString(" store x\n")
	}
	return b.String()
}

func (c *chProgram) GoString() string {
	return fmt.Sprintf("&chProgram{Caps: %#v, Fill: %#v, Spawn: %v, Leaks: %v, Ops: %#v}", c.Caps, c.Fill, c.Spawn, c.Leaks, c.Ops)
}

type chObjs struct {
	ch [4]*threads.Chan[int]
	x  *threads.Var[int]
}

func (c *chProgram) init(t *threads.T) *chObjs {
	o := &chObjs{}
	for i := range 3 {
		o.ch[i] = threads.NewChan[int](t, fmt.Sprintf("c%d", i), c.Caps[i])
	}
	o.ch[3] = threads.NewChan[int](t, "u", 0)
	o.x = threads.NewVar(t, "x", 0)
	for i, f := range c.Fill {
		if f && c.Caps[i] > 0 {
			o.ch[i].Send(t, 7)
		}
	}
	return o
}

func (c *chProgram) run(t *threads.T, o *chObjs, i int) {
	acc := 0
	for _, op := range c.Ops[i] {
		switch op.Kind {
		case chSendOp:
			o.ch[op.C].Send(t, i+1)
		case chRecvOp:
			acc += o.ch[op.C].Recv(t)
		case chRecv2Op:
			v, ok := o.ch[op.C].Recv2(t)
			acc += v
			if ok {
				acc += 100
			}
		case chCloseOp:
			o.ch[op.C].Close(t)
		case chLoadOp:
			acc += o.x.Load(t)
		case chStoreOp:
			o.x.Store(t, acc+i)
		case chSelectOp:
			var cases []threads.Case
			for _, ch := range members(op.Mask) {
				if op.Send&(1<<ch) != 0 {
					cases = append(cases, o.ch[ch].SendCase(i+1))
				} else {
					cases = append(cases, o.ch[ch].RecvCase(&acc, nil))
				}
			}
			if op.Dflt {
				cases = append(cases, threads.Default())
			}
			acc += 10 * (threads.Select(t, cases...) + 1)
		}
	}
	o.x.Store(t, acc)
}

func (c *chProgram) program() *threads.Program {
	return goProgram(len(c.Ops), c.Spawn, c.Leaks, c.init, c.run)
}

// chPrograms draws chPrograms of minT..maxT goroutines of 1..maxOps
// operations; selects over three or four channels are drawn often.
func chPrograms(minT, maxT, maxOps int) *rapid.Generator[*chProgram] {
	return rapid.Custom(func(t *rapid.T) *chProgram {
		c := &chProgram{Spawn: rapid.Bool().Draw(t, "spawn"), Leaks: rapid.Bool().Draw(t, "leaks")}
		for i := range c.Caps {
			c.Caps[i] = rapid.IntRange(0, 2).Draw(t, "cap")
		}
		if rapid.IntRange(0, 2).Draw(t, "capsOne") == 0 {
			c.Caps = [3]int{1, 1, 1}
		}
		c.Fill = [2]bool{rapid.Bool().Draw(t, "fill0"), rapid.Bool().Draw(t, "fill1")}
		closes := rapid.IntRange(0, 3).Draw(t, "closes") == 0
		n := rapid.IntRange(minT, maxT).Draw(t, "goroutines")
		for range n {
			k := rapid.IntRange(1, maxOps).Draw(t, "ops")
			var ops []chOp
			for range k {
				op := chOp{Kind: int8(rapid.SampledFrom([]int{chSendOp, chRecvOp, chSelectOp, chSelectOp, chSelectOp, chCloseOp, chLoadOp, chStoreOp, chRecv2Op}).Draw(t, "kind"))}
				switch op.Kind {
				case chSendOp, chRecvOp, chRecv2Op, chCloseOp:
					op.C = int8(rapid.IntRange(0, 3).Draw(t, "chan"))
					if op.Kind == chCloseOp && !closes {
						op.Kind = chRecvOp
					}
				case chSelectOp:
					for bits.OnesCount8(op.Mask) < 2 {
						op.Mask = uint8(rapid.IntRange(3, 15).Draw(t, "mask"))
						if rapid.Bool().Draw(t, "three") {
							op.Mask = uint8(rapid.SampledFrom([]int{7, 11, 13, 14, 15}).Draw(t, "mask3"))
						}
					}
					op.Send = uint8(rapid.IntRange(0, 15).Draw(t, "send")) & op.Mask
					op.Dflt = rapid.IntRange(0, 3).Draw(t, "default") == 0
				}
				ops = append(ops, op)
			}
			c.Ops = append(c.Ops, ops)
		}
		return c
	})
}

// chCheck checks ODPOR on a drawn Go program against the trace reference:
// every terminal state (keyed by trace) and violation, one execution per
// trace when no check fails.
func chCheck(t *rapid.T, c *chProgram, maxNodes, maxTraces int) {
	goCheck(t, c.program(), c, maxNodes, maxTraces)
}

// goCheck is chCheck for program p, drawn as c (printed on failure). It
// reports whether the program was checked and, if so, whether ODPOR was to
// be optimal there, and its result.
func goCheck(t *rapid.T, p *threads.Program, c any, maxNodes, maxTraces int) (ts.Result, bool, bool) {
	sys := p.MustSystem()
	defer sys.Close()
	key := threadsKey(sys)
	ref := auditReferenceKey[sim.State](sys, false, maxNodes, key)
	if ref.truncated || len(ref.traces) > maxTraces {
		auditStats["skipped"]++
		return ts.Result{}, false, false
	}
	red, err := auditRunKey[sim.State](sys, por.ODPOR[sim.State], por.Options{}, key)
	if err != nil {
		t.Fatalf("%v: %v", c, err)
	}
	auditStats["checked"]++
	auditStats["traces"] += len(ref.traces)
	auditStats["sleep-blocked"] += int(red.res.Stats["sleep-blocked"])
	optimal := true
	for k := range ref.violations {
		if !strings.HasPrefix(k, "deadlock") {
			optimal = false
		} else {
			auditStats["deadlocks"]++
		}
	}
	if !optimal {
		auditStats["with-failures"]++
	}
	if errs := compareOuts(ref, red, optimal); len(errs) > 0 {
		t.Fatalf("odpor on\n%v%#v\n%s", c, c, strings.Join(errs, "\n"))
	}
	return red.res, optimal, true
}

// Go programs of 3 to 4 goroutines of up to 3 operations.
func TestAuditMultiSelects(t *testing.T) {
	auditChecks(t, 30, false)
	rapid.Check(t, func(t *rapid.T) {
		chCheck(t, chPrograms(3, 4, 3).Draw(t, "program"), 20000, 3000)
	})
	logStats(t)
}

// Go programs of 4 to 5 goroutines of up to 2 operations.
func TestAuditMultiSelectsWide(t *testing.T) {
	auditChecks(t, 15, false)
	rapid.Check(t, func(t *rapid.T) {
		chCheck(t, chPrograms(4, 5, 2).Draw(t, "program"), 20000, 3000)
	})
	logStats(t)
}

// condProgram is a drawn Go program over a mutex mu, a sync.Cond cv on mu
// (its wake-up is one step that reads cv and acquires mu, and waits), a
// second mutex mu2, a buffered channel c of capacity 1 and a variable x:
// Ops[i] are goroutine i's operations (see run), main's first; the others
// are spawned by main or initial threads.
type condProgram struct {
	Spawn, Leaks bool
	Ops          [][]int
}

func (c *condProgram) String() string {
	names := []string{"mu.Lock; x = acc; mu.Unlock", "mu.Lock; cv.Wait; mu.Unlock", "mu.Lock; acc += x; cv.Wait; acc += x; mu.Unlock",
		"cv.Signal", "cv.Broadcast", "mu.Lock; x = acc + 1; cv.Signal; mu.Unlock", "acc += x", "x = acc + i",
		"mu2.Lock; mu.Lock; mu.Unlock; mu2.Unlock", "c <- i", "acc += <-c", "mu.Lock; mu2.Lock; mu2.Unlock; mu.Unlock"}
	var b strings.Builder
	fmt.Fprintf(&b, "spawn %v, leaks %v\n", c.Spawn, c.Leaks)
	for i, ops := range c.Ops {
		fmt.Fprintf(&b, "g%d:", i)
		for _, op := range ops {
			fmt.Fprintf(&b, " %s;", names[op])
		}
		b.WriteString(" x = acc\n")
	}
	return b.String()
}

type condObjs struct {
	mu, mu2 *threads.Mutex
	cv      *threads.Cond
	c       *threads.Chan[int]
	x       *threads.Var[int]
}

func (c *condProgram) init(t *threads.T) *condObjs {
	o := &condObjs{mu: threads.NewMutex(t, "mu"), mu2: threads.NewMutex(t, "mu2")}
	o.cv = threads.NewCond(t, "cv", o.mu)
	o.c = threads.NewChan[int](t, "c", 1)
	o.x = threads.NewVar(t, "x", 0)
	return o
}

func (c *condProgram) run(t *threads.T, o *condObjs, i int) {
	acc := 0
	for _, op := range c.Ops[i] {
		switch op {
		case 0:
			o.mu.Lock(t)
			o.x.Store(t, acc)
			o.mu.Unlock(t)
		case 1:
			o.mu.Lock(t)
			o.cv.Wait(t)
			o.mu.Unlock(t)
		case 2:
			o.mu.Lock(t)
			acc += o.x.Load(t)
			o.cv.Wait(t)
			acc += 3 * o.x.Load(t)
			o.mu.Unlock(t)
		case 3:
			o.cv.Signal(t)
		case 4:
			o.cv.Broadcast(t)
		case 5:
			o.mu.Lock(t)
			o.x.Store(t, acc+1)
			o.cv.Signal(t)
			o.mu.Unlock(t)
		case 6:
			acc += o.x.Load(t)
		case 7:
			o.x.Store(t, acc+i)
		case 8:
			o.mu2.Lock(t)
			o.mu.Lock(t)
			o.mu.Unlock(t)
			o.mu2.Unlock(t)
		case 9:
			o.c.Send(t, i)
		case 10:
			acc += o.c.Recv(t)
		case 11:
			o.mu.Lock(t)
			o.mu2.Lock(t)
			o.mu2.Unlock(t)
			o.mu.Unlock(t)
		}
	}
	o.x.Store(t, acc)
}

func (c *condProgram) program() *threads.Program {
	return goProgram(len(c.Ops), c.Spawn, c.Leaks, c.init, c.run)
}

func condPrograms(minT, maxT, maxOps int) *rapid.Generator[*condProgram] {
	return rapid.Custom(func(t *rapid.T) *condProgram {
		c := &condProgram{Spawn: rapid.Bool().Draw(t, "spawn"), Leaks: rapid.Bool().Draw(t, "leaks")}
		n := rapid.IntRange(minT, maxT).Draw(t, "goroutines")
		for range n {
			c.Ops = append(c.Ops, rapid.SliceOfN(rapid.IntRange(0, 11), 1, maxOps).Draw(t, "ops"))
		}
		return c
	})
}

// Go programs with a sync.Cond (whose wake-up reads the Cond and acquires
// its mutex, and waits), mutexes taken in both orders, a channel: 3 to 4
// goroutines of up to 2 operations.
func TestAuditMultiCond(t *testing.T) {
	auditChecks(t, 20, false)
	condCheck(t, 3, 4, 2, 20000, 3000)
}

// TestAuditMultiCond with 4 goroutines of up to 2 operations, and larger
// references.
func TestAuditMultiCondWide(t *testing.T) {
	auditChecks(t, 5, false)
	condCheck(t, 4, 4, 2, 100000, 10000)
}

func condCheck(t *testing.T, minT, maxT, maxOps, maxNodes, maxTraces int) {
	rapid.Check(t, func(t *rapid.T) {
		c := condPrograms(minT, maxT, maxOps).Draw(t, "program")
		res, optimal, ok := goCheck(t, c.program(), c, maxNodes, maxTraces)
		if ok && optimal && res.Stats["sleep-blocked"] > 0 {
			auditStats["programs-sleep-blocked"]++
		}
	})
	logStats(t)
}

// goProgram is a program of n goroutines, each running run(t, objs, i) on
// the objects init makes: started by goroutine 0 (spawn), or all initial
// threads with goroutine 0 making the objects before it runs.
func goProgram[O any](n int, spawn, leaks bool, init func(*threads.T) O, run func(*threads.T, O, int)) *threads.Program {
	p := &threads.Program{MaxThreads: n, Leaks: leaks}
	if spawn {
		p.Threads = []func(*threads.T){func(t *threads.T) {
			o := init(t)
			for i := 1; i < n; i++ {
				t.Go(func(t *threads.T) { run(t, o, i) })
			}
			run(t, o, 0)
		}}
		return p
	}
	var o O
	for i := range n {
		p.Threads = append(p.Threads, func(t *threads.T) {
			if i == 0 {
				o = init(t)
			}
			run(t, o, i)
		})
	}
	return p
}
