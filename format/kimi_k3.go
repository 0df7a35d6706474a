package format

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/grammar"
)

// kimi-k3: Moonshot Kimi K3 "xtml" markup. The assistant message holds a
// think element (reasoning), a response element (content) and a tools
// element with one call element per call, each argument typed by its type
// attribute:
//
//	<|open|>think<|sep|>Need the weather.<|close|>think<|sep|><|open|>response<|sep|><|close|>response<|sep|>
//	<|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|><|open|>argument key="location" type="string"<|sep|>Paris<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|><|end_of_msg|>
//
// (one line in the output). The prompt ends inside think (thinking on, the
// default) or inside response. The response and message tags are removed
// from the content; the call's index is per message, not an id.
func init() {
	register(&Family{
		ID:                 "kimi-k3",
		Calls:              k3Calls(),
		NoResponseTemplate: "each argument is typed by its own type attribute, which no value parser can read",
		Aliases:            []string{"kimi_k3"},
		ThinkOpen:          k3ThinkOpen,
		New: func(o Options) Parser {
			return newEngine(&markup{
				thinkOpen: k3ThinkOpen, thinkClose: k3ThinkClose,
				callOpen:         append([]string{k3ToolsOpen}, k3Structure...),
				callEndsThinking: true,
				section: func(buf string, final bool) (int, []call, bool, error) {
					for _, m := range k3Structure {
						if strings.HasPrefix(buf, m) {
							return len(m), nil, false, nil // message structure, not content
						}
					}
					return sectionResult(k3Section(o.Tools, buf, final))
				},
			}, o)
		},
		// The template builds its tags with an open_tag macro; the probe
		// render shows the tools element.
		Detect: func(t string) bool {
			return strings.Contains(t, k3Sep) && (strings.Contains(t, k3ToolsOpen) || strings.Contains(t, "open_tag('tools')"))
		},
	})
}

const (
	k3ThinkOpen     = "<|open|>think<|sep|>"
	k3ThinkClose    = "<|close|>think<|sep|>"
	k3ToolsOpen     = "<|open|>tools<|sep|>"
	k3ToolsClose    = "<|close|>tools<|sep|>"
	k3Call          = "<|open|>call"
	k3CallClose     = "<|close|>call<|sep|>"
	k3Argument      = "<|open|>argument"
	k3ArgumentClose = "<|close|>argument<|sep|>"
	k3JSON          = "<|open|>json"
	k3JSONClose     = "<|close|>json<|sep|>"
	k3Sep           = "<|sep|>"
)

// k3Structure are the tags around the content that are removed from it.
var k3Structure = []string{"<|open|>response<|sep|>", "<|close|>response<|sep|>", "<|close|>message<|sep|>", "<|end_of_msg|>"}

// k3Unescape undoes the template's attribute escaping.
var k3Unescape = strings.NewReplacer("&quot;", `"`, "&amp;", "&", "&lt;", "<", "&gt;", ">", "&#39;", "'", "&apos;", "'")

// k3Section parses a tools element. Its end tag may be missing: the section
// then ends after its last call.
func k3Section(tools []chat.Tool, buf string, final bool) (int, []call, error) {
	c := &secScan{s: buf, i: len(k3ToolsOpen), final: final}
	var calls []call
	end := 0 // after the last call
	for {
		c.space()
		if c.i == len(c.s) && len(calls) > 0 {
			if !final {
				return 0, nil, errNeedMore
			}
			return c.i, calls, nil // trailing layout at the end of the output
		}
		closeR := c.lit(k3ToolsClose)
		if closeR == litMatched {
			if len(calls) == 0 {
				return 0, nil, errors.New("the tools element holds no call")
			}
			return c.i, calls, nil
		}
		callR := c.lit(k3Call)
		if callR == litMatched {
			cl, err := k3CallElement(c, tools)
			if err != nil {
				return 0, nil, err
			}
			calls = append(calls, cl)
			end = c.i
			if c.stopped {
				return end, calls, nil
			}
			continue
		}
		if (callR == litPartial || closeR == litPartial) && !final {
			return 0, nil, errNeedMore
		}
		if len(calls) == 0 {
			return 0, nil, errors.New(k3ToolsOpen + " is not followed by a call element")
		}
		return end, calls, nil // text after the last call, without the end tag
	}
}

// k3CallElement parses one call element after "<|open|>call".
func k3CallElement(c *secScan, tools []chat.Tool) (call, error) {
	attrs, err := c.attributes("call", k3Sep)
	if err != nil {
		return call{}, err
	}
	name := k3Unescape.Replace(attrs["tool"])
	if name == "" {
		return call{}, errors.New("the call element has no tool attribute")
	}
	props := toolProperties(tools, name)
	var keys []string
	var values []any
	jsonArgs := ""
	for {
		c.space()
		endR := c.lit(k3CallClose)
		if endR == litMatched {
			break
		}
		argR := c.lit(k3Argument)
		if argR == litMatched {
			key, value, err := k3ArgumentElement(c, props)
			if err != nil {
				return call{}, err
			}
			keys = append(keys, key)
			values = append(values, value)
			continue
		}
		jsonR := c.lit(k3JSON)
		if jsonR == litMatched {
			if _, err := c.attributes("json", k3Sep); err != nil {
				return call{}, err
			}
			body, err := k3Body(c, k3JSONClose, "the json element")
			if err != nil {
				return call{}, err
			}
			obj, err := jsonObject(body)
			if err != nil {
				return call{}, err
			}
			if jsonArgs != "" {
				return call{}, errors.New("the call to " + quote(name) + " has two json elements")
			}
			jsonArgs = obj
			continue
		}
		if endR == litPartial || argR == litPartial || jsonR == litPartial {
			if !c.final {
				return call{}, errNeedMore
			}
			// The output ends after complete arguments: the call is
			// accepted; a partial tag stays text.
			if len(keys) == 0 && jsonArgs == "" {
				return call{}, errors.New("the output ends in the call to " + quote(name))
			}
			c.stopped = true
			break
		}
		return call{}, errors.New("unexpected text in the call to " + quote(name))
	}
	switch {
	case jsonArgs != "" && len(keys) > 0:
		return call{}, errors.New("the call to " + quote(name) + " mixes a json element with argument elements")
	case jsonArgs != "":
		return call{name: name, args: jsonArgs}, nil
	}
	args, err := encodeArgs(keys, values)
	if err != nil {
		return call{}, err
	}
	return call{name: name, args: args}, nil
}

// k3ArgumentElement parses an argument element after "<|open|>argument" and
// types its value by its type attribute: string values are kept exactly,
// others are JSON (Python spellings accepted); without a known type, the
// tool's schema decides (Decision 7).
func k3ArgumentElement(c *secScan, props map[string]json.RawMessage) (string, any, error) {
	attrs, err := c.attributes("argument", k3Sep)
	if err != nil {
		return "", nil, err
	}
	key := k3Unescape.Replace(attrs["key"])
	if key == "" {
		return "", nil, errors.New("an argument element has no key")
	}
	raw, err := k3Body(c, k3ArgumentClose, "the argument "+quote(key))
	if err != nil {
		return "", nil, err
	}
	switch typ := attrs["type"]; typ {
	case "string":
		return key, raw, nil
	case "number", "integer", "boolean", "null", "object", "array":
		if t := strings.TrimSpace(raw); json.Valid([]byte(t)) {
			return key, json.RawMessage(t), nil
		}
		v, err := typeValue(raw, json.RawMessage(`{"type": "`+typ+`"}`))
		return key, v, err
	}
	v, err := typeValue(raw, props[key])
	return key, v, err
}

// k3Body returns the text up to the closing tag and consumes both.
func k3Body(c *secScan, closeTag, what string) (string, error) {
	r := c.rest()
	j := strings.Index(r, closeTag)
	if j < 0 {
		if !c.final {
			return "", errNeedMore
		}
		return "", errors.New("the output ends inside " + what)
	}
	c.i += j + len(closeTag)
	return r[:j], nil
}

// k3Calls: typed argument elements; strings raw, other values JSON.
func k3Calls() *CallSyntax {
	call, callClose := lit(k3Call+` tool="`), seqOf(lit(k3CallClose))
	index := seqOf(lit(`" index="`), grammar.Repeat(grammar.Class(false, grammar.Range{Lo: '0', Hi: '9'}), 1, 4), lit(`"`+k3Sep))
	param := paramTags{KeyOpen: k3Argument + ` key="`, Attr: `" type="`, AttrValue: kimiType, KeyClose: `"` + k3Sep,
		After: []string{lit(k3ArgumentClose)}}
	return &CallSyntax{
		Triggers: []string{k3ToolsOpen},
		Open:     seqOf(opt("<|open|>response<|sep|><|close|>response<|sep|>"), lit(k3ToolsOpen)),
		Close:    lit(k3ToolsClose),
		Call: func(b *Builder, i int) (string, error) {
			return b.paramsBetween(i, seqs(seqOf(call, b.Name(i)), index), callClose, Value{Stop: "<|close|>"}, paramOf{write: param.write})
		},
		ThinkOpen: k3ThinkOpen, ThinkClose: k3ThinkClose,
	}
}

// kimiType is the type attribute Kimi K3's template writes for a value.
func kimiType(m grammar.Member) string {
	switch m.Type {
	case "integer", "number":
		return "number"
	case "boolean", "null", "object", "array":
		return m.Type
	}
	return "string"
}
