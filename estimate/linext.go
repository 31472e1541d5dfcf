package estimate

import (
	"math"

	"github.com/weftlab/weft/ts"
)

// linext counts the linearizations of an execution's happens-before order:
// each thread's events in program order, and two events of different
// threads in execution order when their steps are dependent. It counts by
// dynamic programming over the order's down-sets, each a vector of how
// many events of each thread it holds, level by level.
type linext struct {
	n     int
	steps [][]ts.Step // per thread, its steps in order
	// need[t][i*n+u]: how many of thread u's events must precede thread
	// t's i-th event.
	need [][]int32

	cur, next map[string]float64
	key       []byte
	vec       []int32
}

func (l *linext) init(n int) {
	l.n = n
	l.steps = make([][]ts.Step, n)
	l.need = make([][]int32, n)
	l.cur, l.next = map[string]float64{}, map[string]float64{}
	l.key = make([]byte, 4*n)
	l.vec = make([]int32, n)
}

func (l *linext) reset() {
	for t := range l.steps {
		l.steps[t] = l.steps[t][:0]
		l.need[t] = l.need[t][:0]
	}
}

// add appends thread t's next event, of step st.
func (l *linext) add(t ts.Tid, st ts.Step) {
	row := make([]int32, l.n)
	for u := range l.n {
		if ts.Tid(u) == t {
			continue
		}
		// The latest event of u so far that is dependent with st.
		for j := len(l.steps[u]) - 1; j >= 0; j-- {
			if ts.Dependent(l.steps[u][j], st) {
				row[u] = int32(j + 1)
				break
			}
		}
	}
	l.steps[t] = append(l.steps[t], st)
	l.need[t] = append(l.need[t], row...)
}

// count returns the number of linearizations (as a float64: it may be
// huge; +Inf past float64's range makes the probe's weight 0).
func (l *linext) count() float64 {
	clear(l.cur)
	clear(l.vec)
	l.cur[string(l.encode(l.vec))] = 1
	total := 0
	for _, s := range l.steps {
		total += len(s)
	}
	for range total {
		clear(l.next)
		for k, c := range l.cur {
			l.decode(k)
			for t := range l.n {
				i := l.vec[t]
				if int(i) >= len(l.steps[t]) || !l.ready(t, int(i)) {
					continue
				}
				l.vec[t]++
				l.next[string(l.encode(l.vec))] += c
				l.vec[t]--
			}
		}
		l.cur, l.next = l.next, l.cur
	}
	for _, c := range l.cur {
		return c
	}
	return math.Inf(1)
}

// ready reports whether thread t's i-th event may follow the down-set l.vec.
func (l *linext) ready(t, i int) bool {
	row := l.need[t][i*l.n : (i+1)*l.n]
	for u, k := range row {
		if l.vec[u] < k {
			return false
		}
	}
	return true
}

func (l *linext) encode(v []int32) []byte {
	for i, x := range v {
		l.key[4*i], l.key[4*i+1], l.key[4*i+2], l.key[4*i+3] = byte(x), byte(x>>8), byte(x>>16), byte(x>>24)
	}
	return l.key
}

func (l *linext) decode(k string) {
	for i := range l.vec {
		l.vec[i] = int32(k[4*i]) | int32(k[4*i+1])<<8 | int32(k[4*i+2])<<16 | int32(k[4*i+3])<<24
	}
}
