package backend

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
