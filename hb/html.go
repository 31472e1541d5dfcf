package hb

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"

	"github.com/weftlab/weft/ts"
)

// WriteHTML writes a self-contained HTML page that shows a trace: one lane
// per thread, the transitions in trace order down the page, the
// cross-thread edges of the happens-before order (as WriteDot draws them)
// as arrows, and, for a violation, its message with the failing transition
// marked and, for a deadlock, each waiting thread's step. The page needs no
// network: its script and style are inline. names, if not nil, names the
// objects.
func WriteHTML(w io.Writer, tr ts.Trace, names ts.ObjNamer, v *ts.Violation) error {
	evs := tr.Events
	accs, objs := accessesOf(evs)
	edges, _ := hbEdges(evs, accs, objs)
	threads := 0
	tname := map[ts.Tid]string{}
	for _, e := range evs {
		threads = max(threads, int(e.Thread)+1)
		if e.ThreadName != "" {
			tname[e.Thread] = e.ThreadName
		}
	}
	var waits []ts.Waiter
	if dl, ok := errorAs[*ts.DeadlockError](v); ok {
		waits = dl.Waiting
		for _, wt := range waits {
			threads = max(threads, int(wt.Thread)+1)
		}
	}
	type cell struct {
		Index      int
		Lane       int
		Text, Desc string
		Preempt    bool
		Failing    bool
	}
	type lane struct{ Label string }
	page := struct {
		Title   string
		Summary string
		Lanes   []lane
		Cells   []cell
		Waits   []cell
		Edges   template.JS
		Steps   int
	}{Title: "weft trace", Steps: len(evs)}
	for t := range threads {
		l := fmt.Sprintf("T%d", t)
		if n := tname[ts.Tid(t)]; n != "" {
			l += " " + n
		}
		page.Lanes = append(page.Lanes, lane{l})
	}
	failing := -1
	if v != nil {
		page.Title = "weft: " + v.Kind.String()
		page.Summary = v.Kind.String()
		if v.Err != nil {
			page.Summary += ": " + v.Err.Error()
		}
		if v.Kind != ts.Deadlock && len(evs) > 0 {
			failing = len(evs) - 1
		}
	}
	for i, e := range evs {
		text := e.Step.Format(names)
		if e.Outcomes > 1 {
			text += fmt.Sprintf(" (outcome %d of %d)", e.Outcome, e.Outcomes)
		}
		page.Cells = append(page.Cells, cell{Index: i, Lane: int(e.Thread), Text: text, Desc: e.Desc, Preempt: e.Preempt, Failing: i == failing})
	}
	for _, wt := range waits {
		text := "waits to " + wt.Step.Format(names)
		if wt.Holder >= 0 {
			text += fmt.Sprintf(" (held by T%d)", wt.Holder)
		}
		page.Waits = append(page.Waits, cell{Index: len(evs), Lane: int(wt.Thread), Text: text, Failing: true})
	}
	var cross [][2]int
	for _, e := range edges {
		if !e.po {
			cross = append(cross, [2]int{e.from, e.to})
		}
	}
	js, err := json.Marshal(cross)
	if err != nil {
		return err
	}
	page.Edges = template.JS(js)
	return pageTemplate.Execute(w, page)
}

// errorAs is errors.As for a violation's error, nil-safe.
func errorAs[E error](v *ts.Violation) (E, bool) {
	var zero E
	if v == nil || v.Err == nil {
		return zero, false
	}
	e, ok := v.Err.(E)
	return e, ok
}

var pageTemplate = template.Must(template.New("trace").Funcs(template.FuncMap{"add2": func(i int) int { return i + 2 }}).Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body { font-family: monospace; margin: 1em; }
#summary { color: #b00; font-weight: bold; margin-bottom: 1em; }
#grid { position: relative; display: grid; grid-template-columns: 3em repeat({{len .Lanes}}, minmax(14em, 1fr)); gap: 4px 12px; }
.head { font-weight: bold; border-bottom: 1px solid #888; }
.step { border: 1px solid #999; border-radius: 4px; padding: 2px 4px; background: #f8f8f8; }
.step.preempt { border-color: #c80; }
.step.failing { border: 2px solid #c00; background: #fee; }
.wait { border: 2px dashed #c00; border-radius: 4px; padding: 2px 4px; color: #c00; }
.desc { color: #555; font-size: 90%; }
.idx { color: #888; text-align: right; }
svg { position: absolute; left: 0; top: 0; pointer-events: none; overflow: visible; }
line.hb { stroke: #36c; stroke-width: 1.5; marker-end: url(#arrow); }
</style></head>
<body>
{{if .Summary}}<div id="summary">{{.Summary}}</div>{{end}}
<div id="grid">
<div class="head"></div>{{range .Lanes}}<div class="head">{{.Label}}</div>{{end}}
{{range .Cells}}<div class="idx" style="grid-row: {{add2 .Index}}">{{.Index}}</div><div id="s{{.Index}}" class="step{{if .Preempt}} preempt{{end}}{{if .Failing}} failing{{end}}" style="grid-column: {{add2 .Lane}}; grid-row: {{add2 .Index}}">{{.Text}}{{if .Desc}}<div class="desc">{{.Desc}}</div>{{end}}</div>
{{end}}{{range .Waits}}<div class="wait" style="grid-column: {{add2 .Lane}}; grid-row: {{add2 .Index}}">{{.Text}}</div>
{{end}}<svg id="arrows"><defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#36c"/></marker></defs></svg>
</div>
<script>
(function () {
  var edges = {{.Edges}};
  var grid = document.getElementById("grid"), svg = document.getElementById("arrows");
  var g = grid.getBoundingClientRect();
  svg.setAttribute("width", g.width); svg.setAttribute("height", g.height);
  edges.forEach(function (e) {
    var a = document.getElementById("s" + e[0]).getBoundingClientRect();
    var b = document.getElementById("s" + e[1]).getBoundingClientRect();
    var l = document.createElementNS("http://www.w3.org/2000/svg", "line");
    l.setAttribute("class", "hb");
    l.setAttribute("data-from", e[0]); l.setAttribute("data-to", e[1]);
    l.setAttribute("x1", a.left + a.width / 2 - g.left); l.setAttribute("y1", a.bottom - g.top);
    l.setAttribute("x2", b.left + b.width / 2 - g.left); l.setAttribute("y2", b.top - g.top);
    svg.appendChild(l);
  });
  grid.setAttribute("data-arrows", String(edges.length));
})();
</script>
</body></html>
`))
