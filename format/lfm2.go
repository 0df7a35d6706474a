package format

import "strings"

// lfm2: Liquid LFM2 / LFM2.5. Calls are a Python call list, or a JSON array
// or object of {"name", "arguments"} (Decision 4), between markers:
//
//	<|tool_call_start|>[get_weather(location='Paris'), get_time(zone='Europe/Paris')]<|tool_call_end|>
//	<|tool_call_start|>[{"name": "get_weather", "arguments": {"location": "Paris"}}]<|tool_call_end|>
//
// Reasoning is <think>…</think> (thinking variants, not forced open by the
// corpus templates).
func init() {
	register(&Family{
		ID:                 "lfm2",
		Calls:              lfm2Calls(),
		NoResponseTemplate: "calls are a Python call list (or JSON) between the markers: no content parser reads Python calls, and the per-call delimiters a tag pattern needs (TRL's ', NAME(' opener) also fire in the answer's text",
		Aliases:            []string{"lfm2-thinking"},
		ThinkOpen:          thinkTag,
		New: func(o Options) Parser {
			return newEngine(&markup{
				thinkOpen: thinkTag, thinkClose: thinkEndTag,
				callOpen:         []string{lfm2Open},
				callEndsThinking: true,
				answerTrimmed:    true, // FORMATS.md: "Leading whitespace before a direct answer is dropped"
				section:          pyBlockSection(lfm2Open, lfm2Close, pyBlock{json: true, unescapedQuotes: true}),
			}, o)
		},
		Detect: func(t string) bool {
			return strings.Contains(t, lfm2Open) || strings.Contains(t, "<|tool_list_start|>") ||
				strings.Contains(t, "List of tools: [")
		},
	})
}

const (
	lfm2Open  = "<|tool_call_start|>"
	lfm2Close = "<|tool_call_end|>"
)

// lfm2Calls: a Python list of calls between LFM2's markers.
func lfm2Calls() *CallSyntax {
	return &CallSyntax{
		Triggers: []string{lfm2Open},
		Open:     lit(lfm2Open + "["), Sep: lit(", "), Close: lit("]" + lfm2Close),
		Call:      pythonCall(true), // LFM2.5 writes 'it's'
		ThinkOpen: thinkTag, ThinkClose: thinkEndTag,
	}
}
