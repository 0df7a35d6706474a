package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/format"
	"github.com/dragoman-dev/dragoman/grammar"
	"github.com/dragoman-dev/dragoman/trace"
)

// The causes a failure is attributed to (docs/BENCH.md, "Failure
// attribution"), in the order reports list them.
const (
	CauseTemplate   = "template"
	CauseParser     = "parser"
	CauseConstraint = "constraint"
	CauseTruncation = "truncation"
	CauseTransport  = "transport"
	CauseModel      = "model"
)

// Causes lists every cause, in report order.
var Causes = []string{CauseTemplate, CauseParser, CauseConstraint, CauseTruncation, CauseTransport, CauseModel}

// Attribute says which layer a failed answer's failure came from, and why
// in a sentence, from the item, the answer's record and the gateway's trace
// of it (nil when there is none). The rules are tried in order and the
// first that holds decides; each is a fact the trace states, not a guess
// about the model — except the last, model, which is what is left when no
// layer between the client and the model did anything wrong that the trace
// can show. A passed answer has no cause ("", "").
//
// The order: the request failing decides first (the template raised, a
// forced call was refused, the prompt did not fit, else transport); then
// the answer cut by its length limit; then the constraint that did not hold;
// then a call left unparsed; then a prompt the template rendered without
// part of the conversation; then the model.
func Attribute(it *Item, rec *Record, tr *trace.Record) (cause, why string) {
	if rec.Pass {
		return "", ""
	}
	if tr == nil {
		tr = &trace.Record{}
	}
	if e := failure(rec, tr); e != "" {
		switch {
		case tr.Mode == "own" && tr.Prompt == "" && templateRaised.MatchString(e):
			return CauseTemplate, "the chat template raised: " + e
		case slices.Contains(tr.Actions, trace.ActionForcedCallRefused):
			return CauseConstraint, "the forced call was refused: " + e
		case promptTooLong.MatchString(e):
			return CauseTruncation, "the prompt does not fit the context: " + e
		}
		return CauseTransport, e
	}
	if tr.FinishReason == string(chat.FinishLength) {
		return CauseTruncation, fmt.Sprintf("the answer hit the length limit (%d tokens)", rec.CompletionTokens)
	}
	if why := constraintBroken(it, rec, tr); why != "" {
		return CauseConstraint, why
	}
	if cause, why := unparsed(it, rec, tr); cause != "" {
		return cause, why
	}
	for _, d := range tr.Diagnostics {
		if d.Code == "message-not-in-prompt" {
			return CauseTemplate, "the prompt differs from the conversation: " + d.Message
		}
	}
	why = "the raw completion itself is wrong"
	if rec.Kind != "" {
		why += ": " + rec.Kind
	}
	if rec.Message != "" {
		why += " (" + rec.Message + ")"
	}
	return CauseModel, why
}

// The gateway's words for a template that raised and for a prompt the
// context cannot hold (gateway/pipeline.go, backend/llamacpp/model.go);
// TestAttributeThroughGateway pins them against the real gateway.
var (
	templateRaised = regexp.MustCompile(`chat template (refuses|failed on) this conversation`)
	promptTooLong  = regexp.MustCompile(`the prompt is \d+ tokens,? and .* context holds \d+`)
)

// failure is the request's failure: the trace's error (the operator's
// words, whole) or the record's (the client's, or the bench's timeout).
func failure(rec *Record, tr *trace.Record) string {
	if tr.Error != "" && rec.Error != "" && !strings.Contains(tr.Error, rec.Error) {
		return rec.Error + " (" + tr.Error + ")"
	}
	if tr.Error != "" {
		return tr.Error // a stream that broke off mid-way is a 200 with an error
	}
	return rec.Error
}

// forced reports whether the request the trace holds forced a call
// (tool_choice "required" or a named function).
func forced(tr *trace.Record) bool {
	var req struct {
		ToolChoice json.RawMessage `json:"tool_choice"`
	}
	if json.Unmarshal([]byte(tr.Request), &req) != nil || len(req.ToolChoice) == 0 {
		return false
	}
	var s string
	if json.Unmarshal(req.ToolChoice, &s) == nil {
		return s == "required"
	}
	var named struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(req.ToolChoice, &named) == nil && named.Type == "function"
}

// constraintBroken says how the constraint failed the answer, or "": a
// forced call that did not come (the gateway's grammar, or a relay
// runtime that was to enforce it); under a constraint, a call of a tool not
// offered or whose arguments the tool's schema does not admit; under a
// constraint, an answer whose expected arguments the schema forbids
// (SchemaOutput: no output the constraint allows can pass).
func constraintBroken(it *Item, rec *Record, tr *trace.Record) string {
	if forced(tr) && len(rec.Calls) == 0 && (tr.Constraint != "" || tr.Mode == "relay") {
		by := "the " + tr.Constraint + " constraint"
		if tr.Constraint == "" {
			by = "the runtime (relay mode)"
		}
		return "the call was forced, enforced by " + by + ", and the answer has none"
	}
	if tr.Constraint == "" || len(rec.Calls) == 0 {
		return ""
	}
	for _, c := range rec.Calls {
		tool := it.tool(c.Function.Name)
		if tool == nil {
			return fmt.Sprintf("under the %s constraint the model called %q, which is not offered", tr.Constraint, c.Function.Name)
		}
		if len(tool.Function.Parameters) == 0 {
			continue
		}
		g, _, err := grammar.FromJSONSchema(tool.Function.Parameters, grammar.Options{})
		if err != nil {
			continue // a schema the grammar cannot take was not enforced either
		}
		var args bytes.Buffer
		if json.Compact(&args, []byte(c.Function.Arguments)) != nil || !g.Match(args.String()) {
			return fmt.Sprintf("under the %s constraint %s's arguments %s are outside its schema", tr.Constraint, c.Function.Name, c.Function.Arguments)
		}
	}
	if _, none := SchemaOutput(it); none != "" {
		return "the expected answer is outside the tools' schema, which the " + tr.Constraint + " constraint enforces: " + none
	}
	return ""
}

// unparsed finds a call that is in the raw completion and not in the
// answer. The family's parser (the trace's Format), run again over the raw
// completion, reads a call the answer lacks: parser. Call markup left in
// the answer's content — the family's call opener, or an offered tool's
// name written as a call (`get_weather(`, `"name": "get_weather"`): parser,
// unless the family's parser read that markup and found it malformed, which
// is the model's doing (the reference parser cannot read it either).
func unparsed(it *Item, rec *Record, tr *trace.Record) (cause, why string) {
	fam, known := format.Lookup(tr.Format)
	if !known {
		fam = nil
	}
	if fam != nil && rec.Completion != "" && len(it.Tools) > 0 {
		open := tr.Mode == "own" && format.ForcedOpen(fam, tr.Prompt)
		res := format.Run(fam.New(format.Options{Tools: it.Tools, ReasoningOpen: open}), rec.Completion)
		for _, c := range res.ToolCalls {
			if !slices.ContainsFunc(rec.Calls, func(a chat.ToolCall) bool { return sameCall(a, c) }) {
				return CauseParser, fmt.Sprintf("the %s parser reads %s(%s) in the raw completion; the answer does not have it", fam.ID, c.Function.Name, c.Function.Arguments)
			}
		}
	}
	markup := leftMarkup(fam, it.Tools, rec.Content)
	if markup == "" {
		return "", ""
	}
	if fam != nil {
		for _, d := range tr.Diagnostics {
			if d.Code == "malformed-call" || d.Code == "unterminated-call" {
				return CauseModel, fmt.Sprintf("the model wrote call markup (%q) the %s parser cannot read: %s: %s", markup, fam.ID, d.Code, d.Message)
			}
		}
	}
	by := "the runtime's parser"
	if tr.Mode == "own" {
		by = "the " + tr.Format + " parser"
	}
	return CauseParser, fmt.Sprintf("a call is left in the content (%q): %s did not take it", markup, by)
}

// leftMarkup is the call markup content holds, or "": the family's call
// opener, or an offered tool's name followed by "(" or given as a JSON
// "name" member.
func leftMarkup(fam *format.Family, tools []chat.Tool, content string) string {
	if content == "" {
		return ""
	}
	if fam != nil && fam.Calls != nil {
		triggers := fam.Calls.Triggers
		if fam.Calls.TriggersFor != nil {
			triggers = append(slices.Clip(triggers), fam.Calls.TriggersFor(tools)...)
		}
		for _, t := range triggers {
			if t != "" && strings.Contains(content, t) {
				return t
			}
		}
	}
	for _, t := range tools {
		name := regexp.QuoteMeta(t.Function.Name)
		re := regexp.MustCompile(`(?:^|[^\w.])(` + name + `\s*\()|("name"\s*:\s*"` + name + `")`)
		if m := re.FindStringSubmatch(content); m != nil {
			return m[1] + m[2]
		}
	}
	return ""
}

// sameCall: the same function with the same arguments, as JSON values.
func sameCall(a, b chat.ToolCall) bool {
	if a.Function.Name != b.Function.Name {
		return false
	}
	var x, y any
	if json.Unmarshal([]byte(a.Function.Arguments), &x) != nil || json.Unmarshal([]byte(b.Function.Arguments), &y) != nil {
		return a.Function.Arguments == b.Function.Arguments
	}
	xs, _ := json.Marshal(x)
	ys, _ := json.Marshal(y)
	return bytes.Equal(xs, ys)
}
