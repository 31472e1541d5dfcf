package estimate

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/weftlab/weft/internal/search"
	"github.com/weftlab/weft/ts"
)

// Tree is the search tree an estimate is of.
type Tree uint8

const (
	// DFS is ts.Explore's tree (the dfs strategy): every move (thread and
	// outcome) enabled at every state; a state where a check fails or no
	// thread is enabled is a leaf. Executions estimates its leaves (dfs's
	// executions under KeepGoing) and Transitions its other nodes (dfs's
	// transitions).
	DFS Tree = iota
	// Sleep is por.Sleep's tree (the sleep strategy): at each state the
	// moves of the enabled threads not asleep, in por's order (the thread
	// that moved last first, then by number); a child's sleep set is the
	// threads asleep or explored before it whose steps are independent of
	// its own (ts.Dependent). Executions estimates its leaves that are not
	// sleep-blocked (a leaf where every enabled thread is asleep is not an
	// execution): sleep's executions under KeepGoing. Where no check fails
	// they are the Mazurkiewicz traces of the complete executions, what
	// odpor explores, and dpor on the bundled models (dpor may explore more
	// where its backtracking is not optimal); where checks fail the counts
	// part a little (see the package doc). Transitions estimates the
	// tree's other nodes: sleep's transitions, an upper bound on dpor's
	// and odpor's.
	Sleep
)

var treeNames = [...]string{DFS: "dfs tree", Sleep: "sleep-set tree"}

// String names the tree: "dfs tree", "sleep-set tree".
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
	// Plain turns off the exact counts below (Knuth's estimator as
	// published: probes alone), for comparison; a system without Hash
	// always gets plain probes.
	Plain bool
	// MaxCounts caps the exact subtree counts kept (about 40 bytes each);
	// 0: DefaultMaxCounts. A smaller cap leaves more to the probes.
	MaxCounts int
	// Limits: Depth (a probe longer than it is ErrDepth, as in a search)
	// and Transitions (a cap on the transitions all probes apply
	// together; the estimate then has the probes done).
	Limits ts.Limits
}

// Estimate is Knuth's estimate of the size of a search tree: the mean,
// over random probes from the root, of the product of the inverse
// probabilities of the choices along the probe (for the leaves), and of
// the sums of its prefixes times the branching factors (for the nodes).
// Both means are unbiased estimates of the tree's leaves and non-root
// nodes, whatever the probabilities, as long as every child can be chosen;
// the probes choose a thread in proportion to the transitions it has left
// (exact when nothing blocks: see URW in package random), then an outcome
// uniformly.
//
// For a system with Hash, a probe counts the subtree below each node it
// reaches exactly when that takes a few thousand new nodes at most: the
// subtree below a state (for Sleep, a state, its sleep set and its last
// mover) is a function of it, so counts are kept by its hash and shared
// between probes. An exact count has no variance; where the whole tree's
// states are few, the estimate is the exact count. Two states of one hash
// would share a count (see ts.Hasher).
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
	// 0 when every probe agreed. Where a few rare probes carry most of the
	// weight, the probes seen understate it. Executions 0 with Transitions
	// above 0 means that no probe reached an execution: no estimate.
	RelErr float64
	// Cost is the transitions the probes applied.
	Cost int64
	// Exact is true when a probe counted the whole tree exactly (possible
	// with Hash): Executions and Transitions are then the counts, and the
	// probes stop there.
	Exact bool
}

// String says what was estimated: "~169,000 executions, 1,560,000
// transitions (dfs tree, 300 probes, standard error 4%)".
func (e Estimate) String() string {
	if e.Executions == 0 && e.Transitions > 0 {
		return fmt.Sprintf("no estimate of the executions: none of %d probes reached one (%v of mostly sleep-blocked leaves); %s transitions",
			e.Probes, e.Tree, approx(e.Transitions))
	}
	if e.Exact {
		probes := fmt.Sprintf("%d probes", e.Probes)
		if e.Probes == 1 {
			probes = "one probe"
		}
		return fmt.Sprintf("%s executions, %s transitions (%v, counted exactly by %s)",
			commas(int64(e.Executions)), commas(int64(e.Transitions)), e.Tree, probes)
	}
	return fmt.Sprintf("%s executions, %s transitions (%v, %d probes, standard error %.1f%%)",
		approx(e.Executions), approx(e.Transitions), e.Tree, e.Probes, 100*e.RelErr)
}

// approx writes x as "~" and three significant figures with thousands
// separators.
func approx(x float64) string {
	if x < 1000 {
		return fmt.Sprintf("~%.0f", x)
	}
	p := math.Pow(10, math.Floor(math.Log10(x))-2)
	return "~" + commas(int64(math.Round(x/p)*p))
}

func commas(v int64) string {
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
	case opt.Tree > Sleep:
		return est, fmt.Errorf("%w: estimate: unknown tree %d", ts.ErrBadOptions, opt.Tree)
	case opt.MaxCounts < 0:
		return est, fmt.Errorf("%w: estimate: negative MaxCounts %d", ts.ErrBadOptions, opt.MaxCounts)
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
		rng: rand.New(rand.NewPCG(opt.Seed, 0x2545f4914f6cdd1d)), plain: opt.Plain, memoMax: opt.MaxCounts}
	if p.memoMax == 0 {
		p.memoMax = DefaultMaxCounts
	}
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
		if p.rootExact {
			est.Probes++
			est.Cost = p.cost
			est.Executions, est.Transitions, est.Exact = leaves, inner, true
			return est, nil
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

	frames []frame // per depth: the node's answers
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

	// With a ts.Hasher, the subtree below a node is a function of its key
	// (the state's hash; for Sleep, with the sleep set and the last
	// mover), and is counted exactly where that takes at most Budget new
	// nodes; the counts are kept across probes (up to memoMax of them), so
	// that the part of the tree the probes share is counted once.
	memo    map[uint64]count
	budget  int
	plain   bool
	memoMax int
	cands   []cand[S]
	// rootExact: the last probe counted the whole tree exactly.
	rootExact bool
}

type count struct{ leaves, nodes float64 }

type frame struct {
	steps  []ts.Step
	status []ts.Status
	outs   []int
}

// exactBudget is the new nodes one exact count may visit before it gives
// up (what it finished is kept); memoMax caps the counts kept.
const exactBudget = 8192

// DefaultMaxCounts is the exact counts kept when Options.MaxCounts is 0.
const DefaultMaxCounts = 1 << 20

func (p *prober[S]) init() {
	n := p.m.N
	p.lengths, p.done, p.weights = make([]int, n), make([]int, n), make([]float64, n)
	if p.m.Hasher != nil && !p.plain {
		p.memo = make(map[uint64]count)
	}
}

func (p *prober[S]) frame(d int) *frame {
	for len(p.frames) <= d {
		n := p.m.N
		p.frames = append(p.frames, frame{make([]ts.Step, n), make([]ts.Status, n), make([]int, n)})
	}
	return &p.frames[d]
}

// look fills frame d with s's answers and reports whether s is a leaf
// (its checks fail, or no thread is enabled) and its moves.
func (p *prober[S]) look(s S, d int) (leaf bool, c search.Counts, err error) {
	f := p.frame(d)
	c, err = p.m.Look(s, f.steps, f.status, f.outs, &p.current)
	if err != nil {
		return false, c, search.WithSchedule(err, p.sched)
	}
	return p.m.Check(s) != nil || c.Enabled == 0, c, nil
}

// awake reports whether thread t is a child's thread at a node of frame f
// with sleep set z.
func awake(f *frame, t int, z uint64) bool {
	return f.status[t] == ts.Enabled && z&(1<<t) == 0
}

// probe walks one random path from the root and returns its estimate of
// the leaves and of the non-root nodes.
func (p *prober[S]) probe() (leaves, nodes float64, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &ts.SystemError{Err: ts.ErrBadSystem, Thread: p.current, Schedule: p.sched.Clone(),
				Detail: fmt.Sprintf("panic while estimating: %v", r)}
		}
	}()
	if p.m.N > 64 && p.tree == Sleep {
		return 0, 0, fmt.Errorf("%w: estimate: the %v of more than 64 threads", ts.ErrUnsupported, p.tree)
	}
	defer func() {
		for t, d := range p.done {
			p.lengths[t] = max(p.lengths[t], d)
		}
	}()
	clear(p.done)
	p.sched = p.sched[:0]
	s := p.m.Sys.Init()
	weight := 1.0
	acc := 0.0 // leaves counted exactly, weighted, along the way
	last := ts.Tid(-1)
	var sleep uint64
	for d := 0; ; d++ {
		if d > p.maxDepth {
			return 0, 0, p.tooDeep(last)
		}
		if p.memo != nil && len(p.memo) < p.memoMax {
			// (Once the counts are full, a failed attempt would keep
			// nothing, and each would cost its whole budget: plain probes.)
			p.budget = exactBudget
			c, ok, err := p.exact(s, d, sleep, last)
			if err != nil {
				return 0, 0, err
			}
			if ok {
				p.rootExact = d == 0
				return acc + weight*c.leaves, nodes + weight*c.nodes, nil
			}
		}
		leaf, _, err := p.look(s, d)
		if err != nil {
			return 0, 0, err
		}
		if leaf {
			return acc + weight, nodes, nil
		}
		f := p.frame(d)
		// The children: b moves; a thread's weight, shared evenly by its
		// outcomes.
		b, total := 0, 0.0
		for t := range p.weights {
			p.weights[t] = 0
			if awake(f, t, sleep) {
				b += f.outs[t]
				p.weights[t] = float64(max(p.lengths[t]-p.done[t], 1))
				total += p.weights[t]
			}
		}
		if b == 0 { // sleep-blocked: not an execution
			return acc, nodes, nil
		}
		var mv ts.Move
		var next S
		if p.memo != nil {
			// Children already counted add their counts; the probe goes on
			// into one of the others, chosen by weight.
			p.cands = p.cands[:0]
			unknown := 0.0
			for t := range p.weights {
				if p.weights[t] == 0 {
					continue
				}
				z := sleep
				if p.tree == Sleep {
					z = childSleep(sleep, ts.Tid(t), last, f.status, f.steps)
				}
				for o := range f.outs[t] {
					m := ts.Move{Thread: ts.Tid(t), Outcome: o}
					p.sched = append(p.sched, m)
					p.current = m.Thread
					child := p.m.Apply(s, m)
					p.current = -1
					p.sched = p.sched[:len(p.sched)-1]
					p.cost++
					if c, ok := p.memo[p.key(child, z, m.Thread)]; ok {
						acc += weight * c.leaves
						nodes += weight * (1 + c.nodes)
						continue
					}
					w := p.weights[t] / float64(f.outs[t])
					p.cands = append(p.cands, cand[S]{m, child, z, w})
					unknown += w
				}
				f = p.frame(d)
			}
			if len(p.cands) == 0 {
				return acc, nodes, nil
			}
			nodes += weight * float64(len(p.cands))
			r := p.rng.Float64() * unknown
			i := 0
			for i = range p.cands {
				if r -= p.cands[i].w; r < 0 {
					break
				}
			}
			c := p.cands[i]
			weight *= unknown / c.w
			mv, next, sleep = c.mv, c.state, c.sleep
		} else {
			nodes += weight * float64(b)
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
			if f.outs[t] > 1 {
				o = p.rng.IntN(f.outs[t])
			}
			weight *= total / p.weights[t] * float64(f.outs[t])
			if p.tree == Sleep {
				sleep = childSleep(sleep, t, last, f.status, f.steps)
			}
			mv = ts.Move{Thread: t, Outcome: o}
			p.current = t
			next = p.m.Apply(s, mv)
			p.current = -1
			p.cost++
		}
		p.sched = append(p.sched, mv)
		s = next
		p.done[mv.Thread]++
		last = mv.Thread
	}
}

// cand is a child whose subtree a probe has no count of.
type cand[S any] struct {
	mv    ts.Move
	state S
	sleep uint64
	w     float64
}

func (p *prober[S]) tooDeep(last ts.Tid) error {
	return &ts.SystemError{Err: ts.ErrDepth, Thread: last, Schedule: p.sched.Clone(),
		Detail: fmt.Sprintf("a probe reached %d transitions; raise Limits.Depth if the system does terminate", len(p.sched))}
}

func (p *prober[S]) key(s S, sleep uint64, last ts.Tid) uint64 {
	h := p.m.Hasher.Hash(s)
	if p.tree == Sleep {
		h ^= (sleep*0x9e3779b97f4a7c15 + uint64(last+1)) * 0xbf58476d1ce4e5b9
	}
	return h
}

// exact counts the subtree below state s (at depth d, with sleep set sleep
// and last mover last) exactly, unless that takes more than p.budget new
// nodes: then ok is false, and the subtrees it did finish are kept.
func (p *prober[S]) exact(s S, d int, sleep uint64, last ts.Tid) (c count, ok bool, err error) {
	k := p.key(s, sleep, last)
	if c, ok := p.memo[k]; ok {
		return c, true, nil
	}
	if p.budget--; p.budget < 0 {
		return c, false, nil
	}
	if d > p.maxDepth {
		return c, false, p.tooDeep(last)
	}
	leaf, _, err := p.look(s, d)
	if err != nil {
		return c, false, err
	}
	if leaf {
		c = count{leaves: 1}
	} else {
		f := p.frame(d)
		for t := range p.m.N {
			if !awake(f, t, sleep) {
				continue
			}
			z := sleep
			if p.tree == Sleep {
				z = childSleep(sleep, ts.Tid(t), last, f.status, f.steps)
			}
			for o := range f.outs[t] {
				mv := ts.Move{Thread: ts.Tid(t), Outcome: o}
				p.sched = append(p.sched, mv)
				p.current = ts.Tid(t)
				child := p.m.Apply(s, mv)
				p.current = -1
				p.cost++
				cc, ok, err := p.exact(child, d+1, z, ts.Tid(t))
				p.sched = p.sched[:len(p.sched)-1]
				if err != nil || !ok {
					return c, false, err
				}
				f = p.frame(d) // the recursion may have grown p.frames
				c.leaves += cc.leaves
				c.nodes += 1 + cc.nodes
			}
		}
		// A node with no child is sleep-blocked: no execution (c is zero).
	}
	if len(p.memo) < p.memoMax {
		p.memo[k] = c
	}
	return c, true, nil
}

// childSleep is the sleep set of the child reached by thread t from a node
// with sleep set z whose last mover is last: the threads asleep there or
// explored before t (in por's order: last first when enabled, then by
// number) whose steps are independent of t's.
func childSleep(z uint64, t, last ts.Tid, status []ts.Status, steps []ts.Step) uint64 {
	var next uint64
	for u, st := range status {
		if ts.Tid(u) == t {
			continue
		}
		asleep := z&(1<<u) != 0
		if !asleep && (st != ts.Enabled || !before(ts.Tid(u), t, last, status)) {
			continue
		}
		if !ts.Dependent(steps[u], steps[t]) {
			next |= 1 << u
		}
	}
	return next
}

// before reports whether thread u is explored before thread t at a node
// whose last mover is last: last first (when enabled), then by number.
func before(u, t, last ts.Tid, status []ts.Status) bool {
	lastFirst := last >= 0 && status[last] == ts.Enabled
	switch {
	case lastFirst && u == last:
		return true
	case lastFirst && t == last:
		return false
	}
	return u < t
}
