package por_test

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/sim"
	"github.com/weftlab/weft/threads"
	"github.com/weftlab/weft/ts"
	"github.com/weftlab/weft/ts/tstest"
)

func threadsODPOR(ctx context.Context, sys ts.TransitionSystem[sim.State], opt ts.Options) (ts.Result, error) {
	return por.ODPOR(ctx, sys, por.Options{Options: opt})
}

func threadsKey(sys *threads.System) func(any) string {
	return func(s any) string {
		k, err := tstest.TraceKey[sim.State](sys, s.(sim.State).Schedule())
		if err != nil {
			panic(err)
		}
		return k
	}
}

// threadsProgramOps draws 3 to 4 threads of up to 3 channel operations each
// (chanProg), taken from allowed (nil: all of them), over two buffered
// channels of capacity 1 (main fills them first, or not) and one
// unbuffered channel: sends, receives, selects over two channels (the
// multi-object blocking writes of package threads), and plain variable
// accesses.
func threadsProgramOps(t *rapid.T, allowed []int) (*threads.Program, string) {
	if allowed == nil {
		allowed = []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	}
	n := rapid.IntRange(3, 4).Draw(t, "threads")
	fill := rapid.IntRange(0, 2).Draw(t, "fill")
	ops := make([][]int, n)
	desc := fmt.Sprintf("fill %d:", fill)
	for i := range ops {
		ops[i] = rapid.SliceOfN(rapid.SampledFrom(allowed), 1, 3).Draw(t, fmt.Sprintf("ops%d", i))
		desc += fmt.Sprint(ops[i])
	}
	return chanProg(fill, ops...), desc
}

// ODPOR on random channel programs with selects: one execution per trace,
// every terminal state and violation of the reference (over traces).
func TestAuditThreadsChannels(t *testing.T) {
	auditChecks(t, 60, false)
	threadsChannels(t, nil)
}

// TestAuditThreadsChannels without selects: sends and receives of one
// channel at a time.
func TestAuditThreadsNoSelect(t *testing.T) {
	auditChecks(t, 100, false)
	threadsChannels(t, []int{0, 1, 2, 3, 8, 9, 10})
}

var auditOthers = flag.Bool("audit.others", false, "audit: also check sleep and dpor on channel programs, and skip odpor's check")

func threadsChannels(t *testing.T, allowed []int) {
	rapid.Check(t, func(rt *rapid.T) {
		p, desc := threadsProgramOps(rt, allowed)
		sys := p.MustSystem()
		defer sys.Close()
		key := threadsKey(sys)
		ref := auditReferenceKey[sim.State](sys, false, 20000, key)
		if ref.truncated || len(ref.traces) > 3000 {
			auditStats["skipped"]++
			return
		}
		red, err := auditRunKey[sim.State](sys, por.ODPOR[sim.State], por.Options{}, key)
		if err != nil {
			rt.Fatalf("%s: %v", desc, err)
		}
		auditStats["checked"]++
		auditStats["traces"] += len(ref.traces)
		auditStats["sleep-blocked"] += int(red.res.Stats["sleep-blocked"])
		optimal := true
		for k := range ref.violations {
			if !strings.HasPrefix(k, "deadlock") {
				optimal = false
			}
		}
		if errs := compareOuts(ref, red, optimal); len(errs) > 0 && !*auditOthers {
			rt.Fatalf("%s:\n%s", desc, strings.Join(errs, "\n"))
		}
		if !*auditOthers {
			return
		}
		for _, s := range strategies[sim.State]() {
			if s.name == "sdpor" || s.name == "odpor" {
				continue
			}
			red, err := auditRunKey[sim.State](sys, s.f, por.Options{}, key)
			if err != nil {
				rt.Fatalf("%s: %s: %v", s.name, desc, err)
			}
			if errs := compareOuts(ref, red, false); len(errs) > 0 {
				rt.Fatalf("%s: %s:\n%s", s.name, desc, strings.Join(errs, "\n"))
			}
		}
	})
	logStats(t)
}

// chanProg builds a threads program: thread i runs ops[i] (see the switch),
// then stores what it received in x (unless its last op is 12); thread 0
// first makes the channels (c0, c1 of capacity 1, u unbuffered) and puts
// fill values in them.
func chanProg(fill int, ops ...[]int) *threads.Program {
	n := len(ops)
	var o chanObjs
	p := &threads.Program{MaxThreads: n}
	for i := range n {
		p.Threads = append(p.Threads, func(t *threads.T) {
			if i == 0 {
				o.init(t, fill) // o's fields set before the first visible step
			}
			o.run(t, i, ops[i])
		})
	}
	return p
}

// chanProgSpawn is chanProg with threads 1.. spawned by main after it makes
// the channels, so that each execution makes its own objects (a program of
// several initial threads shares them through Go variables, which the
// forks of a parallel search would share too).
func chanProgSpawn(fill int, ops ...[]int) *threads.Program {
	return &threads.Program{MaxThreads: len(ops), Threads: []func(*threads.T){func(t *threads.T) {
		var o chanObjs
		o.init(t, fill)
		for i := 1; i < len(ops); i++ {
			t.Go(func(t *threads.T) { o.run(t, i, ops[i]) })
		}
		o.run(t, 0, ops[0])
	}}}
}

type chanObjs struct {
	c0, c1, u *threads.Chan[int]
	x         *threads.Var[int]
}

// init makes the objects, then fills the channels: the other initial
// threads start when thread 0 takes its first visible step, and read o
// then.
func (o *chanObjs) init(t *threads.T, fill int) {
	*o = chanObjs{threads.NewChan[int](t, "c0", 1), threads.NewChan[int](t, "c1", 1), threads.NewChan[int](t, "u", 0), threads.NewVar(t, "x", 0)}
	if fill >= 1 {
		o.c0.Send(t, 1)
	}
	if fill >= 2 {
		o.c1.Send(t, 1)
	}
}

func (o chanObjs) run(t *threads.T, i int, ops []int) {
	c0, c1, u, x := o.c0, o.c1, o.u, o.x
	acc := 0
	for _, k := range ops {
		switch k {
		case 0:
			c0.Send(t, i)
		case 1:
			c1.Send(t, i)
		case 2:
			acc += c0.Recv(t)
		case 3:
			acc += c1.Recv(t)
		case 4:
			acc += 10 * threads.Select(t, c0.RecvCase(&acc, nil), c1.RecvCase(&acc, nil))
		case 5:
			acc += 10 * threads.Select(t, c0.SendCase(i), c1.RecvCase(&acc, nil))
		case 6:
			acc += 10 * threads.Select(t, c0.SendCase(i), c1.SendCase(i))
		case 7:
			acc += 10 * threads.Select(t, u.SendCase(i), c0.RecvCase(&acc, nil))
		case 8:
			acc += u.Recv(t)
		case 9:
			acc += x.Load(t)
		case 10:
			x.Store(t, acc+i)
		case 11:
			acc += 10 * threads.Select(t, c1.SendCase(i), c0.RecvCase(&acc, nil))
		case 12:
			// nothing
		}
	}
	if len(ops) > 0 && ops[len(ops)-1] != 12 {
		x.Store(t, acc)
	}
}

// Workers 2 and 3 on random channel programs (package threads, through
// sim): the serial search's result and callbacks.
func TestAuditParallelThreads(t *testing.T) {
	auditChecks(t, 100, true)
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(2, 4).Draw(rt, "threads")
		fill := rapid.IntRange(0, 2).Draw(rt, "fill")
		ops := make([][]int, n)
		for i := range ops {
			ops[i] = rapid.SliceOfN(rapid.IntRange(0, 12), 1, 3).Draw(rt, fmt.Sprintf("ops%d", i))
		}
		sys := chanProgSpawn(fill, ops...).MustSystem()
		defer sys.Close()
		name := rapid.SampledFrom([]string{"sleep", "dpor", "odpor", "odpor"}).Draw(rt, "strategy")
		parallelCase[sim.State](rt, sys, name)
	})
	logStats(t)
}
