package models

import (
	"fmt"

	"github.com/weftlab/weft/ts"
)

// bluetoothMaxAdders is the largest number of adder threads.
const bluetoothMaxAdders = 6

// Bluetooth is the model of the Windows Bluetooth PnP driver in Qadeer and
// Wu, "KISS: keep it simple and sequential" (PLDI 2004; its running
// example), the first benchmark of Musuvathi and Qadeer, "Iterative context
// bounding for systematic testing of multithreaded programs" (PLDI 2007,
// Tables 1-2). This is a reconstruction of the published model, not the
// 400-line driver the ICB paper tested.
// The device extension has pendingIo (initially 1), stoppingFlag and
// stoppingEvent; stopped is a global. Threads 0..N-1 are adders running
// BCSP_PnpAdd, thread N is the stopper running BCSP_PnpStop:
//
//	adder:                                   stopper:
//	  if stoppingFlag { status = -1 }          stoppingFlag = true
//	  else { pendingIo++; status = 0 }         if --pendingIo == 0 { stoppingEvent = true }
//	  if status == 0 { assert(!stopped) }      wait until stoppingEvent
//	  if --pendingIo == 0 {                    stopped = true
//	      stoppingEvent = true
//	  }
//
// As in KISS, the adder decrements pendingIo whether or not its increment
// happened. Each read of stoppingFlag and stopped, each update of pendingIo
// (a read-modify-write: one Write) and each write of a flag is its own
// transition; the stopper's wait is a Blocked Read of stoppingEvent.
// Objects: pendingIo = 0 and stoppingEvent = 2 are synchronization objects
// (interlocked counter, event); stoppingFlag = 1 and stopped = 3 are plain
// data, as in the driver, so a race detector reports races on them.
//
// N is the number of adders: KISS's model has one (main runs PnpAdd after
// starting PnpStop), the ICB paper's test driver had three threads (two
// adders, presumably). Facts (under ts.Explore): the assertion fails (a
// check failure: an adder does its IO work after the device stopped); no
// execution without preemptions fails, and the fewest preemptions of a
// failing one is 1 (the adder reads stoppingFlag = false and is preempted;
// the stopper runs to the end; the adder increments and asserts), matching
// the ICB paper's one Bluetooth bug at bound 1. No deadlock. Executions
// (violating ones included), transitions and violating executions: 60, 233
// and 4 for N = 1; 16386, 55951 and 1768 for N = 2; 13913688, 45997817 and
// 1638348 for N = 3. Distinct terminal states: N+1 (the final pendingIo is
// minus the number of adders that found stoppingFlag set). Acyclic.
type Bluetooth struct{ adders int }

// NewBluetooth returns the driver with n adder threads, 1 ≤ n ≤ 6.
func NewBluetooth(n int) *Bluetooth {
	if n < BluetoothInfo.Min || n > BluetoothInfo.Max {
		panic(fmt.Sprintf("models: bluetooth: n = %d, want %d..%d", n, BluetoothInfo.Min, BluetoothInfo.Max))
	}
	return &Bluetooth{adders: n}
}

// BluetoothInfo describes Bluetooth.
var BluetoothInfo = Info{
	Name:    "bluetooth",
	Summary: "the KISS Bluetooth driver model: IO after stop, found with 1 preemption",
	Source:  "Qadeer, Wu, KISS, PLDI 2004 (running example); Musuvathi, Qadeer, Iterative context bounding, PLDI 2007, section 5",
	Param:   "adders",
	Default: 1,
	Min:     1,
	Max:     bluetoothMaxAdders,
}

// Bluetooth objects.
const (
	bluetoothPendingIo ts.Obj = iota
	bluetoothStoppingFlag
	bluetoothStoppingEvent
	bluetoothStopped
)

// Adder program counters.
const (
	bluetoothAddReadFlag  = iota // if stoppingFlag
	bluetoothAddIncrement        // pendingIo++
	bluetoothAddAssert           // assert(!stopped)
	bluetoothAddDecrement        // if --pendingIo == 0
	bluetoothAddSetEvent         // stoppingEvent = true
	bluetoothAddDone
)

// Stopper program counters.
const (
	bluetoothStopSetFlag    = iota // stoppingFlag = true
	bluetoothStopDecrement         // if --pendingIo == 0
	bluetoothStopSetEvent          // stoppingEvent = true
	bluetoothStopWait              // wait until stoppingEvent
	bluetoothStopSetStopped        // stopped = true
	bluetoothStopDone
)

// BluetoothState is a state of Bluetooth. Adder entries at N and above are
// zero.
type BluetoothState struct {
	pc            [bluetoothMaxAdders]int8 // adders' program counters
	stopPC        int8                     // the stopper's
	pendingIo     int8
	stoppingFlag  bool
	stoppingEvent bool
	stopped       bool
	fail          int8 // 0, or a+1 when adder a asserted with stopped true
}

func (b *Bluetooth) Init() BluetoothState { return BluetoothState{pendingIo: 1} }
func (b *Bluetooth) Threads() int         { return b.adders + 1 }

func (b *Bluetooth) Next(s BluetoothState, t ts.Tid) (ts.Step, ts.Status) {
	if int(t) == b.adders {
		switch s.stopPC {
		case bluetoothStopSetFlag:
			return ts.Step{Obj: bluetoothStoppingFlag, Op: ts.Write}, ts.Enabled
		case bluetoothStopDecrement:
			return ts.Step{Obj: bluetoothPendingIo, Op: ts.Write, Sync: true}, ts.Enabled
		case bluetoothStopSetEvent:
			return ts.Step{Obj: bluetoothStoppingEvent, Op: ts.Write, Sync: true}, ts.Enabled
		case bluetoothStopWait:
			step := ts.Step{Obj: bluetoothStoppingEvent, Op: ts.Read, Sync: true}
			if !s.stoppingEvent {
				return step, ts.Blocked
			}
			return step, ts.Enabled
		case bluetoothStopSetStopped:
			return ts.Step{Obj: bluetoothStopped, Op: ts.Write}, ts.Enabled
		}
		return ts.Step{}, ts.Finished
	}
	switch s.pc[t] {
	case bluetoothAddReadFlag:
		return ts.Step{Obj: bluetoothStoppingFlag, Op: ts.Read}, ts.Enabled
	case bluetoothAddIncrement, bluetoothAddDecrement:
		return ts.Step{Obj: bluetoothPendingIo, Op: ts.Write, Sync: true}, ts.Enabled
	case bluetoothAddAssert:
		return ts.Step{Obj: bluetoothStopped, Op: ts.Read}, ts.Enabled
	case bluetoothAddSetEvent:
		return ts.Step{Obj: bluetoothStoppingEvent, Op: ts.Write, Sync: true}, ts.Enabled
	}
	return ts.Step{}, ts.Finished
}

func (b *Bluetooth) Apply(s BluetoothState, t ts.Tid) BluetoothState {
	if int(t) == b.adders {
		next := s.stopPC + 1
		switch s.stopPC {
		case bluetoothStopSetFlag:
			s.stoppingFlag = true
		case bluetoothStopDecrement:
			s.pendingIo--
			if s.pendingIo != 0 {
				next = bluetoothStopWait
			}
		case bluetoothStopSetEvent:
			s.stoppingEvent = true
		case bluetoothStopWait:
			if !s.stoppingEvent {
				panic("bluetooth: the stopper waits on a clear stoppingEvent")
			}
		case bluetoothStopSetStopped:
			s.stopped = true
		default:
			panic("bluetooth: the stopper has finished")
		}
		s.stopPC = next
		return s
	}
	next := s.pc[t] + 1
	switch s.pc[t] {
	case bluetoothAddReadFlag:
		if s.stoppingFlag {
			next = bluetoothAddDecrement // status = -1: no work, but KISS decrements anyway
		}
	case bluetoothAddIncrement:
		s.pendingIo++
	case bluetoothAddAssert:
		if s.stopped && s.fail == 0 {
			s.fail = int8(t) + 1
		}
	case bluetoothAddDecrement:
		s.pendingIo--
		if s.pendingIo != 0 {
			next = bluetoothAddDone
		}
	case bluetoothAddSetEvent:
		s.stoppingEvent = true
	default:
		panic(fmt.Sprintf("bluetooth: adder %d has finished", t))
	}
	s.pc[t] = next
	return s
}

// Check reports an adder that did its IO work on a stopped device.
func (b *Bluetooth) Check(s BluetoothState) error {
	if s.fail != 0 {
		return fmt.Errorf("assertion failed: adder %d works on a stopped device", s.fail-1)
	}
	return nil
}

func (b *Bluetooth) Hash(s BluetoothState) uint64 { return hashFlat(0, &s) }

// fixturesBit is 1 for true, 0 for false.
func fixturesBit(b bool) int8 {
	if b {
		return 1
	}
	return 0
}

func (b *Bluetooth) Describe(s BluetoothState, t ts.Tid) string {
	if int(t) == b.adders {
		switch s.stopPC {
		case bluetoothStopSetFlag:
			return "stoppingFlag = true"
		case bluetoothStopDecrement:
			return "if --pendingIo == 0"
		case bluetoothStopSetEvent:
			return "stoppingEvent = true"
		case bluetoothStopWait:
			return "wait until stoppingEvent"
		case bluetoothStopSetStopped:
			return "stopped = true"
		}
		return "(finished)"
	}
	switch s.pc[t] {
	case bluetoothAddReadFlag:
		return "if stoppingFlag"
	case bluetoothAddIncrement:
		return "pendingIo++"
	case bluetoothAddAssert:
		return "assert(!stopped)"
	case bluetoothAddDecrement:
		return "if --pendingIo == 0"
	case bluetoothAddSetEvent:
		return "stoppingEvent = true"
	}
	return "(finished)"
}

func (b *Bluetooth) ObjName(o ts.Obj) string {
	return fixturesVarName(o, "pendingIo", "stoppingFlag", "stoppingEvent", "stopped")
}
