// Package hashset is a set of 64-bit keys (state hashes) for the searches
// that store the states they visited: an open-addressing table probed
// linearly, 8 bytes a slot and at most three quarters full, whose table
// moves past 2 MB to memory mapped outside the Go heap and advised for huge
// pages (offheap), and is rebuilt at twice the size when it fills.
//
// # Why
//
// A stateful search of a million states asks its table once a transition,
// each time at a place no earlier question touched: its time goes to
// fetching that memory, to the table's growth and to the page faults of the
// new arrays. A Go map of the hashes, on lastzero-10's 1.4 million states,
// took 63% of ExploreStateful's time (2.10 s in one process) and 133 MB
// with 32,000 page faults in a fresh one; this table took 43% of 1.12 s,
// and 34 MB with under a thousand faults.
package hashset
