package beamrun

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/weftlab/weft/cli"
	"github.com/weftlab/weft/por"
)

// ExploreFunc explores one unit of a search of a system: por.ExploreUnit on
// the system, or cli.Target.ExploreUnit.
type ExploreFunc func(ctx context.Context, u por.Unit) (por.UnitResult, error)

// The registry: the systems the workers can explore units of, by name.
// It lives in the binary, filled before beam.Init, since a cluster runner
// starts the same binary as its workers and ships them only names.
var registry struct {
	sync.Mutex
	named    map[string]ExploreFunc
	catalogs [][]cli.System
	built    map[string]ExploreFunc // catalog systems built so far
}

// Register makes explore reachable by name in this binary, on the driver
// and on every worker: call it from an init function or before beam.Init,
// in the binary the cluster runs. Registering a name twice panics, as a
// program error.
func Register(name string, explore ExploreFunc) {
	if name == "" || explore == nil {
		panic("beamrun: Register needs a name and a function")
	}
	registry.Lock()
	defer registry.Unlock()
	if _, ok := registry.named[name]; ok {
		panic(fmt.Sprintf("beamrun: system %q registered twice", name))
	}
	if registry.named == nil {
		registry.named = make(map[string]ExploreFunc)
	}
	registry.named[name] = explore
}

// RegisterCatalog makes the models of systems (weft's bundled models, from
// cli.Bundled, when none are given) reachable by their command-line names,
// "lastzero-12" or "locks3": a worker builds a model the first time one of
// its units comes (cli.Lookup). Names given to Register come first.
func RegisterCatalog(systems ...cli.System) {
	if len(systems) == 0 {
		systems = cli.Bundled()
	}
	registry.Lock()
	defer registry.Unlock()
	registry.catalogs = append(registry.catalogs, systems)
}

// lookup returns the function that explores the units of the system
// registered as name.
func lookup(name string) (ExploreFunc, error) {
	registry.Lock()
	defer registry.Unlock()
	if f, ok := registry.named[name]; ok {
		return f, nil
	}
	if f, ok := registry.built[name]; ok {
		return f, nil
	}
	var first error
	for _, cat := range registry.catalogs {
		t, err := cli.Lookup(name, cat...)
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		if registry.built == nil {
			registry.built = make(map[string]ExploreFunc)
		}
		registry.built[name] = t.ExploreUnit
		return t.ExploreUnit, nil
	}
	if first != nil {
		return nil, fmt.Errorf("beamrun: system %q: %w", name, first)
	}
	names := make([]string, 0, len(registry.named))
	for n := range registry.named {
		names = append(names, n)
	}
	sort.Strings(names)
	return nil, fmt.Errorf("beamrun: no system %q registered in this binary (registered: %v; RegisterCatalog adds the bundled models)", name, names)
}
