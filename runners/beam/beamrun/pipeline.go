package beamrun

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/weftlab/weft/por"
)

func init() {
	register.DoFn3x1[context.Context, []byte, func(string), error](&exploreFn{})
	register.Emitter1[string]()
}

// pipeline builds one round: the units, dealt round robin into shards,
// each shard spread over the workers by a reshuffle (Create puts its
// elements in one bundle), explored by the system registered as system,
// and the results written to file, one JSON record a line. Separate shards
// are separate stages: prism, which puts every element of a stage that is
// ready in one bundle, runs them as concurrent bundles; a cluster runner
// spreads each shard's units by the reshuffle's keys as well.
func pipeline(units []por.Unit, system, file string, shards int, twice bool) *beam.Pipeline {
	p, s := beam.NewPipelineWithRoot()
	shards = max(1, min(shards, len(units)))
	in := make([][][]byte, shards)
	for i, u := range units {
		in[i%shards] = append(in[i%shards], u)
	}
	outs := make([]beam.PCollection, shards)
	for i := range in {
		col := beam.Reshuffle(s, beam.CreateList(s, in[i]))
		outs[i] = beam.ParDo(s, &exploreFn{System: system, Twice: twice}, col)
	}
	textio.Write(s, file, beam.Flatten(s, outs...))
	return p
}

// record is one line of a round's output: a unit's result and where and
// how long it was explored.
type record struct {
	Result  []byte `json:"result"` // por.UnitResult (base64 in JSON)
	Worker  string `json:"worker"` // host and process
	Bundle  string `json:"bundle"` // the worker and the bundle's number in it
	Elapsed int64  `json:"ns"`     // wall time of the exploration
}

// exploreFn explores the units of the system registered under System.
// Exported fields are what Beam ships to the workers; the rest is set up
// on each.
type exploreFn struct {
	System string `json:"system"`
	// Twice writes every result twice, as a sink that a retried bundle
	// writes again would (tests only: Options.twice).
	Twice bool `json:"twice,omitempty"`

	explore ExploreFunc
	worker  string
	bundle  string
}

// bundles numbers the bundles a worker process starts.
var bundles atomic.Int64

func (f *exploreFn) Setup() error {
	explore, err := lookup(f.System)
	if err != nil {
		return err
	}
	f.explore = explore
	host, _ := os.Hostname()
	f.worker = host + "/" + strconv.Itoa(os.Getpid())
	return nil
}

// StartBundle takes the emitter because ProcessElement does (Beam's rule).
func (f *exploreFn) StartBundle(_ context.Context, _ func(string)) {
	f.bundle = f.worker + "#" + strconv.FormatInt(bundles.Add(1), 10)
}

func (f *exploreFn) ProcessElement(ctx context.Context, u []byte, emit func(string)) error {
	start := time.Now()
	res, err := f.explore(ctx, por.Unit(u))
	if err != nil {
		return fmt.Errorf("beamrun: a unit of %s: %w", f.System, err)
	}
	line, err := json.Marshal(record{Result: res, Worker: f.worker, Bundle: f.bundle, Elapsed: int64(time.Since(start))})
	if err != nil {
		return err
	}
	emit(string(line))
	if f.Twice {
		emit(string(line))
	}
	return nil
}
