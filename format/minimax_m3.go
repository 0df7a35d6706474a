package format

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/grammar"
)

// minimax-m3: MiniMax M3. Every tag is preceded by the namespace token
// ]<]minimax[>[, so only those tags are markup and values may hold ordinary
// <…> text. One element per parameter, named after it; objects are nested
// elements, arrays repeated <item> elements:
//
//	]<]minimax[>[<tool_call>
//	]<]minimax[>[<invoke name="get_weather">]<]minimax[>[<location>Paris]<]minimax[>[</location>]<]minimax[>[</invoke>
//	]<]minimax[>[</tool_call>
//
// Leaves are raw text typed by the tool's schema; the schema also tells an
// array of <item> elements from an object with an "item" key. Reasoning is
// <mm:think>…</mm:think>: forced open when thinking_mode is enabled, and
// when it is adaptive the model writes a bare </mm:think> before an answer
// without reasoning.
func init() {
	register(&Family{
		ID:                 "minimax-m3",
		Calls:              m3Calls(),
		NoResponseTemplate: "arguments are nested elements (objects, arrays of <item>) told apart by the schema; xml-inline reads one flat level of tags",
		Aliases:            []string{"minimax_m3"},
		ThinkOpen:          "<mm:think>",
		New: func(o Options) Parser {
			return withLeadingClose(newEngine(&markup{
				thinkOpen: "<mm:think>", thinkClose: "</mm:think>",
				callOpen:         []string{m3Open},
				callEndsThinking: true,
				section: func(buf string, final bool) (int, []call, bool, error) {
					return m3Section(buf, final, o.Tools)
				},
			}, o), "</mm:think>", o)
		},
		Detect: func(t string) bool {
			return strings.Contains(t, m3NS+`<invoke name="`+probeName+`">`)
		},
	})
}

const (
	m3NS       = "]<]minimax[>["
	m3Open     = m3NS + toolCallTag
	m3Close    = m3NS + toolCallEndTag
	m3MaxDepth = 64
)

// m3Node is one element of a call: a leaf with text, or nested elements.
type m3Node struct {
	key      string
	text     string
	children []m3Node
}

// m3Section parses one ]<]minimax[>[<tool_call> block of invoke elements.
// The close marker may be missing at the end of the output; text after an
// invoke that neither opens another nor closes the block ends the section
// there and stays content.
func m3Section(buf string, final bool, tools []chat.Tool) (int, []call, bool, error) {
	c := &rawScan{s: buf, i: len(m3Open), final: final}
	c.space()
	var calls []call
	end := c.i
	for {
		ok, err := c.peek(m3NS + `<invoke name=`)
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
		params, _ := toolSchema(tools, name)
		var keys []string
		var values []any
		for {
			c.space()
			done, err := c.peek(m3NS + "</invoke>")
			if err != nil {
				return sectionResult(0, nil, err)
			}
			if done {
				break
			}
			n, err := m3Element(c, 0)
			if err != nil {
				return sectionResult(0, nil, err)
			}
			keys = append(keys, n.key)
			values = append(values, m3Value(n, schemaPart(params, "properties", n.key, 0)))
		}
		args, err := encodeArgs(keys, values)
		if err != nil {
			return sectionResult(0, nil, err)
		}
		calls = append(calls, call{name: name, args: args})
		end = c.i
		c.space()
	}
	return c.finishInvokes(calls, end, m3Close)
}

// m3Element parses one namespaced element: its text up to the next namespace
// token, then either its close tag (a leaf) or nested elements.
func m3Element(c *rawScan, depth int) (m3Node, error) {
	if depth > m3MaxDepth {
		return m3Node{}, errors.New("the arguments nest too deeply")
	}
	if err := c.expect(m3NS+"<", "a parameter element or the end of the invoke"); err != nil {
		return m3Node{}, err
	}
	key, err := c.name('>', "an element name")
	if err != nil {
		return m3Node{}, err
	}
	if strings.HasPrefix(key, "/") {
		return m3Node{}, errors.New("unexpected closing tag <" + key + ">")
	}
	n := m3Node{key: key}
	closeTag := m3NS + "</" + key + ">"
	if n.text, err = c.upto(m3NS, "element "+key); err != nil {
		return m3Node{}, err
	}
	for {
		done, err := c.peek(closeTag)
		if err != nil {
			return m3Node{}, err
		}
		if done {
			return n, nil
		}
		// Nested elements: only layout whitespace may surround them.
		if strings.TrimSpace(n.text) != "" {
			return m3Node{}, errors.New("element " + key + " mixes text and nested elements")
		}
		child, err := m3Element(c, depth+1)
		if err != nil {
			return m3Node{}, err
		}
		n.children = append(n.children, child)
		if n.text, err = c.upto(m3NS, "element "+key); err != nil {
			return m3Node{}, err
		}
	}
}

// m3Value types an element by its schema: a leaf as raw text (an empty one
// as {} or [] for an object or array parameter), nested elements as an array
// when the schema says array (or, without one, when all are <item>), else
// as an object.
func m3Value(n m3Node, schema json.RawMessage) any {
	types := schemaTypes(schema, 0)
	if n.children == nil {
		if n.text == "" && !types["string"] {
			switch {
			case types["object"]:
				return pyDict{}
			case types["array"]:
				return []any{}
			}
		}
		v, _ := typeValue(n.text, schema)
		return v
	}
	var array bool
	switch {
	case types["array"] && !types["object"]:
		array = true
	case types["object"] && !types["array"]:
		array = false
	default:
		array = true
		for _, ch := range n.children {
			if ch.key != "item" {
				array = false
			}
		}
	}
	if array {
		items := schemaPart(schema, "items", "", 0)
		out := make([]any, 0, len(n.children))
		for _, ch := range n.children {
			out = append(out, m3Value(ch, items))
		}
		return out
	}
	obj := pyDict{}
	for _, ch := range n.children {
		obj.set(ch.key, m3Value(ch, schemaPart(schema, "properties", ch.key, 0)))
	}
	return obj
}

// m3Calls: every tag behind the namespace token; one element per argument,
// named after it; arrays as <item> elements, objects as nested elements
// (their names are not checked against the schema).
func m3Calls() *CallSyntax {
	invoke, invokeEnd := lit(m3NS+`<invoke name="`), lit(m3NS+"</invoke>")
	return &CallSyntax{
		Triggers: []string{m3Open},
		Open:     seqOf(lit(m3Open), opt("\n")),
		Sep:      opt("\n"),
		Close:    seqOf(opt("\n"), lit(m3Close)),
		Call: func(b *Builder, i int) (string, error) {
			v := Value{Nested: true}
			v.Encode = func(m grammar.Member) string { return minimaxValue(b, m, m3NS, v) }
			ps, err := b.Params(i, v, func(m grammar.Member, value string) string { return minimaxElement(m3NS, m.Name, value) })
			if err != nil {
				return "", err
			}
			return seqOf(invoke, b.Name(i), litTagEnd, ps, invokeEnd), nil
		},
		ThinkOpen: "<mm:think>", ThinkClose: "</mm:think>",
	}
}

// minimaxValue is one argument of MiniMax M3: scalars as raw text, arrays as
// <item> elements, objects as nested elements (in the schema's order, typed
// where the schema declares their properties or items; v says how the
// arguments are written).
func minimaxValue(b *Builder, m grammar.Member, ns string, v Value) string {
	text := b.G.TextWithout(ns)
	if len(m.Enum) > 0 {
		return grammar.Alternatives(m.Enum)
	}
	switch m.Type {
	case "string", "", "integer", "number":
		if m.Type == "integer" || m.Type == "number" {
			return m.Value
		}
		return text
	case "boolean":
		return `("true" | "false")`
	case "null":
		return `""`
	case "object":
		if len(m.Properties) > 0 {
			return "(" + b.Arguments(func() string { return "minimax-rest" }, m.Properties, v,
				func(p grammar.Member, value string) string { return minimaxElement(ns, p.Name, value) }) + ")"
		}
	case "array":
		if m.Items != nil {
			return "(" + minimaxElement(ns, "item", minimaxValue(b, *m.Items, ns, v)) + ")*"
		}
	}
	return b.Rule("minimax-elements", func() string {
		self := b.rules["minimax-elements"]
		name := grammar.Repeat(grammar.Class(false, grammar.Range{Lo: 'a', Hi: 'z'}, grammar.Range{Lo: 'A', Hi: 'Z'}, grammar.Range{Lo: '0', Hi: '9'}, grammar.Range{Lo: '_', Hi: '_'}), 1, 64)
		element := seqOf(lit(ns+"<"), name, lit(">"), self, lit(ns+"</"), name, lit(">"))
		return "(" + text + " | (" + element + ")+)"
	})
}

// minimaxElement is one MiniMax M3 element: ns<name>value ns</name>.
func minimaxElement(ns, name, value string) string {
	return seqOf(litOf(ns, "<", name, ">"), value, litOf(ns, "</", name, ">"))
}
