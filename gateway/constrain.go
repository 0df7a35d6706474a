package gateway

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

// PlanCalls sets the constraint fields of creq for calls to tools, in family
// f's markup (nil: unknown), on a runtime of the given kind, as the request's
// tool_choice and parallel_tool_calls ask; reasoningOpen says the prompt
// left reasoning open. The form follows the runtime:
//   - llama-server: the family's call grammar, lazy (applied from the call
//     opener on) for "auto", eager for "required" and a named function;
//   - SGLang: the eager grammar, for forced calls;
//   - vLLM: a structural tag for "auto";
//   - forced calls elsewhere: the prompt ends with the call opened and the
//     output is constrained to a JSON Schema (forcedBySchema), where the
//     runtime takes one.
//
// "auto" on a runtime that takes no constraint is sent as it is (the parser
// still reads the calls) and a decision says so; a forced call that cannot be
// enforced is an error the client sees, never an unconstrained request.
func PlanCalls(f *format.Family, kind backend.Kind, tools []chat.Tool, tc chat.ToolChoice, parallel *bool, reasoningOpen bool, creq *backend.CompleteRequest) (CallPlan, error) {
	return PlanCallsContext(context.Background(), f, kind, tools, tc, parallel, reasoningOpen, creq)
}

// PlanCallsContext is PlanCalls building the constraint under ctx: a client
// that leaves stops the work (a large tool set's grammar takes a while), and
// the error is ctx's, not a refusal of the tools.
func PlanCallsContext(ctx context.Context, f *format.Family, kind backend.Kind, tools []chat.Tool, tc chat.ToolChoice, parallel *bool, reasoningOpen bool, creq *backend.CompleteRequest) (CallPlan, error) {
	// A forced call under a small output limit gets no room to reason
	// first: reasoning could use the whole limit (forcedReasoningMin).
	noReasoning := creq.MaxTokens > 0 && creq.MaxTokens < forcedReasoningMin
	return planCalls(ctx, f, kind, tools, tc, parallel, reasoningOpen, noReasoning, creq)
}

// planCalls is PlanCallsContext with the room for reasoning before a forced
// call decided by the caller: noReasoning leaves it out of the grammar.
func planCalls(ctx context.Context, f *format.Family, kind backend.Kind, tools []chat.Tool, tc chat.ToolChoice, parallel *bool, reasoningOpen, noReasoning bool, creq *backend.CompleteRequest) (CallPlan, error) {
	var plan CallPlan
	if len(tools) == 0 || tc.Mode == chat.ToolNone {
		return plan, nil
	}
	forced := tc.Mode == chat.ToolRequired || tc.Mode == chat.ToolNamed
	choice := format.ToolChoice{Mode: "auto", Single: parallel != nil && !*parallel}
	if forced {
		choice.Mode = "required"
	}
	if tc.Mode == chat.ToolNamed {
		choice.Name = tc.Name
	}
	choice.NoReasoning = forced && noReasoning
	hasGrammar := f != nil && f.Calls != nil
	switch {
	case hasGrammar && kind.TakesGrammar() && (forced || kind.TakesLazyGrammar()):
		c, err := constraints.ConstrainContext(ctx, f, tools, choice, reasoningOpen)
		if err != nil {
			return plan, toolsError(ctx, "call grammar", err)
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
	case hasGrammar && !forced && kind.TakesStructuralTag() && f.Calls.Tag != nil:
		c, err := constraints.ConstrainContext(ctx, f, tools, choice, reasoningOpen)
		if err != nil {
			return plan, toolsError(ctx, "call constraint", err)
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
		why := fmt.Sprintf("%s takes no call constraint with a raw prompt", kind)
		if !hasGrammar {
			why = "the tool-call format has no call grammar"
		}
		plan.Decisions = append(plan.Decisions, fmt.Sprintf(`tool_choice "auto": calls are parsed but not constrained (%s)`, why))
		return plan, nil
	}
	return forcedBySchema(f, kind, tools, tc, creq)
}

// toolsError is a constraint that could not be built: the client's leaving
// (its context's error, as it is), or tools that cannot be constrained — too
// large or deep for the grammar's bounds (grammar.ErrLimit) among them —, a
// 400 naming the tools.
func toolsError(ctx context.Context, what string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return &requestError{msg: fmt.Sprintf("the tools cannot be turned into a %s: %v", what, err), param: "tools"}
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
func forcedBySchema(f *format.Family, kind backend.Kind, tools []chat.Tool, tc chat.ToolChoice, creq *backend.CompleteRequest) (CallPlan, error) {
	var plan CallPlan
	choice := describeChoice(tc, false)
	if !kind.TakesJSONSchema() {
		return plan, &requestError{msg: fmt.Sprintf("%s cannot be enforced on %s: it takes no output constraint for raw prompts; send \"auto\"", choice, kind), param: "tool_choice"}
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
		return plan, &requestError{msg: fmt.Sprintf("%s cannot be enforced for this model on %s: its tool-call format (%s) cannot be forced through a JSON Schema alone; send \"auto\"", choice, kind, name), param: "tool_choice"}
	}
	body, err := f.Force.Body(tools, only)
	if err != nil {
		return plan, &requestError{msg: fmt.Sprintf("%s: %v", choice, err), param: "tools"}
	}
	creq.Prompt += f.Force.Open
	creq.JSONSchema = body
	plan.Prefill, plan.Suffix, plan.Form = f.Force.Open, f.Force.Close, "json-schema"
	plan.Decisions = append(plan.Decisions, fmt.Sprintf("%s: the prompt ends with the call opener %q and the output is constrained to the call's JSON body", choice, f.Force.Open))
	return plan, nil
}
