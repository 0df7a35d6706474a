package plan

import (
	"fmt"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/format"
)

// ForcedFacts are what the room for reasoning before a forced call is
// planned from.
type ForcedFacts struct {
	Family  *format.Family
	Runtime Runtime
	// Forced: the request requires a call and the model is offered tools.
	Forced bool
	Choice chat.ToolChoice
	// ReasoningOpen says the prompt left reasoning open.
	ReasoningOpen bool
}

// CloseReasoning decides whether a forced call's prompt closes the reasoning
// it left open, where reasoning cannot be afforded: the runtime takes no
// grammar, only a JSON Schema (which cannot say "reasoning, then the call":
// the call would be written inside the reasoning), or maxTokens is below
// ForcedReasoningMin. It returns the closer to append to the prompt (the
// parser reads it first, as if the model had written it) and the reason;
// "" when the reasoning stays open (trace.ActionReasoningClosed otherwise).
func CloseReasoning(q ForcedFacts, maxTokens int) (closer, decision string) {
	f := q.Family
	if !q.ReasoningOpen || !q.Forced || f == nil || f.Calls == nil || f.Calls.ThinkClose == "" {
		return "", ""
	}
	byGrammar := q.Runtime.Caps.Grammar
	small := maxTokens > 0 && maxTokens < ForcedReasoningMin
	if byGrammar && !small {
		return "", ""
	}
	why := fmt.Sprintf("max_tokens %d leaves no room for reasoning before the call (under %d)", maxTokens, ForcedReasoningMin)
	if !byGrammar {
		why = fmt.Sprintf("%s constrains the output by a JSON Schema only, which cannot put reasoning before the call", q.Runtime.Name)
	}
	return f.Calls.ThinkClose + "\n\n", fmt.Sprintf("tool_choice %s: the prompt closes the reasoning it left open (%q): %s", ChoiceName(q.Choice), f.Calls.ThinkClose, why)
}

// CallReserve is the part of a forced call's output limit kept for the call
// itself: a quarter, at least 256 tokens.
func CallReserve(limit int) int { return max(256, limit/4) }

// Split is a forced call's output limit shared between reasoning and the
// call: the first pass may use First tokens; if it ends on that limit with
// the reasoning still open, a second pass writes the call within Reserve.
// Reserve 0: not split (Decision may still say why).
type Split struct {
	First, Reserve int
	Decision       string
}

// SplitForcedCall splits a forced call's output limit when the request
// needs it: a forced call, an eager grammar sent (creq, as Calls set it)
// that admits reasoning before the call, and a limit with room: max_tokens,
// or else what the model's context leaves after the prompt (room, asked
// only then; 0 when unknown).
func SplitForcedCall(q ForcedFacts, creq *backend.CompleteRequest, room func() int) Split {
	f := q.Family
	if !q.Forced || f == nil || f.Calls == nil || f.Calls.ThinkClose == "" || creq.Grammar == "" || creq.GrammarLazy {
		return Split{}
	}
	if !q.ReasoningOpen && f.Calls.ThinkOpen == "" {
		return Split{} // the grammar admits no reasoning: the call comes first
	}
	limit, of := creq.MaxTokens, "max_tokens"
	if limit > 0 && limit < ForcedReasoningMin {
		return Split{} // the grammar leaves reasoning out (CloseReasoning, Calls)
	}
	if limit <= 0 {
		r := room()
		if r < ForcedReasoningMin {
			return Split{Decision: fmt.Sprintf("tool_choice %s: no max_tokens, and the room the context leaves is unknown or small: reasoning before the call is bounded only by the context", ChoiceName(q.Choice))}
		}
		limit, of = r, "the context's room after the prompt"
	}
	reserve := CallReserve(limit)
	first := limit - reserve
	return Split{First: first, Reserve: reserve,
		Decision: fmt.Sprintf("tool_choice %s: reasoning may use %d of %s (%d tokens); the last %d are kept for the call, written in a second pass if the reasoning is still open then", ChoiceName(q.Choice), first, of, limit, reserve)}
}
