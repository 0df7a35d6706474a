package format

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/dragoman-dev/dragoman/chat"
)

// glm-4.5-4.7: Zhipu GLM-4.5, 4.6, 4.7 (incl. Flash). Each call names the
// function after the opener, then pairs of raw-text keys and values typed by
// the tool's schema. GLM-4.5 / 4.6 put newlines between the elements, GLM-4.7
// none:
//
//	<tool_call>get_weather
//	<arg_key>location</arg_key>
//	<arg_value>Paris</arg_value>
//	</tool_call>
//
// Reasoning is <think>…</think>; GLM-4.7 is forced open when thinking is on,
// and writes a bare </think> before an answer without reasoning.
func init() {
	register(&Family{
		ID:               "glm-4.5-4.7",
		Calls:            glmCalls(),
		Aliases:          []string{"glm-4.6", "glm-4.7", "glm45", "glm47"},
		ThinkOpen:        thinkTag,
		ResponseTemplate: glmResponseTemplate,
		New: func(o Options) Parser {
			return withLeadingClose(newEngine(&markup{
				thinkOpen: thinkTag, thinkClose: thinkEndTag,
				callOpen:         []string{glmOpen},
				callEndsThinking: true,
				section: func(buf string, final bool) (int, []call, bool, error) {
					return glmSection(buf, final, o.Tools)
				},
				liveCall: blockHermesLive, // a Hermes body in the block
				liveTags: glmLiveTags,
			}, o), thinkEndTag, o)
		},
		// The probe call renders as a name and an arg_key/arg_value pair; the
		// Laguna templates, which render the same, have XML-like turns.
		Detect: func(t string) bool {
			return glmProbe(t) && !strings.Contains(t, lagunaTurnEnd)
		},
	})
}

const (
	glmOpen      = toolCallTag
	glmClose     = toolCallEndTag
	glmKeyOpen   = "<arg_key>"
	glmKeyClose  = "</arg_key>"
	glmValOpen   = "<arg_value>"
	glmValClose  = "</arg_value>"
	glmAssistant = assistantToken // starts an assistant turn in GLM's prompts
)

// glmResponseTemplate reads one call per <tool_call> block (kvTags): the name
// up to the first newline or '<', then key and value pairs. A bare </think>
// at the start (an answer without reasoning) is dropped, as the parser drops
// it. Not expressed: JSON arguments after the name, and values escaped as
// JSON strings.
func glmResponseTemplate() *ResponseTemplate {
	return newResponseTemplate(glmAssistant).withReasoning(thinkTag, thinkEndTag, glmOpen).
		withDroppedMarkup("leading_reasoning_close", `^\s*`+patternOf(thinkEndTag)+`\s*`).
		withCalls(glmTags.responseField())
}

var glmTags = &kvTags{
	callOpen: glmOpen, callClose: glmClose,
	keyOpen: glmKeyOpen, keyClose: glmKeyClose,
	valOpen: glmValOpen, valClose: glmValClose,
}

// glmProbe reports whether a template rendered the probe call in GLM markup.
func glmProbe(t string) bool {
	return strings.Contains(t, glmOpen+probeName) && strings.Contains(t, "<arg_key>"+probeArg+"</arg_key>")
}

// glmSection parses one <tool_call> block of glm-4.5-4.7 and laguna:
//
//	<tool_call>NAME (<arg_key>KEY</arg_key> <arg_value>VALUE</arg_value>)* </tool_call>
//
// The name runs to the first newline or '<'. Between the elements only
// whitespace and literal `\n` escapes (written by models that escape their
// own output) are allowed. Keys and values pair by order. The close marker
// may be missing at the end of the output when the body is complete. A JSON
// body ({"name": …, "arguments": …}), or a JSON object of arguments after the
// name, is accepted too.
func glmSection(buf string, final bool, tools []chat.Tool) (int, []call, bool, error) {
	c := &rawScan{s: buf, i: len(glmOpen), final: final}
	c.space()
	if strings.HasPrefix(c.rest(), "{") {
		return hermesSection(buf, final)
	}
	name, terminated, err := glmName(c)
	if err != nil {
		return sectionResult(0, nil, err)
	}
	if err := glmLayout(c); err != nil {
		return sectionResult(0, nil, err)
	}
	var args string
	if strings.HasPrefix(c.rest(), "{") {
		// name{"key": value}: the arguments as one JSON object.
		n, complete := jsonValueEnd(c.rest())
		if !complete {
			if !final {
				return 0, nil, true, nil
			}
			return 0, nil, false, errors.New("the JSON arguments of " + name + " are incomplete")
		}
		if args, err = jsonObject(c.rest()[:n]); err != nil {
			return 0, nil, false, err
		}
		c.i += n
		terminated = true
	} else {
		var keyBuf, valueBuf [8]string
		keys, values := keyBuf[:0], valueBuf[:0]
		for {
			if err := glmLayout(c); err != nil {
				return sectionResult(0, nil, err)
			}
			ok, err := c.peek(glmKeyOpen)
			if err != nil {
				return sectionResult(0, nil, err)
			}
			if !ok {
				break
			}
			key, err := c.until(glmKeyClose, "an <arg_key>")
			if err != nil {
				return sectionResult(0, nil, err)
			}
			key = strings.TrimSpace(key)
			if err := glmLayout(c); err != nil {
				return sectionResult(0, nil, err)
			}
			if err := c.expectOf(glmValOpen, "the value of ", key, " (keys and values pair by order)"); err != nil {
				return sectionResult(0, nil, err)
			}
			value, err := c.untilOf(glmValClose, "the value of ", key)
			if err != nil {
				return sectionResult(0, nil, err)
			}
			keys, values = append(keys, key), append(values, value)
			terminated = true
		}
		if args, err = glmTypedArgs(tools, name, keys, values); err != nil {
			return 0, nil, false, err
		}
	}
	if err := glmLayout(c); err != nil {
		return sectionResult(0, nil, err)
	}
	if c.atEnd() && final && terminated {
		return len(buf), []call{{name: name, args: args}}, false, nil
	}
	if stray, err := c.peek(glmValOpen); err != nil || stray {
		if stray {
			err = errors.New("an <arg_value> without its <arg_key>: keys and values do not pair")
		}
		return sectionResult(0, nil, err)
	}
	if err := c.expectOf(glmClose, "the end of the call to ", name, ""); err != nil {
		return sectionResult(0, nil, err)
	}
	return c.i, []call{{name: name, args: args}}, false, nil
}

// glmName reads the function name: up to a newline, '<' or '{', without a
// trailing literal `\n`. terminated says a newline ended it.
func glmName(c *rawScan) (name string, terminated bool, err error) {
	r := c.rest()
	j := -1
	for k := 0; k < len(r); k++ {
		if c := r[k]; c == '\n' || c == '<' || c == '{' {
			j = k
			break
		}
	}
	head := r
	if j >= 0 {
		head = r[:j]
	}
	if t := strings.TrimRight(head, " \t\r"); strings.IndexByte(t, ' ') >= 0 || strings.IndexByte(t, '\t') >= 0 || len(head) > maxRawName {
		return "", false, errors.New("the text after " + glmOpen + " is not a call name")
	}
	if j < 0 {
		if !c.final {
			return "", false, errNeedMore
		}
		j = len(r)
	}
	c.i += j
	name = strings.TrimSpace(head)
	for strings.HasSuffix(name, `\n`) {
		name = strings.TrimSpace(strings.TrimSuffix(name, `\n`))
		terminated = true
	}
	if name == "" {
		return "", false, errors.New("the call has no name")
	}
	return name, terminated || j < len(r) && r[j] == '\n', nil
}

// glmLayout skips whitespace and literal `\n` escapes between elements.
func glmLayout(c *rawScan) error {
	for {
		c.space()
		r := c.rest()
		switch {
		case strings.HasPrefix(r, `\n`):
			c.i += 2
		case r == `\` && !c.final:
			return errNeedMore
		default:
			return nil
		}
	}
}

// glmTypedArgs types GLM values by the tool's schema (Decision 7), and,
// where the schema says a value is not a string and it does not parse as
// written, decodes JSON string escapes first (Decision 5): models write
// `[{\"id\": \"1\"}]` for an array. String values are never unescaped.
func glmTypedArgs(tools []chat.Tool, name string, keys, values []string) (string, error) {
	props := toolProperties(tools, name)
	typed := make([]any, len(keys))
	for i, k := range keys {
		v, err := glmValue(props, k, values[i])
		if err != nil {
			return "", err
		}
		typed[i] = v
	}
	return encodeArgs(keys, typed)
}

// glmValue types one GLM value as glmTypedArgs does.
func glmValue(props map[string]json.RawMessage, k, raw string) (any, error) {
	v, err := typeValue(raw, props[k])
	if err != nil {
		return nil, err
	}
	if s, untyped := v.(string); untyped && s == raw && strings.Contains(s, `\`) {
		if types := schemaTypes(props[k], 0); len(types) > 0 && !types["string"] {
			var unescaped string
			if json.Unmarshal([]byte(`"`+s+`"`), &unescaped) == nil {
				if u, err := typeValue(unescaped, props[k]); err == nil {
					if us, still := u.(string); !still || us != unescaped {
						v = u
					}
				}
			}
		}
	}
	return v, nil
}

// glmLiveTags streams a call of key and value pairs (live.go), read as
// glmSection reads it; a call whose arguments are a JSON object after the
// name is parsed whole.
var glmLiveTags = &liveTags{
	head: func(c *rawScan) (string, error) {
		c.space()
		if strings.HasPrefix(c.rest(), "{") {
			return "", errors.New("a JSON body")
		}
		name, _, err := glmName(c)
		if err != nil {
			return "", err
		}
		if err := glmLayout(c); err != nil {
			return "", err
		}
		switch {
		case c.atEnd():
			return "", errNeedMore // JSON arguments may follow
		case c.rest()[0] == '{':
			return "", errors.New("JSON arguments")
		}
		return name, nil
	},
	param: func(c *rawScan) (string, valueMode, bool, error) {
		if err := glmLayout(c); err != nil {
			return "", bySchema, false, err
		}
		if ok, err := c.peek(glmKeyOpen); !ok || err != nil {
			return "", bySchema, false, err
		}
		key, err := c.until(glmKeyClose, "an <arg_key>")
		if err != nil {
			return "", bySchema, false, err
		}
		key = strings.TrimSpace(key)
		if err := glmLayout(c); err != nil {
			return "", bySchema, false, err
		}
		return key, bySchema, true, c.expectOf(glmValOpen, "the value of ", key, "")
	},
	end: func(c *rawScan) (bool, error) {
		if err := glmLayout(c); err != nil {
			return false, err
		}
		if c.atEnd() && c.final {
			return true, nil // the close marker may be missing at the end
		}
		return c.peek(glmClose)
	},
	valueClose: glmValClose,
	value:      glmValue,
}

// glmCalls: the name, then key/value element pairs, each call in a block.
func glmCalls() *CallSyntax { return withThinking(glmTags.blockCalls(), thinkTag, thinkEndTag) }
