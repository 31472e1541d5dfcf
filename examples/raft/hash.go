package main

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"reflect"

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
	st := n.rn.BasicStatus() // without allocating
	b := make([]byte, 0, 256)
	u := func(v uint64) { b = binary.AppendUvarint(b, v) }
	str := func(v string) { u(uint64(len(v))); b = append(b, v...) }
	for _, v := range []uint64{st.GetTerm(), st.GetVote(), st.GetCommit(), st.Applied, uint64(st.RaftState), st.Lead, st.LeadTransferee, st.ID} {
		u(v)
	}
	if st.RaftState == raft.StateLeader {
		prs := n.rn.Status().Progress
		for id := uint64(1); id <= nodes; id++ {
			p, ok := prs[id]
			if !ok {
				continue
			}
			u(id)
			// Every field, the unexported ones too (sentCommit, the ring of
			// indices in flight), which decide what the leader sends next.
			b = appendValue(b, reflect.ValueOf(p))
		}
	}
	first, _ := n.st.FirstIndex()
	last, _ := n.st.LastIndex()
	var es []*pb.Entry
	if last >= first {
		es, _ = n.st.Entries(first, last+1, 1<<62)
	}
	u(uint64(len(es)))
	for _, e := range es {
		u(e.GetIndex())
		u(e.GetTerm())
		u(uint64(e.GetType()))
		str(string(e.Data))
	}
	var votes []uint64
	for _, v := range n.votes {
		// raft counts votes only as a candidate, from scratch each term.
		if st.RaftState == raft.StateCandidate && v.term == st.GetTerm() {
			votes = append(votes, v.from<<1|uint64(btoi(v.reject)))
		}
	}
	u(uint64(len(votes)))
	for _, v := range votes {
		u(v)
	}
	u(uint64(len(n.led)))
	for _, l := range n.led {
		u(l.term)
		u(uint64(len(l.log)))
		for _, t := range l.log {
			u(t)
		}
	}
	u(uint64(len(n.applied)))
	for _, e := range n.applied {
		u(e.index)
		u(e.term)
		str(e.data)
	}
	u(uint64(len(n.logged)))
	for _, l := range n.logged {
		u(l.index)
		u(l.term)
		str(l.prefix)
	}
	h := fnv.New64a()
	_, _ = h.Write(b)
	return h.Sum64()
}

// appendValue encodes v field by field, following pointers; reflect reads
// unexported fields, which raft's progress keeps to itself.
func appendValue(b []byte, v reflect.Value) []byte {
	switch v.Kind() {
	case reflect.Bool:
		return binary.AppendUvarint(b, uint64(btoi(v.Bool())))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return binary.AppendVarint(b, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return binary.AppendUvarint(b, v.Uint())
	case reflect.Pointer:
		if v.IsNil() {
			return append(b, 0)
		}
		return appendValue(append(b, 1), v.Elem())
	case reflect.Slice:
		b = binary.AppendUvarint(b, uint64(v.Len()))
		for i := range v.Len() {
			b = appendValue(b, v.Index(i))
		}
		return b
	case reflect.Struct:
		for i := range v.NumField() {
			b = appendValue(b, v.Field(i))
		}
		return b
	}
	panic(fmt.Sprintf("raft example: cannot fingerprint a %v", v.Type()))
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
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
