package symmetry_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/weftlab/weft/symmetry"
	"github.com/weftlab/weft/ts"
)

// writers is two threads that run the same code but for one constant:
// thread t first writes t+1 to the shared variable x, then takes `tail`
// steps on an object of its own. Its signature is its program counter, so
// at the initial state the two threads claim to be interchangeable. They
// are not: exchanging them changes which value x ends with, a difference of
// data, not a renaming of threads. Once both have written x, the claim is
// true (x no longer changes, and their parts are the same program counter
// and an object of their own).
//
// With check, the check fails at the end when x = 1 (thread 0 wrote last).
// The check is symmetric under the claimed renaming (it does not read the
// threads' parts), which is what lets the difference go unnoticed until the
// end of the execution, tail+1 steps of each thread after the claim.
type writers struct {
	tail  int
	check bool
}

type writersState struct{ pc, x uint8 }

// pcOf returns thread t's program counter (two per byte).
func (s writersState) pcOf(t ts.Tid) uint8 { return s.pc >> (4 * t) & 15 }

func (w writers) Init() writersState { return writersState{} }
func (w writers) Threads() int       { return 2 }

func (w writers) Next(s writersState, t ts.Tid) (ts.Step, ts.Status) {
	switch pc := s.pcOf(t); {
	case pc == 0:
		return ts.Step{Obj: 0, Op: ts.Write}, ts.Enabled
	case int(pc) <= w.tail:
		return ts.Step{Obj: ts.Obj(1 + t), Op: ts.Write}, ts.Enabled
	}
	return ts.Step{}, ts.Finished
}

func (w writers) Apply(s writersState, t ts.Tid) writersState {
	if s.pcOf(t) == 0 {
		s.x = uint8(t) + 1
	}
	s.pc += 1 << (4 * t)
	return s
}

func (w writers) done(s writersState) bool {
	return int(s.pcOf(0)) > w.tail && int(s.pcOf(1)) > w.tail
}

func (w writers) Check(s writersState) error {
	if w.check && w.done(s) && s.x == 1 {
		return fmt.Errorf("x = 1: thread 0 wrote last")
	}
	return nil
}

func (w writers) Hash(s writersState) uint64 { return uint64(s.pc)<<8 | uint64(s.x) }

func (w writers) Signature(s writersState, t ts.Tid) uint64 { return uint64(s.pcOf(t)) }

// class is s up to the claimed renaming: the two program counters sorted,
// and x.
func (w writers) class(s writersState) [3]uint8 {
	a, b := s.pcOf(0), s.pcOf(1)
	return [3]uint8{min(a, b), max(a, b), s.x}
}

// reached runs a search with KeepGoing and returns the classes of the
// terminal states it reached and the messages of its violations.
func (w writers) reached(t *testing.T, run func(ts.Options) (ts.Result, error)) (terminals map[[3]uint8]bool, violations map[string]bool) {
	t.Helper()
	terminals, violations = map[[3]uint8]bool{}, map[string]bool{}
	_, err := run(ts.Options{KeepGoing: true,
		OnTerminal:  func(st any, _ ts.Schedule) { terminals[w.class(st.(writersState))] = true },
		OnViolation: func(v *ts.Violation) { violations[v.Err.Error()] = true },
	})
	if err != nil {
		t.Fatalf("search failed: %v", err)
	}
	return terminals, violations
}

// The reproduction of a signer whose claimed exchange of two threads
// changes data rather than renaming threads: sympor, trusting it, skips
// thread 1 at the initial state and never sees x end at 1, so it reaches
// one of the two terminal states of ts.Explore, and with the check it
// misses the failure (the figures are asserted, so that the system stays a
// reproduction). Verify must not accept such a signer: it returns a
// *Mismatch (with the check, whose failure at the end it now compares) or
// an *Unverified (without: nothing the system shows tells x = 1 from x = 2).
func TestVerifyDataSwap(t *testing.T) {
	ctx := context.Background()
	for _, w := range []writers{{tail: 3, check: true}, {tail: 3}} {
		name := fmt.Sprintf("tail %d, check %v", w.tail, w.check)
		refT, refV := w.reached(t, func(o ts.Options) (ts.Result, error) { return ts.Explore[writersState](ctx, w, o) })
		spT, spV := w.reached(t, func(o ts.Options) (ts.Result, error) {
			return symmetry.DPOR[writersState](ctx, w, symmetry.Options{Options: o})
		})
		// The figures of the reproduction: what the claim costs sympor.
		wantRef, wantSp := 2, 1
		if w.check {
			wantRef, wantSp = 1, 1 // the terminal state with x = 1 is a violation
		}
		if len(refT) != wantRef || len(spT) != wantSp || len(refV) != btoi(w.check) || len(spV) != 0 {
			t.Fatalf("%s: ts.Explore reaches %d terminal classes and %d violations, sympor %d and %d; want %d and %d, %d and 0",
				name, len(refT), len(refV), len(spT), len(spV), wantRef, btoi(w.check), wantSp)
		}
		err := symmetry.Verify[writersState](w, symmetry.VerifyOptions{})
		t.Logf("%s: ts.Explore: %d terminal classes, %d violations; sympor: %d, %d; Verify: %v", name, len(refT), len(refV), len(spT), len(spV), err)
		if err == nil {
			t.Errorf("%s: Verify accepts the signer, yet sympor reaches %d of the %d terminal classes and %d of the %d violations of ts.Explore",
				name, len(spT), len(refT), len(spV), len(refV))
		}
		if !errors.Is(err, symmetry.ErrAsymmetric) && !errors.Is(err, symmetry.ErrUnverified) {
			t.Errorf("%s: Verify: %v; want a *Mismatch or an *Unverified", name, err)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// permWriters is writers with a Permuter: the renaming that exchanges the
// threads' program counters (and with them their objects), x left alone.
type permWriters struct{ writers }

func (w permWriters) Permute(s writersState, p []ts.Tid) writersState {
	r := s
	r.pc = 0
	for t := range ts.Tid(2) {
		r.pc |= s.pcOf(t) << (4 * p[t])
	}
	return r
}

// What Verify says of writers, and why.
//
// Without Permuter it compares the futures of the two threads, exchanged,
// to the end of every execution. With the check, the failure at the end of
// one execution and not of its image is a *Mismatch, however long the
// tail: the comparison is no longer cut at MaxDepth (which hid it). Without
// the check, nothing the system shows tells the two futures apart (x is
// written and never read), so Verify cannot know that the exchange is not
// a renaming of threads: it reports the claim *Unverified, saying to
// implement Permuter, unless Observational accepts it, which then gives up
// the terminal state that differs only in x, as documented. A comparison
// cut short by MaxPairs is unverified under Observational too.
//
// With Permuter the state reached with the threads exchanged is compared
// with the renamed state after every transition, and the exchange shows at
// the first one, whatever the check.
func TestVerifyDataSwapWhy(t *testing.T) {
	for _, tail := range []int{3, 10} {
		w := writers{tail: tail, check: true}
		for _, opt := range []symmetry.VerifyOptions{{}, {Observational: true}} {
			var m *symmetry.Mismatch
			err := symmetry.Verify[writersState](w, opt)
			want := make(ts.Schedule, 0, 2*tail+2)
			for _, th := range []ts.Tid{0, 1} {
				for range tail + 1 {
					want = append(want, ts.Move{Thread: th})
				}
			}
			if !errors.As(err, &m) || !m.Schedule.Equal(want) || m.Thread != -1 || !strings.Contains(m.Detail, "Check fails on the state reached with them exchanged") {
				t.Errorf("tail %d, %+v: %v; want the check's mismatch at the end of %v", tail, opt, err, want)
			}
		}

		w.check = false
		var u *symmetry.Unverified
		err := symmetry.Verify[writersState](w, symmetry.VerifyOptions{})
		if !errors.As(err, &u) || u.A != 0 || u.B != 1 || len(u.Schedule) != 0 || !strings.Contains(u.Detail, "implement Permuter") {
			t.Errorf("tail %d, no check: %v; want threads 0 and 1 unverified at the initial state", tail, err)
		}
		if err := symmetry.Verify[writersState](w, symmetry.VerifyOptions{Observational: true}); err != nil {
			t.Errorf("tail %d, no check, observational: %v", tail, err)
		}
		err = symmetry.Verify[writersState](w, symmetry.VerifyOptions{Observational: true, MaxPairs: 5})
		if !errors.As(err, &u) || !strings.Contains(u.Detail, "within 5 pairs") {
			t.Errorf("tail %d, no check, observational, 5 pairs: %v; want the claim unverified", tail, err)
		}

		for _, check := range []bool{false, true} {
			pw := permWriters{writers{tail: tail, check: check}}
			var m *symmetry.Mismatch
			err := symmetry.Verify[writersState](pw, symmetry.VerifyOptions{})
			if !errors.As(err, &m) || !m.Schedule.Equal(ts.ScheduleOf(0)) || !strings.Contains(m.Detail, "is not the state reached with them exchanged") {
				t.Errorf("tail %d, check %v, with Permuter: %v; want the mismatch after [0]", tail, check, err)
			}
		}
	}
}

// tickets is two threads that each draw a ticket (r := y; y := y + 1), take
// `tail` steps on an object of their own, and then, if they drew ticket 0,
// write their id + 1 to x (the other writes x unchanged). The signature is
// (program counter, ticket), so the threads claim to be interchangeable at
// the initial state only (afterwards their tickets differ), and the claim
// holds, with the Permuter that exchanges program counters and tickets,
// for tail + 1 steps: drawing in either order is a renaming. The last step
// is not: whoever drew ticket 0 leaves its own id in x. Checking states
// against their renaming shows it at that step, tail + 2 transitions after
// the claim; with check, the check fails at the end when x = 2 (thread 1
// drew first), which is what a search that explores thread 0 alone at the
// initial state never sees.
type tickets struct {
	tail  int
	check bool
}

type ticketsState struct {
	pc, r [2]uint8
	y, x  uint8
}

func (k tickets) Init() ticketsState { return ticketsState{} }
func (k tickets) Threads() int       { return 2 }

func (k tickets) Next(s ticketsState, t ts.Tid) (ts.Step, ts.Status) {
	switch pc := int(s.pc[t]); {
	case pc == 0:
		return ts.Step{Obj: 0, Op: ts.Write}, ts.Enabled
	case pc <= k.tail:
		return ts.Step{Obj: ts.Obj(1 + t), Op: ts.Write}, ts.Enabled
	case pc == k.tail+1:
		return ts.Step{Obj: 3, Op: ts.Write}, ts.Enabled
	}
	return ts.Step{}, ts.Finished
}

func (k tickets) Apply(s ticketsState, t ts.Tid) ticketsState {
	switch pc := int(s.pc[t]); {
	case pc == 0:
		s.r[t], s.y = s.y, s.y+1
	case pc == k.tail+1 && s.r[t] == 0:
		s.x = uint8(t) + 1
	}
	s.pc[t]++
	return s
}

func (k tickets) Check(s ticketsState) error {
	if k.check && int(s.pc[0]) > k.tail+1 && int(s.pc[1]) > k.tail+1 && s.x == 2 {
		return fmt.Errorf("x = 2: thread 1 drew first")
	}
	return nil
}

func (k tickets) Hash(s ticketsState) uint64 {
	return uint64(s.pc[0]) | uint64(s.pc[1])<<8 | uint64(s.r[0])<<16 | uint64(s.r[1])<<24 | uint64(s.y)<<32 | uint64(s.x)<<40
}

func (k tickets) Signature(s ticketsState, t ts.Tid) uint64 {
	return uint64(s.pc[t]) | uint64(s.r[t])<<8
}

func (k tickets) Permute(s ticketsState, p []ts.Tid) ticketsState {
	r := s
	for t := range ts.Tid(2) {
		r.pc[p[t]], r.r[p[t]] = s.pc[t], s.r[t]
	}
	return r
}

// class is s up to the claimed renaming.
func (k tickets) class(s ticketsState) ticketsState {
	if [2]uint8{s.pc[1], s.r[1]} != [2]uint8{s.pc[0], s.r[0]} && (s.pc[1] < s.pc[0] || s.pc[1] == s.pc[0] && s.r[1] < s.r[0]) {
		return k.Permute(s, []ts.Tid{1, 0})
	}
	return s
}

// With a Permuter, Verify compared the states reached with the threads
// exchanged against the renamed states only up to MaxDepth transitions
// after the claim; a renaming that fails later went unnoticed, and sympor
// reached one of the two terminal classes of ts.Explore (and missed the
// check). Verify must reject the claim, at the transition where the
// renaming fails.
func TestVerifyDataSwapPermuter(t *testing.T) {
	ctx := context.Background()
	for _, k := range []tickets{{tail: 5}, {tail: 5, check: true}} {
		name := fmt.Sprintf("tail %d, check %v", k.tail, k.check)
		count := func(run func(ts.Options) (ts.Result, error)) (terminals, violations int) {
			seen, msgs := map[ticketsState]bool{}, map[string]bool{}
			_, err := run(ts.Options{KeepGoing: true,
				OnTerminal:  func(st any, _ ts.Schedule) { seen[k.class(st.(ticketsState))] = true },
				OnViolation: func(v *ts.Violation) { msgs[v.Err.Error()] = true },
			})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return len(seen), len(msgs)
		}
		refT, refV := count(func(o ts.Options) (ts.Result, error) { return ts.Explore[ticketsState](ctx, k, o) })
		spT, spV := count(func(o ts.Options) (ts.Result, error) {
			return symmetry.DPOR[ticketsState](ctx, k, symmetry.Options{Options: o})
		})
		wantRef, wantV := 2, 0
		if k.check {
			wantRef, wantV = 1, 1
		}
		if refT != wantRef || spT != 1 || refV != wantV || spV != 0 {
			t.Fatalf("%s: ts.Explore reaches %d terminal classes and %d violations, sympor %d and %d", name, refT, refV, spT, spV)
		}
		err := symmetry.Verify[ticketsState](k, symmetry.VerifyOptions{})
		t.Logf("%s: ts.Explore: %d terminal classes, %d violations; sympor: %d, %d; Verify: %v", name, refT, refV, spT, spV, err)
		var m *symmetry.Mismatch
		if !errors.As(err, &m) {
			t.Errorf("%s: Verify: %v; want a *Mismatch", name, err)
		}
	}
}

// unhashedWriters is permWriters without Hash: Verify, which compares
// states by Hash, cannot use the Permuter (it used to call a nil Hasher and
// report the panic as a mismatch), and says what is missing.
type unhashedWriters struct{ w permWriters }

func (u unhashedWriters) Init() writersState { return u.w.Init() }
func (u unhashedWriters) Threads() int       { return u.w.Threads() }
func (u unhashedWriters) Next(s writersState, t ts.Tid) (ts.Step, ts.Status) {
	return u.w.Next(s, t)
}
func (u unhashedWriters) Apply(s writersState, t ts.Tid) writersState { return u.w.Apply(s, t) }
func (u unhashedWriters) Signature(s writersState, t ts.Tid) uint64 {
	return u.w.Signature(s, t)
}
func (u unhashedWriters) Permute(s writersState, p []ts.Tid) writersState {
	return u.w.Permute(s, p)
}

// A Signer with Permuter and no Hash: its claims are unverified, and the
// error says to implement ts.Hasher.
func TestVerifyPermuterWithoutHash(t *testing.T) {
	var u *symmetry.Unverified
	err := symmetry.Verify[writersState](unhashedWriters{permWriters{writers{tail: 1}}}, symmetry.VerifyOptions{})
	if !errors.As(err, &u) || !strings.Contains(u.Detail, "implement Permuter and ts.Hasher") {
		t.Errorf("Verify: %v; want the claim unverified, for want of Hash", err)
	}
	err = symmetry.Verify[writersState](unhashedWriters{permWriters{writers{tail: 1}}}, symmetry.VerifyOptions{Observational: true, MaxPairs: 3})
	if !errors.As(err, &u) || !strings.Contains(u.Detail, "without ts.Hasher every schedule is a pair of its own") {
		t.Errorf("Verify, observational, 3 pairs: %v; want the claim unverified, for want of pairs", err)
	}
}
