package por

import (
	"errors"

	"github.com/weftlab/weft/ts"
)

// ErrCyclic is wrapped by the error SDPOR returns when it meets a state that
// is on its own search stack: the state space has a cycle, and stateful
// dynamic partial-order reduction (thesis chapter 4) is only sound on acyclic
// state spaces. Use ts.ExploreStateful, or a strategy that handles cycles.
var ErrCyclic = errors.New("por: the state space has a cycle; stateful DPOR needs an acyclic one")

// Options configure every strategy of package por. The zero value explores
// the whole space up to the first violation, with the default depth limit.
//
// There is nothing strategy-specific yet; the struct exists so that options
// such as a worker count for parallel exploration can be added without
// changing any signature.
type Options struct {
	ts.Options
}

func (o Options) validate() error {
	return o.Options.Validate()
}
