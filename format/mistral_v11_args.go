package format

import "strings"

// mistral-v11-args: Mistral Small 3.2, Ministral 3, Devstral, Magistral (v11+
// tokenizers). Each call is its own section, with no end marker: the
// arguments end where the JSON object closes.
//
//	[TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]{"location": "Paris"}
//
// [CALL_ID] is optional and gives the call id. Reasoning is [THINK]…[/THINK],
// which may also follow content. The parser is mistralParser
// (mistral_legacy_array.go), which also reads the legacy JSON array.
func init() {
	register(&Family{
		ID:        "mistral-v11-args",
		Aliases:   []string{"mistral", "ministral"},
		ThinkOpen: mistralThinkOpen,
		New: func(o Options) Parser {
			return &mistralParser{opts: o, think: true}
		},
		Detect: func(t string) bool {
			return strings.Contains(t, mistralCalls) && strings.Contains(t, mistralArgs)
		},
	})
}
