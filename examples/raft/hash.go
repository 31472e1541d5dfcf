package main

import (
	"fmt"
	"hash/fnv"
	"slices"

	"go.etcd.io/raft/v3"

	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// Hash fingerprints everything a node's future and the checks depend on,
// so that stateful strategies merge equal cluster states:
//   - raft's state as Status reports it (term, vote, commit, applied, role,
//     known leader, lead transferee) and, for a leader, every follower's
//     progress (match, next, the commit index last sent, state, flow
//     control and the indices in flight);
//   - the stored log (index, term, type and data of every entry);
//   - for a candidate, the vote answers received in its term: raft counts
//     them internally, and this is a superset of them;
//   - the history the checks read: the terms led (with the log then), the
//     entries applied and every entry ever stored with the terms before it.
//
// What it leaves out never matters without Tick (raft's timers:
// electionElapsed, heartbeatElapsed, the randomized timeout) or is empty
// after every transition (raft's outgoing messages and unstable entries,
// which process drains).
func (n *node) Hash() uint64 {
	st := n.rn.Status()
	b := fmt.Appendf(nil, "%d %d %d %d %d %d %d %d|", st.GetTerm(), st.GetVote(), st.GetCommit(), st.Applied, st.RaftState, st.Lead, st.LeadTransferee, st.ID)
	ids := make([]uint64, 0, len(st.Progress))
	for id := range st.Progress {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		p := st.Progress[id]
		// %+v prints the unexported fields too (sentCommit, the ring of
		// indices in flight), which decide what the leader sends next.
		in := *p.Inflights
		p.Inflights = nil // a pointer would print as an address
		b = fmt.Appendf(b, "%d:%+v %+v|", id, p, in)
	}
	first, _ := n.st.FirstIndex()
	last, _ := n.st.LastIndex()
	if last >= first {
		es, _ := n.st.Entries(first, last+1, 1<<62)
		for _, e := range es {
			b = fmt.Appendf(b, "%d/%d/%d/%q,", e.GetIndex(), e.GetTerm(), e.GetType(), e.Data)
		}
	}
	b = append(b, '|')
	for _, v := range n.votes {
		// raft counts votes only as a candidate, from scratch each term.
		if st.RaftState == raft.StateCandidate && v.term == st.GetTerm() {
			b = fmt.Appendf(b, "%d:%t,", v.from, v.reject)
		}
	}
	b = fmt.Appendf(b, "|%v|%v|%v", n.led, n.applied, n.logged)
	h := fnv.New64a()
	_, _ = h.Write(b)
	return h.Sum64()
}

// vote is a vote answer a node received.
type vote struct {
	term   uint64
	from   uint64
	reject bool
}

// hashMsg fingerprints a message by its deterministic encoding.
func hashMsg(m *pb.Message) uint64 {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		panic(err)
	}
	h := fnv.New64a()
	_, _ = h.Write(b)
	return h.Sum64()
}
