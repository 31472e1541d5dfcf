// Package estimate estimates the size of the tree a search will explore
// before it explores it, and turns the estimate into progress: a fraction
// done and a time left in each Progress report ([Progress]).
//
// [Size] runs random probes from the initial state (Knuth's estimator,
// importance-sampled) over one of two trees, and says which:
//   - [DFS], ts.Explore's tree: every move at every state. Executions
//     estimates dfs's executions, Transitions its transitions (under
//     KeepGoing; a search that stops at a violation does less).
//   - [Sleep], por.Sleep's tree: sleep sets, explored in por's order.
//     Executions estimates sleep's executions under KeepGoing (a
//     sleep-blocked leaf is not an execution). Where no check fails they
//     are the Mazurkiewicz traces of the complete executions, which odpor
//     explores, and dpor on the bundled models; where checks fail, an
//     execution ends at the failure and the counts part a little
//     (bluetooth-2: sleep 164, dpor and odpor 161). Transitions estimates
//     sleep's transitions, an upper bound on dpor's and odpor's (which
//     share more prefixes).
//
// No other strategy's tree is estimated: the bounded strategies' trees
// depend on the bound, the stateful ones' on the order states are met, and
// the transaction searches' on the movers.
//
// # What is exact, what is estimated
//
// Each probe's figures are unbiased whatever its random choices, as long as
// every child can be chosen (tested: the mean of many estimates is the
// count). For a system with Hash, a probe also counts the subtree below the
// nodes it reaches exactly when that needs at most a few thousand new
// nodes, keeping the counts by state hash (for Sleep, with the sleep set
// and the last mover, which with the state fix the subtree) across probes.
// Where the distinct states are few the estimate is then the exact count;
// where they are not, the probes' variance comes only from the levels above
// the exact counts. Two states of one hash would share a count.
//
// Exact counts are sums in float64: exact up to 2^53 executions.
//
// Measured (go test ./estimate -run Table -estimate.long -v, ten seeds of
// 300 probes): on the bundled models with 10^4 to 10^6 executions (wsq,
// philosophers-4 and twophase-2 under dfs; pfscan-5, pfscan-6 and
// twophase-3 under sleep/odpor) every estimate is the exact count, at a
// cost of 547 to 187,000 transitions; the dfs trees of lastzero-5, aget-3
// and inspect-example1-40 (1.6 to 3.5 million executions) are counted
// exactly too, and those of lastzero-8 and pfscan-4 (10^12 to 10^13) in
// under a tenth of a second. Plain probes (Options.Plain, or a system
// without Hash) are unbiased (tested) but spread: within 24%, 39% and 116%
// at worst on wsq, philosophers-4 and twophase-2. Where the sleep-set tree
// has far more sleep-blocked leaves than traces and too many keys to count
// (indexer-12 and -14, filesystem-14 and -16, lastzero-12), no probe
// reaches an execution and Size says it has no estimate of the executions
// (Executions 0, String says so); its Transitions are then an upper bound
// far above what dpor and odpor do.
package estimate
