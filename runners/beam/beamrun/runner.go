package beamrun

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local" // local paths for Output

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
)

// ErrBadOptions is wrapped by the error of New for options that cannot
// work (it is ts.ErrBadOptions, as for every options struct of weft).
var ErrBadOptions = ts.ErrBadOptions

// Options configure a Runner. Every field but Keep is required.
type Options struct {
	// System is the name the system is registered under in this binary
	// and in the workers' (Register, RegisterCatalog).
	System string

	// Output is the directory each round's results are written to and read
	// back from: somewhere every worker can write and the driver read. A
	// local directory for an in-process runner (prism, direct) or a
	// cluster whose workers share a filesystem with the driver; gs://...
	// on Dataflow (the binary imports the gcs filesystem, as beamx does).
	Output string

	// Execute runs one pipeline to its end: prism.Execute for the
	// in-process runner, beamx.RunWithMetrics for the runner the --runner
	// flag names (prism, direct, flink, spark, dataflow).
	Execute func(context.Context, *beam.Pipeline) (beam.PipelineResult, error)

	// Shards is how many parts a round's units are dealt into, each its
	// own Create and reshuffle: prism (in-process) runs one bundle per
	// part, concurrently, and one bundle for all of a round's units
	// otherwise. 0 means 1; a cluster runner spreads the units of one part
	// over its workers too.
	Shards int

	// Keep keeps each round's result file; by default it is removed once
	// read, where the filesystem can remove files.
	Keep bool

	// twice writes every result twice, as a retried bundle's sink would
	// (tests).
	twice bool
}

func (o Options) validate() error {
	if o.System == "" {
		return fmt.Errorf("%w: beamrun: no System named", ErrBadOptions)
	}
	if _, err := lookup(o.System); err != nil {
		return fmt.Errorf("%w: %w", ErrBadOptions, err)
	}
	if o.Output == "" {
		return fmt.Errorf("%w: beamrun: no Output directory (a local directory for an in-process runner, gs://bucket/dir on Dataflow)", ErrBadOptions)
	}
	fs, err := filesystem.New(context.Background(), o.Output)
	if err != nil {
		return fmt.Errorf("%w: beamrun: Output %q: %w", ErrBadOptions, o.Output, err)
	}
	fs.Close()
	if o.Shards < 0 {
		return fmt.Errorf("%w: beamrun: negative Shards %d", ErrBadOptions, o.Shards)
	}
	if o.Execute == nil {
		return fmt.Errorf("%w: beamrun: no Execute (prism.Execute in-process, beamx.RunWithMetrics for the --runner flag)", ErrBadOptions)
	}
	return nil
}

// Runner is a por.UnitRunner that explores each batch of units in one
// Beam pipeline: a round. Its methods are safe to call concurrently, but
// rounds run one at a time, as a search asks for them.
type Runner struct {
	opt    Options
	prefix string // of this runner's result files, unique to it

	round sync.Mutex // held through a round
	mu    sync.Mutex // guards load
	load  Load
}

// New returns a Runner with options opt, or an error wrapping
// ErrBadOptions that says what is wrong with them.
func New(opt Options) (*Runner, error) {
	if err := opt.validate(); err != nil {
		return nil, err
	}
	var id [6]byte
	rand.Read(id[:])
	dir := strings.TrimSuffix(opt.Output, "/")
	return &Runner{opt: opt, prefix: dir + "/weft-" + hex.EncodeToString(id[:])}, nil
}

// Load is what a runner's rounds did: what was shipped, and where and how
// long each unit was explored.
type Load struct {
	Rounds int
	// Sent counts the units sent, over all rounds; UnitBytes their encoded
	// size. Repeated counts the units a batch held more than once, sent
	// once.
	Sent      int
	UnitBytes int64
	Repeated  int
	// Units holds one entry per unit explored, in the order the rounds
	// read them back; ResultBytes is the size of their encoded results.
	Units       []UnitLoad
	ResultBytes int64
	// Duplicates counts the results read back that were of a unit already
	// read in the round (a retried bundle written twice): each is dropped.
	Duplicates int
	// Elapsed is the wall time of the rounds, pipelines and reading back.
	Elapsed time.Duration
}

// UnitLoad is where and how long one unit was explored.
type UnitLoad struct {
	Round       int
	Transitions int64
	Elapsed     time.Duration // wall time of the exploration on the worker
	Worker      string        // host/pid
	Bundle      string        // worker#n: the bundle it came in
}

// Load returns the figures of the rounds so far.
func (r *Runner) Load() Load {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.load
	l.Units = append([]UnitLoad(nil), l.Units...)
	return l
}

// RunUnits explores units in one pipeline and returns their results, one
// per unit: a unit whose result comes back twice is counted once.
func (r *Runner) RunUnits(ctx context.Context, units []por.Unit) ([]por.UnitResult, error) {
	if len(units) == 0 {
		return nil, nil // an empty round would write no file
	}
	r.round.Lock()
	defer r.round.Unlock()
	start := time.Now()
	// A batch can hold a unit twice (equal keys, equal results): ship it once.
	seen := make(map[string]bool, len(units))
	distinct := make([]por.Unit, 0, len(units))
	for _, u := range units {
		if k := u.Key(); !seen[k] {
			seen[k] = true
			distinct = append(distinct, u)
		}
	}
	repeated := len(units) - len(distinct)
	units = distinct
	r.mu.Lock()
	r.load.Rounds++
	round := r.load.Rounds
	r.load.Sent += len(units)
	r.load.Repeated += repeated
	for _, u := range units {
		r.load.UnitBytes += int64(len(u))
	}
	r.mu.Unlock()

	file := fmt.Sprintf("%s-round-%d.jsonl", r.prefix, round)
	if _, err := r.opt.Execute(ctx, pipeline(units, r.opt.System, file, r.opt.Shards, r.opt.twice)); err != nil {
		return nil, fmt.Errorf("beamrun: round %d (%d units): %w", round, len(units), err)
	}
	results, loads, dups, err := r.read(ctx, file, round)
	if err == nil && !r.opt.Keep {
		err = remove(ctx, file)
	}
	if err != nil {
		return nil, fmt.Errorf("beamrun: round %d: %w", round, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.load.Units = append(r.load.Units, loads...)
	for _, res := range results {
		r.load.ResultBytes += int64(len(res))
	}
	r.load.Duplicates += dups
	r.load.Elapsed += time.Since(start)
	return results, nil
}

// read reads a round's results back, the first of each unit's.
func (r *Runner) read(ctx context.Context, file string, round int) (results []por.UnitResult, loads []UnitLoad, dups int, err error) {
	fs, err := filesystem.New(ctx, file)
	if err != nil {
		return nil, nil, 0, err
	}
	defer fs.Close()
	f, err := fs.OpenRead(ctx, file)
	if err != nil {
		return nil, nil, 0, err
	}
	defer f.Close()
	seen := make(map[string]bool)
	in := bufio.NewReader(f)
	for n := 1; ; n++ {
		line, err := in.ReadBytes('\n')
		if errors.Is(err, io.EOF) && len(line) == 0 {
			break
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, nil, 0, err
		}
		var rec record
		if err := json.Unmarshal(line, &rec); err != nil {
			return nil, nil, 0, fmt.Errorf("%s line %d: %w", file, n, err)
		}
		res := por.UnitResult(rec.Result)
		key := res.Key()
		if key == "" {
			return nil, nil, 0, fmt.Errorf("%w: %s line %d holds no unit result", por.ErrBadUnit, file, n)
		}
		if seen[key] {
			dups++
			continue
		}
		seen[key] = true
		results = append(results, res)
		loads = append(loads, UnitLoad{Round: round, Transitions: res.Transitions(),
			Elapsed: time.Duration(rec.Elapsed), Worker: rec.Worker, Bundle: rec.Bundle})
	}
	return results, loads, dups, nil
}

// remove removes a round's file, where its filesystem can.
func remove(ctx context.Context, file string) error {
	fs, err := filesystem.New(ctx, file)
	if err != nil {
		return err
	}
	defer fs.Close()
	if rm, ok := fs.(filesystem.Remover); ok {
		return rm.Remove(ctx, file)
	}
	return nil
}
