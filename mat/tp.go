package mat

// Token-passing pairs: TP(MAT) of section 4 of Ganai and Kundu, the extra
// pairs eTP of GenExtraTP (section 6.1), the all-pairs baseline of the
// token-passing model [17], and the construction weft uses for three or more
// threads.
//
// Invariant: a Pairs value holds ordered pairs of events of two different
// threads; a schedule is allowed by it when every switch from one thread to
// another, the last event of the one followed by the next event of the other,
// is a pair of the set.

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/weftlab/weft/ts"
)

// Pairs is a set of token-passing pairs over the events of a fixed set of
// unrolled threads, virtual end events included.
type Pairs struct {
	lens []int // accesses per thread
	base []int // base[t]: index of thread t's first event; base[len] = events
	m    int   // events
	bits []uint64
}

// Pair is a token-passing pair: the token may pass from event From to event
// To of another thread, that is, To may run right after From.
type Pair struct{ From, To Event }

// NewPairs returns an empty set of pairs over threads of the given lengths
// (accesses per thread, end events not counted).
func NewPairs(lens []int) *Pairs {
	p := &Pairs{lens: slices.Clone(lens), base: make([]int, len(lens)+1)}
	for t, n := range lens {
		p.base[t+1] = p.base[t] + n + 1
	}
	p.m = p.base[len(lens)]
	p.bits = make([]uint64, (p.m*p.m+63)/64)
	return p
}

func (p *Pairs) index(e Event) int {
	if e.T < 0 || int(e.T) >= len(p.lens) || e.I < 0 || e.I > p.lens[e.T] {
		panic(fmt.Sprintf("mat: event %v out of range", e))
	}
	return p.base[e.T] + e.I
}

// Add adds the pair (from, to). It panics if the events are of one thread or
// out of range.
func (p *Pairs) Add(from, to Event) {
	if from.T == to.T {
		panic(fmt.Sprintf("mat: pair (%v, %v) within one thread", from, to))
	}
	k := p.index(from)*p.m + p.index(to)
	p.bits[k/64] |= 1 << (k % 64)
}

// Has reports whether (from, to) is in the set.
func (p *Pairs) Has(from, to Event) bool {
	k := p.index(from)*p.m + p.index(to)
	return p.bits[k/64]&(1<<(k%64)) != 0
}

// has is Has on global event indices, for the hot paths.
func (p *Pairs) has(from, to int) bool {
	k := from*p.m + to
	return p.bits[k/64]&(1<<(k%64)) != 0
}

// Len returns the number of pairs, end events included.
func (p *Pairs) Len() int {
	n := 0
	for _, w := range p.bits {
		n += bits.OnesCount64(w)
	}
	return n
}

// Real returns the number of pairs between two real accesses, the figure the
// paper reports (end events are this package's addition).
func (p *Pairs) Real() int {
	end := make([]bool, p.m) // counted in place: the list of pairs can take far more than the set
	for t := range p.lens {
		end[p.base[t+1]-1] = true
	}
	n := 0
	for f := range p.m {
		if end[f] {
			continue
		}
		for t := range p.m {
			if !end[t] && p.has(f, t) {
				n++
			}
		}
	}
	return n
}

// Lens returns the threads' lengths the set is over.
func (p *Pairs) Lens() []int { return slices.Clone(p.lens) }

// List returns the pairs, ordered by From then To (thread, then index).
func (p *Pairs) List() []Pair {
	var out []Pair
	for f := range p.m {
		for t := range p.m {
			if p.has(f, t) {
				out = append(out, Pair{p.event(f), p.event(t)})
			}
		}
	}
	return out
}

func (p *Pairs) event(g int) Event {
	t := 0
	for p.base[t+1] <= g {
		t++
	}
	return Event{ts.Tid(t), g - p.base[t]}
}

// Union adds every pair of q (over the same threads) to p.
func (p *Pairs) Union(q *Pairs) {
	if !slices.Equal(p.lens, q.lens) {
		panic("mat: union of pairs over different threads")
	}
	for i, w := range q.bits {
		p.bits[i] |= w
	}
}

// Format renders a pair as "(3a, 1b)".
func (p *Pairs) Format(q Pair) string {
	return "(" + q.From.label(p.lens[q.From.T]) + ", " + q.To.label(p.lens[q.To.T]) + ")"
}

// String lists the pairs.
func (p *Pairs) String() string {
	var b strings.Builder
	for i, q := range p.List() {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p.Format(q))
	}
	return b.String()
}

func lengths(threads [][]Access) []int {
	lens := make([]int, len(threads))
	for t, a := range threads {
		lens[t] = len(a)
	}
	return lens
}

// TPOf returns TP(mats) = the union over m of {(l_i, f_j), (l_j, f_i)}: after
// the last event of one transaction of a MAT, the token may pass to the
// first event of the other.
func TPOf(threads [][]Access, mats []MAT) *Pairs {
	p := NewPairs(lengths(threads))
	for _, m := range mats {
		p.Add(Event{m.I, m.LI}, Event{m.J, m.FJ})
		p.Add(Event{m.J, m.LJ}, Event{m.I, m.FI})
	}
	return p
}

// AllPairs returns the pairs of the token-passing model without MATs (the
// paper's OLD scheme): every event of one thread to every event of another,
// end events included, which allows every schedule.
func AllPairs(lens []int) *Pairs {
	p := NewPairs(lens)
	for f := range p.m {
		for t := range p.m {
			if p.event(f).T != p.event(t).T {
				k := f*p.m + t
				p.bits[k/64] |= 1 << (k % 64)
			}
		}
	}
	return p
}

// AllPairsCount returns #P of the paper's Table 1: the token-passing pairs
// between real accesses without MATs, 2 * sum over thread pairs i < j of
// SA_i * SA_j, where SA_i is thread i's number of shared accesses.
func AllPairsCount(sa []int) int64 {
	var n int64
	for i := range sa {
		for j := i + 1; j < len(sa); j++ {
			n += 2 * int64(sa[i]) * int64(sa[j])
		}
	}
	return n
}

// GenExtraTP returns eTP, the extra pairs of section 6.1 for every pair of
// threads, given the MATs of every pair and tp = the union of their TP_ij:
// for each MAT (f_i..l_i, f_j..l_j) of threads i, j and each m_j with
// f_j <= m_j < l_j that passes the token to some third thread k
// ((m_j, c_k) in TP_jk) but to no event of thread i, the pair (l_i, +m_j);
// symmetrically (l_j, +m_i). The formula's two conditions are read as two
// generators, one per side.
//
// The paper claims (Theorem 4) that TP together with eTP is adequate for any
// number of threads. It is not: see the package documentation.
func GenExtraTP(threads [][]Access, mats []MAT, tp *Pairs) *Pairs {
	lens := lengths(threads)
	e := NewPairs(lens)
	// toThread reports whether tp has a pair from event x to some event of
	// thread u.
	toThread := func(x Event, u ts.Tid) bool {
		for y := 0; y <= lens[u]; y++ {
			if tp.Has(x, Event{u, y}) {
				return true
			}
		}
		return false
	}
	toThird := func(x Event, other ts.Tid) bool {
		for k := range ts.Tid(len(lens)) {
			if k != x.T && k != other && toThread(x, k) {
				return true
			}
		}
		return false
	}
	side := func(i ts.Tid, li int, j ts.Tid, fj, lj int) {
		for mj := fj; mj < lj; mj++ {
			x := Event{j, mj}
			if toThird(x, i) && !toThread(x, i) {
				e.Add(Event{i, li}, Event{j, mj + 1})
			}
		}
	}
	for _, m := range mats {
		side(m.I, m.LI, m.J, m.FJ, m.LJ)
		side(m.J, m.LJ, m.I, m.FI, m.LI)
	}
	return e
}

// ConflictPairs returns the sound construction weft uses for three or more
// threads: every pair (x, y) of events of two different threads where x is
// an end event or an access that conflicts with some access of another
// thread. A switch is then allowed after any such event, and never right
// after an access that conflicts with nothing.
//
// Soundness: in any schedule, move each access that conflicts with nothing
// right, past events of other threads (it is independent of all of them),
// until it is just before the next event of its own thread, which exists
// because every thread ends with its end event. The schedule is equivalent,
// its end events keep their order, and no switch follows a moved access.
func ConflictPairs(threads [][]Access) *Pairs {
	lens := lengths(threads)
	p := NewPairs(lens)
	for v := range ts.Tid(len(threads)) {
		for x := 0; x <= lens[v]; x++ {
			if x < lens[v] && !conflictsWithOthers(threads, v, x) {
				continue
			}
			for u := range ts.Tid(len(threads)) {
				if u == v {
					continue
				}
				for y := 0; y <= lens[u]; y++ {
					p.Add(Event{v, x}, Event{u, y})
				}
			}
		}
	}
	return p
}

func conflictsWithOthers(threads [][]Access, v ts.Tid, x int) bool {
	for u, a := range threads {
		if ts.Tid(u) == v {
			continue
		}
		for _, b := range a {
			if threads[v][x].Conflicts(b) {
				return true
			}
		}
	}
	return false
}

// Analysis is what GenMAT and the token-passing constructions give for a set
// of unrolled threads.
type Analysis struct {
	// Threads are the threads' accesses in program order.
	Threads [][]Access
	// MATs holds the MATs of every pair of threads i < j, thread j having
	// priority, pair by pair.
	MATs []MAT
	// Paper is the paper's construction: the union of TP_ij over the thread
	// pairs and of the extra pairs eTP_ij. Adequate and optimal for two
	// threads; for three or more it can lose schedules (package doc).
	Paper *Pairs
	// Extra is eTP alone (empty for two threads).
	Extra *Pairs
	// TP is the set Explore uses: Paper for one or two threads, and
	// ConflictPairs, which is sound but not optimal, for more.
	TP *Pairs
	// Exact is true when TP allows exactly one schedule per Mazurkiewicz
	// class (with end events): one or two threads.
	Exact bool
}

// Analyze runs GenMAT on every pair of threads and builds the token-passing
// sets.
func Analyze(threads [][]Access) *Analysis {
	a, _ := analyze(threads, -1)
	return a
}

// analyze is Analyze that gives up, returning false, once it has found more
// than maxMATs MATs (maxMATs < 0: no limit).
func analyze(threads [][]Access, maxMATs int) (*Analysis, bool) {
	a := &Analysis{Threads: threads}
	for i := range ts.Tid(len(threads)) {
		for j := i + 1; int(j) < len(threads); j++ {
			left := -1
			if maxMATs >= 0 {
				left = maxMATs - len(a.MATs)
			}
			mats, ok := genMAT(threads, i, j, left)
			if !ok {
				return nil, false
			}
			a.MATs = append(a.MATs, mats...)
		}
	}
	a.Paper = TPOf(threads, a.MATs)
	a.Extra = GenExtraTP(threads, a.MATs, a.Paper)
	a.Paper.Union(a.Extra)
	a.Exact = len(threads) <= 2
	if a.Exact {
		a.TP = a.Paper
	} else {
		a.TP = ConflictPairs(threads)
	}
	return a, true
}

// Construction names the set TP: "mat" (the paper's, one or two threads) or
// "conflict" (ConflictPairs, three or more).
func (a *Analysis) Construction() string {
	if a.Exact {
		return "mat"
	}
	return "conflict"
}

// RealMATs returns the number of MATs that end in two real accesses, the
// figure the paper reports.
func (a *Analysis) RealMATs() int {
	n := 0
	for _, m := range a.MATs {
		if m.Real(a.Threads) {
			n++
		}
	}
	return n
}

// Report renders the analysis for people: the threads, the MATs, the
// token-passing pairs against all pairs, and the allowed schedules counted by
// the dynamic program. names, when not nil, names the objects.
func (a *Analysis) Report(names ts.ObjNamer) string {
	var b strings.Builder
	lens := lengths(a.Threads)
	for t, acc := range a.Threads {
		fmt.Fprintf(&b, "thread %s:", threadLetter(ts.Tid(t)))
		for i, x := range acc {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, " %s %s", Event{ts.Tid(t), i}.label(len(acc)), ts.Step{Obj: x.Obj, Op: x.Op}.Format(names))
		}
		b.WriteByte('\n')
	}
	for i := range ts.Tid(len(a.Threads)) {
		for j := i + 1; int(j) < len(a.Threads); j++ {
			var all []MAT
			real := 0
			for _, m := range a.MATs {
				if m.I == i && m.J == j {
					all = append(all, m)
					if m.Real(a.Threads) {
						real++
					}
				}
			}
			fmt.Fprintf(&b, "MATs of %s and %s (%s has priority): %d over real accesses, %d with end events\n",
				threadLetter(i), threadLetter(j), threadLetter(j), real, len(all))
			// Those over real accesses first, then those ending in the
			// end events, each in the order GenMAT found them.
			for _, endsToo := range []bool{false, true} {
				for _, m := range all {
					if m.Real(a.Threads) != endsToo {
						fmt.Fprintf(&b, "  %s\n", m.Format(a.Threads))
					}
				}
			}
		}
	}
	fmt.Fprintf(&b, "token-passing pairs (paper): %d between real accesses (all pairs: %d), %d with end events",
		a.Paper.Real(), AllPairsCount(lens), a.Paper.Len())
	if e := a.Extra.Len(); e > 0 {
		fmt.Fprintf(&b, ", %d of them extra (GenExtraTP)", e)
	}
	b.WriteByte('\n')
	writePairs(&b, a.Paper)
	if !a.Exact {
		fmt.Fprintf(&b, "token-passing pairs used (conflict, sound for %d threads): %d between real accesses, %d with end events\n",
			len(a.Threads), a.TP.Real(), a.TP.Len())
	}
	fmt.Fprintf(&b, "allowed schedules (%s): %v with end events, %v with one end order\n",
		a.Construction(), Count(a.TP, false), Count(a.TP, true))
	return b.String()
}

// String is Report without object names.
func (a *Analysis) String() string { return a.Report(nil) }

func writePairs(b *strings.Builder, p *Pairs) {
	list := p.List()
	for i, q := range list {
		if i%8 == 0 {
			b.WriteString(" ")
		}
		b.WriteString(" ")
		b.WriteString(p.Format(q))
		if i%8 == 7 || i == len(list)-1 {
			b.WriteByte('\n')
		}
	}
}

func threadLetter(t ts.Tid) string {
	if t >= 0 && t < 26 {
		return string(rune('a' + t))
	}
	return fmt.Sprintf("t%d", t)
}
