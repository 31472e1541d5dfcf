package network

import (
	"fmt"
	"slices"

	"github.com/weftlab/weft/sim"
	"github.com/weftlab/weft/ts"
)

// Node is one process of a protocol. It changes in place.
type Node[M any] interface {
	// Receive handles message m from node from; send queues a message on
	// the link to node to.
	Receive(from int, m M, send func(to int, m M))
	// Act takes local action a (an index into Config.Actions): a timeout
	// firing, a client's request.
	Act(a int, send func(to int, m M))
}

// SnapshotNode is implemented by nodes that can save and restore their
// state; when every node does, the network does too and the adapter
// returns to saved states instead of replaying.
type SnapshotNode interface {
	Snapshot() any
	Restore(snapshot any)
}

// HashNode is implemented by nodes that can fingerprint their state; with
// Config.HashMsg the network then fingerprints its states, for stateful
// strategies.
type HashNode interface {
	Hash() uint64
}

// Action is a local action a node may take, up to Budget times per
// execution: every node, or the nodes listed in Nodes.
type Action struct {
	Name   string
	Budget int
	Nodes  []int // nil: every node
}

// budget returns the action's budget at node i.
func (a Action) budget(i int) int {
	if a.Nodes == nil || slices.Contains(a.Nodes, i) {
		return a.Budget
	}
	return 0
}

// Faults are what each link may do to the messages on it, each at most so
// many times per execution: lose one, deliver one twice, deliver the second
// message in flight before the first.
type Faults struct {
	Loss, Duplication, Reorder int
}

// Config describes a network.
type Config[M any] struct {
	// Nodes is the number of nodes, at least 1.
	Nodes int
	// New returns node id in its initial state. It is called for every node
	// on each reset of the network, and must return equal nodes each time.
	New func(id int) Node[M]
	// Actions are the local actions of every node, with their budgets.
	Actions []Action
	// Faults are each link's budgets.
	Faults Faults
	// Check, if set, is an assertion over the nodes, called at every state
	// (see the package doc for which properties a reduction cannot hide).
	Check func(nodes []Node[M]) error
	// Format renders a message in traces; the default is fmt's %v.
	Format func(m M) string
	// HashMsg fingerprints a message; with nodes that implement HashNode,
	// the network fingerprints its states.
	HashMsg func(m M) uint64
}

// Network is a message-passing system as a [sim.Simulator]. Threads are, in
// order: one per directed link (from, to), from != to, which delivers the
// messages on it to node to; then, when there are actions, one per node,
// which takes the node's local actions. Objects are the nodes (0..n-1) and
// the links (n + from*n + to).
type Network[M any] struct {
	cfg   Config[M]
	n     int
	nodes []Node[M]
	links [][]M // by link index from*n + to
	// budgets left, per link thread (loss, duplication, reorder) and per
	// node and action.
	faults  []Faults
	actions [][]int
	linkOf  []int // link thread -> link index
	sends   []ts.Access
	sendTo  func(to int, m M)
	sender  int
}

// New returns the network of cfg in its initial state.
func New[M any](cfg Config[M]) (*Network[M], error) {
	switch {
	case cfg.Nodes < 1:
		return nil, fmt.Errorf("%w: network: %d nodes, want at least 1", ts.ErrBadOptions, cfg.Nodes)
	case cfg.New == nil:
		return nil, fmt.Errorf("%w: network: Config.New is nil", ts.ErrBadOptions)
	case cfg.Faults.Loss < 0 || cfg.Faults.Duplication < 0 || cfg.Faults.Reorder < 0:
		return nil, fmt.Errorf("%w: network: negative fault budget %+v", ts.ErrBadOptions, cfg.Faults)
	}
	for _, a := range cfg.Actions {
		if a.Budget < 0 {
			return nil, fmt.Errorf("%w: network: action %q has a negative budget", ts.ErrBadOptions, a.Name)
		}
		for _, i := range a.Nodes {
			if i < 0 || i >= cfg.Nodes {
				return nil, fmt.Errorf("%w: network: action %q names node %d of %d", ts.ErrBadOptions, a.Name, i, cfg.Nodes)
			}
		}
	}
	n := cfg.Nodes
	threads := n * (n - 1)
	if len(cfg.Actions) > 0 {
		threads += n
	}
	if threads == 0 {
		return nil, fmt.Errorf("%w: network: one node and no actions has nothing to do", ts.ErrBadOptions)
	}
	if threads > ts.MaxThreads {
		return nil, fmt.Errorf("%w: network: %d nodes make %d threads, more than %d", ts.ErrBadOptions, n, threads, ts.MaxThreads)
	}
	w := &Network[M]{cfg: cfg, n: n, links: make([][]M, n*n)}
	for from := range n {
		for to := range n {
			if from != to {
				w.linkOf = append(w.linkOf, from*n+to)
			}
		}
	}
	w.faults = make([]Faults, len(w.linkOf))
	w.actions = make([][]int, n)
	w.sendTo = func(to int, m M) {
		if to < 0 || to >= w.n || to == w.sender {
			panic(fmt.Sprintf("network: node %d sends to node %d, want another of 0..%d", w.sender, to, w.n-1))
		}
		w.links[w.sender*w.n+to] = append(w.links[w.sender*w.n+to], m)
	}
	w.Reset()
	return w, nil
}

// System returns the network as a transition system for weft's searches.
// The network takes snapshots when every node implements SnapshotNode.
func (w *Network[M]) System(opt sim.Options) (*sim.System, error) {
	if w.snapshots() {
		return sim.New(snapshots[M]{w}, opt)
	}
	return sim.New(w, opt)
}

// HashedSystem is System with fingerprints, for stateful strategies: every
// node must implement HashNode and Config.HashMsg must be set.
func (w *Network[M]) HashedSystem(opt sim.Options) (sim.Hashed, error) {
	if w.cfg.HashMsg == nil {
		return sim.Hashed{}, fmt.Errorf("%w: network: fingerprints need Config.HashMsg", ts.ErrBadOptions)
	}
	for i, nd := range w.nodes {
		if _, ok := nd.(HashNode); !ok {
			return sim.Hashed{}, fmt.Errorf("%w: network: node %d (%T) does not implement HashNode", ts.ErrBadOptions, i, nd)
		}
	}
	if w.snapshots() {
		return sim.NewHashed(snapHashed[M]{snapshots[M]{w}}, opt)
	}
	return sim.NewHashed(hashed[M]{w}, opt)
}

func (w *Network[M]) snapshots() bool {
	for _, nd := range w.nodes {
		if _, ok := nd.(SnapshotNode); !ok {
			return false
		}
	}
	return true
}

// Nodes returns the nodes in their current state.
func (w *Network[M]) Nodes() []Node[M] { return w.nodes }

// InFlight returns the messages on the link from -> to, first first.
func (w *Network[M]) InFlight(from, to int) []M { return w.links[from*w.n+to] }

// Node returns the object of node i.
func (w *Network[M]) Node(i int) ts.Obj { return ts.Obj(i) }

// Link returns the object of the link from -> to.
func (w *Network[M]) Link(from, to int) ts.Obj { return ts.Obj(w.n + from*w.n + to) }

// LinkThread returns the thread that delivers the messages from -> to.
func (w *Network[M]) LinkThread(from, to int) ts.Tid {
	return ts.Tid(slices.Index(w.linkOf, from*w.n+to))
}

// ActionThread returns the thread of node i's local actions, or -1 when the
// network has no actions.
func (w *Network[M]) ActionThread(i int) ts.Tid {
	if len(w.cfg.Actions) == 0 {
		return -1
	}
	return ts.Tid(len(w.linkOf) + i)
}

// Threads implements [sim.Simulator].
func (w *Network[M]) Threads() int {
	if len(w.cfg.Actions) == 0 {
		return len(w.linkOf)
	}
	return len(w.linkOf) + w.n
}

// Reset implements [sim.Simulator]: new nodes, empty links, full budgets.
func (w *Network[M]) Reset() {
	w.nodes = w.nodes[:0]
	for i := range w.n {
		w.nodes = append(w.nodes, w.cfg.New(i))
	}
	for i := range w.links {
		w.links[i] = w.links[i][:0]
	}
	for i := range w.faults {
		w.faults[i] = w.cfg.Faults
	}
	for i := range w.actions {
		w.actions[i] = w.actions[i][:0]
		for _, a := range w.cfg.Actions {
			w.actions[i] = append(w.actions[i], a.budget(i))
		}
	}
}

// parts returns what thread t works on: a link (from, to), or a node's
// actions (from = to = the node, link false).
func (w *Network[M]) parts(t ts.Tid) (from, to int, link bool) {
	if int(t) < len(w.linkOf) {
		l := w.linkOf[t]
		return l / w.n, l % w.n, true
	}
	i := int(t) - len(w.linkOf)
	return i, i, false
}

// Next implements [sim.Simulator]. A link's thread writes the link, its
// receiver and the receiver's outgoing links (what it may send on); it is
// Idle while the link is empty. A node's action thread writes the node and
// its outgoing links; it is Finished when no budget is left.
func (w *Network[M]) Next(t ts.Tid) (ts.Step, ts.Status) {
	from, to, link := w.parts(t)
	w.sends = w.sends[:0]
	if link {
		w.sends = append(w.sends, ts.Access{Obj: w.Node(to), Op: ts.Write})
	}
	for c := range w.n {
		if c != to {
			w.sends = append(w.sends, ts.Access{Obj: w.Link(to, c), Op: ts.Write})
		}
	}
	if link {
		st := ts.Enabled
		if len(w.links[from*w.n+to]) == 0 {
			st = ts.Idle
		}
		return ts.Step{Obj: w.Link(from, to), Op: ts.Write, Also: w.sends}, st
	}
	st := ts.Finished
	for _, b := range w.actions[from] {
		if b > 0 {
			st = ts.Enabled
		}
	}
	return ts.Step{Obj: w.Node(from), Op: ts.Write, Also: w.sends}, st
}

// Outcomes implements [sim.Chooser]: a link's delivery, then a loss, a
// duplication and a reordering while their budgets last; a node's actions
// with budget left.
func (w *Network[M]) Outcomes(t ts.Tid) int {
	from, _, link := w.parts(t)
	if link {
		f := w.faults[t]
		return 1 + min(f.Loss, 1) + min(f.Duplication, 1) + min(f.Reorder, 1)
	}
	k := 0
	for _, b := range w.actions[from] {
		if b > 0 {
			k++
		}
	}
	return max(k, 1)
}

// fault is what an outcome of a link thread does to the message.
type fault int

const (
	deliver fault = iota
	lose
	duplicate
	reorder
)

// faultOf returns what outcome c of link thread t does, given the budgets
// it has left: 0 delivers, then one outcome per fault with budget left.
func (w *Network[M]) faultOf(t ts.Tid, c int) fault {
	f := w.faults[t]
	for _, k := range []struct {
		fault
		left int
	}{{lose, f.Loss}, {duplicate, f.Duplication}, {reorder, f.Reorder}} {
		if c == 0 {
			return deliver
		}
		if k.left > 0 {
			c--
			if c == 0 {
				return k.fault
			}
		}
	}
	return deliver
}

// actionOf returns the index of the c-th action of node i with budget left.
func (w *Network[M]) actionOf(i, c int) int {
	for a, b := range w.actions[i] {
		if b > 0 {
			if c == 0 {
				return a
			}
			c--
		}
	}
	panic(fmt.Sprintf("network: node %d has no action %d", i, c))
}

// Step implements [sim.Simulator].
func (w *Network[M]) Step(t ts.Tid, c int) {
	from, to, link := w.parts(t)
	if !link {
		a := w.actionOf(from, c)
		w.actions[from][a]--
		w.sender = from
		w.nodes[from].Act(a, w.sendTo)
		return
	}
	q := &w.links[from*w.n+to]
	i := 0
	switch w.faultOf(t, c) {
	case lose:
		w.faults[t].Loss--
		*q = slices.Delete(*q, 0, 1)
		return
	case duplicate:
		w.faults[t].Duplication--
		w.sender = to
		w.nodes[to].Receive(from, (*q)[0], w.sendTo)
		return
	case reorder:
		w.faults[t].Reorder--
		if len(*q) > 1 {
			i = 1
		}
	}
	m := (*q)[i]
	*q = slices.Delete(*q, i, i+1)
	w.sender = to
	w.nodes[to].Receive(from, m, w.sendTo)
}

// Check implements [sim.Checker].
func (w *Network[M]) Check() error {
	if w.cfg.Check == nil {
		return nil
	}
	return w.cfg.Check(w.nodes)
}

func (w *Network[M]) format(m M) string {
	if w.cfg.Format != nil {
		return w.cfg.Format(m)
	}
	return fmt.Sprintf("%v", m)
}

// Describe implements [sim.Describer]: "0→1: deliver Vote{2}" or "node 0:
// timeout | propose".
func (w *Network[M]) Describe(t ts.Tid) string {
	from, to, link := w.parts(t)
	if link {
		q := w.links[from*w.n+to]
		if len(q) == 0 {
			return fmt.Sprintf("%d→%d: nothing in flight", from, to)
		}
		s := fmt.Sprintf("%d→%d: %s", from, to, w.format(q[0]))
		if len(q) > 1 {
			s += fmt.Sprintf(" (then %s", w.format(q[1]))
			if len(q) > 2 {
				s += fmt.Sprintf(" and %d more", len(q)-2)
			}
			s += ")"
		}
		return s
	}
	s := fmt.Sprintf("node %d:", from)
	sep := " "
	for a, b := range w.actions[from] {
		if b > 0 {
			s += sep + w.cfg.Actions[a].Name
			sep = " | "
		}
	}
	return s
}

// ThreadName implements [ts.ThreadNamer]: "link 0→1", "node 0".
func (w *Network[M]) ThreadName(t ts.Tid) string {
	from, to, link := w.parts(t)
	if link {
		return fmt.Sprintf("link %d→%d", from, to)
	}
	return fmt.Sprintf("node %d", from)
}

// ObjName implements [ts.ObjNamer].
func (w *Network[M]) ObjName(o ts.Obj) string {
	if int(o) < w.n {
		return fmt.Sprintf("node %d", o)
	}
	l := int(o) - w.n
	return fmt.Sprintf("link %d→%d", l/w.n, l%w.n)
}

// snapshots adds the snapshot capability when every node has it.
type snapshots[M any] struct{ *Network[M] }

type netSnapshot[M any] struct {
	nodes   []any
	links   [][]M
	faults  []Faults
	actions [][]int
}

func (s snapshots[M]) Snapshot() any {
	w := s.Network
	snap := netSnapshot[M]{nodes: make([]any, w.n), links: make([][]M, len(w.links)),
		faults: slices.Clone(w.faults), actions: make([][]int, w.n)}
	for i, nd := range w.nodes {
		snap.nodes[i] = nd.(SnapshotNode).Snapshot()
		snap.actions[i] = slices.Clone(w.actions[i])
	}
	for i, q := range w.links {
		snap.links[i] = slices.Clone(q)
	}
	return snap
}

func (s snapshots[M]) Restore(v any) {
	w, snap := s.Network, v.(netSnapshot[M])
	for i, nd := range w.nodes {
		nd.(SnapshotNode).Restore(snap.nodes[i])
		w.actions[i] = append(w.actions[i][:0], snap.actions[i]...)
	}
	for i, q := range snap.links {
		w.links[i] = append(w.links[i][:0], q...)
	}
	copy(w.faults, snap.faults)
}

// hashed adds fingerprints.
type hashed[M any] struct{ *Network[M] }

func (h hashed[M]) Hash() uint64 { return h.Network.hash() }

type snapHashed[M any] struct{ snapshots[M] }

func (h snapHashed[M]) Hash() uint64 { return h.Network.hash() }

func (w *Network[M]) hash() uint64 {
	const prime = 1099511628211
	x := uint64(14695981039346656037)
	mix := func(v uint64) { x = (x ^ v) * prime }
	for _, nd := range w.nodes {
		mix(nd.(HashNode).Hash())
	}
	for _, q := range w.links {
		mix(uint64(len(q)))
		for _, m := range q {
			mix(w.cfg.HashMsg(m))
		}
	}
	for _, f := range w.faults {
		mix(uint64(f.Loss)<<42 ^ uint64(f.Duplication)<<21 ^ uint64(f.Reorder))
	}
	for _, as := range w.actions {
		for _, b := range as {
			mix(uint64(b))
		}
	}
	return x
}
