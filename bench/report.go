package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ReportFile is the one-file HTML report a run writes beside summary.md.
const ReportFile = "summary.html"

// reportPromptKeep is how much of a prompt the report shows, half from its
// start (the system prompt, the tools) and half from its end (the question):
// a full BFCL run has thousands of failed answers, and the whole prompt is
// in traces.jsonl.
const reportPromptKeep = 4096

// WriteReport writes summary.html in dir: the summary's tables and charts,
// and every item some side failed with each side's prompt (from
// traces.jsonl), raw completion, parsed calls and attribution, side by
// side. The file needs nothing else to open: no script, no style sheet, no
// font or image from anywhere.
func WriteReport(dir string, s *Summary, items []Item, sides []Side, recs []Record) error {
	byKey := make(map[string]*Record, len(recs))
	for i := range recs {
		byKey[key(recs[i].Side, recs[i].Item)] = &recs[i]
	}
	// The items some side failed: their details, and the prompts to read.
	want := map[string]bool{}
	var shown []int
	for i, it := range items {
		failed := false
		for _, sd := range sides {
			if r := byKey[key(sd.Spec, it.ID)]; r != nil && !r.Pass {
				failed = true
			}
		}
		if failed {
			shown = append(shown, i)
			for _, sd := range sides {
				want[key(sd.Spec, it.ID)] = true
			}
		}
	}
	prompts, err := readPrompts(filepath.Join(dir, TracesFile), want)
	if err != nil {
		return err
	}
	data := reportView(s, items, sides, byKey, shown, prompts)
	var b bytes.Buffer
	if err := reportTemplate.Execute(&b, data); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ReportFile), b.Bytes(), 0o644)
}

// readPrompts reads the prompts of the wanted (side, item) answers from
// traces.jsonl, each cut to reportPromptKeep; a missing file has none.
func readPrompts(path string, want map[string]bool) (map[string]string, error) {
	out := map[string]string{}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var t struct {
				Side, Item string
				Trace      struct {
					Prompt string `json:"prompt"`
				} `json:"trace"`
			}
			if json.Unmarshal(line, &t) == nil && want[key(t.Side, t.Item)] {
				out[key(t.Side, t.Item)] = keepEnds(t.Trace.Prompt, reportPromptKeep)
			}
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// keepEnds is s, or its first and last n/2 bytes (on rune boundaries) with
// a note of what is left out between them.
func keepEnds(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head, tail := n/2, len(s)-n/2
	for head > 0 && !runeStart(s[head]) {
		head--
	}
	for tail < len(s) && !runeStart(s[tail]) {
		tail++
	}
	return s[:head] + fmt.Sprintf("\n[… %d bytes left out here: the whole prompt is in traces.jsonl …]\n", tail-head) + s[tail:]
}

func runeStart(b byte) bool { return b&0xC0 != 0x80 }

// The report's view of the run: what the template prints, worked out here.
type (
	report struct {
		Items    int
		Seed     int64
		Sides    []string
		Verdicts []string
		Accuracy []accuracyRow
		Causes   []string
		Colors   map[string]string
		Failures []causeRow
		Bars     []causeBar
		Pairs    []pairView
		Lists    []failureList
		Details  []itemDetail
	}
	accuracyRow struct {
		Category string
		Cells    []accuracyCell
	}
	accuracyCell struct {
		Text                 string
		Acc, Low, High       float64 // percent
		AccX, LowX, HighX, W float64 // the chart's coordinates
	}
	causeRow struct {
		Side, Category string
		Failed         int
		Counts         []int
	}
	causeBar struct {
		Side     string
		Failed   int
		Segments []segment
	}
	segment struct {
		Cause string
		N     int
		X, W  float64
		Color string
	}
	pairView struct {
		A, B, Verdict string
		Rows          []pairRow
		Discordant    []discordant
	}
	pairRow struct {
		Category          string
		N, OnlyA, OnlyB   int
		Difference, Range string
		P                 string
	}
	discordant struct {
		ID, Anchor, Winner, LoserCause string
	}
	failureList struct {
		Side, Cause string
		Links       []link
	}
	link       struct{ ID, Anchor string }
	itemDetail struct {
		ID, Anchor, Category string
		Sides                []sideDetail
	}
	sideDetail struct {
		Anchor, Side                string
		Answered, Pass              bool
		Cause, Why, Kind, Message   string
		Error, Prompt, Raw, Content string
		Calls                       string
	}
)

var causeColors = map[string]string{
	CauseTemplate: "#8e44ad", CauseParser: "#e67e22", CauseConstraint: "#2980b9",
	CauseTruncation: "#16a085", CauseTransport: "#7f8c8d", CauseModel: "#c0392b",
}

// chartWidth is the width in pixels of an accuracy bar at 100%.
const chartWidth = 160

func reportView(s *Summary, items []Item, sides []Side, byKey map[string]*Record, shown []int, prompts map[string]string) report {
	v := report{Items: s.Items, Seed: s.Seed, Causes: Causes, Colors: causeColors}
	for _, sd := range s.Sides {
		v.Sides = append(v.Sides, sd.Side)
	}
	for _, p := range s.Pairs {
		v.Verdicts = append(v.Verdicts, p.Verdict)
	}
	if len(s.Sides) > 0 {
		for ri := range len(s.Sides[0].Categories) + 1 {
			var row accuracyRow
			for si, sd := range s.Sides {
				sc := sd.Overall
				if ri > 0 {
					sc = sd.Categories[ri-1]
				}
				if si == 0 {
					row.Category = sc.Category
				}
				c := accuracyCell{Text: fmt.Sprintf("%d/%d %s [%s, %s]", sc.Pass, sc.N, pct(sc.Accuracy), pct(sc.Low), pct(sc.High)),
					Acc: 100 * sc.Accuracy, Low: 100 * sc.Low, High: 100 * sc.High, W: chartWidth}
				c.AccX, c.LowX, c.HighX = sc.Accuracy*chartWidth, sc.Low*chartWidth, sc.High*chartWidth
				row.Cells = append(row.Cells, c)
			}
			v.Accuracy = append(v.Accuracy, row)
		}
	}
	for _, sd := range s.Sides {
		for _, sc := range append([]Score{sd.Overall}, sd.Categories...) {
			row := causeRow{Side: sd.Side, Category: sc.Category, Failed: sc.N - sc.Pass}
			for _, c := range Causes {
				row.Counts = append(row.Counts, sc.Causes[c])
			}
			v.Failures = append(v.Failures, row)
		}
		bar := causeBar{Side: sd.Side, Failed: sd.Overall.N - sd.Overall.Pass}
		x := 0.0
		for _, c := range Causes {
			if n := sd.Overall.Causes[c]; n > 0 && sd.Overall.N > 0 {
				w := float64(n) / float64(sd.Overall.N) * 400
				bar.Segments = append(bar.Segments, segment{Cause: c, N: n, X: x, W: w, Color: causeColors[c]})
				x += w
			}
		}
		v.Bars = append(v.Bars, bar)
	}
	anchor := map[string]string{} // item id → its details' anchor
	for _, i := range shown {
		anchor[items[i].ID] = fmt.Sprintf("item-%d", i)
	}
	for _, p := range s.Pairs {
		pv := pairView{A: p.A, B: p.B, Verdict: p.Verdict}
		for _, st := range append([]PairStats{p.Overall}, p.Categories...) {
			pv.Rows = append(pv.Rows, pairRow{Category: st.Category, N: st.N, OnlyA: st.OnlyA, OnlyB: st.OnlyB,
				Difference: points(st.Difference), Range: "[" + points(st.Low) + ", " + points(st.High) + "]",
				P: strings.TrimPrefix(strings.TrimPrefix(pValue(st.P), "p = "), "p ")})
		}
		for _, it := range items {
			ra, rb := byKey[key(p.A, it.ID)], byKey[key(p.B, it.ID)]
			if ra == nil || rb == nil || ra.Pass == rb.Pass {
				continue
			}
			winner, loser := p.A, rb
			if rb.Pass {
				winner, loser = p.B, ra
			}
			pv.Discordant = append(pv.Discordant, discordant{ID: it.ID, Anchor: anchor[it.ID], Winner: winner, LoserCause: loser.Attribution})
		}
		v.Pairs = append(v.Pairs, pv)
	}
	for si, sd := range sides {
		for _, c := range Causes {
			fl := failureList{Side: sd.Spec, Cause: c}
			for _, i := range shown {
				if r := byKey[key(sd.Spec, items[i].ID)]; r != nil && !r.Pass && r.Attribution == c {
					fl.Links = append(fl.Links, link{ID: items[i].ID, Anchor: fmt.Sprintf("item-%d-s%d", i, si)})
				}
			}
			if len(fl.Links) > 0 {
				v.Lists = append(v.Lists, fl)
			}
		}
	}
	for _, i := range shown {
		it := &items[i]
		d := itemDetail{ID: it.ID, Anchor: anchor[it.ID], Category: it.Category}
		for si, sd := range sides {
			x := sideDetail{Anchor: fmt.Sprintf("item-%d-s%d", i, si), Side: sd.Spec}
			if r := byKey[key(sd.Spec, it.ID)]; r != nil {
				x.Answered, x.Pass = true, r.Pass
				x.Cause, x.Why, x.Kind, x.Message, x.Error = r.Attribution, r.Why, r.Kind, r.Message, r.Error
				x.Prompt, x.Raw, x.Content = prompts[key(sd.Spec, it.ID)], r.Completion, r.Content
				if len(r.Calls) > 0 {
					var calls []string
					for _, c := range r.Calls {
						calls = append(calls, c.Function.Name+"("+c.Function.Arguments+")")
					}
					x.Calls = strings.Join(calls, "\n")
				}
			}
			d.Sides = append(d.Sides, x)
		}
		v.Details = append(v.Details, d)
	}
	return v
}

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"color": func(c string) template.CSS { return template.CSS(causeColors[c]) },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>dragoman bench: {{len .Sides}} sides, {{.Items}} items</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: .5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 3px 8px; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f3f3f3; }
pre { white-space: pre-wrap; word-break: break-all; background: #f8f8f8; padding: 4px; margin: 2px 0 8px; max-height: 24em; overflow: auto; }
.item { border-top: 2px solid #999; padding-top: .5em; margin-top: 1em; }
.sides { display: grid; grid-template-columns: repeat({{len .Sides}}, minmax(0, 1fr)); gap: 12px; }
.side { border: 1px solid #ddd; padding: 6px; }
.side:target, .item:target { outline: 3px solid #f1c40f; }
.pass { color: #1e8449; font-weight: bold; } .fail { color: #c0392b; font-weight: bold; }
.cause { display: inline-block; padding: 0 6px; color: #fff; border-radius: 3px; }
.legend span { margin-right: 1em; }
</style>
</head>
<body>
<h1>dragoman bench</h1>
<p>{{.Items}} items, seed {{.Seed}}, sides: {{range $i, $s := .Sides}}{{if $i}}, {{end}}<code>{{$s}}</code>{{end}}.</p>
{{if .Verdicts}}<h2 id="verdicts">Verdicts</h2>
<ul>{{range .Verdicts}}<li class="verdict">{{.}}</li>{{end}}</ul>{{end}}

<h2 id="accuracy">Accuracy (passed/asked, 95% Wilson interval)</h2>
<table id="accuracy-table">
<tr><th>category</th>{{range .Sides}}<th>{{.}}</th>{{end}}</tr>
{{range .Accuracy}}<tr><th>{{.Category}}</th>{{range .Cells}}<td class="n"><span class="acc">{{.Text}}</span><br>
<svg width="{{.W}}" height="14" role="img" aria-label="{{printf "%.1f" .Acc}}% [{{printf "%.1f" .Low}}, {{printf "%.1f" .High}}]"><rect x="0" y="2" width="{{.W}}" height="10" fill="#eee"/><rect class="bar" x="0" y="2" width="{{printf "%.2f" .AccX}}" height="10" fill="#5d9cec"/><line class="interval" x1="{{printf "%.2f" .LowX}}" x2="{{printf "%.2f" .HighX}}" y1="7" y2="7" stroke="#222" stroke-width="2"/><line x1="{{printf "%.2f" .LowX}}" x2="{{printf "%.2f" .LowX}}" y1="3" y2="11" stroke="#222"/><line x1="{{printf "%.2f" .HighX}}" x2="{{printf "%.2f" .HighX}}" y1="3" y2="11" stroke="#222"/></svg></td>{{end}}</tr>
{{end}}</table>

<h2 id="causes">Failures by cause</h2>
<p class="legend">{{range .Causes}}<span><span class="cause" style="background: {{color .}}">{{.}}</span></span>{{end}} (the rules: docs/BENCH.md, "Failure attribution")</p>
{{range .Bars}}<div class="causebar"><code>{{.Side}}</code>: {{.Failed}} failed<br>
<svg width="400" height="16" role="img" aria-label="failures of {{.Side}} by cause"><rect x="0" y="0" width="400" height="16" fill="#eee"/>{{range .Segments}}<rect x="{{printf "%.2f" .X}}" y="0" width="{{printf "%.2f" .W}}" height="16" fill="{{.Color}}"><title>{{.Cause}}: {{.N}}</title></rect>{{end}}</svg></div>
{{end}}
<table id="causes-table">
<tr><th>side</th><th>category</th><th>failed</th>{{range .Causes}}<th>{{.}}</th>{{end}}</tr>
{{range .Failures}}<tr><td><code>{{.Side}}</code></td><td>{{.Category}}</td><td class="n">{{.Failed}}</td>{{range .Counts}}<td class="n">{{.}}</td>{{end}}</tr>
{{end}}</table>
{{range .Lists}}<p class="failures"><code>{{.Side}}</code>, <span class="cause" style="background: {{color .Cause}}">{{.Cause}}</span> ({{len .Links}}): {{range $i, $l := .Links}}{{if $i}}, {{end}}<a href="#{{$l.Anchor}}">{{$l.ID}}</a>{{end}}</p>
{{end}}

{{range $pi, $p := .Pairs}}<h2 id="pair-{{$pi}}"><code>{{$p.A}}</code> vs <code>{{$p.B}}</code></h2>
<p class="verdict">{{$p.Verdict}}</p>
<table class="pair-table">
<tr><th>category</th><th>n</th><th>only A (b)</th><th>only B (c)</th><th>A − B, points</th><th>95% bootstrap</th><th>McNemar p</th></tr>
{{range $p.Rows}}<tr><th>{{.Category}}</th><td class="n">{{.N}}</td><td class="n">{{.OnlyA}}</td><td class="n">{{.OnlyB}}</td><td class="n">{{.Difference}}</td><td class="n">{{.Range}}</td><td class="n">{{.P}}</td></tr>
{{end}}</table>
{{if $p.Discordant}}<p>Discordant items ({{len $p.Discordant}}), each with the loser's cause: {{range $i, $d := $p.Discordant}}{{if $i}}, {{end}}<a href="#{{$d.Anchor}}">{{$d.ID}}</a> ({{$d.Winner}} wins{{if $d.LoserCause}}; {{$d.LoserCause}}{{end}}){{end}}</p>{{end}}
{{end}}

<h2 id="items">Failed items, side by side</h2>
{{range .Details}}<div class="item" id="{{.Anchor}}">
<h3>{{.ID}} <small>({{.Category}})</small></h3>
<div class="sides">{{range .Sides}}<div class="side" id="{{.Anchor}}">
<p><code>{{.Side}}</code>: {{if not .Answered}}not answered{{else if .Pass}}<span class="pass">pass</span>{{else}}<span class="fail">fail</span>{{if .Cause}} <span class="cause" style="background: {{color .Cause}}">{{.Cause}}</span>{{end}}{{end}}</p>
{{if .Why}}<p class="why">{{.Why}}</p>{{end}}
{{if .Kind}}<p>checker: <code>{{.Kind}}</code> {{.Message}}</p>{{end}}
{{if .Error}}<p>error: {{.Error}}</p>{{end}}
<div>prompt</div><pre class="prompt">{{.Prompt}}</pre>
<div>raw completion</div><pre class="raw">{{.Raw}}</pre>
<div>parsed calls</div><pre class="calls">{{.Calls}}</pre>
{{if .Content}}<div>content</div><pre class="content">{{.Content}}</pre>{{end}}
</div>{{end}}</div>
</div>
{{end}}
</body>
</html>
`))
