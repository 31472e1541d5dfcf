// Package search holds what weft's strategies share when they drive a
// ts.TransitionSystem: reading every thread's next step with the contract
// checked, the limits and cancellation, and errors that name a schedule.
// ts.Explore keeps its own copy of these few lines, since ts cannot import
// anything of weft's.
//
// # Pieces
//
//   - Threads and Look read a system's thread count and every thread's next
//     step with the contract checked.
//   - Outcome is the bookkeeping of a search's result: confirmed violations
//     recorded, errors kept, limits and cancellation turned into a stop;
//     its Drive runs a search, turning panics in user code into violations.
//   - BudgetSpent and WithSchedule are the small helpers beneath them.
package search
