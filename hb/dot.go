package hb

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/bits-and-blooms/bitset"
	"github.com/weftlab/weft/ts"
)

// WriteDot writes the happens-before graph of a trace to w in Graphviz DOT:
// one node per transition, labelled with its index, thread, accesses (each
// object with its operation: ts.Step.Format), outcome (for a transition of
// several) and the trace's description of it, grouped in one cluster per
// thread. Solid edges are program order; dashed edges are the cross-thread
// edges of the canonical happens-before order over every access (a write
// before the reads of its value and the next write, a read before the next
// write), only the direct ones: an edge implied by a path through other
// edges is left out. names, if not nil, names the objects; otherwise they
// show as o0, o1, ... Threads with names (ts.ThreadNamer) are labelled with
// them.
func WriteDot(w io.Writer, tr ts.Trace, names ts.ObjNamer) error {
	return WriteDotWaits(w, tr, names, nil)
}

// WriteDotWaits is WriteDot for a trace that ends in a deadlock: each
// waiting thread gets a node for the step it cannot take (red, after its
// last transition), and a bold red wait-for edge to the thread that holds
// what it waits for, where known (ts.Waiter.Holder): to that thread's
// waiting node if it waits too, which shows the cycle, else to its last
// transition.
func WriteDotWaits(w io.Writer, tr ts.Trace, names ts.ObjNamer, waits []ts.Waiter) error {
	evs := tr.Events
	accs, objs := accessesOf(evs)

	var b strings.Builder
	b.WriteString("digraph hb {\n\tnode [shape=box, fontname=\"monospace\"];\n")
	threads := 0
	tname := map[ts.Tid]string{}
	for _, e := range evs {
		threads = max(threads, int(e.Thread)+1)
		if e.ThreadName != "" {
			tname[e.Thread] = e.ThreadName
		}
	}
	waitOf := map[ts.Tid]int{}
	for i, wt := range waits {
		threads = max(threads, int(wt.Thread)+1)
		waitOf[wt.Thread] = i
		if wt.Name != "" {
			tname[wt.Thread] = wt.Name
		}
	}
	for t := range threads {
		label := fmt.Sprintf("T%d", t)
		if n := tname[ts.Tid(t)]; n != "" {
			label += " " + n
		}
		fmt.Fprintf(&b, "\tsubgraph cluster_T%d {\n\t\tlabel=\"%s\";\n", t, dotEscape(label))
		for i, e := range evs {
			if int(e.Thread) != t {
				continue
			}
			label := fmt.Sprintf("%d: T%d %s", i, e.Thread, e.Step.Format(names))
			if e.Outcomes > 1 {
				label += fmt.Sprintf(" /%d", e.Outcome)
			}
			if e.Desc != "" {
				label += "\n" + e.Desc
			}
			fmt.Fprintf(&b, "\t\te%d [label=\"%s\"];\n", i, dotEscape(label))
		}
		if i, ok := waitOf[ts.Tid(t)]; ok {
			label := fmt.Sprintf("T%d waits to %s", t, waits[i].Step.Format(names))
			fmt.Fprintf(&b, "\t\tw%d [label=\"%s\", color=red, fontcolor=red];\n", t, dotEscape(label))
		}
		b.WriteString("\t}\n")
	}

	edges, lastOf := hbEdges(evs, accs, objs)
	for _, e := range edges {
		if e.po {
			fmt.Fprintf(&b, "\te%d -> e%d;\n", e.from, e.to)
		} else {
			fmt.Fprintf(&b, "\te%d -> e%d [style=dashed];\n", e.from, e.to)
		}
	}
	for _, wt := range waits {
		if l, ok := lastOf[wt.Thread]; ok {
			fmt.Fprintf(&b, "\te%d -> w%d;\n", l, wt.Thread)
		}
	}
	for _, wt := range waits {
		h := wt.Holder
		switch _, waiting := waitOf[h]; {
		case h < 0:
		case waiting:
			fmt.Fprintf(&b, "\tw%d -> w%d [color=red, style=bold, label=\"waits for\"];\n", wt.Thread, h)
		default:
			if l, ok := lastOf[h]; ok {
				fmt.Fprintf(&b, "\tw%d -> e%d [color=red, style=bold, label=\"waits for\"];\n", wt.Thread, l)
			}
		}
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// dotEscape quotes s for a DOT string: quotes and backslashes escaped, line
// breaks as DOT's \n.
func dotEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return r.Replace(s)
}

// objTrace holds the trace indices of an object's writes (by number) and
// reads (by the write they read).
type objTrace struct{ writes, readsOf map[int][]int }

// accessesOf numbers the accesses of each transition of a trace, and
// indexes them by object.
func accessesOf(evs []ts.Event) ([][]EventAccess, map[ts.Obj]*objTrace) {
	s := New(0)
	accs := make([][]EventAccess, len(evs))
	for i, e := range evs {
		ev := s.AddOutcome(e.Thread, e.Step, e.Outcome)
		accs[i] = s.AppendAccesses(nil, e.Thread, ev.N)
	}
	objs := map[ts.Obj]*objTrace{}
	for i := range evs {
		for _, a := range accs[i] {
			o := objs[a.Obj]
			if o == nil {
				o = &objTrace{writes: map[int][]int{}, readsOf: map[int][]int{}}
				objs[a.Obj] = o
			}
			if a.Op == W {
				o.writes[a.M] = append(o.writes[a.M], i)
			} else {
				o.readsOf[a.M] = append(o.readsOf[a.M], i)
			}
		}
	}
	return accs, objs
}

// hbEdge is a direct edge of the happens-before order of a trace: program
// order (po) or across threads.
type hbEdge struct {
	from, to int
	po       bool
}

// hbEdges returns the direct happens-before edges of a trace, and each
// thread's last transition. The trace order is a linearization, so
// ancestors have smaller indices and a candidate edge (a, i) is implied by
// another path iff a is an ancestor of a candidate with a larger index.
func hbEdges(evs []ts.Event, accs [][]EventAccess, objs map[ts.Obj]*objTrace) ([]hbEdge, map[ts.Tid]int) {
	var edges []hbEdge
	anc := make([]*bitset.BitSet, len(evs))
	lastOf := map[ts.Tid]int{}
	var cands []int
	for i, e := range evs {
		anc[i] = bitset.New(uint(len(evs)))
		po, hasPO := lastOf[e.Thread]
		lastOf[e.Thread] = i
		cands = cands[:0]
		for _, a := range accs[i] {
			o := objs[a.Obj]
			if a.Op == R {
				cands = append(cands, o.writes[a.M]...)
			} else {
				cands = append(cands, o.writes[a.M-1]...)
				cands = append(cands, o.readsOf[a.M-1]...)
			}
		}
		if hasPO {
			edges = append(edges, hbEdge{po, i, true})
			anc[i].Set(uint(po)).InPlaceUnion(anc[po])
		}
		slices.Sort(cands)
		for k := len(cands) - 1; k >= 0; k-- {
			a := cands[k]
			if a >= i || anc[i].Test(uint(a)) {
				continue
			}
			edges = append(edges, hbEdge{a, i, false})
			anc[i].Set(uint(a)).InPlaceUnion(anc[a])
		}
	}
	return edges, lastOf
}
