package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/format"
	"github.com/dragoman-dev/dragoman/format/response"
	"github.com/dragoman-dev/dragoman/jinja"
	"github.com/dragoman-dev/dragoman/plan"
	"github.com/dragoman-dev/dragoman/template"
)

// modelReport is what `dragoman inspect --model PATH` prints without
// --runtime: everything Dragoman knows of a model's prompt and calls.
type modelReport struct {
	Model        string `json:"model"`
	Kind         string `json:"kind"`
	Name         string `json:"name,omitempty"`
	Architecture string `json:"architecture,omitempty"`
	// Template is the copy rendered for requests (with tools, where the
	// model has a tool_use template).
	Template  string       `json:"template"`
	Copies    []modelCopy  `json:"copies"`
	Conflicts []string     `json:"conflicts"`
	Notes     []string     `json:"notes,omitempty"`
	Format    string       `json:"format"`
	Derived   string       `json:"derived,omitempty"`
	Caps      capabilities `json:"capabilities"`
	// Constraint says, per runtime, how calls are constrained for "auto" and
	// for "required".
	Constraint    map[string]runtimeConstraint `json:"constraint"`
	SpecialTokens map[string]any               `json:"special_tokens"`
	// ResponseTemplate is the model's own response_template, when it ships
	// one (format/response); not yet the gateway's parser.
	ResponseTemplate *responseTemplateReport `json:"response_template,omitempty"`
}

type responseTemplateReport struct {
	Location string   `json:"location"`
	Fields   []string `json:"fields,omitempty"`
	Error    string   `json:"error,omitempty"`
	Notes    []string `json:"notes,omitempty"`
}

// responseTemplateOf loads the model's response template, if any.
func responseTemplateOf(src *template.Source) *responseTemplateReport {
	if src.ResponseTemplate == nil {
		return nil
	}
	r := &responseTemplateReport{Location: src.ResponseTemplateFrom.String()}
	tpl, err := response.Load(src.ResponseTemplate)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	for _, f := range tpl.Fields() {
		r.Fields = append(r.Fields, f.Name)
	}
	r.Notes = tpl.Notes
	return r
}

type modelCopy struct {
	Location string `json:"location"`
	Name     string `json:"name,omitempty"`
	Used     bool   `json:"used"`
	Bytes    int    `json:"bytes"`
}

type capabilities struct {
	// Tools: the template renders the tools it is given.
	Tools bool `json:"tools"`
	// ToolRole: the template renders a tool result message.
	ToolRole bool `json:"tool_role"`
	// Reasoning: the family has reasoning markup; ForcedOpen: the
	// generation prompt leaves it open (with the template's defaults, and
	// with enable_thinking true).
	Reasoning  bool `json:"reasoning"`
	ForcedOpen bool `json:"reasoning_forced_open"`
	ForcedOn   bool `json:"reasoning_forced_open_with_enable_thinking"`
	// ParallelCalls: the family writes several calls in one turn.
	ParallelCalls bool `json:"parallel_calls"`
}

type runtimeConstraint struct {
	Auto     string `json:"auto"`
	Required string `json:"required"`
}

// inspectModel builds the report of a model folder, GGUF or template file.
func inspectModel(src *template.Source, e *env) (*modelReport, error) {
	rep := &modelReport{Model: src.Path, Kind: string(src.Kind), Name: src.ModelName, Architecture: src.Architecture,
		Conflicts: []string{}, Notes: src.Notes, SpecialTokens: src.SpecialTokens, ResponseTemplate: responseTemplateOf(src)}
	if rep.SpecialTokens == nil {
		rep.SpecialTokens = map[string]any{}
	}
	for _, c := range src.Copies {
		rep.Copies = append(rep.Copies, modelCopy{Location: c.Location.String(), Name: c.Name, Used: c.Used, Bytes: len(c.Text)})
	}
	for _, c := range src.Conflicts {
		rep.Conflicts = append(rep.Conflicts, c.String())
	}
	used, err := src.Select("", true)
	if err != nil {
		return nil, err
	}
	rep.Template = used.Location.String()
	text := used.Text

	fam, found := format.Detect(text)
	switch {
	case found:
		rep.Format = fam.ID
	default:
		if d, err := format.Derive(text); err == nil {
			rep.Format, rep.Derived = "derived", d.String()
			fam = d.Family()
		} else {
			rep.Format, rep.Derived = "unknown", err.Error()
		}
	}
	tools := []chat.Tool{{Type: "function", Function: chat.ToolFunction{Name: "get_weather", Description: "Weather for a city.",
		Parameters: json.RawMessage(`{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}`)}}}
	rep.Caps = modelCapabilities(src, text, fam, tools, e)
	rep.Constraint = map[string]runtimeConstraint{}
	for _, kind := range plan.OwnModeKinds() {
		rep.Constraint[string(kind)] = runtimeConstraint{
			Auto:     planSummary(fam, kind, tools, chat.ToolChoice{Mode: chat.ToolAuto}),
			Required: planSummary(fam, kind, tools, chat.ToolChoice{Mode: chat.ToolRequired}),
		}
	}
	return rep, nil
}

// planSummary is the serve pipeline's decision for one runtime and choice,
// in a sentence.
func planSummary(fam *format.Family, kind backend.Kind, tools []chat.Tool, tc chat.ToolChoice) string {
	creq := backend.CompleteRequest{Prompt: "…"}
	cp, err := plan.Calls(context.Background(), plan.CallFacts{Family: fam, Runtime: plan.RuntimeOf(kind), Tools: tools, Choice: tc}, &creq)
	if err != nil {
		return "refused: " + err.Error()
	}
	return strings.Join(cp.Decisions, "; ")
}

// modelCapabilities renders probe requests through the template.
func modelCapabilities(src *template.Source, text string, fam *format.Family, tools []chat.Tool, e *env) capabilities {
	var caps capabilities
	render := func(req string) (string, bool) {
		r, err := template.ParseRequest([]byte(req))
		if err != nil {
			return "", false
		}
		now, _ := template.NowFunc(e.getenv("DRAGOMAN_NOW"))
		out, _, err := template.RenderSource(src, r, "", nil, &jinja.Options{Now: now})
		return out, err == nil
	}
	tj, _ := json.Marshal(tools)
	user := `{"role": "user", "content": "What is the weather in Paris?"}`
	plain, ok1 := render(`{"messages": [` + user + `], "add_generation_prompt": true}`)
	withTools, ok2 := render(`{"messages": [` + user + `], "tools": ` + string(tj) + `, "add_generation_prompt": true}`)
	caps.Tools = ok1 && ok2 && plain != withTools && strings.Contains(withTools, "get_weather")
	_, caps.ToolRole = render(`{"messages": [` + user + `, {"role": "assistant", "content": "", "tool_calls": [{"id": "call00001", "type": "function",
		"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]}, {"role": "tool", "tool_call_id": "call00001", "name": "get_weather",
		"content": "18 C"}], "tools": ` + string(tj) + `, "add_generation_prompt": true}`)
	if fam != nil {
		caps.Reasoning = fam.ThinkOpen != "" || (fam.Calls != nil && fam.Calls.ThinkClose != "")
		caps.ParallelCalls = fam.Calls != nil && !fam.Calls.Single
		caps.ForcedOpen = format.GenerationOpensReasoning(text, fam, "")
		caps.ForcedOn = format.GenerationOpensReasoning(text, fam, `{"enable_thinking": true}`)
	}
	return caps
}

func printJSON(e *env, v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}
