package transact

// The phase instrumentation of section 3 of the paper: each thread has a
// boolean phase, true while it runs the right-mover (pre-commit) part of a
// transaction and false otherwise. A transition of thread t with mover type
// m sets t's phase to
//
//	p' = RM && (p || !LM)
//
// where RM = m.Right() and LM = m.Left(). A thread-local step (the paper's
// T_L) keeps the phase; weft has no separate local steps, and a both mover
// (RM = LM = true) gives p' = p, so local steps are both movers. The initial
// phase of every thread is false.
//
// The phases are part of the instrumented state: the search's table of
// visited states is keyed by the system's hash mixed with the phase bits.
// Phase vectors are kept as words, (n+63)/64 per state, in one flat slice
// parallel to the search stack, so that a step allocates nothing.

// nextPhase returns a thread's phase after a transition of mover type m from
// phase p.
func nextPhase(p bool, m Mover) bool { return m.Right() && (p || !m.Left()) }

// phaseWords is the number of words of a phase vector for n threads.
func phaseWords(n int) int { return (n + 63) / 64 }

// getPhase returns thread t's bit of the phase vector v.
func getPhase(v []uint64, t int) bool { return v[t>>6]&(1<<(t&63)) != 0 }

// setPhase sets thread t's bit of v to p.
func setPhase(v []uint64, t int, p bool) {
	if p {
		v[t>>6] |= 1 << (t & 63)
	} else {
		v[t>>6] &^= 1 << (t & 63)
	}
}

// mix64 is the splitmix64 finalizer.
func mix64(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// stateKey is the key of an instrumented state: the system's hash h of the
// state with the phase vector v folded in. All phases false leaves h as it
// is, so an instrumented state with no thread in a pre-commit phase has the
// key of its plain state.
func stateKey(h uint64, v []uint64) uint64 {
	for i, w := range v {
		if w != 0 {
			h ^= mix64(w ^ mix64(uint64(i)+0x5bd1e995))
		}
	}
	return h
}
