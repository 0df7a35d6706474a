// Package plan holds the gateway's planning decisions as plain functions of
// a model's tool-call family, a runtime's capabilities and the request's
// facts: the mode a request is served in (own or relay), how its calls are
// constrained, the room a forced call leaves for reasoning, and the context
// a request asks for where the runtime sets it per request (Ollama's
// num_ctx). Each returns the decision and the reasons the trace and
// "dragoman inspect" print; none does HTTP or keeps state but the cache of
// built constraints. The gateway (serve, and bench through it) and inspect
// call these and decide nothing of this kind themselves.
package plan

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/format"
)

// constraints keeps the call constraints of recent requests (agents send the
// same tools every time), shared by every gateway in the process: entries
// are keyed by family, tools and choice, so sharing cannot mix them up.
var constraints = format.NewConstraintCache(256)

// CallPlan is how one request's calls are constrained on one runtime.
type CallPlan struct {
	// Prefill is call markup appended to the prompt (a forced call through a
	// JSON Schema), and Suffix what closes it after the output; the parser
	// reads Prefill, the output and Suffix as one text.
	Prefill, Suffix string
	// Decisions say what was chosen and why, for the trace.
	Decisions []string
	// Form is how the calls are constrained (trace.Record.Constraint):
	// "grammar", "lazy-grammar", "structural-tag", "json-schema", or ""
	// when they are not.
	Form string
}

// Runtime is what planning knows of a runtime: its name, for the reasons,
// its kind's capabilities, and whether this instance takes raw prompts.
type Runtime struct {
	Name string
	Caps backend.Capabilities
	// CanComplete: this server takes raw prompts (backend.Backend's
	// CanComplete: a generic OpenAI server may not).
	CanComplete bool
}

// RuntimeOf is a kind's Runtime, as every server of it is described;
// CanComplete is the kind's RawPrompts.
func RuntimeOf(k backend.Kind) Runtime {
	return Runtime{Name: string(k), Caps: k.Caps(), CanComplete: k.Caps().RawPrompts}
}

// CallFacts are what Calls plans from: a request's tools and tool_choice,
// for a model of Family's markup (nil: unknown) on Runtime.
type CallFacts struct {
	Family   *format.Family
	Runtime  Runtime
	Tools    []chat.Tool
	Choice   chat.ToolChoice
	Parallel *bool // parallel_tool_calls; nil: not set
	// ReasoningOpen says the prompt left reasoning open.
	ReasoningOpen bool
	// NoReasoning leaves reasoning before a forced call out of the grammar
	// (a second pass that writes the call alone); it is also left out when
	// the request's max_tokens is under ForcedReasoningMin.
	NoReasoning bool
}

// Refusal is a request planning refuses: the client's to fix (HTTP 400),
// Param naming the field at fault ("tool_choice", "tools", "messages").
type Refusal struct {
	Msg, Param string
}

func (e *Refusal) Error() string { return e.Msg }

// ForcedReasoningMin is the smallest output limit, in tokens, that leaves a
// forced call room for reasoning before it: below it, reasoning could use
// the whole limit and the answer end with no call.
const ForcedReasoningMin = 1024

// Calls sets the constraint fields of creq for the calls q describes,
// building the constraint under ctx: a client that leaves stops the work (a
// large tool set's grammar takes a while), and the error is ctx's, not a
// refusal of the tools. The form follows the runtime's capabilities:
//   - a grammar (llama-server, the engine): the family's call grammar, lazy
//     (applied from the call opener on) for "auto" where the runtime takes
//     a lazy one, eager for "required" and a named function;
//   - a grammar but no lazy one (SGLang): the eager grammar, for forced calls;
//   - a structural tag (vLLM): for "auto";
//   - forced calls elsewhere: the prompt ends with the call opened and the
//     output is constrained to a JSON Schema (forcedBySchema), where the
//     runtime takes one.
//
// "auto" on a runtime that takes no constraint is sent as it is (the parser
// still reads the calls) and a decision says so; a forced call that cannot be
// enforced is a *Refusal, never an unconstrained request.
func Calls(ctx context.Context, q CallFacts, creq *backend.CompleteRequest) (CallPlan, error) {
	var plan CallPlan
	f, tools, tc, caps := q.Family, q.Tools, q.Choice, q.Runtime.Caps
	if len(tools) == 0 || tc.Mode == chat.ToolNone {
		return plan, nil
	}
	forced := tc.Mode == chat.ToolRequired || tc.Mode == chat.ToolNamed
	choice := format.ToolChoice{Mode: "auto", Single: q.Parallel != nil && !*q.Parallel}
	if forced {
		choice.Mode = "required"
	}
	if tc.Mode == chat.ToolNamed {
		choice.Name = tc.Name
	}
	// A forced call under a small output limit gets no room to reason
	// first: reasoning could use the whole limit (ForcedReasoningMin).
	small := creq.MaxTokens > 0 && creq.MaxTokens < ForcedReasoningMin
	choice.NoReasoning = forced && (q.NoReasoning || small)
	hasGrammar := f != nil && f.Calls != nil
	switch {
	case hasGrammar && caps.Grammar && (forced || caps.LazyGrammar):
		c, err := constraints.ConstrainContext(ctx, f, tools, choice, q.ReasoningOpen)
		if err != nil {
			return plan, ToolsError(ctx, "call grammar", err)
		}
		creq.Grammar, creq.GrammarLazy, creq.PreservedTokens = c.Grammar, c.Lazy, c.Triggers
		how := fmt.Sprintf("the output is constrained by the %s call grammar from its first byte", f.ID)
		plan.Form = "grammar"
		if c.Lazy {
			plan.Form = "lazy-grammar"
			for _, t := range c.Triggers {
				creq.GrammarTriggers = append(creq.GrammarTriggers, backend.GrammarTrigger{Type: "word", Value: t})
			}
			how = fmt.Sprintf("the %s call grammar applies once the model opens a call (%q)", f.ID, c.Triggers)
		}
		plan.Decisions = append(plan.Decisions, describeChoice(tc, choice.Single)+": "+how)
		for _, w := range c.Warnings {
			plan.Decisions = append(plan.Decisions, "not enforced by the grammar: "+w)
		}
		return plan, nil
	case hasGrammar && !forced && caps.StructuralTag && f.Calls.Tag != nil:
		c, err := constraints.ConstrainContext(ctx, f, tools, choice, q.ReasoningOpen)
		if err != nil {
			return plan, ToolsError(ctx, "call constraint", err)
		}
		var tag bytes.Buffer
		enc := json.NewEncoder(&tag)
		enc.SetEscapeHTML(false) // the markup as written: <tool_call>, not \u003ctool_call\u003e
		err = enc.Encode(structuralTag{Type: "structural_tag", Structures: c.Tags, Triggers: c.Triggers})
		if err != nil {
			return plan, err
		}
		creq.StructuralTag = bytes.TrimSpace(tag.Bytes())
		plan.Form = "structural-tag"
		plan.Decisions = append(plan.Decisions, fmt.Sprintf(`tool_choice "auto": calls are constrained by a structural tag once the model opens one (%q)`, c.Triggers))
		return plan, nil
	case !forced:
		why := fmt.Sprintf("%s takes no call constraint with a raw prompt", q.Runtime.Name)
		if !hasGrammar {
			why = "the tool-call format has no call grammar"
		}
		plan.Decisions = append(plan.Decisions, fmt.Sprintf(`tool_choice "auto": calls are parsed but not constrained (%s)`, why))
		return plan, nil
	}
	return forcedBySchema(f, q.Runtime, tools, tc, creq)
}

// ToolsError is a constraint that could not be built: the client's leaving
// (its context's error, as it is), or tools that cannot be constrained — too
// large or deep for the grammar's bounds (grammar.ErrLimit) among them —, a
// refusal naming the tools.
func ToolsError(ctx context.Context, what string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return &Refusal{Msg: fmt.Sprintf("the tools cannot be turned into a %s: %v", what, err), Param: "tools"}
}

// structuralTag is the structural tag vLLM and xgrammar take.
type structuralTag struct {
	Type       string                 `json:"type"`
	Structures []format.StructuralTag `json:"structures"`
	Triggers   []string               `json:"triggers"`
}

// describeChoice names a tool_choice in the trace and in errors.
func describeChoice(c chat.ToolChoice, single bool) string {
	s := `tool_choice "auto"`
	switch c.Mode {
	case chat.ToolRequired:
		s = `tool_choice "required"`
	case chat.ToolNamed:
		s = fmt.Sprintf("tool_choice naming %q", c.Name)
	}
	if single {
		s += " with parallel_tool_calls false"
	}
	return s
}

// forcedBySchema makes tool_choice "required" or a named function hold on a
// runtime that takes a JSON Schema but no grammar: the prompt ends with the
// call opened and the output is constrained to the rest of it. With one
// function to call (named, or the only tool) and a family that writes the
// arguments as one JSON object after the name, the prompt ends just before
// the arguments and the schema is the tool's parameters; otherwise, for a
// family whose call body is {"name", "arguments"} (Family.Force), it ends
// with the call opener and the schema admits each tool's call. Where neither
// applies the request is refused, never sent unconstrained.
func forcedBySchema(f *format.Family, rt Runtime, tools []chat.Tool, tc chat.ToolChoice, creq *backend.CompleteRequest) (CallPlan, error) {
	var plan CallPlan
	choice := describeChoice(tc, false)
	if !rt.Caps.JSONSchema {
		return plan, &Refusal{Msg: fmt.Sprintf("%s cannot be enforced on %s: it takes no output constraint for raw prompts; send \"auto\"", choice, rt.Name), Param: "tool_choice"}
	}
	name := "unknown"
	if f != nil {
		name = f.ID
	}
	only := ""
	if tc.Mode == chat.ToolNamed {
		only = tc.Name
	} else if len(tools) == 1 && (f == nil || f.Force == nil) {
		only = tools[0].Function.Name
	}
	if only != "" && f != nil && (f.Force == nil || tc.Mode == chat.ToolNamed) {
		for _, t := range tools {
			if t.Function.Name != only {
				continue
			}
			if open, close, schema, ok := f.ForceNamed(t); ok {
				creq.Prompt += open
				creq.JSONSchema = schema
				plan.Prefill, plan.Suffix, plan.Form = open, close, "json-schema"
				plan.Decisions = append(plan.Decisions, fmt.Sprintf("%s: the prompt ends with the call to %q opened (%q) and the output is constrained to its arguments' JSON Schema", choice, only, open))
				return plan, nil
			}
		}
	}
	if f == nil || f.Force == nil {
		return plan, &Refusal{Msg: fmt.Sprintf("%s cannot be enforced for this model on %s: its tool-call format (%s) cannot be forced through a JSON Schema alone; send \"auto\"", choice, rt.Name, name), Param: "tool_choice"}
	}
	body, err := f.Force.Body(tools, only)
	if err != nil {
		return plan, &Refusal{Msg: fmt.Sprintf("%s: %v", choice, err), Param: "tools"}
	}
	creq.Prompt += f.Force.Open
	creq.JSONSchema = body
	plan.Prefill, plan.Suffix, plan.Form = f.Force.Open, f.Force.Close, "json-schema"
	plan.Decisions = append(plan.Decisions, fmt.Sprintf("%s: the prompt ends with the call opener %q and the output is constrained to the call's JSON body", choice, f.Force.Open))
	return plan, nil
}
