package mat

import (
	"context"
	"testing"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/ts"
)

func TestScratch(t *testing.T) {
	sys := models.NewMATFig1(0)
	terms := map[any]int{}
	res, err := Explore(context.Background(), sys, Options{Options: ts.Options{OnTerminal: func(s any, _ ts.Schedule) { terms[s]++ }}})
	t.Log(res, res.Stats, err, len(terms))
	res, err = Explore(context.Background(), sys, Options{EndOrders: true})
	t.Log(res, res.Stats, err)
}
