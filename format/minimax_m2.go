package format

import (
	"fmt"
	"strings"

	"github.com/dragoman-dev/dragoman/chat"
)

// minimax-m2: MiniMax M2. One block holds the calls, one invoke element each,
// parameter values raw text typed by the tool's schema:
//
//	<minimax:tool_call>
//	<invoke name="get_weather">
//	<parameter name="location">Paris</parameter>
//	</invoke>
//	</minimax:tool_call>
//
// Newlines between the elements are layout; a value is kept verbatim.
// Reasoning is <think>…</think>, always forced open by the template.
func init() {
	register(&Family{
		ID:        "minimax-m2",
		Calls:     m2Calls(),
		Aliases:   []string{"minimax_m2"},
		ThinkOpen: thinkTag,
		ResponseTemplate: func() *ResponseTemplate {
			return newResponseTemplate(m2Assistant).withReasoning(thinkTag, thinkEndTag, m2Open).
				withCalls(invokeField(m2Open, m2Close, m2Invoke, m2InvokeClose, m2Parameter, m2ParameterClose))
		},
		New: func(o Options) Parser {
			return newEngine(&markup{
				thinkOpen: thinkTag, thinkClose: thinkEndTag,
				callOpen:         []string{m2Open},
				callEndsThinking: true,
				section: func(buf string, final bool) (int, []call, bool, error) {
					return m2Section(buf, final, o.Tools)
				},
				liveTags: m2LiveTags,
			}, o)
		},
		Detect: func(t string) bool {
			return strings.Contains(t, m2Open+"\n<invoke name=\""+probeName+"\">")
		},
	})
}

const (
	m2Assistant      = "]~b]ai\n" // starts an assistant turn in MiniMax M2's prompts
	m2Open           = "<minimax:tool_call>"
	m2Close          = "</minimax:tool_call>"
	m2Invoke         = "<invoke name="
	m2InvokeClose    = "</invoke>"
	m2Parameter      = "<parameter name="
	m2ParameterClose = "</parameter>"
)

// invokeField reads a block of invoke elements (invoke opens one, with the
// name in a quoted attribute; parameter opens an argument) as one call per
// invoke: the block's opener before the first and its close after the last
// are part of the call's delimiters (the close may be missing at the end of
// the output, where trailing whitespace is layout). Values are raw text cast by the tool's
// schema.
func invokeField(open, close, invoke, invokeClose, parameter, parameterClose string) *ResponseField {
	inv, invEnd, blockClose := patternOf(invoke), patternOf(invokeClose), `\s*`+patternOf(close)
	attr := `["']?(?P<%s>[^"'>]+)["']?\s*>`
	return &ResponseField{
		OpenPattern:  "(?:" + patternOf(open) + `\s*)?` + inv + fmt.Sprintf(attr, "name"),
		ClosePattern: invEnd + blockClose + `\s+(?=` + patternOf(open) + ")|" + invEnd + blockClose + "|" + invEnd + `\s*(?=` + inv + ")|" + invEnd + `\s*$|` + invEnd,
		Content:      "xml-inline",
		ContentArgs: map[string]any{
			"tag_pattern": patternOf(parameter) + fmt.Sprintf(attr, "key") + "(?P<value>.*?)" + patternOf(parameterClose),
		},
		Transform: callTransform(),
	}
}

// m2Section parses one <minimax:tool_call> block:
//
//	<minimax:tool_call> (<invoke name="NAME"> (<parameter name="KEY">VALUE</parameter>)* </invoke>)* </minimax:tool_call>
//
// The close marker may be missing at the end of the output; text after an
// </invoke> that neither opens another invoke nor closes the block ends the
// section there and stays content.
func m2Section(buf string, final bool, tools []chat.Tool) (int, []call, bool, error) {
	c := &rawScan{s: buf, i: len(m2Open), final: final}
	c.space()
	var calls []call
	end := c.i
	for {
		ok, err := c.peek(m2Invoke)
		if err != nil {
			return sectionResult(0, nil, err)
		}
		if !ok {
			break
		}
		name, err := c.attr("the invoke name")
		if err != nil {
			return sectionResult(0, nil, err)
		}
		c.space()
		if err := c.expect(">", "the end of the invoke tag"); err != nil {
			return sectionResult(0, nil, err)
		}
		var keys, values []string
		for {
			c.space()
			ok, err := c.peek(m2Parameter)
			if err != nil {
				return sectionResult(0, nil, err)
			}
			if !ok {
				break
			}
			key, err := c.attr("a parameter name")
			if err != nil {
				return sectionResult(0, nil, err)
			}
			c.space()
			if err := c.expect(">", "the end of the parameter tag"); err != nil {
				return sectionResult(0, nil, err)
			}
			value, err := c.until(m2ParameterClose, "parameter "+key)
			if err != nil {
				return sectionResult(0, nil, err)
			}
			keys, values = append(keys, key), append(values, value)
		}
		if err := c.expect(m2InvokeClose, "the end of invoke "+name); err != nil {
			return sectionResult(0, nil, err)
		}
		args, err := typedArgs(tools, name, keys, values)
		if err != nil {
			return sectionResult(0, nil, err)
		}
		calls = append(calls, call{name: name, args: args})
		end = c.i
		c.space()
	}
	return c.finishInvokes(calls, end, m2Close)
}

// m2LiveTags streams the first invoke of a block (live.go), read as
// m2Section reads it.
var m2LiveTags = &liveTags{
	head: func(c *rawScan) (string, error) {
		c.space()
		if err := c.expect(m2Invoke, "an invoke element"); err != nil {
			return "", err
		}
		name, err := c.attr("the invoke name")
		if err != nil {
			return "", err
		}
		c.space()
		return name, c.expect(">", "the end of the invoke tag")
	},
	param: func(c *rawScan) (string, valueMode, bool, error) {
		c.space()
		if ok, err := c.peek(m2Parameter); !ok || err != nil {
			return "", bySchema, false, err
		}
		key, err := c.attr("a parameter name")
		if err != nil {
			return "", bySchema, false, err
		}
		c.space()
		return key, bySchema, true, c.expect(">", "the end of the parameter tag")
	},
	end: func(c *rawScan) (bool, error) {
		c.space()
		return c.peek(m2InvokeClose)
	},
	valueClose: m2ParameterClose,
}

// m2Calls: invoke elements in one block.
func m2Calls() *CallSyntax {
	return withThinking(invokeCalls(m2Open, m2Close, m2Invoke, m2InvokeClose, m2Parameter, m2ParameterClose), thinkTag, thinkEndTag)
}
