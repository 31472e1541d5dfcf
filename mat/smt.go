package mat

// An export of the token-passing constraints as SMT-LIB 2, for users who
// build verification conditions for a solver as the paper does (section 4).
//
// Invariant: the models of the exported assertions are exactly the schedules
// Count counts: each event gets its position in the schedule, positions are
// a permutation, each thread's events are in program order, and the event
// right after any event is its thread successor or a token-passing pair.

import (
	"fmt"
	"strings"
)

// SMTName is the SMT-LIB symbol of event e's position: "e0_1" for thread 0's
// first access, "e0_end" for its end event. n is the thread's length.
func SMTName(e Event, n int) string {
	if e.I == n {
		return fmt.Sprintf("e%d_end", e.T)
	}
	return fmt.Sprintf("e%d_%d", e.T, e.I+1)
}

// SMTLIB renders the token-passing constraints of tp as SMT-LIB 2 (logic
// QF_LIA): one integer constant per event, end events included, holding its
// position in the schedule, and assertions whose models are exactly the
// schedules tp allows (as Count counts them, with oneEndOrder likewise). The
// text declares and asserts only: append the user's own constraints, then
// (check-sat).
func SMTLIB(tp *Pairs, oneEndOrder bool) string {
	var b strings.Builder
	lens := tp.lens
	m := tp.m
	fmt.Fprintf(&b, "; weft mat: token-passing constraints, %d threads, %d events (end events included)\n", len(lens), m)
	fmt.Fprintf(&b, "; %d token-passing pairs; a model gives each event its position 0..%d in the schedule\n", tp.Len(), m-1)
	b.WriteString("(set-logic QF_LIA)\n")
	name := func(g int) string {
		e := tp.event(g)
		return SMTName(e, lens[e.T])
	}
	for g := range m {
		e := tp.event(g)
		fmt.Fprintf(&b, "(declare-const %s Int) ; %s\n", name(g), e.label(lens[e.T]))
	}
	for g := range m {
		fmt.Fprintf(&b, "(assert (and (<= 0 %s) (< %s %d)))\n", name(g), name(g), m)
	}
	if m > 1 {
		b.WriteString("(assert (distinct")
		for g := range m {
			b.WriteString(" " + name(g))
		}
		b.WriteString("))\n")
	}
	b.WriteString("; program order\n")
	for t, n := range lens {
		for i := range n {
			g := tp.base[t] + i
			fmt.Fprintf(&b, "(assert (< %s %s))\n", name(g), name(g+1))
		}
	}
	if oneEndOrder && len(lens) > 1 {
		b.WriteString("; end events in thread order\n")
		for t := 1; t < len(lens); t++ {
			fmt.Fprintf(&b, "(assert (< %s %s))\n", name(tp.base[t]-1), name(tp.base[t+1]-1))
		}
	}
	b.WriteString("; token passing: what runs right after an event is its thread successor or a token-passing pair\n")
	for g := range m {
		e := tp.event(g)
		var alts []string
		alts = append(alts, fmt.Sprintf("(= %s %d)", name(g), m-1))
		if e.I < lens[e.T] {
			alts = append(alts, fmt.Sprintf("(= %s (+ %s 1))", name(g+1), name(g)))
		}
		for h := range m {
			if tp.has(g, h) {
				alts = append(alts, fmt.Sprintf("(= %s (+ %s 1))", name(h), name(g)))
			}
		}
		fmt.Fprintf(&b, "(assert (or %s))\n", strings.Join(alts, " "))
	}
	return b.String()
}
