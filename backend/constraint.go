package backend

// Which output constraints each runtime takes with a raw prompt (Complete).
// The gateway picks the constraint form from these; a runtime that takes
// none gets none, and the gateway says so in the trace (or refuses a
// tool_choice it cannot enforce).

// TakesGrammar reports whether the runtime's raw completion obeys a GBNF
// grammar applied from the first output byte (CompleteRequest.Grammar):
// llama-server's grammar, SGLang's ebnf (xgrammar reads GBNF), the embedded
// engine's grammar sampler.
func (k Kind) TakesGrammar() bool {
	return k == LlamaServer || k == SGLang || k == Embedded
}

// TakesLazyGrammar reports whether the runtime can apply a grammar only once
// a trigger appears (CompleteRequest.GrammarLazy): llama-server's
// grammar_lazy with grammar_triggers, and the embedded engine's lazy grammar
// sampler.
func (k Kind) TakesLazyGrammar() bool {
	return k == LlamaServer || k == Embedded
}

// TakesStructuralTag reports whether the runtime takes a structural tag
// (CompleteRequest.StructuralTag): per-call begin text, arguments schema and
// end text, applied after a trigger. vLLM's structured_outputs.structural_tag.
func (k Kind) TakesStructuralTag() bool {
	return k == VLLM
}

// llamaTriggerType is llama-server's number for a trigger type (its
// common_grammar_trigger_type: 0 token, 1 word, 2 pattern, 3 pattern_full;
// v0.5.0 refuses the names).
func llamaTriggerType(t string) int {
	switch t {
	case "pattern":
		return 2
	case "pattern_full":
		return 3
	}
	return 1
}

// CompleteBody is the HTTP request Complete sends to a runtime of this kind:
// its path and JSON body. For showing what would be sent (`dragoman
// inspect`); it makes no request.
func CompleteBody(kind Kind, req CompleteRequest) (path string, body any, err error) {
	switch kind {
	case Ollama:
		path, body = ollamaCompleteBody(req)
		return path, body, nil
	case LlamaServer, LMStudio, VLLM, SGLang, MLX:
		path, body = openAICompleteBody(kind, req)
		return path, body, nil
	}
	return "", nil, ErrNoComplete
}
