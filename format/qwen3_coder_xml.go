package format

import "strings"

// qwen3-coder-xml: Qwen3-Coder, Qwen3.5 / 3.6 / 3.8, Nemotron-3-Nano and
// Nemotron 3.5, StepFun Step-3.5. Each call is a function element in its own
// block, each parameter value raw text typed by the tool's schema:
//
//	<tool_call>
//	<function=get_weather>
//	<parameter=location>
//	Paris
//	</parameter>
//	</function>
//	</tool_call>
//
// One newline after <parameter=K> and one before </parameter> are layout.
// Reasoning is <think>…</think>; a call opener inside open reasoning ends it.
func init() {
	register(&Family{
		ID:               "qwen3-coder-xml",
		Calls:            qwenXMLCalls(),
		Aliases:          []string{"qwen3-coder", "qwen3_coder", "qwen3_xml", "qwen3.5", "nemotron-3-nano", "step3p5"},
		ThinkOpen:        thinkTag,
		ResponseTemplate: qwenXMLResponseTemplate,
		New: func(o Options) Parser {
			return newEngine(&markup{
				thinkOpen: thinkTag, thinkClose: thinkEndTag,
				callOpen:         []string{qwenXMLOpen},
				callEndsThinking: true,
				section: func(buf string, final bool) (int, []call, bool, error) {
					return functionSection(buf, final, qwenXMLOpen, qwenXMLClose, true, o.Tools)
				},
			}, o)
		},
		// The probe call renders as a function element in a <tool_call> block.
		Detect: func(t string) bool {
			return strings.Contains(t, qwenXMLOpen+"\n<function="+probeName+">")
		},
	})
}

const (
	qwenXMLOpen  = toolCallTag
	qwenXMLClose = toolCallEndTag
)

// qwenXMLResponseTemplate reads the blocks of function elements.
func qwenXMLResponseTemplate() *ResponseTemplate {
	return newResponseTemplate(chatMLAssistant).withReasoning(thinkTag, thinkEndTag, qwenXMLOpen).
		withCalls(functionField(qwenXMLOpen, qwenXMLClose, true))
}

// qwenXMLCalls: each call a <function=NAME> element in a block of its own,
// one <parameter=KEY> element per argument.
func qwenXMLCalls() *CallSyntax {
	cs := blocks(qwenXMLOpen, qwenXMLClose, taggedParams(functionHead, functionTail,
		paramTags{KeyOpen: xmlParameterOpen, KeyClose: ">", Before: []string{optNewline}, After: []string{optNewline, litCloseParameter, optNewline}},
		Value{Stop: xmlParameterClose, Python: true}))
	return withThinking(cs, thinkTag, thinkEndTag)
}
