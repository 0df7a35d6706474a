package plan

import (
	"fmt"

	"github.com/dragoman-dev/dragoman/backend"
)

// Context sizes for a runtime that sets the context per request (Ollama's
// num_ctx): at least MinContext, then powers of two, so that requests share
// a few sizes (Ollama reloads the model when num_ctx changes);
// DefaultOutput is the room left for the answer when the request sets no
// max_tokens.
const (
	MinContext    = 4096
	DefaultOutput = 1024
)

// SizesContext reports whether a request's context is sized here: the
// runtime sets it per request and the prompt can be counted (the model's
// tokenizer is at hand).
func SizesContext(caps backend.Capabilities, canCount bool) bool {
	return caps.ContextPerRequest && canCount
}

// ContextFacts are what Context sizes from.
type ContextFacts struct {
	PromptTokens int
	// MaxTokens is the request's output limit; 0 or less: none.
	MaxTokens int
	// Limit is the model's context length; 0: unknown.
	Limit int
	// Model names the model in a refusal.
	Model string
}

// ContextChoice is the context a request asks for and why.
type ContextChoice struct {
	Size     int
	Decision string
	// Raised says the size is above MinContext: the runtime's default would
	// have cut the prompt or the answer (trace.ActionContextRaised).
	Raised bool
}

// Context picks the context for a prompt: room for the prompt and the
// answer, so that the runtime never cuts the prompt, which Ollama does
// silently. A prompt the model's context cannot hold is a *Refusal.
func Context(c ContextFacts) (ContextChoice, error) {
	if c.Limit > 0 && c.PromptTokens >= c.Limit {
		return ContextChoice{}, &Refusal{Msg: fmt.Sprintf("the prompt is %d tokens, and %s's context holds %d: shorten the conversation or the tools", c.PromptTokens, c.Model, c.Limit), Param: "messages"}
	}
	output := c.MaxTokens
	if output <= 0 {
		output = DefaultOutput
	}
	n := MinContext
	for n < c.PromptTokens+output {
		n *= 2
	}
	if c.Limit > 0 && n > c.Limit {
		n = c.Limit
	}
	return ContextChoice{Size: n, Decision: fmt.Sprintf("the prompt is %d tokens: num_ctx %d", c.PromptTokens, n), Raised: n > MinContext}, nil
}

// NoTokenizer is why a model's tokenizer could not be loaded matters, for
// the trace: without it nothing is counted, and a runtime that sets the
// context per request is left to its own default.
func NoTokenizer(caps backend.Capabilities, err error) string {
	if caps.ContextPerRequest {
		return "the model's tokenizer could not be loaded, so num_ctx is left to Ollama: " + err.Error()
	}
	return "the model's tokenizer could not be loaded (no count_tokens or make-up for it): " + err.Error()
}
