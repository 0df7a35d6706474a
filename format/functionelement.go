package format

import (
	"strings"

	"github.com/dragoman-dev/dragoman/chat"
)

// The <function=NAME><parameter=KEY>VALUE</parameter></function> element
// that Qwen3-Coder's and Seed-OSS's calls share: its markers, its parser,
// its response-template field and the head and tail of its grammar.

const (
	xmlFunctionOpen   = "<function="
	xmlFunctionClose  = "</function>"
	xmlParameterOpen  = "<parameter="
	xmlParameterClose = "</parameter>"
)

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
		return sectionResult(0, nil, err)
	}
	var calls []call
	for {
		name, err := c.name('>', "the function name")
		if err != nil {
			return sectionResult(0, nil, err)
		}
		var keyBuf, valueBuf [8]string
		keys, values := keyBuf[:0], valueBuf[:0]
		for {
			c.space()
			ok, err := c.peek(xmlParameterOpen)
			if err != nil {
				return sectionResult(0, nil, err)
			}
			if !ok {
				break
			}
			key, err := c.name('>', "a parameter name")
			if err != nil {
				return sectionResult(0, nil, err)
			}
			value, err := c.untilOf(xmlParameterClose, "parameter ", key)
			if err != nil {
				return sectionResult(0, nil, err)
			}
			if layout {
				value = strings.TrimPrefix(value, "\n")
				value = strings.TrimSuffix(value, "\n")
			}
			keys, values = append(keys, key), append(values, value)
		}
		if err := c.expectOf(xmlFunctionClose, "the end of function ", name, ""); err != nil {
			return sectionResult(0, nil, err)
		}
		args, err := typedArgs(tools, name, keys, values)
		if err != nil {
			return sectionResult(0, nil, err)
		}
		calls = append(calls, call{name: name, args: args})
		end := c.i
		c.space()
		if c.atEnd() && final {
			return len(buf), calls, false, nil // the close marker was consumed
		}
		closed, err := c.peek(close)
		if err != nil {
			return sectionResult(0, nil, err)
		}
		if closed {
			return c.i, calls, false, nil
		}
		another, err := c.peek(xmlFunctionOpen)
		if err != nil {
			return sectionResult(0, nil, err)
		}
		if !another {
			return end, calls, false, nil
		}
	}
}

// Literals of the <function=NAME> element several families' calls share.
var (
	litFunction, litFunctionEnd, litFunctionClose = lit(xmlFunctionOpen), seqOf(lit(">"), opt("\n")), lit(xmlFunctionClose)
	litTagEnd                                     = lit(`">`)
)

// functionHead and functionTail write a call as <function=NAME> … </function>.
func functionHead(b *Builder, i int) string {
	return seqs(seqOf(litFunction, b.Name(i)), litFunctionEnd)
}

func functionTail(*Builder, int) string { return litFunctionClose }

// functionLiveTags streams a call written as a function element (live.go),
// reading it as functionSection does; layout as functionSection's.
func functionLiveTags(layout bool) *liveTags {
	return &liveTags{
		head: func(c *rawScan) (string, error) {
			c.space()
			if err := c.expect(xmlFunctionOpen, "a <function=NAME> element"); err != nil {
				return "", err
			}
			return c.name('>', "the function name")
		},
		param: func(c *rawScan) (string, valueMode, bool, error) {
			c.space()
			if ok, err := c.peek(xmlParameterOpen); !ok || err != nil {
				return "", bySchema, false, err
			}
			key, err := c.name('>', "a parameter name")
			return key, bySchema, err == nil, err
		},
		end: func(c *rawScan) (bool, error) {
			c.space()
			return c.peek(xmlFunctionClose)
		},
		valueClose: xmlParameterClose,
		layout:     layout,
	}
}
