package format

import (
	"strings"

	"github.com/dragoman-dev/dragoman/chat"
)

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
// In content, a <function=NAME> element whose <tool_call> the model skipped
// is a call when NAME is a declared tool (qwenBareSection).
func init() {
	register(&Family{
		ID:               "qwen3-coder-xml",
		Calls:            qwenXMLCalls(),
		Aliases:          []string{"qwen3-coder", "qwen3_coder", "qwen3_xml", "qwen3.5", "nemotron-3-nano", "step3p5"},
		ThinkOpen:        thinkTag,
		ResponseTemplate: qwenXMLResponseTemplate,
		New: func(o Options) Parser {
			return quietParser{newEngine(&markup{
				thinkOpen: thinkTag, thinkClose: thinkEndTag,
				callOpen:         []string{qwenXMLOpen},
				callEndsThinking: true,
				contentOpen:      []string{xmlFunctionOpen},
				section: func(buf string, final bool) (int, []call, bool, error) {
					if strings.HasPrefix(buf, xmlFunctionOpen) {
						return qwenBareSection(buf, final, o.Tools)
					}
					return functionSection(buf, final, qwenXMLOpen, qwenXMLClose, true, o.Tools)
				},
				liveCall: blockHermesLive, // a Hermes body in the block
				liveTags: qwenXMLLive,
			}, o)}
		},
		// The probe call renders as a function element in a <tool_call> block.
		Detect: func(t string) bool {
			return strings.Contains(t, qwenXMLOpen+"\n<function="+probeName+">")
		},
	})
}

// The live readers, made once (live.go).
var (
	blockHermesLive = liveNameArguments(toolCallTag) // a Hermes body in a <tool_call> block (Qwen3-Coder, GLM, Laguna)
	qwenXMLLive     = functionLiveTags(true)
)

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

// qwenBareSection reads a call written without its <tool_call> wrapper,
// <function=NAME> … </function> with or without the </tool_call> after it, as
// vLLM's qwen3_coder and llama.cpp do (docs/DECISIONS.md, "A Qwen3-Coder call
// without <tool_call>"). Only a declared tool's name makes it a call: any
// other <function= is prose and stays content, without a diagnostic
// (quietParser), decided as soon as the name written so far is no declared
// name's prefix; so is an element that does not parse.
func qwenBareSection(buf string, final bool, tools []chat.Tool) (int, []call, bool, error) {
	name := buf[len(xmlFunctionOpen):]
	end := strings.IndexByte(name, '>')
	if end >= 0 {
		name = name[:end]
	}
	if !declaredName(tools, name, end >= 0) {
		return 0, nil, false, errNotCall
	}
	if end < 0 {
		if final {
			return 0, nil, false, errNotCall
		}
		return 0, nil, true, nil
	}
	n, calls, needMore, err := functionSection(buf, final, "", qwenXMLClose, true, tools)
	if err != nil {
		// Read only when whole: a broken one is prose (and the rest of a
		// <tool_call> block already reported malformed).
		return 0, nil, false, errNotCall
	}
	return n, calls, needMore, nil
}

// declaredName reports whether name is a declared tool's name (whole) or
// the start of one (not whole: more may follow).
func declaredName(tools []chat.Tool, name string, whole bool) bool {
	for _, t := range tools {
		n := t.Function.Name
		if n == name || (!whole && strings.HasPrefix(n, name)) {
			return true
		}
	}
	return false
}
