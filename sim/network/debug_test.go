package network_test

import (
	"context"
	"strings"
	"testing"

	"github.com/weftlab/weft/por"
	"github.com/weftlab/weft/sim"
	"github.com/weftlab/weft/sim/network"
	"github.com/weftlab/weft/ts"
)

func TestDebugODPOR(t *testing.T) {
	w := pingNet(t, 3, 1, network.Faults{Loss: 1}, nil)
	sys, _ := w.HashedSystem(sim.Options{})
	r, err := por.ODPOR(context.Background(), sys, por.Options{Options: ts.Options{OnTerminal: func(_ any, s ts.Schedule) {
		str := s.String()
		if strings.HasPrefix(str, "[6 7") || strings.HasPrefix(str, "[6 8") {
			t.Logf("%v", str)
		}
	}}})
	t.Logf("%v %v %v", r, err, r.Stats)
}
