package backend

import (
	"slices"
	"strings"
)

// Capabilities say what a kind of runtime takes and does, so that the
// gateway, inspect and bench plan from what a runtime can do rather than
// from its name. Each kind's are declared once, in kinds below; the
// per-instance facts (CanComplete: a generic OpenAI server may lack raw
// completion) stay on the Backend.
type Capabilities struct {
	// Configurable: an upstream may name the kind in the configuration
	// (every kind but the embedded engine, which serve makes itself).
	Configurable bool
	// Generic: not one runtime but any OpenAI-compatible server (OpenAI),
	// whose API is all that is known of it.
	Generic bool
	// RawPrompts: the kind's servers take a prompt rendered by Dragoman
	// (own mode), as far as their API goes (inspect plans for these).
	RawPrompts bool

	// The output constraints its raw completion takes (constrain.go plans
	// from them; a runtime that takes none gets none, and the trace says so).
	//
	// Grammar: a GBNF grammar from the first output byte
	// (CompleteRequest.Grammar): llama-server's grammar, SGLang's ebnf
	// (xgrammar reads GBNF), the engine's grammar sampler.
	Grammar bool
	// LazyGrammar: a grammar applied once a trigger appears
	// (CompleteRequest.GrammarLazy): llama-server's grammar_lazy with
	// grammar_triggers, the engine's lazy grammar sampler.
	LazyGrammar bool
	// StructuralTag: per-call begin text, arguments schema and end text,
	// applied after a trigger: vLLM's structured_outputs.structural_tag.
	StructuralTag bool
	// JSONSchema: output constrained to a JSON Schema
	// (CompleteRequest.JSONSchema): Ollama's format, llama-server's
	// json_schema, vLLM's structured outputs, the engine's grammar.
	JSONSchema bool

	// EnforcesToolChoice: its chat API holds the model to tool_choice
	// "required" and a named function (relay mode trusts it): vLLM and
	// SGLang constrain the call, a remote OpenAI-compatible API is taken at
	// its word. Ollama accepts the field and ignores it; llama-server's chat
	// API was measured leaving 50 of 50 "required" answers of the random
	// model without a call; LM Studio and mlx_lm.server do not document it.
	EnforcesToolChoice bool
	// ContextPerRequest: the context is set per request (Ollama's num_ctx,
	// whose default of 4096 or so would cut a long prompt), so the gateway
	// sizes it from the prompt it counted.
	ContextPerRequest bool
	// TokenizesExactly: its /tokenize counts a text as its model will read
	// it (llama-server), for count_tokens without the model's GGUF at hand.
	TokenizesExactly bool
	// OllamaTokenizer: it reads prompts with Ollama's tokenizer rules, which
	// part from llama.cpp's on a few control-looking tokens.
	OllamaTokenizer bool
	// ToolRequestCalls: for a model it has no parser for, it teaches its own
	// [TOOL_REQUEST] protocol and leaves calls it cannot parse in the
	// content (LM Studio): the relay parser reads those blocks too.
	ToolRequestCalls bool
	// LMStudioFolder: a local server's models are in LM Studio's models
	// folder, where their GGUF files are found.
	LMStudioFolder bool
	// LatestTag: a model name without a tag means NAME:latest (Ollama).
	LatestTag bool
}

// kinds declares every kind's capabilities.
var kinds = map[Kind]Capabilities{
	Ollama: {Configurable: true, RawPrompts: true, JSONSchema: true,
		ContextPerRequest: true, OllamaTokenizer: true, LatestTag: true},
	LlamaServer: {Configurable: true, RawPrompts: true, Grammar: true, LazyGrammar: true, JSONSchema: true,
		TokenizesExactly: true},
	LMStudio: {Configurable: true, RawPrompts: true, ToolRequestCalls: true, LMStudioFolder: true},
	VLLM:     {Configurable: true, RawPrompts: true, StructuralTag: true, JSONSchema: true, EnforcesToolChoice: true},
	SGLang:   {Configurable: true, RawPrompts: true, Grammar: true, EnforcesToolChoice: true},
	MLX:      {Configurable: true},
	OpenAI:   {Configurable: true, Generic: true, EnforcesToolChoice: true},
	Embedded: {RawPrompts: true, Grammar: true, LazyGrammar: true, JSONSchema: true},
}

// Caps returns the kind's capabilities; an unknown kind has none.
func (k Kind) Caps() Capabilities { return kinds[k] }

// TakesGrammar, TakesLazyGrammar, TakesStructuralTag and TakesJSONSchema
// read the kind's Capabilities.
func (k Kind) TakesGrammar() bool       { return k.Caps().Grammar }
func (k Kind) TakesLazyGrammar() bool   { return k.Caps().LazyGrammar }
func (k Kind) TakesStructuralTag() bool { return k.Caps().StructuralTag }
func (k Kind) TakesJSONSchema() bool    { return k.Caps().JSONSchema }

// Kinds lists every kind, sorted by name.
func Kinds() []Kind {
	out := make([]Kind, 0, len(kinds))
	for k := range kinds {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// ParseKind reads a runtime's name as users write it: a kind's own name in
// any case, or "llamacpp" / "llama.cpp" for llama-server.
func ParseKind(name string) (Kind, bool) {
	k := Kind(strings.ToLower(name))
	if k == "llamacpp" || k == "llama.cpp" {
		return LlamaServer, true
	}
	_, ok := kinds[k]
	return k, ok
}

// SameRuntime reports whether a and b are one runtime: the same kind at the
// same address.
func SameRuntime(a, b Backend) bool {
	return a.Kind() == b.Kind() && a.BaseURL() == b.BaseURL()
}
