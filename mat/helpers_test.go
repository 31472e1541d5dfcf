package mat

import (
	"strings"

	"github.com/weftlab/weft/ts"
)

// Objects of the paper's Figure 1.
const (
	x ts.Obj = iota
	y
	z
)

// fig1 is the reconstructed Figure 1(a): M1 = 1a W(y), 2a R(x), 3a R(z), 4a
// R(y); M2 = 1b R(x), 2b W(z), 3b R(x), 4b W(y).
var fig1 = [][]Access{
	{W(y), R(x), R(z), R(y)},
	{R(x), W(z), R(x), W(y)},
}

// words calls f with every interleaving of the threads' events (end events
// included when ends), as a sequence of thread ids.
func words(lens []int, ends bool, f func(w []ts.Tid)) {
	extra := 0
	if ends {
		extra = 1
	}
	total := 0
	for _, n := range lens {
		total += n + extra
	}
	pos := make([]int, len(lens))
	w := make([]ts.Tid, 0, total)
	var rec func()
	rec = func() {
		if len(w) == total {
			f(w)
			return
		}
		for t := range lens {
			if pos[t] < lens[t]+extra {
				pos[t]++
				w = append(w, ts.Tid(t))
				rec()
				w = w[:len(w)-1]
				pos[t]--
			}
		}
	}
	rec()
}

// classKey identifies the Mazurkiewicz class of a word: the order of each
// dependent pair of events of different threads.
func classKey(threads [][]Access, w []ts.Tid, ends bool) string {
	lens := lengths(threads)
	// place[t][i] = position of event i of thread t in w
	place := make([][]int, len(lens))
	pos := make([]int, len(lens))
	for t := range lens {
		place[t] = make([]int, lens[t]+1)
	}
	for k, t := range w {
		place[t][pos[t]] = k
		pos[t]++
	}
	var b strings.Builder
	for i := range lens {
		for j := i + 1; j < len(lens); j++ {
			top := 0
			if ends {
				top = 1
			}
			for a := 0; a < lens[i]+top; a++ {
				for c := 0; c < lens[j]+top; c++ {
					if dependent(threads, ts.Tid(i), a, ts.Tid(j), c) {
						if place[i][a] < place[j][c] {
							b.WriteByte('<')
						} else {
							b.WriteByte('>')
						}
					}
				}
			}
		}
	}
	return b.String()
}

// allowedWord reports whether every switch of w (with end events) is in tp,
// and with oneEndOrder whether the end events come in thread order.
func allowedWord(tp *Pairs, w []ts.Tid, oneEndOrder bool) bool {
	l := newLattice(tp, oneEndOrder)
	pos := make([]int, len(l.lens))
	last := ts.Tid(-1)
	for _, t := range w {
		if !l.allowed(pos, last, t) {
			return false
		}
		pos[t]++
		last = t
	}
	return true
}

// bruteClasses counts the classes of words with end events (ends) or over the
// real accesses, and for each class the words tp allows.
func bruteClasses(threads [][]Access, tp *Pairs, ends, oneEndOrder bool) (classes int, allowedPer map[string]int) {
	allowedPer = map[string]int{}
	seen := map[string]bool{}
	words(lengths(threads), ends, func(w []ts.Tid) {
		k := classKey(threads, w, ends)
		seen[k] = true
		if tp != nil && ends && allowedWord(tp, w, oneEndOrder) {
			allowedPer[k]++
		}
	})
	return len(seen), allowedPer
}
