package gateway

import (
	"html/template"
	"net/http"
	"strconv"
)

// The trace pages: the recent requests, and one request's prompt, raw
// completion and parsed calls side by side with every decision, for people.
// Served without a client key check only when none is configured, like
// every other route (the key applies to them all).

// handleTracePage serves GET /dragoman/requests/{id}.
func (s *Server) handleTracePage(w http.ResponseWriter, r *http.Request) {
	rec, ok := s.traces.Get(r.PathValue("id"))
	if !ok {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		_ = tracePages.ExecuteTemplate(w, "missing", r.PathValue("id"))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = tracePages.ExecuteTemplate(w, "request", rec)
}

// handleTraceList serves GET /dragoman/: the most recent requests first.
func (s *Server) handleTraceList(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = tracePages.ExecuteTemplate(w, "list", s.traces.Recent(100))
}

var tracePages = template.Must(template.New("").Funcs(template.FuncMap{
	"ms": formatMS,
}).Parse(`
{{define "style"}}<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.3em}h2{font-size:1.05em;margin:1.2em 0 .4em}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}
pre{background:#f6f6f6;border:1px solid #ddd;padding:.6em;white-space:pre-wrap;word-break:break-all;max-height:40em;overflow:auto}
.fields{display:grid;grid-template-columns:repeat(3,1fr);gap:1em}.fields>section{min-width:0}
.err{color:#a00}.muted{color:#777}
</style>{{end}}

{{define "missing"}}<!doctype html><html><head><meta charset="utf-8"><title>No trace</title>{{template "style"}}</head>
<body><h1>No trace for {{.}}</h1><p>Only the most recent requests are kept. <a href="/dragoman/">Recent requests</a></p></body></html>{{end}}

{{define "list"}}<!doctype html><html><head><meta charset="utf-8"><title>Dragoman: recent requests</title>{{template "style"}}</head>
<body><h1>Recent requests</h1>
{{if .}}<table id="requests"><tr><th>request</th><th>started</th><th>model</th><th>runtime</th><th>mode</th><th>format</th><th>calls</th><th>diagnostics</th><th>finish</th></tr>
{{range .}}<tr><td><a href="/dragoman/requests/{{.ID}}">{{.ID}}</a></td><td>{{.Start.Format "15:04:05.000"}}</td><td>{{.Model}}</td><td>{{.Runtime}}</td><td>{{.Mode}}</td><td>{{.Format}}</td><td>{{len .Calls}}</td><td>{{len .Diagnostics}}</td><td>{{.FinishReason}}{{if .Error}} <span class="err">error</span>{{end}}</td></tr>
{{end}}</table>{{else}}<p class="muted">No requests yet.</p>{{end}}
</body></html>{{end}}

{{define "request"}}<!doctype html><html><head><meta charset="utf-8"><title>Dragoman: {{.ID}}</title>{{template "style"}}</head>
<body><p><a href="/dragoman/">Recent requests</a> · <a href="/v1/dragoman/requests/{{.ID}}">JSON</a></p>
<h1 id="title">{{.ID}}</h1>
<table id="summary">
<tr><th>model</th><td>{{.Model}}{{if .UpstreamModel}} (upstream: {{.UpstreamModel}}){{end}}</td></tr>
<tr><th>runtime</th><td>{{.Runtime}} {{.Upstream}}</td></tr>
<tr><th>mode</th><td>{{.Mode}}</td></tr>
<tr><th>format</th><td>{{.Format}}</td></tr>
<tr><th>template</th><td>{{.TemplateOrigin}}</td></tr>
<tr><th>finish</th><td>{{.FinishReason}}</td></tr>
<tr><th>prompt tokens</th><td>{{if .PromptTokens}}{{.PromptTokens}}{{else}}<span class="muted">not counted</span>{{end}}</td></tr>
<tr><th>timings</th><td>render {{ms .Timings.RenderMS}}, first chunk {{ms .Timings.FirstChunkMS}}, total {{ms .Timings.TotalMS}}{{if .Timings.UpstreamPromptMS}}; runtime: prompt {{ms .Timings.UpstreamPromptMS}}{{if .Timings.UpstreamCachedTokens}} ({{.Timings.UpstreamCachedTokens}} tokens kept from the previous request){{end}}, generation {{ms .Timings.UpstreamGenerateMS}}{{end}}</td></tr>
</table>
{{if .Error}}<p id="error" class="err">{{.Error}}</p>{{end}}
<h2>Decisions</h2><ol id="decisions">{{range .Decisions}}<li>{{.}}</li>{{end}}</ol>
<div class="fields">
<section><h2>Prompt</h2>{{if .Prompt}}<pre id="prompt">{{.Prompt}}</pre>{{else}}<p id="prompt" class="muted">rendered by the runtime (relay mode)</p>{{end}}</section>
<section><h2>Raw completion</h2><pre id="completion">{{.Completion}}</pre></section>
<section><h2>Parsed calls</h2>{{if .Calls}}<table id="calls"><tr><th>id</th><th>name</th><th>arguments</th></tr>
{{range .Calls}}<tr><td>{{.ID}}</td><td class="name">{{.Function.Name}}</td><td><pre>{{.Function.Arguments}}</pre></td></tr>{{end}}</table>
{{else}}<p id="calls" class="muted">no tool calls</p>{{end}}
{{if .Diagnostics}}<h2>Diagnostics</h2><ul id="diagnostics">{{range .Diagnostics}}<li><b>{{.Code}}</b> at byte {{.Offset}}: {{.Message}}</li>{{end}}</ul>{{end}}</section>
</div>
{{with .Makeup}}<h2>Prompt make-up</h2><table id="makeup"><tr><th>part</th><th>tokens</th></tr>
{{range .Parts}}<tr><td>{{.Name}}</td><td>{{.Tokens}}</td></tr>{{end}}<tr><th>total</th><th>{{.Total}}</th></tr></table>{{end}}
</body></html>{{end}}
`))

// formatMS writes milliseconds with about three significant digits.
func formatMS(v float64) string {
	prec := 2
	switch {
	case v >= 100:
		prec = 0
	case v >= 10:
		prec = 1
	}
	return strconv.FormatFloat(v, 'f', prec, 64) + " ms"
}
