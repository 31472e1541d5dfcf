package por

// WithCutBudget returns opt with ODPOR's budget of replays per reversal of
// a step that waits on several objects (cutBudget) set to n, so that a test
// can reach it.
func WithCutBudget(opt Options, n int) Options {
	opt.cutBudget = n
	return opt
}
