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
				spacedCalls:      true,
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
	qwenXMLOpen  = "<tool_call>"
	qwenXMLClose = "</tool_call>"

	xmlFunctionOpen   = "<function="
	xmlFunctionClose  = "</function>"
	xmlParameterOpen  = "<parameter="
	xmlParameterClose = "</parameter>"
)

// qwenXMLResponseTemplate reads the blocks of function elements.
func qwenXMLResponseTemplate() *ResponseTemplate {
	return newResponseTemplate(chatMLAssistant).withReasoning(thinkTag, thinkEndTag, qwenXMLOpen).
		withCalls(functionField(qwenXMLOpen, qwenXMLClose, true))
}

// functionField reads what functionSection does as one call per function
// element: the block's opener before the first and its close after the
// last are part of the call's delimiters, so a block of several functions
// is several calls. A value is raw text (cast by the tool's schema), with
// layout less one newline at each edge.
func functionField(open, close string, layout bool) *ResponseField {
	fnOpen, fnClose := patternOf(xmlFunctionOpen), patternOf(xmlFunctionClose)
	blockClose := `\s*` + patternOf(close)
	edge := ""
	if layout {
		edge = `\n?`
	}
	return &ResponseField{
		OpenPattern:  "(?:" + patternOf(open) + `\s*)?` + fnOpen + "(?P<name>[^>]+)>",
		ClosePattern: fnClose + blockClose + `\s+(?=` + patternOf(open) + ")|" + fnClose + blockClose + "|" + fnClose + `\s*(?=` + fnOpen + ")|" + fnClose,
		Content:      "xml-inline",
		ContentArgs: map[string]any{
			"tag_pattern": patternOf(xmlParameterOpen) + "(?P<key>[^>]+)>" + edge + "(?P<value>.*?)" + edge + patternOf(xmlParameterClose),
		},
		Transform: callTransform(),
	}
}

// functionSection parses one block of <function=NAME> elements (qwen3-coder-xml,
// seed-oss) opened by open and closed by close:
//
//	open <function=NAME> (<parameter=KEY>VALUE</parameter>)* </function> … close
//
// A value is the raw text up to </parameter>; with layout, one newline at
// each of its edges is dropped. Several function elements in one block are
// several calls. The close marker may be missing at the end of the output (a
// runtime may consume it); text after a </function> that neither opens
// another function nor closes the block ends the section there and stays
// content. A JSON body ({"name": …, "arguments": …}) in a <tool_call> block
// is accepted as hermes writes it.
func functionSection(buf string, final bool, open, close string, layout bool, tools []chat.Tool) (int, []call, bool, error) {
	c := &rawScan{s: buf, i: len(open), final: final}
	c.space()
	if open == hermesOpen && strings.HasPrefix(c.rest(), "{") {
		return hermesSection(buf, final)
	}
	if err := c.expect(xmlFunctionOpen, "a <function=NAME> element"); err != nil {
		return rawResult(0, nil, err)
	}
	var calls []call
	for {
		name, err := c.name('>', "the function name")
		if err != nil {
			return rawResult(0, nil, err)
		}
		var keyBuf, valueBuf [8]string
		keys, values := keyBuf[:0], valueBuf[:0]
		for {
			c.space()
			ok, err := c.peek(xmlParameterOpen)
			if err != nil {
				return rawResult(0, nil, err)
			}
			if !ok {
				break
			}
			key, err := c.name('>', "a parameter name")
			if err != nil {
				return rawResult(0, nil, err)
			}
			value, err := c.untilOf(xmlParameterClose, "parameter ", key)
			if err != nil {
				return rawResult(0, nil, err)
			}
			if layout {
				value = strings.TrimPrefix(value, "\n")
				value = strings.TrimSuffix(value, "\n")
			}
			keys, values = append(keys, key), append(values, value)
		}
		if err := c.expectOf(xmlFunctionClose, "the end of function ", name, ""); err != nil {
			return rawResult(0, nil, err)
		}
		args, err := typedArgs(tools, name, keys, values)
		if err != nil {
			return rawResult(0, nil, err)
		}
		calls = append(calls, call{name: name, args: args})
		end := c.i
		c.space()
		if c.atEnd() && final {
			return len(buf), calls, false, nil // the close marker was consumed
		}
		closed, err := c.peek(close)
		if err != nil {
			return rawResult(0, nil, err)
		}
		if closed {
			return c.i, calls, false, nil
		}
		another, err := c.peek(xmlFunctionOpen)
		if err != nil {
			return rawResult(0, nil, err)
		}
		if !another {
			return end, calls, false, nil
		}
	}
}

// qwenXMLCalls: each call a <function=NAME> element in a block of its own,
// one <parameter=KEY> element per argument.
func qwenXMLCalls() *CallSyntax {
	cs := blocks(qwenXMLOpen, qwenXMLClose, taggedParams(functionHead, functionTail,
		paramTags{KeyOpen: xmlParameterOpen, KeyClose: ">", Before: []string{optNewline}, After: []string{optNewline, litCloseParameter, optNewline}},
		Value{Stop: xmlParameterClose, Python: true}))
	return withThinking(cs, thinkTag, thinkEndTag)
}
