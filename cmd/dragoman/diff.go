package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"github.com/dragoman-dev/dragoman/gateway"
)

const diffUsage = `usage: dragoman diff [--json] [--samples N] [--template-a FILE] [--template-b FILE] --request FILE A B

Sends one OpenAI chat request through Dragoman to two upstreams, A and B, and
compares the three things that decide whether an agent gets its tool call:
the rendered prompt, the raw completion and the parsed answer (content and
tool_calls). Each side is [KIND=]URL[#MODEL][@own|@relay]: a runtime, the model
(default: the request's), and the mode (default: own where the runtime takes raw
prompts) — two runtimes, two models, or own against relay. In relay mode the
prompt is the runtime's own render where it says what it rendered
(llama-server's /apply-template), else unknown; each runtime's own count of the
prompt's tokens is compared too, so a runtime that renders another prompt
(Ollama's Go TEMPLATE against the model's Jinja template) is still found. --template-a/-b render that side
with another template (the model's name mapped to FILE).

Prints a unified diff per field and a verdict: "same", "prompt differs",
"parser gap" (one side returned calls, the other left the call as text),
"completion differs", "answer differs", or "error" (a side failed: its error
names the address it tried); --json prints one object instead.
Exit status: 0 when the answers agree, 1 when they differ, 2 on usage errors.

--samples N asks each side N times (seeds seed, seed+1, …: at a temperature
above 0 one answer says little) and compares rates: answers with a parsed
call, with a call left as text (a tool's name in the answer, no call parsed),
and errors. The verdict is "error" (every sample of a side failed), "prompt differs", "parser gap" (the call rates
differ, Fisher's exact test p < 0.05, and the side with fewer calls left some
as text), "call rates differ", or "same" (within sampling noise).

flags:
`

// diffSide is one side's request and what came back.
type diffSide struct {
	Spec       string `json:"spec"`
	Runtime    string `json:"runtime"`
	Model      string `json:"model"`
	Mode       string `json:"mode"`
	Prompt     string `json:"prompt"`
	PromptFrom string `json:"prompt_from"`
	// PromptTokens is the prompt's length as the runtime counted it
	// (usage.prompt_tokens): where a runtime does not say what it rendered,
	// its count still tells whether it rendered the same prompt.
	PromptTokens int             `json:"prompt_tokens"`
	Completion   string          `json:"completion"`
	Content      string          `json:"content"`
	Calls        []diffCall      `json:"tool_calls"`
	Error        string          `json:"error,omitempty"`
	Trace        json.RawMessage `json:"-"`
}

type diffCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type diffReport struct {
	A, B    *diffSide
	Fields  map[string]string `json:"fields"` // field → "same", "differs", "unknown"
	Verdict string            `json:"verdict"`
}

func runDiff(args []string, e *env) int {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	reqPath := fs.String("request", "", "the OpenAI chat request JSON `FILE` (- for stdin)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	tmplA := fs.String("template-a", "", "render side A with this template `FILE`")
	tmplB := fs.String("template-b", "", "render side B with this template `FILE`")
	samples := fs.Int("samples", 0, "ask each side `N` times and compare the rates (see above)")
	if status, ok := parseFlags(fs, diffUsage, reorderFlags(args)); !ok {
		return status
	}
	fail := failer("diff", e)
	if fs.NArg() != 2 || *reqPath == "" {
		return fail(2, "give --request FILE and two sides A B (see dragoman diff -h)")
	}
	var data []byte
	var err error
	if *reqPath == "-" {
		data, err = io.ReadAll(e.stdin)
	} else {
		data, err = os.ReadFile(*reqPath)
	}
	if err != nil {
		return fail(1, "%v", err)
	}
	var req map[string]json.RawMessage
	if err := json.Unmarshal(data, &req); err != nil {
		return fail(1, "the request is not a JSON object: %v", err)
	}
	if *samples < 0 || *samples > 1000 {
		return fail(2, "--samples takes 1 to 1000")
	}
	if *samples > 1 {
		rep, err := runSamples(fs.Args(), [2]string{*tmplA, *tmplB}, req, *samples, e)
		if err != nil {
			return fail(2, "%v", err)
		}
		return report(e, fail, *asJSON, rep, rep.Verdict, func(w io.Writer) { printSamples(w, rep) })
	}
	rep := &diffReport{}
	for i, spec := range fs.Args() {
		tmpl := *tmplA
		if i == 1 {
			tmpl = *tmplB
		}
		side, err := runSide(spec, tmpl, req, e)
		if err != nil {
			return fail(2, "%s: %v", spec, err)
		}
		if i == 0 {
			rep.A = side
		} else {
			rep.B = side
		}
	}
	compareSides(rep)
	return report(e, fail, *asJSON, rep, rep.Verdict, func(w io.Writer) { printDiff(w, rep) })
}

// report prints a diff's report as JSON or as text and returns the exit
// status: 0 when the verdict is "same", else 1.
func report(e *env, fail func(int, string, ...any) int, asJSON bool, rep any, verdict string, text func(io.Writer)) int {
	if asJSON {
		if err := printJSON(e, rep); err != nil {
			return fail(1, "%v", err)
		}
	} else {
		text(e.stdout)
	}
	if verdict != "same" {
		return 1
	}
	return 0
}

// reorderFlags lets flags follow the two sides (dragoman diff A B --json).
func reorderFlags(args []string) []string {
	var flags, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") && a != "-" {
			flags = append(flags, a)
			if !strings.Contains(a, "=") && a != "--json" && a != "-json" && i+1 < len(args) {
				flags = append(flags, args[i+1])
				i++
			}
			continue
		}
		rest = append(rest, a)
	}
	return append(flags, rest...)
}

// parseSide reads [KIND=]URL[#MODEL][@MODE].
func parseSide(spec string) (u gateway.Upstream, model string, err error) {
	rest := spec
	if i := strings.LastIndex(rest, "@"); i > 0 && !strings.Contains(rest[i:], "/") {
		u.Mode, rest = rest[i+1:], rest[:i]
		if u.Mode != "own" && u.Mode != "relay" {
			return u, "", fmt.Errorf("mode %q: want own or relay", u.Mode)
		}
	}
	if i := strings.LastIndex(rest, "#"); i > 0 {
		model, rest = rest[i+1:], rest[:i]
	}
	if kind, url, ok := strings.Cut(rest, "="); ok {
		u.Kind, rest = kind, url
	}
	if !strings.Contains(rest, "://") {
		rest = "http://" + rest
	}
	u.URL = rest
	return u, model, nil
}

// runSide sends the request through a gateway over one upstream, in this
// process, and reads the answer and the trace.
func runSide(spec, tmpl string, req map[string]json.RawMessage, e *env) (*diffSide, error) {
	u, model, err := parseSide(spec)
	if err != nil {
		return nil, err
	}
	body := map[string]json.RawMessage{}
	for k, v := range req {
		body[k] = v
	}
	if model == "" {
		if err := json.Unmarshal(req["model"], &model); err != nil || model == "" {
			return nil, errors.New("no model: give it as URL#MODEL or in the request")
		}
	}
	body["model"], _ = json.Marshal(model)
	body["stream"] = json.RawMessage("false")
	if tmpl != "" {
		u.Templates = map[string]string{model: tmpl}
	}
	srv, err := gateway.New(gateway.Config{Upstreams: []gateway.Upstream{u}, NoDiscover: true, Now: e.getenv("DRAGOMAN_NOW"), ExposeAddresses: true}, gateway.Hooks{})
	if err != nil {
		return nil, err
	}
	side := &diffSide{Spec: spec, Model: model}
	raw, _ := json.Marshal(body)
	answer := serveLocal(srv, "POST", "/v1/chat/completions", raw)
	var resp struct {
		ID      string `json:"id"`
		Choices []struct {
			Message struct {
				Content   *string `json:"content"`
				ToolCalls []struct {
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(answer, &resp); err != nil {
		return nil, fmt.Errorf("the gateway's answer is not JSON: %q", answer)
	}
	if resp.Error != nil {
		side.Error = resp.Error.Message
	}
	side.PromptTokens = resp.Usage.PromptTokens
	if len(resp.Choices) > 0 {
		m := resp.Choices[0].Message
		if m.Content != nil {
			side.Content = *m.Content
		}
		for _, c := range m.ToolCalls {
			side.Calls = append(side.Calls, diffCall{Name: c.Function.Name, Arguments: canonicalJSON(c.Function.Arguments)})
		}
	}
	// The trace: the most recent request, which is this one.
	var trace struct {
		Mode       string `json:"mode"`
		Runtime    string `json:"runtime"`
		Prompt     string `json:"prompt"`
		Completion string `json:"completion"`
	}
	if resp.ID != "" {
		side.Trace = serveLocal(srv, "GET", "/v1/dragoman/requests/"+resp.ID, nil)
		_ = json.Unmarshal(side.Trace, &trace)
	}
	side.Mode, side.Runtime, side.Completion = trace.Mode, trace.Runtime, trace.Completion
	side.Prompt, side.PromptFrom = trace.Prompt, "dragoman's render"
	if side.Prompt == "" {
		side.PromptFrom = "unknown: the runtime does not say what it rendered"
		if trace.Runtime == "llama-server" {
			if p, err := applyTemplate(u.URL, body); err == nil {
				side.Prompt, side.PromptFrom = p, "llama-server /apply-template"
			}
		}
	}
	if side.Completion == "" && trace.Mode == "relay" {
		side.Completion = side.Content
	}
	return side, nil
}

// serveLocal runs one request through the gateway in this process.
func serveLocal(srv http.Handler, method, path string, body []byte) []byte {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	r := httptest.NewRequestWithContext(ctx, method, path, bytes.NewReader(body))
	r.Host = "localhost" // the gateway serves its own host names only (not httptest's example.com)
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, r)
	return w.Body.Bytes()
}

// applyTemplate asks llama-server what it renders for the request.
func applyTemplate(base string, body map[string]json.RawMessage) (string, error) {
	in, _ := json.Marshal(map[string]json.RawMessage{"messages": body["messages"], "tools": body["tools"]})
	resp, err := http.Post(strings.TrimRight(base, "/")+"/apply-template", "application/json", bytes.NewReader(in))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out struct {
		Prompt string `json:"prompt"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 {
		return "", fmt.Errorf("apply-template: status %d", resp.StatusCode)
	}
	return out.Prompt, nil
}

// canonicalJSON re-encodes arguments so that layout does not count as a
// difference; text that is not JSON is kept as a JSON string.
func canonicalJSON(s string) json.RawMessage {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		b, _ := json.Marshal(s)
		return b
	}
	b, _ := json.Marshal(v)
	return b
}

// compareSides fills the per-field results and the verdict.
func compareSides(rep *diffReport) {
	a, b := rep.A, rep.B
	rep.Fields = map[string]string{}
	cmp := func(field, x, y string, known bool) {
		switch {
		case !known:
			rep.Fields[field] = "unknown"
		case x == y:
			rep.Fields[field] = "same"
		default:
			rep.Fields[field] = "differs"
		}
	}
	cmp("prompt", a.Prompt, b.Prompt, a.Prompt != "" && b.Prompt != "")
	cmp("prompt_tokens", fmt.Sprint(a.PromptTokens), fmt.Sprint(b.PromptTokens), a.PromptTokens > 0 && b.PromptTokens > 0)
	cmp("completion", a.Completion, b.Completion, true)
	ca, _ := json.Marshal(a.Calls)
	cb, _ := json.Marshal(b.Calls)
	cmp("tool_calls", string(ca), string(cb), true)
	cmp("content", a.Content, b.Content, true)
	cmp("error", a.Error, b.Error, true)
	switch {
	case a.Error != "" || b.Error != "":
		// A side that failed says nothing about its runtime's answer: two
		// failures are not the same answer.
		rep.Verdict = "error"
	case rep.Fields["prompt"] == "differs":
		rep.Verdict = "prompt differs"
	case rep.Fields["prompt"] == "unknown" && rep.Fields["prompt_tokens"] == "differs":
		// One runtime did not say what it rendered, but its own count of the
		// prompt is not the other's: it rendered another prompt.
		rep.Verdict = "prompt differs"
	case rep.Fields["tool_calls"] == "differs" && (gap(a, b) || gap(b, a)):
		rep.Verdict = "parser gap"
	case rep.Fields["tool_calls"] == "differs" || rep.Fields["content"] == "differs" || rep.Fields["error"] == "differs":
		if rep.Fields["completion"] == "differs" {
			rep.Verdict = "completion differs"
		} else {
			rep.Verdict = "answer differs"
		}
	default:
		rep.Verdict = "same"
	}
}

// gap: x returned calls, y returned none but left a call to one of those
// functions in its text.
func gap(x, y *diffSide) bool {
	if len(x.Calls) == 0 || len(y.Calls) > 0 {
		return false
	}
	for _, c := range x.Calls {
		if strings.Contains(y.Content, c.Name) || strings.Contains(y.Completion, c.Name) {
			return true
		}
	}
	return false
}

// printDiff writes the human-readable report.
func printDiff(w io.Writer, rep *diffReport) {
	a, b := rep.A, rep.B
	fmt.Fprintf(w, "A: %s (%s, %s mode, model %s)\nB: %s (%s, %s mode, model %s)\n\n", a.Spec, a.Runtime, a.Mode, a.Model, b.Spec, b.Runtime, b.Mode, b.Model)
	section := func(field, x, y string) {
		fmt.Fprintf(w, "== %s: %s\n", field, rep.Fields[field])
		if rep.Fields[field] == "differs" {
			fmt.Fprint(w, unifiedDiff("A", x, "B", y))
		}
	}
	fmt.Fprintf(w, "== prompt: %s (A: %s; B: %s)\n", rep.Fields["prompt"], a.PromptFrom, b.PromptFrom)
	if rep.Fields["prompt"] == "differs" {
		fmt.Fprint(w, unifiedDiff("A", a.Prompt, "B", b.Prompt))
	}
	fmt.Fprintf(w, "== prompt_tokens: %s (as each runtime counted it: A %d, B %d)\n", rep.Fields["prompt_tokens"], a.PromptTokens, b.PromptTokens)
	section("completion", a.Completion, b.Completion)
	ca, _ := json.MarshalIndent(a.Calls, "", "  ")
	cb, _ := json.MarshalIndent(b.Calls, "", "  ")
	section("tool_calls", string(ca), string(cb))
	section("content", a.Content, b.Content)
	switch {
	case rep.Fields["error"] == "differs":
		section("error", a.Error, b.Error)
	case a.Error != "":
		// Both sides failed alike: the reason is still the answer.
		fmt.Fprintf(w, "== error: same, on both sides: %s\n", a.Error)
	}
	fmt.Fprintf(w, "\nverdict: %s\n", rep.Verdict)
}

// unifiedDiff is a line diff with three lines of context (longest common
// subsequence; for very long texts, the first differing line).
func unifiedDiff(aName, a, bName, b string) string {
	x, y := splitLines(a), splitLines(b)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", aName, bName)
	if len(x)*len(y) > 4_000_000 {
		for i := 0; i < len(x) || i < len(y); i++ {
			if i >= len(x) || i >= len(y) || x[i] != y[i] {
				fmt.Fprintf(&out, "@@ line %d @@\n", i+1)
				if i < len(x) {
					fmt.Fprintf(&out, "-%s", withNewline(x[i]))
				}
				if i < len(y) {
					fmt.Fprintf(&out, "+%s", withNewline(y[i]))
				}
				break
			}
		}
		return out.String()
	}
	// lcs[i][j]: length of the common subsequence of x[i:] and y[j:].
	lcs := make([][]int32, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type line struct {
		op   byte
		text string
	}
	var lines []line
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			lines = append(lines, line{' ', x[i]})
			i, j = i+1, j+1
		case i < len(x) && (j == len(y) || lcs[i+1][j] >= lcs[i][j+1]):
			lines = append(lines, line{'-', x[i]})
			i++
		default:
			lines = append(lines, line{'+', y[j]})
			j++
		}
	}
	const context = 3
	for k := 0; k < len(lines); k++ {
		if lines[k].op == ' ' {
			continue
		}
		start := max(0, k-context)
		end := k
		for end < len(lines) {
			if lines[end].op != ' ' {
				end++
				continue
			}
			run := end
			for run < len(lines) && lines[run].op == ' ' {
				run++
			}
			if run-end > 2*context || run == len(lines) {
				end = min(len(lines), end+context)
				break
			}
			end = run
		}
		fmt.Fprintf(&out, "@@ @@\n")
		for _, l := range lines[start:end] {
			fmt.Fprintf(&out, "%c%s", l.op, withNewline(l.text))
		}
		k = end
	}
	return out.String()
}

// splitLines splits after each newline, without the empty string that
// follows a final one.
func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func withNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n\\ no newline at end\n"
}
