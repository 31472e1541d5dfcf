package transact_test

import (
	"fmt"
	"strings"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/ts"
)

// loopProg is a random program with what the transaction-based searches are
// about and tstest.Programs does not generate (its programs are acyclic):
// local loops (backward jumps over local steps, which never end when the
// register tested does not change), spin loops over shared reads,
// nondeterministic exits (a forward jump to the thread's end on a value read
// from shared memory), lock-protected blocks, assume (a dead end when it
// fails: the thread stops for good) and assume(false). Every instruction is
// one transition, local ones included (as in the CPC figures): a local step
// reports a write of the thread's own object, which nobody else touches.
//
// Objects: variables 0..1, locks 2..3, thread t's local object 4+t.
type loopProg struct {
	code [][]lInstr
}

type lOp uint8

const (
	lLoad     lOp = iota // reg[r] := mem[x]
	lStore               // mem[x] := k
	lStoreR              // mem[x] := reg[r]
	lAcq                 // acquire lock x
	lRel                 // release lock x
	lSkip                // local
	lJmpEq               // local: if reg[r] == k goto to
	lAssertNe            // local: assert reg[r] != k
	lAssume              // local: assume reg[r] == k (else stuck for good)
	lStop                // assume(false)
	lJmp                 // local: goto to
)

type lInstr struct {
	op      lOp
	r, x, k int8
	to      int8
}

const (
	lVars    = 2
	lLocks   = 2
	lThreads = 3
	lMod     = 3
)

type loopState struct {
	pc    [lThreads]int8
	reg   [lThreads][2]int8
	mem   [lVars]int8
	owner [lLocks]int8
	wrong [lThreads]int8 // pc+1 of the failed assertion
}

func (p *loopProg) Init() loopState { return loopState{} }
func (p *loopProg) Threads() int    { return len(p.code) }

func (p *loopProg) instr(s loopState, t ts.Tid) (lInstr, bool) {
	if s.wrong[t] != 0 || int(s.pc[t]) >= len(p.code[t]) {
		return lInstr{}, false
	}
	return p.code[t][s.pc[t]], true
}

// stuck reports whether thread t stopped for good inside its code: at
// assume(false) or at a failed assume.
func (p *loopProg) stuck(s loopState, t ts.Tid) bool {
	in, ok := p.instr(s, t)
	return ok && (in.op == lStop || in.op == lAssume && s.reg[t][in.r] != in.k)
}

func (p *loopProg) Next(s loopState, t ts.Tid) (ts.Step, ts.Status) {
	local := ts.Step{Obj: ts.Obj(lVars + lLocks + int(t)), Op: ts.Write}
	in, ok := p.instr(s, t)
	if !ok || p.stuck(s, t) {
		return local, ts.Finished
	}
	switch in.op {
	case lLoad:
		return ts.Step{Obj: ts.Obj(in.x), Op: ts.Read}, ts.Enabled
	case lStore, lStoreR:
		return ts.Step{Obj: ts.Obj(in.x), Op: ts.Write}, ts.Enabled
	case lAcq:
		step := ts.Step{Obj: ts.Obj(lVars + int(in.x)), Op: ts.Acquire}
		if s.owner[in.x] != 0 {
			return step, ts.Blocked
		}
		return step, ts.Enabled
	case lRel:
		return ts.Step{Obj: ts.Obj(lVars + int(in.x)), Op: ts.Release}, ts.Enabled
	}
	return local, ts.Enabled
}

func (p *loopProg) Apply(s loopState, t ts.Tid) loopState {
	in, ok := p.instr(s, t)
	if !ok {
		panic("loopProg: thread has finished")
	}
	next := s.pc[t] + 1
	switch in.op {
	case lLoad:
		s.reg[t][in.r] = s.mem[in.x]
	case lStore:
		s.mem[in.x] = in.k
	case lStoreR:
		s.mem[in.x] = s.reg[t][in.r]
	case lAcq:
		if s.owner[in.x] != 0 {
			panic("loopProg: acquire of a held lock")
		}
		s.owner[in.x] = int8(t) + 1
	case lRel:
		if s.owner[in.x] == int8(t)+1 {
			s.owner[in.x] = 0
		}
	case lJmpEq:
		if s.reg[t][in.r] == in.k {
			next = in.to
		}
	case lJmp:
		next = in.to
	case lAssertNe:
		if s.reg[t][in.r] == in.k {
			s.wrong[t] = s.pc[t] + 1
			return s
		}
	}
	s.pc[t] = next
	return s
}

func (p *loopProg) Check(s loopState) error {
	for t, w := range s.wrong {
		if w != 0 {
			return fmt.Errorf("T%d: assertion at %d failed", t, w-1)
		}
	}
	return nil
}

func (p *loopProg) Hash(s loopState) uint64 {
	h := uint64(14695981039346656037)
	add := func(v int8) { h = (h ^ uint64(uint8(v))) * 1099511628211 }
	for t := range lThreads {
		add(s.pc[t])
		add(s.reg[t][0])
		add(s.reg[t][1])
		add(s.wrong[t])
	}
	for _, v := range s.mem {
		add(v)
	}
	for _, v := range s.owner {
		add(v)
	}
	return h
}

var lNames = [...]string{"load", "store", "storeR", "acq", "rel", "skip", "jmpeq", "assertne", "assume", "stop", "jmp"}

func (p *loopProg) String() string {
	var b strings.Builder
	for t, code := range p.code {
		fmt.Fprintf(&b, "T%d:", t)
		for i, in := range code {
			fmt.Fprintf(&b, " %d:%s(r%d,x%d,k%d,to%d)", i, lNames[in.op], in.r, in.x, in.k, in.to)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// loopPrograms generates loopProgs of 2 or 3 threads.
func loopPrograms() *rapid.Generator[*loopProg] {
	return rapid.Custom(func(t *rapid.T) *loopProg {
		n := rapid.IntRange(2, lThreads).Draw(t, "threads")
		p := &loopProg{code: make([][]lInstr, n)}
		for th := range n {
			var code []lInstr
			simple := func(label string) lInstr {
				r := int8(rapid.IntRange(0, 1).Draw(t, label+"r"))
				x := int8(rapid.IntRange(0, lVars-1).Draw(t, label+"x"))
				k := int8(rapid.IntRange(0, lMod-1).Draw(t, label+"k"))
				switch rapid.IntRange(0, 6).Draw(t, label) {
				case 0, 1:
					return lInstr{op: lLoad, r: r, x: x}
				case 2:
					return lInstr{op: lStore, x: x, k: k}
				case 3:
					return lInstr{op: lStoreR, x: x, r: r}
				case 4:
					return lInstr{op: lAssertNe, r: r, k: k}
				case 5:
					return lInstr{op: lAssume, r: r, k: k}
				}
				return lInstr{op: lSkip}
			}
			segs := rapid.IntRange(1, 5).Draw(t, "segments")
			for range segs {
				switch rapid.IntRange(0, 8).Draw(t, "segment") {
				case 0, 1:
					code = append(code, simple("s"))
				case 2: // a lock block
					l := int8(rapid.IntRange(0, lLocks-1).Draw(t, "lock"))
					code = append(code, lInstr{op: lAcq, x: l})
					for range rapid.IntRange(1, 2).Draw(t, "body") {
						code = append(code, simple("b"))
					}
					code = append(code, lInstr{op: lRel, x: l})
				case 3: // a loop: body, then back to its start on a register value
					start := int8(len(code))
					for range rapid.IntRange(1, 2).Draw(t, "loop") {
						code = append(code, simple("l"))
					}
					code = append(code, lInstr{op: lJmpEq, r: int8(rapid.IntRange(0, 1).Draw(t, "lr")),
						k: int8(rapid.IntRange(0, lMod-1).Draw(t, "lk")), to: start})
				case 4: // a nondeterministic exit
					code = append(code, lInstr{op: lJmpEq, r: int8(rapid.IntRange(0, 1).Draw(t, "er")),
						k: int8(rapid.IntRange(0, lMod-1).Draw(t, "ek")), to: -1})
				case 5:
					code = append(code, lInstr{op: lStop})
				case 6: // a local loop that never ends unless a register holds k
					start := int8(len(code))
					code = append(code, lInstr{op: lSkip}, lInstr{op: lJmpEq, r: int8(rapid.IntRange(0, 1).Draw(t, "sr")),
						k: int8(rapid.IntRange(0, lMod-1).Draw(t, "sk")), to: -1}, lInstr{op: lJmp, to: start})
				case 7: // read a variable and assert it was not written
					r := int8(rapid.IntRange(0, 1).Draw(t, "ar"))
					code = append(code, lInstr{op: lLoad, r: r, x: int8(rapid.IntRange(0, lVars-1).Draw(t, "ax"))},
						lInstr{op: lAssertNe, r: r, k: int8(rapid.IntRange(1, lMod-1).Draw(t, "ak"))})
				case 8: // commit, then spin locally (for ever unless a register holds k)
					start := int8(len(code) + 1)
					code = append(code, lInstr{op: lStore, x: int8(rapid.IntRange(0, lVars-1).Draw(t, "cx")), k: int8(rapid.IntRange(1, lMod-1).Draw(t, "ck"))},
						lInstr{op: lSkip}, lInstr{op: lJmpEq, r: int8(rapid.IntRange(0, 1).Draw(t, "cr")),
							k: int8(rapid.IntRange(0, lMod-1).Draw(t, "ck2")), to: -1}, lInstr{op: lJmp, to: start})
				}
			}
			for i := range code {
				if (code[i].op == lJmpEq || code[i].op == lJmp) && code[i].to < 0 {
					code[i].to = int8(len(code))
				}
			}
			p.code[th] = code
		}
		return p
	})
}
