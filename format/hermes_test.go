package format

func init() {
	contradicted["ollama-290"] = "Rules/End of stream: a partial marker held back at the end is released as text, no byte lost (Ollama drops the trailing '<')"
	peerStartsInReasoning["qwen3-thinking"] = true
	peerStartsInReasoning["qwen3-vl-thinking"] = true
}
