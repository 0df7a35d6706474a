package format

import "strings"

// seed-oss: ByteDance Seed-OSS. The markup of qwen3-coder-xml in a
// <seed:tool_call> wrapper per call, with values directly between the tags
// (no layout newlines: a value is kept verbatim):
//
//	<seed:tool_call>
//	<function=get_weather>
//	<parameter=location>Paris</parameter>
//	</function>
//	</seed:tool_call>
//
// The template writes non-strings with Python str(), so typing accepts
// Python literals. Reasoning is <seed:think>…</seed:think>; the
// <seed:cot_budget_reflect> notes inside it are reasoning text.
func init() {
	register(&Family{
		ID:        "seed-oss",
		Calls:     seedCalls(),
		Aliases:   []string{"seed_oss"},
		ThinkOpen: seedThinkOpen,
		ResponseTemplate: func() *ResponseTemplate {
			return newResponseTemplate(seedAssistant).withReasoning(seedThinkOpen, seedThinkClose, seedOpen).
				withCalls(functionField(seedOpen, seedClose, false))
		},
		New: func(o Options) Parser {
			return newEngine(&markup{
				thinkOpen: seedThinkOpen, thinkClose: seedThinkClose,
				callOpen:         []string{seedOpen},
				callEndsThinking: true,
				section: func(buf string, final bool) (int, []call, bool, error) {
					return functionSection(buf, final, seedOpen, seedClose, false, o.Tools)
				},
				liveTags: seedLive,
			}, o)
		},
		Detect: func(t string) bool {
			return strings.Contains(t, seedOpen+"\n<function="+probeName+">")
		},
	})
}

var seedLive = functionLiveTags(false) // made once (live.go)

const (
	seedAssistant  = "<seed:bos>assistant\n" // starts an assistant turn in Seed-OSS's prompts
	seedThinkOpen  = "<seed:think>"
	seedThinkClose = "</seed:think>"
	seedOpen       = "<seed:tool_call>"
	seedClose      = "</seed:tool_call>"
)

// seedCalls: Qwen3-Coder's elements in Seed's blocks.
func seedCalls() *CallSyntax {
	cs := blocks(seedOpen, seedClose, taggedParams(functionHead, functionTail,
		paramTags{KeyOpen: xmlParameterOpen, KeyClose: ">", After: []string{litCloseParameter, optNewline}},
		Value{Stop: xmlParameterClose, Python: true, PythonContainers: true}))
	return withThinking(cs, seedThinkOpen, seedThinkClose)
}
