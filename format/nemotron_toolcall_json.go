package format

import "strings"

// nemotron-toolcall-json: NVIDIA Nemotron Nano v2. The calls are a JSON list
// between <TOOLCALL> and </TOOLCALL>:
//
//	<TOOLCALL>[{"name": "get_weather", "arguments": {"location": "Paris"}}]</TOOLCALL>
//
// Arguments may also be a JSON string holding the object. Reasoning is
// <think>…</think>, forced open by the template unless /no_think.
func init() {
	register(&Family{
		ID:        "nemotron-toolcall-json",
		ThinkOpen: "<think>",
		New: func(o Options) Parser {
			return newEngine(&markup{
				thinkOpen: "<think>", thinkClose: "</think>",
				callOpen:         []string{nemotronOpen},
				callEndsThinking: true,
				section: func(buf string, final bool) (int, []call, bool, error) {
					return jlSection(buf, final, nemotronOpen, nemotronClose, false, nameAndArguments)
				},
			}, o)
		},
		Detect: func(t string) bool { return strings.Contains(t, nemotronOpen) },
	})
}

const (
	nemotronOpen  = "<TOOLCALL>"
	nemotronClose = "</TOOLCALL>"
)
