package cli_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/weftlab/weft/cli"
	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/ts"
)

// workerPool stands for machines that each build the system by name and
// explore the units they are handed.
type workerPool struct{ model string }

func (w workerPool) RunUnits(ctx context.Context, units []por.Unit) ([]por.UnitResult, error) {
	t, err := cli.Lookup(w.model)
	if err != nil {
		return nil, err
	}
	var out []por.UnitResult
	for _, u := range units {
		r, err := t.ExploreUnit(ctx, u)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// A search whose units another program explores, each finding the bundled
// model by its name.
func ExampleLookup() {
	t, err := cli.Lookup("lastzero-8")
	if err != nil {
		panic(err)
	}
	serial, _ := t.Search(context.Background(), "odpor", por.Options{})
	opt := por.Options{SplitDepth: 6, SplitAfter: -1, Runner: workerPool{model: "lastzero-8"}}
	split, err := t.Search(context.Background(), "odpor", opt)
	if err != nil {
		panic(err)
	}
	fmt.Println(t.Name(), t.Threads(), "threads")
	fmt.Println("serial:", serial.Executions, "executions,", serial.Transitions, "transitions")
	fmt.Println("units explored elsewhere:", split.Executions, "executions,", split.Transitions, "transitions")
	// Output:
	// lastzero-8 9 threads
	// serial: 704 executions, 7039 transitions
	// units explored elsewhere: 704 executions, 7039 transitions
}

func TestLookupErrors(t *testing.T) {
	if _, err := cli.Lookup("nosuch-3"); err == nil {
		t.Error("an unknown model: no error")
	}
	if _, err := cli.Lookup("lastzero-x"); err == nil {
		t.Error("a bad N: no error")
	}
	tg, err := cli.Lookup("locks3")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Search(context.Background(), "dfs", por.Options{}); !errors.Is(err, ts.ErrBadOptions) {
		t.Errorf("a strategy that does not split: %v", err)
	}
	var zero cli.Target
	if _, err := zero.Search(context.Background(), "odpor", por.Options{}); !errors.Is(err, ts.ErrBadOptions) {
		t.Errorf("the zero Target: %v", err)
	}
	if _, err := zero.ExploreUnit(context.Background(), nil); !errors.Is(err, ts.ErrBadOptions) {
		t.Errorf("the zero Target: %v", err)
	}
	if _, err := tg.ExploreUnit(context.Background(), por.Unit("junk")); !errors.Is(err, por.ErrBadUnit) {
		t.Errorf("junk: %v", err)
	}
}
