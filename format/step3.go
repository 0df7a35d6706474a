package format

import (
	"errors"
	"strings"

	"github.com/dragoman-dev/dragoman/chat"
)

// step3: StepFun Step-3 ("steptml"). Calls are invoke elements inside
// fullwidth-bar special tokens:
//
//	<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_weather"><steptml:parameter name="location">Paris</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>
//
// Values are raw text typed by the tool's schema. Reasoning runs from the start
// of the output to </think>, without an opening tag (a <think> the model writes
// anyway is removed); a call opener also ends it.
func init() {
	register(&Family{
		ID:               "step3",
		Calls:            step3Calls(),
		ThinkOpen:        thinkTag,
		ResponseTemplate: step3ResponseTemplate,
		New: func(o Options) Parser {
			// The output starts in the reasoning (no opening tag) unless the
			// request turned reasoning off.
			if !o.ReasoningDisabled {
				o.ReasoningOpen = true
			}
			return newEngine(&markup{
				thinkOpen: thinkTag, thinkClose: thinkEndTag,
				callOpen:         []string{step3CallsBegin},
				callEndsThinking: true,
				section: func(buf string, final bool) (int, []call, bool, error) {
					return step3Section(o.Tools, buf, final)
				},
				liveTags: step3LiveTags,
			}, o)
		},
		Detect: func(t string) bool {
			return strings.Contains(t, step3CallsBegin) && strings.Contains(t, "steptml:invoke")
		},
	})
}

const (
	step3CallsBegin = "<｜tool_calls_begin｜>"
	step3CallsEnd   = "<｜tool_calls_end｜>"
	step3CallBegin  = "<｜tool_call_begin｜>"
	step3CallEnd    = "<｜tool_call_end｜>"
	step3Sep        = "<｜tool_sep｜>"
	step3NS         = "steptml" // the namespace of the invoke elements
)

// step3Assistant starts an assistant turn in Step-3's prompts (no corpus
// template shows it).
const step3Assistant = "<|BOT|>assistant\n"

// step3ResponseTemplate reads reasoning from the start of the output (its
// opener is optional) and one call per <｜tool_call_begin｜>…<｜tool_call_end｜>,
// the section's markers belonging to its first and last call.
func step3ResponseTemplate() *ResponseTemplate {
	t := newResponseTemplate(step3Assistant).withReasoning(thinkTag, thinkEndTag, step3CallsBegin)
	t.Fields["reasoning_content"].OpenPattern = `^\s*(?:` + patternOf(thinkTag) + ")?"
	inv := "<" + step3NS + `:invoke name="(?P<name>[^"<>\n]+)">`
	callEnd := "</" + step3NS + `:invoke>\s*` + patternOf(step3CallEnd)
	return t.withCalls(&ResponseField{
		OpenPattern:  "(?:" + patternOf(step3CallsBegin) + `\s*)?` + patternOf(step3CallBegin) + "[^<]*?" + patternOf(step3Sep) + "[^<]*" + inv,
		ClosePattern: blockCallClose(callEnd, patternOf(step3CallsEnd), patternOf(step3CallBegin)),
		Content:      "xml-inline",
		ContentArgs: map[string]any{
			"tag_pattern": "<" + step3NS + `:parameter name="(?P<key>[^"<>\n]+)">(?P<value>.*?)</` + step3NS + ":parameter>",
		},
		Transform: callTransform(),
	})
}

func step3Section(tools []chat.Tool, buf string, final bool) (int, []call, bool, error) {
	i := len(step3CallsBegin)
	var calls []call
	for {
		rest := buf[i:]
		trimmed := trimLayout(rest)
		i += len(rest) - len(trimmed)
		switch {
		case strings.HasPrefix(trimmed, step3CallsEnd):
			if len(calls) == 0 {
				return 0, nil, false, errors.New(step3CallsBegin + " holds no call")
			}
			return i + len(step3CallsEnd), calls, false, nil
		case strings.HasPrefix(trimmed, step3CallBegin):
			body := trimmed[len(step3CallBegin):]
			end := strings.Index(body, step3CallEnd)
			n := len(step3CallBegin) + end + len(step3CallEnd)
			if end < 0 {
				if !final {
					return 0, nil, true, nil
				}
				end, n = len(body), len(trimmed)
			}
			c, err := step3Call(tools, body[:end])
			if err != nil {
				return 0, nil, false, err
			}
			calls = append(calls, c)
			i += n
			continue
		case !final && (strings.HasPrefix(step3CallsEnd, trimmed) || strings.HasPrefix(step3CallBegin, trimmed)):
			return 0, nil, true, nil
		case len(calls) > 0:
			return i, calls, false, nil
		}
		return 0, nil, false, errors.New(step3CallsBegin + " is not followed by " + step3CallBegin)
	}
}

// step3Call parses "function<｜tool_sep｜>…<steptml:invoke …>…</steptml:invoke>".
// The text between the separator and the invoke element is ignored.
func step3Call(tools []chat.Tool, body string) (call, error) {
	_, after, ok := strings.Cut(body, step3Sep)
	if !ok {
		return call{}, errors.New("a " + step3CallBegin + " element has no " + step3Sep)
	}
	at := strings.Index(after, "<"+step3NS+":invoke")
	if at < 0 {
		return call{}, errors.New("a " + step3CallBegin + " element has no <steptml:invoke>")
	}
	name, keys, values, rest, err := parseInvoke(after[at:], step3NS)
	if err != nil {
		return call{}, err
	}
	if strings.TrimSpace(rest) != "" {
		return call{}, errors.New("unexpected text after the invoke element of " + quote(name))
	}
	args, err := typedArgs(tools, name, keys, values)
	if err != nil {
		return call{}, err
	}
	return call{name: name, args: args}, nil
}

// step3Calls: steptml invoke elements, each in a DeepSeek-style call.
func step3Calls() *CallSyntax {
	litInvoke := lit(step3CallBegin + "function" + step3Sep + "<" + step3NS + `:invoke name="`)
	litInvokeClose := lit("</" + step3NS + ":invoke>" + step3CallEnd)
	return withThinking(CallSyntax{
		Triggers: []string{step3CallsBegin},
		Open:     lit(step3CallsBegin),
		Sep:      opt("\n"),
		Close:    lit(step3CallsEnd),
		Call: taggedParams(
			func(b *Builder, i int) string { return seqOf(litInvoke, b.Name(i), litTagEnd) },
			func(*Builder, int) string { return litInvokeClose },
			paramTags{KeyOpen: "<" + step3NS + `:parameter name="`, KeyClose: `">`, After: []string{lit("</" + step3NS + ":parameter>")}},
			Value{Stop: "</" + step3NS + ":parameter>"}),
	}, "", thinkEndTag)
}

// step3LiveTags streams the first call of a section (live.go), read as
// step3Section and parseInvoke read it: the text before the separator and
// between it and the invoke element is skipped (within a bounded window).
var step3LiveTags = &liveTags{
	head: func(c *rawScan) (string, error) {
		c.space()
		if err := c.expect(step3CallBegin, "a call"); err != nil {
			return "", err
		}
		window := c.rest()[:min(len(c.rest()), maxRawName)]
		sep := strings.Index(window, step3Sep)
		if end := strings.Index(window, step3CallEnd); end >= 0 && (sep < 0 || end < sep) || sep < 0 && len(window) == maxRawName {
			return "", errors.New("no separator in the call")
		}
		if sep < 0 {
			return "", errNeedMore
		}
		c.i += sep + len(step3Sep)
		open := "<" + step3NS + `:invoke name="`
		window = c.rest()[:min(len(c.rest()), maxRawName)]
		at := strings.Index(window, open)
		if at < 0 {
			if len(window) == maxRawName || strings.Contains(window, step3CallEnd) {
				return "", errors.New("no invoke element in the call")
			}
			return "", errNeedMore
		}
		c.i += at + len(open)
		return step3AttrValue(c)
	},
	param: func(c *rawScan) (string, valueMode, bool, error) {
		c.space()
		if ok, err := c.peek("<" + step3NS + `:parameter name="`); !ok || err != nil {
			return "", bySchema, false, err
		}
		key, err := step3AttrValue(c)
		return key, bySchema, err == nil, err
	},
	end: func(c *rawScan) (bool, error) {
		c.space()
		return c.peek("</" + step3NS + ":invoke>")
	},
	valueClose: "</" + step3NS + ":parameter>",
}

// step3AttrValue reads a name up to `">`, as parseInvoke does: not empty,
// without <, >, " or a newline.
func step3AttrValue(c *rawScan) (string, error) {
	r := c.rest()
	j := strings.Index(r, `">`)
	if j < 0 {
		if strings.ContainsAny(r, "<>\n") || len(r) > maxRawName || c.final {
			return "", errors.New("not a valid name")
		}
		return "", errNeedMore
	}
	if v := r[:j]; v != "" && !strings.ContainsAny(v, "<>\"\n") {
		c.i += j + 2
		return v, nil
	}
	return "", errors.New("not a valid name")
}
