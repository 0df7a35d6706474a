package format

// Markers several families write the same, declared once: a family's own
// constants name these, so that no marker is written in two files
// (TestFamilyMarkersWrittenOnce).
const (
	thinkTag        = "<think>"
	thinkEndTag     = "</think>"
	toolCallTag     = "<tool_call>"
	toolCallEndTag  = "</tool_call>"
	toolCallsTag    = "<tool_calls>"
	toolCallsEndTag = "</tool_calls>"
	endToken        = "<|end|>"
	// assistantToken starts an assistant turn in GLM's and FireFunction's
	// prompts.
	assistantToken = "<|assistant|>"
	// chatMLAssistant starts an assistant turn in ChatML prompts.
	chatMLAssistant = "<|im_start|>assistant\n"
)
