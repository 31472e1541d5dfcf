package transact_test

import (
	"context"
	"strings"
	"testing"

	"github.com/weftlab/weft/internal/models"
	"github.com/weftlab/weft/transact"
	"github.com/weftlab/weft/ts"
)

// declaredFig declares the movers of a CPC figure from its statements' kinds
// (models.CPCKind.Mover). The figures' stop statements are all "no
// transition" (the thread is Finished), but the paper tells two apart: a
// return is a global step of the thread (in Zing, thread exit is visible),
// which ends its transaction, while assume(false) leaves the thread stuck
// inside it. Finished threads declare their end accordingly: NonMover for a
// return or the end of the list, BothMover for assume(false).
func declaredFig(p *models.CPCFig) ts.TransitionSystem[models.CPCFigState] {
	return transact.WithMovers[models.CPCFigState](p, func(s models.CPCFigState, t ts.Tid) transact.Mover {
		st, ok := p.Stmt(s, t)
		if !ok {
			return transact.NonMover
		}
		if st.Kind == models.CPCStop {
			if strings.HasPrefix(st.Text, "assume") {
				return transact.BothMover
			}
			return transact.NonMover
		}
		switch st.Kind.Mover() {
		case models.CPCRightMover:
			return transact.RightMover
		case models.CPCLeftMover:
			return transact.LeftMover
		case models.CPCBothMover:
			return transact.BothMover
		}
		return transact.NonMover
	})
}

func TestFigsQuick(t *testing.T) {
	figs := []struct {
		name string
		f    func(int) *models.CPCFig
	}{{"fig1", models.NewCPCFig1}, {"fig2", models.NewCPCFig2}, {"fig2a", models.NewCPCFig2Assume}, {"fig3", models.NewCPCFig3}, {"fig8", models.NewCPCFig8}}
	for _, fg := range figs {
		sys := declaredFig(fg.f(0))
		for _, o := range []transact.Options{{Proviso: transact.CPC}, {Proviso: transact.CPC, Refine: true}, {Proviso: transact.Cycle}, {Proviso: transact.None}} {
			var forces []string
			o.OnForce = func(f transact.Force) {
				forces = append(forces, f.Reason.String()+":"+sys.(ts.Describer[models.CPCFigState]).Describe(f.State.(models.CPCFigState), 0)+" "+strings.Trim(strings.Replace(strings.Trim(fmtSched(f.Schedule), "[]"), " ", ",", -1), ""))
			}
			o.KeepGoing = true
			res, err := transact.Explore(context.Background(), sys, o)
			t.Logf("%s %v refine=%v: err=%v viol=%d states=%d stats=%v forces=%v", fg.name, o.Proviso, o.Refine, err, res.Violations, res.States, res.Stats, forces)
		}
	}
}

func fmtSched(s ts.Schedule) string {
	var b strings.Builder
	for _, t := range s {
		b.WriteByte(byte('0' + t))
	}
	return b.String()
}
