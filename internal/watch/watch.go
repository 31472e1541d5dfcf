// Package watch turns a context's cancellation and a progress interval into
// two flags a search can read on every transition for the cost of an atomic
// load, so that it notices cancellation within one transition whatever its
// model costs, and reports progress by elapsed time rather than by a count
// of transitions.
//
// Nothing runs in the background between events: the context's AfterFunc
// and the progress timer each run a function only when they fire, and Stop
// removes both. A Watch keeps no goroutine after Stop.
package watch

import (
	"context"
	"sync/atomic"
	"time"
)

// DefaultProgressEvery is the progress interval when none is given, as
// ts.Options documents it.
const DefaultProgressEvery = time.Second

// MinProgressEvery is the shortest progress interval a Watch keeps: a
// callback more often than this would cost more than the search.
const MinProgressEvery = time.Millisecond

// Watch holds the flags. The zero Watch never fires.
type Watch struct {
	ctx       context.Context
	left      uint32 // calls of Cancelled until it asks the context itself
	cancelled atomic.Bool
	due       atomic.Bool
	stopCtx   func() bool
	timer     *time.Timer
	every     time.Duration
}

// Start watches ctx and, if progress is set, arms a progress timer of the
// given interval (DefaultProgressEvery for 0, at least MinProgressEvery).
func Start(ctx context.Context, progress bool, every time.Duration) *Watch {
	w := &Watch{ctx: ctx, left: PollEvery}
	if ctx.Done() != nil {
		w.stopCtx = context.AfterFunc(ctx, func() { w.cancelled.Store(true) })
		if ctx.Err() != nil {
			w.cancelled.Store(true)
		}
	}
	if progress {
		if every == 0 {
			every = DefaultProgressEvery
		}
		w.every = max(every, MinProgressEvery)
		w.timer = time.AfterFunc(w.every, func() { w.due.Store(true) })
	}
	return w
}

// Cancelled reports whether the context is done. The flag is set by the
// context's AfterFunc, which runs on a goroutine of its own; every
// PollEvery calls Cancelled also asks the context, so that a cancellation
// from the searching goroutine itself (a Progress callback) is seen within
// that many transitions whatever the scheduler does.
func (w *Watch) Cancelled() bool {
	if w.cancelled.Load() {
		return true
	}
	if w.left--; w.left != 0 {
		return false
	}
	w.left = PollEvery
	return w.poll()
}

// Quiet is Cancelled's usual answer, cheap enough to inline: true when the
// flag is not set and this call is not one that asks the context itself
// (it then counts the call as Cancelled does). False means only that
// Cancelled must be asked.
func (w *Watch) Quiet() bool {
	if w.left > 1 && !w.cancelled.Load() {
		w.left--
		return true
	}
	return false
}

// Flag reports whether the cancellation flag is set: one atomic load, for
// the hot path of a search, which calls Poll every PollEvery transitions.
func (w *Watch) Flag() bool { return w.cancelled.Load() }

// Poll asks the context itself whether it is done, and sets the flag if so.
func (w *Watch) Poll() bool { return w.poll() }

// poll asks the context itself.
func (w *Watch) poll() bool {
	if w.ctx != nil && w.ctx.Err() != nil {
		w.cancelled.Store(true)
		return true
	}
	return false
}

// PollEvery is how often Cancelled asks the context itself.
const PollEvery = 256

// ProgressDue reports whether a progress interval has passed since the last
// report, and if so arms the timer for the next.
func (w *Watch) ProgressDue() bool {
	if !w.due.Load() {
		return false
	}
	w.due.Store(false)
	w.timer.Reset(w.every)
	return true
}

// Stop removes the context callback and the timer.
func (w *Watch) Stop() {
	if w.stopCtx != nil {
		w.stopCtx()
	}
	if w.timer != nil {
		w.timer.Stop()
	}
}
