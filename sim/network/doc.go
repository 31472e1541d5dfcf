// Package network models message-passing protocols for weft: nodes that
// change in place, links between every two of them, bounded faults, and
// local actions (timeouts, client requests), as a [sim.Simulator] whose
// transition system every strategy that takes the whole model can search.
//
// # Threads and objects
//
// Each directed link (from, to) is a thread that delivers the messages on
// it, first first, to node to: one delivery is one transition, which
// touches the link, the receiving node and every link the receiver may
// send on. Each node also has a thread for its local actions, when the
// configuration has any. The objects are the nodes and the links
// (Network.Node, Network.Link), named "node 2" and "link 0→1" in traces.
//
// Two deliveries to different nodes over links the other does not send on
// are independent, so partial-order reduction explores one order of them;
// deliveries to one node, or over a link the other node sends on, are
// dependent and explored in both orders.
//
// # Choices, quiescence and budgets
//
// A delivery has several outcomes while the link's fault budgets last: the
// message delivered, lost, delivered and kept for a second delivery
// (duplicated), or the second message in flight delivered first
// (reordered; with one message in flight that outcome delivers it, like
// the first). A node's action thread has one outcome per action with
// budget left. Budgets belong to the thread that spends them, so a
// thread's number of outcomes depends only on its own transitions, as the
// model requires.
//
// A link with nothing in flight is Idle: a network where nothing is in
// flight and no action is left ends normally, not in a deadlock.
//
// # Properties
//
// Config.Check is called at every state the search visits. A reduction
// may skip intermediate states but reaches every terminal state, so a
// property that, once broken, stays broken (a history property: "no two
// nodes were ever leaders of one term", "no two nodes ever applied
// different entries at one index") is found by every sound strategy when
// the nodes record what they did and Check reads those records. Keep such
// records in the nodes; a check of only the current values (at most one
// leader now) can be skipped.
//
// # Requirements on nodes
//
// Nodes must be deterministic: Config.New returns equal nodes on every
// reset, and the same messages and actions lead to the same state (no
// randomness, time or map-order dependence). A message must not change
// after it is sent. Nodes that can snapshot their state (SnapshotNode) let
// the adapter return to saved states instead of replaying from a reset;
// nodes that fingerprint their state (HashNode, with Config.HashMsg) allow
// stateful strategies through Network.HashedSystem.
package network
