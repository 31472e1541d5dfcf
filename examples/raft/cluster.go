package main

import (
	"fmt"
	"slices"

	"github.com/weftlab/weft/sim"
	"github.com/weftlab/weft/sim/network"
	"github.com/weftlab/weft/ts"
	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// Bug is a fault injected into one node (node 2, the third).
type Bug int

const (
	// NoBug runs raft as it is.
	NoBug Bug = iota
	// DoubleVote: the node grants every vote request, also a second one in
	// a term. Two candidates of one term can both win: election safety.
	DoubleVote
	// EarlyApply: the node applies entries when it appends them, before
	// they are committed. An entry later replaced by another leader's is
	// applied: state machine safety.
	EarlyApply
)

func (b Bug) String() string {
	return [...]string{"none", "double-vote", "early-apply"}[b]
}

// buggy is the node a Bug is injected into.
const buggy = 2

// Config is a cluster to check: three nodes, which of them may campaign
// and propose (each at most once per execution), and what each link may
// lose.
type Config struct {
	Campaigners []int // nodes that may start an election
	Proposers   []int // nodes that may propose a value
	Loss        int   // messages each link may lose per execution
	Bug         Bug
}

const nodes = 3

// quiet is raft's logger, silenced: the search runs raft millions of
// times, and raft's DefaultLogger formats every line even when it writes
// nowhere (a sixth of the CPU). Fatal and Panic still stop, as raft expects.
type quiet struct{}

func (quiet) Debug(...any)              {}
func (quiet) Debugf(string, ...any)     {}
func (quiet) Error(...any)              {}
func (quiet) Errorf(string, ...any)     {}
func (quiet) Info(...any)               {}
func (quiet) Infof(string, ...any)      {}
func (quiet) Warning(...any)            {}
func (quiet) Warningf(string, ...any)   {}
func (quiet) Fatal(v ...any)            { panic(fmt.Sprint(v...)) }
func (quiet) Fatalf(f string, v ...any) { panic(fmt.Sprintf(f, v...)) }
func (quiet) Panic(v ...any)            { panic(fmt.Sprint(v...)) }
func (quiet) Panicf(f string, v ...any) { panic(fmt.Sprintf(f, v...)) }

// node is one raft node over its own MemoryStorage, and what it did, kept
// for the checks: the terms it led (with its log then) and the entries it
// applied.
type node struct {
	id      int
	bug     Bug
	rn      *raft.RawNode
	st      *raft.MemoryStorage
	led     []leadership
	applied []entry
	// logged records, for each entry the node stored, the terms of its log
	// up to that entry: log matching over every log the node ever had.
	logged []logged
	votes  []vote // vote answers received, for Hash
}

type logged struct {
	index, term uint64
	prefix      string // the terms of entries 2..index
}

type leadership struct {
	term uint64
	log  []uint64 // the term of each entry of the leader's log, from index 1
}

type entry struct {
	index, term uint64
	data        string
}

func newNode(id int, bug Bug) *node {
	st := raft.NewMemoryStorage()
	// Every node starts from a snapshot at index 1 with the three voters:
	// raft's usual bootstrap, without a configuration entry to apply.
	if err := st.ApplySnapshot(&pb.Snapshot{Metadata: &pb.SnapshotMetadata{
		Index: proto.Uint64(1), Term: proto.Uint64(1), ConfState: &pb.ConfState{Voters: []uint64{1, 2, 3}}}}); err != nil {
		panic(err)
	}
	rn, err := raft.NewRawNode(&raft.Config{ID: uint64(id + 1), ElectionTick: 10, HeartbeatTick: 1, Storage: st,
		MaxSizePerMsg: 1 << 20, MaxInflightMsgs: 256, Logger: quiet{}})
	if err != nil {
		panic(err)
	}
	return &node{id: id, bug: bug, rn: rn, st: st}
}

// Actions: 0 campaign, 1 propose.
func (n *node) Act(a int, send func(int, *pb.Message)) {
	switch a {
	case 0:
		_ = n.rn.Campaign()
	case 1:
		// Dropped when the node knows no leader: that is raft's answer.
		_ = n.rn.Propose(fmt.Appendf(nil, "v%d", n.id))
	}
	n.process(send)
}

func (n *node) Receive(from int, m *pb.Message, send func(int, *pb.Message)) {
	if m.GetType() == pb.MessageType_MsgVoteResp {
		n.votes = append(n.votes, vote{m.GetTerm(), m.GetFrom(), m.GetReject()})
	}
	if n.bug == DoubleVote && n.id == buggy && m.GetType() == pb.MessageType_MsgVote {
		send(from, &pb.Message{Type: pb.MessageType_MsgVoteResp.Enum(), From: proto.Uint64(uint64(n.id + 1)),
			To: proto.Uint64(m.GetFrom()), Term: m.Term})
		return
	}
	_ = n.rn.Step(m)
	n.process(send)
}

// process persists, sends and applies what raft has ready, as an
// application of RawNode does, and records a new leadership.
func (n *node) process(send func(int, *pb.Message)) {
	for n.rn.HasReady() {
		rd := n.rn.Ready()
		if !raft.IsEmptyHardState(rd.HardState) {
			_ = n.st.SetHardState(rd.HardState)
		}
		_ = n.st.Append(rd.Entries)
		if len(rd.Entries) > 0 {
			terms := n.logTerms()
			for _, e := range rd.Entries {
				if i := e.GetIndex(); i < uint64(len(terms)) {
					n.logged = append(n.logged, logged{i, e.GetTerm(), fmt.Sprint(terms[2 : i+1])})
				}
			}
		}
		for _, m := range rd.Messages {
			send(int(m.GetTo())-1, m)
		}
		apply := rd.CommittedEntries
		if n.bug == EarlyApply && n.id == buggy {
			apply = rd.Entries
		}
		for _, e := range apply {
			if e.GetType() == pb.EntryType_EntryNormal && len(e.Data) > 0 &&
				!slices.ContainsFunc(n.applied, func(a entry) bool { return a.index == e.GetIndex() }) {
				n.applied = append(n.applied, entry{e.GetIndex(), e.GetTerm(), string(e.Data)})
			}
		}
		n.rn.Advance(rd)
	}
	if s := n.rn.BasicStatus(); s.RaftState == raft.StateLeader && (len(n.led) == 0 || n.led[len(n.led)-1].term != s.GetTerm()) {
		n.led = append(n.led, leadership{term: s.GetTerm(), log: n.logTerms()})
	}
}

// logTerms returns the term of each entry of the node's stored log.
func (n *node) logTerms() []uint64 {
	last, _ := n.st.LastIndex()
	terms := make([]uint64, last+1)
	for i := uint64(1); i <= last; i++ {
		terms[i], _ = n.st.Term(i)
	}
	return terms
}

// check is the cluster's safety properties, over what the nodes did (which
// only grows, so a violation stays visible to the end of the execution and
// no reduction can skip it) and over their logs now:
//   - election safety: at most one leader per term;
//   - state machine safety: no two nodes apply different entries at one
//     index;
//   - leader completeness: a leader's log, when it was elected, holds every
//     entry applied (so committed) in an earlier term;
//   - log matching: two logs with an entry of the same index and term agree
//     on every entry up to it, over every log a node stored (each stored
//     entry is recorded with the terms before it).
func check(ns []network.Node[*pb.Message]) error {
	leaders := map[uint64]int{}
	at := map[uint64]entry{}
	for _, x := range ns {
		n := x.(*node)
		for _, l := range n.led {
			if other, ok := leaders[l.term]; ok && other != n.id {
				return fmt.Errorf("election safety: nodes %d and %d both led term %d", other+1, n.id+1, l.term)
			}
			leaders[l.term] = n.id
		}
		for _, e := range n.applied {
			if other, ok := at[e.index]; ok && other != e {
				return fmt.Errorf("state machine safety: index %d applied as %q (term %d) and as %q (term %d)", e.index, other.data, other.term, e.data, e.term)
			}
			at[e.index] = e
		}
	}
	for _, x := range ns {
		n := x.(*node)
		for _, l := range n.led {
			for _, e := range at {
				if e.term < l.term && (e.index >= uint64(len(l.log)) || l.log[e.index] != e.term) {
					return fmt.Errorf("leader completeness: node %d led term %d without entry %d (term %d), applied before", n.id+1, l.term, e.index, e.term)
				}
			}
		}
	}
	prefixes := map[[2]uint64]logged{}
	for _, x := range ns {
		n := x.(*node)
		for _, l := range n.logged {
			k := [2]uint64{l.index, l.term}
			if other, ok := prefixes[k]; ok && other.prefix != l.prefix {
				return fmt.Errorf("log matching: two logs hold entry %d of term %d after different entries (terms %s and %s)", l.index, l.term, other.prefix, l.prefix)
			}
			prefixes[k] = l
		}
	}
	return nil
}

// describe renders a message as raft does ("1->2 MsgVote Term:2 Log:1/1").
func describe(m *pb.Message) string { return raft.DescribeMessage(m, nil) }

// Cluster returns the network of cfg and its transition system.
func Cluster(cfg Config) (*network.Network[*pb.Message], *sim.System, error) {
	w, err := network.New(network.Config[*pb.Message]{
		Nodes:   nodes,
		New:     func(id int) network.Node[*pb.Message] { return newNode(id, cfg.Bug) },
		Actions: []network.Action{{Name: "campaign", Budget: 1, Nodes: cfg.Campaigners}, {Name: "propose", Budget: 1, Nodes: cfg.Proposers}},
		Faults:  network.Faults{Loss: cfg.Loss},
		Check:   check,
		Format:  describe,
		HashMsg: hashMsg,
	})
	if err != nil {
		return nil, nil, err
	}
	sys, err := w.System(sim.Options{})
	return w, sys, err
}

// Scenario is a cluster searched from a given state rather than from the
// start: a search of what can follow, as a TLA+ specification's initial
// predicate picks the states to start from. Schedules are from that state.
type Scenario struct {
	*sim.System
	Start sim.State
}

// Init is the scenario's start.
func (s Scenario) Init() sim.State { return s.Start }

// After returns the scenario that starts after the given moves from the
// cluster's initial state (the action threads of nodes 0, 1, 2 are
// threads 6, 7, 8).
func After(sys *sim.System, moves ...int) (Scenario, error) {
	s := sys.Init()
	for _, m := range moves {
		if _, st := sys.Next(s, ts.Tid(m)); st != ts.Enabled {
			return Scenario{}, fmt.Errorf("move %d is not enabled", m)
		}
		s = sys.Apply(s, ts.Tid(m))
	}
	return Scenario{sys, s}, nil
}

// HashedScenario is a Scenario of a fingerprinted cluster, for stateful
// strategies.
type HashedScenario struct {
	sim.Hashed
	Start sim.State
}

// Init is the scenario's start.
func (s HashedScenario) Init() sim.State { return s.Start }

// AfterHashed is After for a fingerprinted cluster.
func AfterHashed(h sim.Hashed, moves ...int) (HashedScenario, error) {
	sc, err := After(h.System, moves...)
	return HashedScenario{h, sc.Start}, err
}
