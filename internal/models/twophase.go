package models

import (
	"fmt"
	"strings"

	"github.com/weftlab/weft/ts"
)

// twoPhaseMax is the largest number of participants.
const twoPhaseMax = 4

// TwoPhase is two-phase commit between a coordinator (thread 0) and N
// participants (threads 1..N) over links that lose messages, with timeouts.
// It uses every part of the model beyond one object per step: steps of
// several objects (a broadcast, a select over the vote links, a receive
// that records the decision), outcomes chosen by the environment (which
// messages are lost, how a participant votes, whether a timer fires), idle
// threads (a server waiting for a message that may never come) and a
// global invariant that no reduction may skip.
//
// The coordinator broadcasts PREPARE (one transition writing every request
// link; outcome bit i set means the message to participant i is lost), then
// collects votes: before each wait, a timer step chooses to keep waiting or
// to give up (abort), and the wait is a select over every vote link (one
// transition that declares a write of each, takes the lowest-numbered vote
// present, and is Idle while none is). A no vote decides abort; N yes votes
// decide commit. It then broadcasts the decision (one lossy transition
// writing every decision link) and finishes.
//
// Participant i first chooses, in a timer step, to wait for PREPARE or to
// abort on its own (a participant that has not voted may); it receives
// PREPARE (Idle while its request link is empty), then votes yes or no, an
// outcome of the send, which the link may lose (four outcomes). A no voter
// aborts. A yes voter waits for the decision and records it, in one
// transition that empties its decision link and writes its record (Idle
// while the link is empty: a participant that voted yes cannot decide
// alone, two-phase commit's known blocking). A timer is a step of its own
// on a private object, independent of everything, so a search places it
// at every point of the other threads' progress: every moment a real timer
// could fire.
//
// The invariant reads the participants' records only: no participant has
// committed while another has aborted. Nothing ever waits without being
// idle, so a run ends normally however many messages were lost.
//
// [NewTwoPhaseBug] gives the variant whose participants may also time out
// after voting yes and commit on their own: the invariant fails when
// another participant voted no, or when the coordinator gave up.
//
// Objects, for participant i in 0..N-1: req[i] = i, vote[i] = N+i,
// dec[i] = 2N+i, rec[i] = 3N+i (the record), timer[t] = 4N+t for thread t.
//
// Facts (under ts.Explore): 303 executions, 652 transitions and 17
// distinct terminal states for N = 1; 629,982 executions, 1,343,479
// transitions and 188 terminal states for N = 2; no violation. Under
// por.ODPOR, one execution per Mazurkiewicz trace: 23, 624 and 31,652
// executions for N = 1, 2, 3. The bug variant fails the invariant with 0
// preemptions, the fewest (cbound.ICB finds it at N = 2 and 3): participant
// 1 votes yes and waits while the coordinator gives up and aborts, then
// participant 2 votes yes, times out and commits. Acyclic.
type TwoPhase struct {
	n   int
	bug bool
	// The also-lists of the broadcasts and the select, shared by every
	// state (the contract allows it; they are never modified).
	reqAlso, voteAlso, decAlso []ts.Access
	recAlso                    [][]ts.Access // participant i's record, for its receive
}

// NewTwoPhase returns two-phase commit with n participants, 1 ≤ n ≤ 4.
func NewTwoPhase(n int) *TwoPhase { return newTwoPhase(TwoPhaseInfo, n, false) }

// NewTwoPhaseBug returns two-phase commit with n participants, 1 ≤ n ≤ 4,
// whose participants may commit on a timeout after voting yes.
func NewTwoPhaseBug(n int) *TwoPhase { return newTwoPhase(TwoPhaseBugInfo, n, true) }

func newTwoPhase(info Info, n int, bug bool) *TwoPhase {
	if n < info.Min || n > info.Max {
		panic(fmt.Sprintf("models: %s: n = %d, want %d..%d", info.Name, n, info.Min, info.Max))
	}
	p := &TwoPhase{n: n, bug: bug}
	for i := 1; i < n; i++ {
		p.reqAlso = append(p.reqAlso, ts.Access{Obj: p.req(i), Op: ts.Write})
		p.voteAlso = append(p.voteAlso, ts.Access{Obj: p.vote(i), Op: ts.Write})
		p.decAlso = append(p.decAlso, ts.Access{Obj: p.dec(i), Op: ts.Write})
	}
	for i := range n {
		p.recAlso = append(p.recAlso, []ts.Access{{Obj: p.rec(i), Op: ts.Write}})
	}
	return p
}

// TwoPhaseInfo describes TwoPhase.
var TwoPhaseInfo = Info{
	Name:     "twophase",
	Summary:  "two-phase commit over lossy links with timeouts; atomic commit as an invariant (choices, idle threads, several objects per step)",
	Source:   "Gray, Notes on data base operating systems (1978); the textbook protocol",
	Param:    "participants",
	Default:  2,
	Min:      1,
	Max:      twoPhaseMax,
	Extended: true,
}

// TwoPhaseBugInfo describes the variant of TwoPhase that commits on a
// timeout.
var TwoPhaseBugInfo = Info{
	Name:     "twophase-bug",
	Summary:  "two-phase commit whose participants commit on a timeout; breaks atomic commit",
	Source:   "TwoPhase with a participant-side timeout that commits",
	Param:    "participants",
	Default:  2,
	Min:      2,
	Max:      twoPhaseMax,
	Extended: true,
}

// Coordinator program counters.
const (
	tpcPrepare int8 = iota // broadcast PREPARE
	tpcTimer               // keep waiting for votes, or give up
	tpcCollect             // select over the vote links
	tpcDecide              // broadcast the decision
	tpcDone
)

// Participant program counters.
const (
	tppTimer      int8 = iota // wait for PREPARE, or abort alone
	tppPrepare                // receive PREPARE
	tppVote                   // send the vote
	tppTimerVoted             // the bug: keep waiting, or commit alone
	tppDecision               // receive the decision and record it
	tppAbort                  // record abort
	tppCommit                 // record commit (the bug)
	tppDone
)

// Messages and decisions: 0 means none.
const (
	tpYes    int8 = 1
	tpNo     int8 = 2
	tpCommit int8 = 1
	tpAbort  int8 = 2
)

// TwoPhaseState is a state of TwoPhase. Entries at N and above are zero.
type TwoPhaseState struct {
	pc   [twoPhaseMax + 1]int8 // coordinator, then participants
	req  [twoPhaseMax]int8     // 1: PREPARE in flight
	vote [twoPhaseMax]int8     // tpYes or tpNo in flight
	dec  [twoPhaseMax]int8     // tpCommit or tpAbort in flight
	rec  [twoPhaseMax]int8     // each participant's decision
	yes  int8                  // yes votes the coordinator has received
	out  int8                  // the coordinator's decision
}

func (p *TwoPhase) Init() TwoPhaseState { return TwoPhaseState{} }
func (p *TwoPhase) Threads() int        { return p.n + 1 }

func (p *TwoPhase) req(i int) ts.Obj   { return ts.Obj(i) }
func (p *TwoPhase) vote(i int) ts.Obj  { return ts.Obj(p.n + i) }
func (p *TwoPhase) dec(i int) ts.Obj   { return ts.Obj(2*p.n + i) }
func (p *TwoPhase) rec(i int) ts.Obj   { return ts.Obj(3*p.n + i) }
func (p *TwoPhase) timer(t int) ts.Obj { return ts.Obj(4*p.n + t) }

// objKind decodes an object id: 0 req, 1 vote, 2 dec, 3 rec (of participant
// index i), 4 and above a timer.
func (p *TwoPhase) objKind(o ts.Obj) (kind, i int) { return int(o) / p.n, int(o) % p.n }

func (p *TwoPhase) Next(s TwoPhaseState, t ts.Tid) (ts.Step, ts.Status) {
	if t == 0 {
		switch s.pc[0] {
		case tpcPrepare:
			return ts.Step{Obj: p.req(0), Op: ts.Write, Also: p.reqAlso}, ts.Enabled
		case tpcTimer:
			return ts.Step{Obj: p.timer(0), Op: ts.Write}, ts.Enabled
		case tpcCollect:
			step := ts.Step{Obj: p.vote(0), Op: ts.Write, Also: p.voteAlso}
			for i := range p.n {
				if s.vote[i] != 0 {
					return step, ts.Enabled
				}
			}
			return step, ts.Idle
		case tpcDecide:
			return ts.Step{Obj: p.dec(0), Op: ts.Write, Also: p.decAlso}, ts.Enabled
		}
		return ts.Step{}, ts.Finished
	}
	i := int(t) - 1
	switch s.pc[t] {
	case tppTimer, tppTimerVoted:
		return ts.Step{Obj: p.timer(int(t)), Op: ts.Write}, ts.Enabled
	case tppPrepare:
		return ts.Step{Obj: p.req(i), Op: ts.Write}, waitFor(s.req[i] != 0)
	case tppVote:
		return ts.Step{Obj: p.vote(i), Op: ts.Write}, ts.Enabled
	case tppDecision:
		return ts.Step{Obj: p.dec(i), Op: ts.Write, Also: p.recAlso[i]}, waitFor(s.dec[i] != 0)
	case tppAbort, tppCommit:
		return ts.Step{Obj: p.rec(i), Op: ts.Write}, ts.Enabled
	}
	return ts.Step{}, ts.Finished
}

// waitFor is the status of a receive: Idle while nothing has arrived, since
// a message that never comes (it was lost) is a normal ending.
func waitFor(arrived bool) ts.Status {
	if arrived {
		return ts.Enabled
	}
	return ts.Idle
}

// Outcomes: a broadcast has one outcome per set of lost messages, a timer
// two (keep waiting, give up), a vote four (yes or no, delivered or lost).
// They depend only on the thread's own program counter.
func (p *TwoPhase) Outcomes(s TwoPhaseState, t ts.Tid) int {
	if t == 0 {
		switch s.pc[0] {
		case tpcPrepare, tpcDecide:
			return 1 << p.n
		case tpcTimer:
			return 2
		}
		return 1
	}
	switch s.pc[t] {
	case tppTimer, tppTimerVoted:
		return 2
	case tppVote:
		return 4
	}
	return 1
}

func (p *TwoPhase) Apply(s TwoPhaseState, t ts.Tid) TwoPhaseState { return p.ApplyOutcome(s, t, 0) }

func (p *TwoPhase) ApplyOutcome(s TwoPhaseState, t ts.Tid, c int) TwoPhaseState {
	if t == 0 {
		return p.coordinator(s, c)
	}
	i := int(t) - 1
	switch s.pc[t] {
	case tppTimer:
		s.pc[t] = tppPrepare
		if c == 1 {
			s.pc[t] = tppAbort
		}
	case tppPrepare:
		if s.req[i] == 0 {
			panic(fmt.Sprintf("twophase: participant %d receives from an empty link", i+1))
		}
		s.req[i] = 0
		s.pc[t] = tppVote
	case tppVote:
		v := tpYes
		if c&2 != 0 {
			v = tpNo
		}
		if c&1 == 0 { // delivered
			s.vote[i] = v
		}
		switch {
		case v == tpNo:
			s.pc[t] = tppAbort
		case p.bug:
			s.pc[t] = tppTimerVoted
		default:
			s.pc[t] = tppDecision
		}
	case tppTimerVoted:
		s.pc[t] = tppDecision
		if c == 1 {
			s.pc[t] = tppCommit
		}
	case tppDecision:
		if s.dec[i] == 0 {
			panic(fmt.Sprintf("twophase: participant %d receives from an empty link", i+1))
		}
		s.rec[i], s.dec[i] = s.dec[i], 0
		s.pc[t] = tppDone
	case tppAbort:
		s.rec[i] = tpAbort
		s.pc[t] = tppDone
	case tppCommit:
		s.rec[i] = tpCommit
		s.pc[t] = tppDone
	default:
		panic(fmt.Sprintf("twophase: participant %d has finished", i+1))
	}
	return s
}

func (p *TwoPhase) coordinator(s TwoPhaseState, c int) TwoPhaseState {
	switch s.pc[0] {
	case tpcPrepare:
		for i := range p.n {
			if c&(1<<i) == 0 {
				s.req[i] = 1
			}
		}
		s.pc[0] = tpcTimer
	case tpcTimer:
		s.pc[0] = tpcCollect
		if c == 1 {
			s.out, s.pc[0] = tpAbort, tpcDecide
		}
	case tpcCollect:
		i := 0
		for i < p.n && s.vote[i] == 0 {
			i++
		}
		if i == p.n {
			panic("twophase: the coordinator selects with no vote in flight")
		}
		v := s.vote[i]
		s.vote[i] = 0
		switch {
		case v == tpNo:
			s.out, s.pc[0] = tpAbort, tpcDecide
		case s.yes+1 == int8(p.n):
			s.yes++
			s.out, s.pc[0] = tpCommit, tpcDecide
		default:
			s.yes++
			s.pc[0] = tpcTimer
		}
	case tpcDecide:
		for i := range p.n {
			if c&(1<<i) == 0 {
				s.dec[i] = s.out
			}
		}
		s.pc[0] = tpcDone
	default:
		panic("twophase: the coordinator has finished")
	}
	return s
}

// Invariant is atomic commit: no participant has committed while another
// has aborted.
func (p *TwoPhase) Invariant(s TwoPhaseState) error {
	committed, aborted := -1, -1
	for i := range p.n {
		switch s.rec[i] {
		case tpCommit:
			committed = i
		case tpAbort:
			aborted = i
		}
	}
	if committed >= 0 && aborted >= 0 {
		return fmt.Errorf("participant %d committed and participant %d aborted", committed+1, aborted+1)
	}
	return nil
}

// InvariantReads returns the participants' records.
func (p *TwoPhase) InvariantReads() []ts.Obj {
	objs := make([]ts.Obj, p.n)
	for i := range objs {
		objs[i] = p.rec(i)
	}
	return objs
}

func (p *TwoPhase) Hash(s TwoPhaseState) uint64 {
	h := hashInts(0, s.pc[:p.n+1]...)
	h = hashInts(h, s.req[:p.n]...)
	h = hashInts(h, s.vote[:p.n]...)
	h = hashInts(h, s.dec[:p.n]...)
	h = hashInts(h, s.rec[:p.n]...)
	return hashInts(h, s.yes, s.out)
}

// ObjHash returns the value of object o. A timer holds nothing: its steps
// change only their thread's program counter. The coordinator's tally and
// decision are its own (local) state.
func (p *TwoPhase) ObjHash(s TwoPhaseState, o ts.Obj) uint64 {
	kind, i := p.objKind(o)
	switch kind {
	case 0:
		return uint64(s.req[i])
	case 1:
		return uint64(s.vote[i])
	case 2:
		return uint64(s.dec[i])
	case 3:
		return uint64(s.rec[i])
	}
	return 0
}

var twoPhaseDecisions = [...]string{0: "none", tpCommit: "commit", tpAbort: "abort"}

func (p *TwoPhase) Describe(s TwoPhaseState, t ts.Tid) string {
	if t == 0 {
		switch s.pc[0] {
		case tpcPrepare:
			return "send PREPARE to every participant (outcome: bit i set loses the message to participant i+1)"
		case tpcTimer:
			return fmt.Sprintf("timer (%d yes votes so far): 0 keep waiting, 1 give up and abort", s.yes)
		case tpcCollect:
			return "select on every vote link"
		case tpcDecide:
			return fmt.Sprintf("send %s to every participant (outcome: bit i set loses the message to participant i+1)", strings.ToUpper(twoPhaseDecisions[s.out]))
		}
		return "(finished)"
	}
	i := int(t) - 1
	switch s.pc[t] {
	case tppTimer:
		return "timer: 0 wait for PREPARE, 1 abort alone"
	case tppPrepare:
		return "receive PREPARE"
	case tppVote:
		return "send vote: 0 yes, 1 yes (lost), 2 no, 3 no (lost)"
	case tppTimerVoted:
		return "timer: 0 wait for the decision, 1 commit alone (the bug)"
	case tppDecision:
		return fmt.Sprintf("receive the decision (%s) and record it", twoPhaseDecisions[s.dec[i]])
	case tppAbort:
		return "record abort"
	case tppCommit:
		return "record commit"
	}
	return "(finished)"
}

func (p *TwoPhase) ObjName(o ts.Obj) string {
	kind, i := p.objKind(o)
	switch kind {
	case 0:
		return fmt.Sprintf("req[%d]", i+1)
	case 1:
		return fmt.Sprintf("vote[%d]", i+1)
	case 2:
		return fmt.Sprintf("dec[%d]", i+1)
	case 3:
		return fmt.Sprintf("rec[%d]", i+1)
	}
	return fmt.Sprintf("timer[%d]", int(o)-4*p.n)
}

// BlockingObjs names the links a receive waits on (ts.Blocking): the
// requests, the votes and the decisions.
func (p *TwoPhase) BlockingObjs() []ts.Obj {
	objs := make([]ts.Obj, 0, 3*p.n)
	for i := range p.n {
		objs = append(objs, p.req(i), p.vote(i), p.dec(i))
	}
	return objs
}
