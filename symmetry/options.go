package symmetry

import (
	"errors"
	"fmt"

	"github.com/weftlab/weft/internal/search"
	"github.com/weftlab/weft/ts"
)

// ErrNoSymmetry is wrapped (with ts.ErrBadOptions) by the error a strategy
// returns when the system does not declare the symmetry it needs:
// Canonicalizer for Explore, Signer for DPOR with symmetry.
var ErrNoSymmetry = errors.New("symmetry: the system declares no symmetry (Canonicalizer or Signer)")

// Options configure the strategies of package symmetry. The zero value
// explores the whole space up to the first violation, with symmetry on.
type Options struct {
	ts.Options

	// NoSymmetry turns the symmetry reduction off (DPOR only): DPOR is then
	// the plain dynamic partial-order reduction it is built on, the baseline
	// its savings are measured against, and needs no Signer.
	NoSymmetry bool
}

func (o Options) validate() error {
	if err := search.OneWorker(&o.Options, "symmetry"); err != nil {
		return err
	}
	return o.Options.Validate()
}

func needs(hash, canon bool) error {
	switch {
	case !hash:
		return fmt.Errorf("%w: %w", ts.ErrBadOptions, ts.ErrNoHash)
	case !canon:
		return fmt.Errorf("%w: %w", ts.ErrBadOptions, ErrNoSymmetry)
	}
	return nil
}
