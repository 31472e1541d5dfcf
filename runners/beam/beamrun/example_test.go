package beamrun_test

import (
	"context"
	"fmt"
	"os"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/weftlab/weft/cli"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/runners/beam/beamrun"
)

// A search whose units run in Beam pipelines on prism, in this process
// (the test binary registers the bundled models before beam.Init, as a
// program's main does).
func Example() {
	dir, err := os.MkdirTemp("", "weft-beam-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	r, err := beamrun.New(beamrun.Options{System: "lastzero-6", Output: dir, Execute: prism.Execute, Shards: 2})
	if err != nil {
		panic(err)
	}
	target, err := cli.Lookup("lastzero-6")
	if err != nil {
		panic(err)
	}
	var opt por.Options
	opt.Runner, opt.SplitDepth, opt.SplitAfter = r, 5, -1 // split from the start, at depth 5
	res, err := target.Search(context.Background(), "odpor", opt)
	if err != nil {
		panic(err)
	}
	alone, _ := target.Search(context.Background(), "odpor", por.Options{})
	fmt.Println(res)
	fmt.Println("the same as alone:", res.Executions == alone.Executions && res.Transitions == alone.Transitions)
	fmt.Println("units explored on beam:", len(r.Load().Units) > 0)
	// Output:
	// no violation: 144 executions, 1247 transitions
	// the same as alone: true
	// units explored on beam: true
}
