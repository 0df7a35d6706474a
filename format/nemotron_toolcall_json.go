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
		Calls:     nemotronCalls(),
		ThinkOpen: thinkTag,
		ResponseTemplate: func() *ResponseTemplate {
			return newResponseTemplate(nemotronAssistant).withReasoning(thinkTag, thinkEndTag, nemotronOpen).
				withCallList(nemotronOpen, nemotronClose, "name", "arguments", "")
		},
		New: func(o Options) Parser {
			return newEngine(&markup{
				thinkOpen: thinkTag, thinkClose: thinkEndTag,
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
	nemotronAssistant = "<SPECIAL_11>Assistant\n" // starts an assistant turn in Nemotron's prompts
	nemotronOpen      = "<TOOLCALL>"
	nemotronClose     = "</TOOLCALL>"
)

// nemotronCalls: a JSON array in one block.
func nemotronCalls() *CallSyntax {
	cs := jsonArray(nemotronOpen, lit(nemotronOpen), lit(nemotronClose), nameArguments)
	cs.Tag = jsonTag(func(n string) string { return nemotronOpen + `[{"name": ` + jsonName(n) + `, "arguments": ` }, "}]"+nemotronClose)
	return withThinking(cs, thinkTag, thinkEndTag)
}
