package estimate

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/weftlab/weft/internal/search"
	"github.com/weftlab/weft/ts"
)

// Tree is what an estimate counts.
type Tree uint8

const (
	// DFS is ts.Explore's tree (the dfs strategy): every move (thread and
	// outcome) enabled at every state; a state where a check fails or no
	// thread is enabled is a leaf. Executions estimates its leaves (dfs's
	// executions under KeepGoing) and Transitions its other nodes (dfs's
	// transitions).
	DFS Tree = iota
	// Traces is the number of Mazurkiewicz traces of complete executions
	// (two steps of different threads commute when ts.Dependent says they
	// are independent; outcomes are part of a step): what odpor explores
	// on a system without violations, and what sleep and dpor explore
	// (their executions, which leave out the sleep-blocked ones, equal the
	// traces on the bundled models; see the por package). Transitions is
	// not estimated (0).
	Traces
)

var treeNames = [...]string{DFS: "dfs tree", Traces: "Mazurkiewicz traces"}

func (t Tree) String() string {
	if int(t) < len(treeNames) {
		return treeNames[t]
	}
	return fmt.Sprintf("Tree(%d)", uint8(t))
}

// DefaultProbes is the number of probes when Options.Probes is zero.
const DefaultProbes = 300

// Options are an estimate's.
type Options struct {
	Tree   Tree
	Probes int    // random probes from the root; 0: DefaultProbes
	Seed   uint64 // the same seed gives the same estimate
	// Limits: Depth (a probe longer than it is ErrDepth, as in a search)
	// and Transitions (a cap on the transitions all probes apply
	// together; the estimate then has the probes done).
	Limits ts.Limits
}

// Estimate is Knuth's estimate of the size of a search tree: the mean,
// over random probes from the root (each move chosen uniformly among the
// node's children), of the product of the branching factors along the
// probe (for the leaves), and of the sums of its prefixes (for the nodes).
// Both means are unbiased estimates of the tree's leaves and non-root
// nodes.
type Estimate struct {
	Tree   Tree
	Probes int
	// Executions estimates the leaves: the tree's executions (for Traces,
	// the leaves that are not sleep-blocked).
	Executions float64
	// Transitions estimates the non-root nodes: the transitions a search
	// applies to walk the tree once.
	Transitions float64
	// RelErr is the standard error of Executions over Executions (the
	// spread of the probes' estimates over the square root of their count);
	// 0 when every probe agreed.
	RelErr float64
	// Cost is the transitions the probes applied.
	Cost int64
}

// String says what was estimated: "~169,000 executions, 1,560,000
// transitions (dfs tree, 300 probes, standard error 4%)".
func (e Estimate) String() string {
	return fmt.Sprintf("~%s executions, ~%s transitions (%v, %d probes, standard error %.0f%%)",
		approx(e.Executions), approx(e.Transitions), e.Tree, e.Probes, 100*e.RelErr)
}

// approx writes x with three significant figures and thousands separators.
func approx(x float64) string {
	if x < 1000 {
		return fmt.Sprintf("%.0f", x)
	}
	p := math.Pow(10, math.Floor(math.Log10(x))-2)
	v := int64(math.Round(x/p) * p)
	s := fmt.Sprint(v)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Size estimates the size of the tree opt.Tree of sys by opt.Probes random
// probes. Probes see the whole model: outcomes are children of their own,
// a state where Check or the Invariant fails is a leaf (as ts.Explore under
// KeepGoing ends the execution there), a state without an enabled thread is
// a leaf. A system error (a bad step, a panic) is returned as an error.
func Size[S any](ctx context.Context, sys ts.TransitionSystem[S], opt Options) (Estimate, error) {
	est := Estimate{Tree: opt.Tree}
	if err := search.Context(ctx); err != nil {
		return est, err
	}
	switch {
	case sys == nil:
		return est, fmt.Errorf("%w: estimate: nil system", ts.ErrBadOptions)
	case opt.Probes < 0:
		return est, fmt.Errorf("%w: estimate: negative probe count %d", ts.ErrBadOptions, opt.Probes)
	case opt.Tree > Traces:
		return est, fmt.Errorf("%w: estimate: unknown tree %d", ts.ErrBadOptions, opt.Tree)
	case opt.Limits.Depth < 0 || opt.Limits.Transitions < 0:
		return est, fmt.Errorf("%w: estimate: negative limit", ts.ErrBadOptions)
	}
	probes := opt.Probes
	if probes == 0 {
		probes = DefaultProbes
	}
	m, err := search.NewModel(sys)
	if err != nil {
		return est, err
	}
	p := &prober[S]{m: m, tree: opt.Tree, maxDepth: opt.Limits.MaxDepth(), current: -1,
		rng: rand.New(rand.NewPCG(opt.Seed, 0x2545f4914f6cdd1d))}
	p.init()
	var sum, sumSq, nodes float64
	for i := range probes {
		if ctx.Err() != nil {
			return est, fmt.Errorf("weft: estimate cancelled: %w", ctx.Err())
		}
		if opt.Limits.Transitions > 0 && est.Cost >= opt.Limits.Transitions && i > 0 {
			break
		}
		leaves, inner, err := p.probe()
		if err != nil {
			return est, err
		}
		sum += leaves
		sumSq += leaves * leaves
		nodes += inner
		est.Probes++
		est.Cost = p.cost
	}
	n := float64(est.Probes)
	est.Executions = sum / n
	est.Transitions = nodes / n
	if est.Probes > 1 && est.Executions > 0 {
		variance := math.Max(sumSq/n-est.Executions*est.Executions, 0) * n / (n - 1)
		est.RelErr = math.Sqrt(variance/n) / est.Executions
	}
	return est, nil
}

type prober[S any] struct {
	m        *search.Model[S]
	tree     Tree
	rng      *rand.Rand
	maxDepth int
	current  ts.Tid
	cost     int64

	steps  []ts.Step
	status []ts.Status
	outs   []int
	sched  ts.Schedule

	// The probes are importance-sampled: thread t is chosen with
	// probability proportional to the transitions it has left (its most in
	// any probe so far, less what it took in this one), as URW chooses,
	// and the weight divides by that probability. Any such choice keeps the
	// estimate unbiased; this one is uniform over the leaves, and so has no
	// variance, when the threads' lengths are fixed and nothing blocks.
	lengths []int
	done    []int
	weights []float64

	ext linext // Traces: the probe's events and the linear-extension count
}

func (p *prober[S]) init() {
	n := p.m.N
	p.steps, p.status, p.outs = make([]ts.Step, n), make([]ts.Status, n), make([]int, n)
	p.lengths, p.done, p.weights = make([]int, n), make([]int, n), make([]float64, n)
	p.ext.init(n)
}

// probe walks one random path from the root and returns its estimate of
// the leaves and of the non-root nodes.
//
// For Traces, a leaf's weight is divided by the number of linearizations
// of its execution's happens-before order (its trace's executions, every
// one a leaf of the DFS tree): summed over the leaves, those weights count
// each trace once, and the estimate stays unbiased.
func (p *prober[S]) probe() (leaves, nodes float64, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &ts.SystemError{Err: ts.ErrBadSystem, Thread: p.current, Schedule: p.sched.Clone(),
				Detail: fmt.Sprintf("panic while estimating: %v", r)}
		}
	}()
	defer func() {
		for t, d := range p.done {
			p.lengths[t] = max(p.lengths[t], d)
		}
	}()
	clear(p.done)
	p.sched = p.sched[:0]
	p.ext.reset()
	s := p.m.Sys.Init()
	weight := 1.0
	last := ts.Tid(-1)
	for {
		if len(p.sched) > p.maxDepth {
			return 0, 0, &ts.SystemError{Err: ts.ErrDepth, Thread: last, Schedule: p.sched.Clone(),
				Detail: fmt.Sprintf("a probe reached %d transitions; raise Limits.Depth if the system does terminate", len(p.sched))}
		}
		c, err := p.m.Look(s, p.steps, p.status, p.outs, &p.current)
		if err != nil {
			return 0, 0, search.WithSchedule(err, p.sched)
		}
		if p.m.Check(s) != nil || c.Enabled == 0 {
			if p.tree == Traces {
				return weight / p.ext.count(), 0, nil
			}
			return weight, nodes, nil
		}
		// Choose a thread by weight, then an outcome uniformly.
		total := 0.0
		for t, st := range p.status {
			p.weights[t] = 0
			if st == ts.Enabled {
				p.weights[t] = float64(max(p.lengths[t]-p.done[t], 1))
				total += p.weights[t]
			}
		}
		nodes += weight * float64(c.Moves)
		r := p.rng.Float64() * total
		t := ts.Tid(-1)
		for u, w := range p.weights {
			if w > 0 {
				t = ts.Tid(u)
				if r -= w; r < 0 {
					break
				}
			}
		}
		o := 0
		if p.outs[t] > 1 {
			o = p.rng.IntN(p.outs[t])
		}
		weight *= total / p.weights[t] * float64(p.outs[t])
		mv := ts.Move{Thread: t, Outcome: o}
		if p.tree == Traces {
			p.ext.add(t, p.steps[t])
		}
		p.sched = append(p.sched, mv)
		p.current = t
		s = p.m.Apply(s, mv)
		p.current = -1
		p.cost++
		p.done[t]++
		last = t
	}
}
