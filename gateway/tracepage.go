package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dragoman-dev/dragoman/makeup"
	"github.com/dragoman-dev/dragoman/trace"
)

// The trace pages: the recent requests, and one request's client request,
// prompt, raw completion and parsed calls side by side with every decision,
// for people. With a client key configured they need it like every other
// route; a browser gets a form to give it once (tracelogin.go).

// handleTracePage serves GET /dragoman/requests/{id}. Store.Get runs the
// record's deferred work first: the prompt's make-up is measured then.
func (s *Server) handleTracePage(w http.ResponseWriter, r *http.Request) {
	rec, ok := s.traces.Get(r.PathValue("id"))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		_ = tracePages.ExecuteTemplate(w, "missing", r.PathValue("id"))
		return
	}
	_ = tracePages.ExecuteTemplate(w, "request", newRequestPage(rec))
}

// handleTraceList serves GET /dragoman/: the most recent requests first,
// from the store, 100 a page; the list's query parameters filter it
// (traceQuery), and the page links to the next.
func (s *Server) handleTraceList(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	q, err := traceQuery(r.URL.Query(), time.Now())
	var p trace.Page
	if err == nil {
		p, err = s.traces.List(q)
	}
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
	}
	l := listPage{Problem: errorText(err), Filtered: len(r.URL.Query()) > 0}
	for _, rec := range p.Records {
		l.Rows = append(l.Rows, listRow{Summary: rec, StatusText: statusText(rec.Status), ShortError: shorten(rec.Error, 160)})
	}
	if p.Next != "" {
		l.Older = "/dragoman/?" + pageQuery(r.URL.Query(), p.Next)
	}
	_ = tracePages.ExecuteTemplate(w, "list", l)
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// listPage is the list page: its rows, the link to the older ones, and
// what was wrong with its query.
type listPage struct {
	Rows     []listRow
	Older    string // the next page's address, when there is one
	Problem  string
	Filtered bool // the query filters or pages the list
}

// listRow is one request of the list page.
type listRow struct {
	trace.Summary
	StatusText string
	ShortError string // the error, its first 160 characters
}

// requestPage is what the request page shows: the record, and what is said
// about it.
type requestPage struct {
	trace.Record
	StatusText string
	// ClientRequest is the client's request body, indented when it is JSON;
	// RequestNote says when it was cut, or that it was empty.
	ClientRequest, RequestNote string
	// PromptHeading names what the prompt field holds; PromptNote, when
	// there is no prompt, says why.
	PromptHeading, PromptNote string
	// CompletionHeading and CompletionNote, the same for the completion.
	CompletionHeading, CompletionNote string
	// Bar is the prompt's make-up as a stacked bar, BarNote what it is
	// scaled to when that is not the prompt's total.
	Bar     []barSegment
	BarNote string
}

func newRequestPage(rec trace.Record) requestPage {
	p := requestPage{Record: rec, StatusText: statusText(rec.Status)}
	p.ClientRequest, p.RequestNote = clientRequest(rec.Request, rec.RequestBytes)
	p.PromptHeading, p.PromptNote = promptLabel(rec)
	p.CompletionHeading, p.CompletionNote = completionLabel(rec)
	if rec.Makeup != nil {
		p.Bar, p.BarNote = makeupBar(rec.Makeup)
	}
	return p
}

// statusText says what a status means: "200 OK", "499 the client closed the
// request".
func statusText(code int) string {
	switch code {
	case 0:
		return "no status"
	case statusClientClosed:
		return "499 the client closed the request"
	}
	if t := http.StatusText(code); t != "" {
		return strconv.Itoa(code) + " " + t
	}
	return strconv.Itoa(code)
}

// clientRequest is the request body as the page shows it, indented when it
// is JSON (also when it was cut, as far as it goes), and a note when it was
// cut or is empty.
func clientRequest(body string, total int) (text, note string) {
	kept := len(body)
	switch {
	case total == 0 && body == "":
		return "", "the request had no body"
	case json.Valid([]byte(body)):
		var b bytes.Buffer
		if json.Indent(&b, []byte(body), "", "  ") == nil {
			body = b.String()
		}
	case total > kept && strings.HasPrefix(strings.TrimSpace(body), "{"):
		body = indentPartialJSON(body)
	}
	if total > kept {
		note = fmt.Sprintf("cut: the first %d of its %d bytes are kept (limits.max_trace_bytes)", kept, total)
	}
	return body, note
}

// indentPartialJSON indents JSON text that may stop anywhere (a request cut
// at the trace's limit): a newline and indentation after each opening
// bracket and comma, before each closing bracket, white space outside
// strings dropped. Strings are copied as they are.
func indentPartialJSON(s string) string {
	var b strings.Builder
	depth, inString, escaped := 0, false, false
	newline := func() {
		b.WriteByte('\n')
		for range depth {
			b.WriteString("  ")
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			b.WriteByte(c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
		case '"':
			inString = true
			b.WriteByte(c)
		case '{', '[':
			b.WriteByte(c)
			depth++
			newline()
		case '}', ']':
			depth = max(0, depth-1)
			newline()
			b.WriteByte(c)
		case ',':
			b.WriteByte(c)
			newline()
		case ':':
			b.WriteString(": ")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// promptLabel says what the prompt field holds: the prompt Dragoman
// rendered, or why there is none.
func promptLabel(rec trace.Record) (heading, note string) {
	if rec.Prompt != "" {
		return "Prompt (rendered by Dragoman)", ""
	}
	switch {
	case rec.Mode == "relay":
		return "Prompt", "not rendered by Dragoman: relay mode — the runtime's chat API rendered the messages with its own template"
	case rec.Mode == "own" && rec.Error != "":
		return "Prompt", "not rendered: rendering failed: " + rec.Error
	case rec.Status == statusClientClosed:
		return "Prompt", "not rendered: the client went away before rendering"
	case rec.Error != "":
		return "Prompt", "not rendered: the request failed before rendering: " + rec.Error
	}
	return "Prompt", "not rendered"
}

// completionLabel says what the completion field holds.
func completionLabel(rec trace.Record) (heading, note string) {
	heading = "Raw completion (as the runtime sent it)"
	if rec.Mode == "relay" {
		heading = "Completion (the content of the runtime's chat answer, relay mode)"
	}
	if rec.Completion != "" {
		return heading, ""
	}
	switch {
	case rec.Mode == "" || (rec.Mode == "own" && rec.Prompt == ""):
		return "Completion", "none: nothing was generated"
	case rec.Error != "":
		return heading, "none: the runtime wrote nothing before the request failed"
	}
	return heading, "empty: the runtime wrote nothing"
}

// barSegment is one part of the make-up bar.
type barSegment struct {
	Name   string
	Class  string // "k-system", "k-message r-user", …
	Tokens int
	// Width is the part's share of the bar in percent, as CSS takes it
	// ("12.34"); Label is the name, written in the segment when it is wide
	// enough to be read.
	Width string
	Label string
}

// makeupBar draws a make-up as segments whose widths are the parts' shares
// of the tokens: every part with tokens (a part left unmeasured has none; the
// template's part, what the others do not account for, can be negative when
// tokens merge across parts, and is then left out). The widths add up to
// 100% of what the segments hold, the prompt's total unless a part was left
// out; the note then says so.
func makeupBar(m *makeup.Makeup) ([]barSegment, string) {
	sum := 0
	for _, p := range m.Parts {
		if p.Tokens > 0 {
			sum += p.Tokens
		}
	}
	if sum == 0 {
		return nil, ""
	}
	var out []barSegment
	for _, p := range m.Parts {
		if p.Tokens <= 0 {
			continue
		}
		pct := float64(p.Tokens) * 100 / float64(sum)
		seg := barSegment{Name: p.Name, Class: partClass(p), Tokens: p.Tokens, Width: strconv.FormatFloat(pct, 'f', 3, 64)}
		if pct >= 7 {
			seg.Label = p.Name
		}
		out = append(out, seg)
	}
	note := ""
	if sum != m.Total {
		note = fmt.Sprintf("the bar shows the %d tokens the parts account for; the prompt has %d (tokens merge across the parts' boundaries)", sum, m.Total)
	}
	return out, note
}

// partClass is a part's CSS classes: its kind, and for a message its role.
func partClass(p makeup.Part) string {
	c := "k-" + p.Kind
	if p.Role != "" && (p.Kind == makeup.KindMessage || p.Kind == makeup.KindMessages) {
		c += " r-" + p.Role
	}
	return c
}

// shorten cuts s to its first n characters, with an ellipsis.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

var tracePages = template.Must(template.New("").Funcs(template.FuncMap{
	"ms":        formatMS,
	"partClass": partClass,
}).Parse(`
{{define "style"}}<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.3em}h2{font-size:1.05em;margin:1.2em 0 .4em}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}
pre{background:#f6f6f6;border:1px solid #ddd;padding:.6em;white-space:pre-wrap;overflow-wrap:anywhere;max-height:40em;overflow:auto}
.fields{display:grid;grid-template-columns:repeat(3,1fr);gap:1em}.fields>section{min-width:0}
.err{color:#a00}.muted{color:#777}h2.inline{display:inline-block}summary{cursor:pointer}
#status{font-size:1.1em;font-weight:600}#status.ok{color:#176f2c}#status.failed{color:#a00}
#error{background:#fdecea;border:1px solid #e6a8a3;padding:.5em .7em;white-space:pre-wrap;word-break:break-word}
tr.failed td{background:#fdecea}tr.warn td{background:#fff6e0}td.err{max-width:40em;word-break:break-word}
.bar{display:flex;width:100%;max-width:70em;height:1.8em;border:1px solid #888;overflow:hidden;margin:.3em 0}
.seg{flex:none;height:100%;overflow:hidden;white-space:nowrap;text-overflow:ellipsis;font-size:12px;line-height:1.8em;text-align:center;color:#fff;box-sizing:border-box;border-right:1px solid #fff}
.sw{display:inline-block;width:.9em;height:.9em;margin-right:.4em;vertical-align:-.1em}
.k-system{background:#7b57b0}.k-tool{background:#2f6fc0}.k-tools{background:#2f6fc0}.k-tool_instructions{background:#78a9e0}
.k-message{background:#4f8f5f}.k-messages{background:#6fa87c}.r-user{background:#2e8b46}.r-assistant{background:#c98a1c}
.k-tool_result{background:#b5534e}.k-template{background:#9a9a9a}
form.login{display:flex;gap:.5em;align-items:center}form.login input[type=password]{width:28em;padding:.3em}
</style>{{end}}

{{define "missing"}}<!doctype html><html><head><meta charset="utf-8"><title>No trace</title>{{template "style"}}</head>
<body><h1>No trace for {{.}}</h1><p>The store keeps the most recent requests only. <a href="/dragoman/">Recent requests</a></p></body></html>{{end}}

{{define "login"}}<!doctype html><html><head><meta charset="utf-8"><title>Dragoman: key</title>{{template "style"}}</head>
<body><h1>This gateway needs its key</h1>
<p>The gateway was started with a client key (<code>DRAGOMAN_API_KEY</code> or <code>api_key</code>). Paste it to read the traces: this browser then keeps a cookie that opens the trace pages and their JSON, for reading only.</p>
{{if .Problem}}<p id="login-error" class="err">{{.Problem}}</p>{{end}}
<form class="login" method="post" action="/dragoman/login"><input type="hidden" name="next" value="{{.Next}}">
<label for="key">Key</label> <input type="password" id="key" name="key" autocomplete="current-password" autofocus required>
<button type="submit">Open the traces</button></form>
</body></html>{{end}}

{{define "list"}}<!doctype html><html><head><meta charset="utf-8"><title>Dragoman: recent requests</title>{{template "style"}}</head>
<body><h1>Recent requests</h1>
{{if .Problem}}<p id="list-error" class="err">{{.Problem}}</p>{{end}}{{if .Filtered}}<p><a href="/dragoman/">All recent requests</a></p>{{end}}
{{if .Rows}}<table id="requests"><tr><th>request</th><th>started</th><th>status</th><th>model</th><th>runtime</th><th>mode</th><th>format</th><th>calls</th><th>diagnostics</th><th>finish</th><th>error</th></tr>
{{range .Rows}}<tr id="row-{{.ID}}" class="{{if ne .Status 200}}failed{{else if .Error}}warn{{end}}"><td><a href="/dragoman/requests/{{.ID}}">{{.ID}}</a></td><td>{{.Start.Format "15:04:05.000"}}</td><td class="status" title="{{.StatusText}}">{{.Status}}</td><td>{{.Model}}</td><td>{{.Runtime}}</td><td>{{.Mode}}</td><td>{{.Format}}</td><td>{{.Calls}}</td><td>{{.Diagnostics}}</td><td>{{.FinishReason}}</td><td class="err" title="{{.Error}}">{{.ShortError}}</td></tr>
{{end}}</table>{{if .Older}}<p><a id="older" href="{{.Older}}">Older requests</a></p>{{end}}{{else}}<p class="muted">{{if .Filtered}}No request matches.{{else}}No requests yet.{{end}}</p>{{end}}
</body></html>{{end}}

{{define "request"}}<!doctype html><html><head><meta charset="utf-8"><title>Dragoman: {{.ID}}</title>{{template "style"}}</head>
<body><p><a href="/dragoman/">Recent requests</a> · <a href="/v1/dragoman/requests/{{.ID}}">JSON</a></p>
<h1 id="title">{{.ID}}</h1>
<p id="status" class="{{if eq .Status 200}}ok{{else}}failed{{end}}">{{.StatusText}}</p>
{{if .Error}}<div id="error" class="err"><b>Error:</b> {{.Error}}</div>{{end}}
<table id="summary">
<tr><th>API</th><td>{{.API}}</td></tr>
<tr><th>model</th><td>{{.Model}}{{if .UpstreamModel}} (upstream: {{.UpstreamModel}}){{end}}</td></tr>
<tr><th>runtime</th><td>{{.Runtime}} {{.Upstream}}</td></tr>
<tr><th>mode</th><td>{{.Mode}}</td></tr>
<tr><th>format</th><td>{{.Format}}</td></tr>
<tr><th>template</th><td>{{.TemplateOrigin}}</td></tr>
<tr><th>finish</th><td>{{.FinishReason}}</td></tr>
<tr><th>prompt tokens</th><td>{{if .PromptTokens}}{{.PromptTokens}}{{else}}<span class="muted">not counted</span>{{end}}</td></tr>
<tr><th>timings</th><td>render {{ms .Timings.RenderMS}}, first chunk {{ms .Timings.FirstChunkMS}}, total {{ms .Timings.TotalMS}}{{if .Timings.UpstreamPromptMS}}; runtime: prompt {{ms .Timings.UpstreamPromptMS}}{{if .Timings.UpstreamCachedTokens}} ({{.Timings.UpstreamCachedTokens}} tokens kept from the previous request){{end}}, generation {{ms .Timings.UpstreamGenerateMS}}{{end}}</td></tr>
</table>
<h2>Decisions</h2>{{if .Decisions}}<ol id="decisions">{{range .Decisions}}<li>{{.}}</li>{{end}}</ol>{{else}}<p id="decisions" class="muted">none taken</p>{{end}}
<details open><summary><h2 class="inline">The client's request</h2>{{if .RequestBytes}} <span class="muted">{{.RequestBytes}} bytes</span>{{end}}</summary>{{if .RequestNote}}<p id="request-note" class="muted">{{.RequestNote}}</p>{{end}}{{if .ClientRequest}}<pre id="request">{{.ClientRequest}}</pre>{{end}}</details>
<div class="fields">
<section><h2 id="prompt-heading">{{.PromptHeading}}</h2>{{if .Prompt}}<pre id="prompt">{{.Prompt}}</pre>{{else}}<p id="prompt" class="muted">{{.PromptNote}}</p>{{end}}</section>
<section><h2 id="completion-heading">{{.CompletionHeading}}</h2>{{if .Completion}}<pre id="completion">{{.Completion}}</pre>{{else}}<p id="completion" class="muted">{{.CompletionNote}}</p>{{end}}</section>
<section><h2>Parsed calls</h2>{{if .Calls}}<table id="calls"><tr><th>id</th><th>name</th><th>arguments</th></tr>
{{range .Calls}}<tr><td>{{.ID}}</td><td class="name">{{.Function.Name}}</td><td><pre>{{.Function.Arguments}}</pre></td></tr>{{end}}</table>
{{else}}<p id="calls" class="muted">no tool calls</p>{{end}}
{{if .Diagnostics}}<h2>Diagnostics</h2><ul id="diagnostics">{{range .Diagnostics}}<li><b>{{.Code}}</b> at byte {{.Offset}}: {{.Message}}</li>{{end}}</ul>{{end}}</section>
</div>
{{with .Makeup}}<h2>Prompt make-up</h2>
<p class="muted">{{.Total}} tokens{{if eq .ToolCount 1}}; the tool costs {{.Tools}}{{else if .ToolCount}}; {{.ToolCount}} tools cost {{.Tools}}{{end}}{{if .PrefillEstimateMS}}; about {{ms .PrefillEstimateMS}} of prefill at this model's measured prompt rate{{end}}</p>
{{if $.Bar}}<div id="makeup-bar" class="bar">{{range $.Bar}}<span class="seg {{.Class}}" style="width:{{.Width}}%" data-tokens="{{.Tokens}}" title="{{.Name}}: {{.Tokens}} tokens ({{.Width}}%)">{{.Label}}</span>{{end}}</div>
{{if $.BarNote}}<p id="makeup-bar-note" class="muted">{{$.BarNote}}</p>{{end}}{{end}}
<table id="makeup"><tr><th>part</th><th>tokens</th></tr>
{{range .Parts}}<tr><td><span class="sw {{partClass .}}"></span>{{.Name}}{{if .Unmeasured}} <span class="muted">(unmeasured)</span>{{end}}{{if .ContentOnly}} <span class="muted">(content only)</span>{{end}}</td><td>{{.Tokens}}</td></tr>{{end}}<tr><th>total</th><th>{{.Total}}</th></tr></table>
{{if .Notes}}<ul id="makeup-notes" class="muted">{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}{{end}}
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
