package format

import (
	"errors"
	"strings"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/grammar"
)

// minicpm5: OpenBMB MiniCPM5. Each call is an XML-like element; values are raw
// text typed by the tool's schema, wrapped in CDATA when they hold '<', '&' or
// a newline:
//
//	<function name="get_weather"><param name="location">Paris</param></function>
//
// Reasoning is <think>…</think>.
func init() {
	register(&Family{
		ID:               "minicpm5",
		Calls:            mcpmCalls(),
		ThinkOpen:        thinkTag,
		ResponseTemplate: mcpmResponseTemplate,
		New: func(o Options) Parser {
			return newEngine(&markup{
				thinkOpen: thinkTag, thinkClose: thinkEndTag,
				callOpen:         []string{mcpmOpen},
				callEndsThinking: true,
				section: func(buf string, final bool) (int, []call, bool, error) {
					return mcpmSection(o.Tools, buf, final)
				},
			}, o)
		},
		Detect: func(t string) bool {
			return strings.Contains(t, "<function name=\"") && strings.Contains(t, "<param name=\"")
		},
	})
}

const (
	mcpmOpen       = `<function name="`
	mcpmClose      = xmlFunctionClose
	mcpmParam      = `<param name="`
	mcpmParamClose = "</param>"
	cdataOpen      = "<![CDATA["
	cdataClose     = "]]>"
)

// mcpmResponseTemplate reads one call per function element; a value's CDATA
// wrapper is markup, whitespace between calls layout.
func mcpmResponseTemplate() *ResponseTemplate {
	fnEnd := patternOf(mcpmClose)
	return newResponseTemplate(chatMLAssistant).withReasoning(thinkTag, thinkEndTag, mcpmOpen).withCalls(&ResponseField{
		OpenPattern:  patternOf(mcpmOpen) + `(?P<name>[^"<>\n]+)">`,
		ClosePattern: fnEnd + `\s*(?=` + patternOf(mcpmOpen) + ")|" + fnEnd,
		Content:      "xml-inline",
		ContentArgs: map[string]any{
			"tag_pattern": patternOf(mcpmParam) + `(?P<key>[^"<>\n]+)">(?:` + patternOf(cdataOpen) + ")?(?P<value>.*?)(?:" +
				patternOf(cdataClose) + ")?" + patternOf(mcpmParamClose),
		},
		Transform: callTransform(),
	})
}

var errMcpmMore = errors.New("need more")

func mcpmSection(tools []chat.Tool, buf string, final bool) (int, []call, bool, error) {
	n, c, err := mcpmParse(tools, buf)
	if err == errMcpmMore {
		if !final {
			return 0, nil, true, nil
		}
		if n > 0 {
			// End of output after a complete parameter: </function> was
			// consumed as a stop token.
			return n, []call{c}, false, nil
		}
		return 0, nil, false, errors.New("the <function> call is incomplete")
	}
	if err != nil {
		return 0, nil, false, err
	}
	n, needMore := joinLayout(buf, n, mcpmOpen, final)
	if needMore {
		return 0, nil, true, nil
	}
	return n, []call{c}, false, nil
}

// mcpmParse parses one call. With errMcpmMore the text ended early; n > 0 then
// says the call is complete but for </function> (the call is returned).
func mcpmParse(tools []chat.Tool, buf string) (int, call, error) {
	i := len(mcpmOpen)
	q := strings.IndexByte(buf[i:], '"')
	if q < 0 {
		if strings.ContainsAny(buf[i:], "<>\n") {
			return 0, call{}, errors.New(`<function name=" has no valid function name`)
		}
		return 0, call{}, errMcpmMore
	}
	name := buf[i : i+q]
	if name == "" || strings.ContainsAny(name, "<>\n") {
		return 0, call{}, errors.New(`<function name=" has no valid function name`)
	}
	i += q + 1
	if i == len(buf) {
		return 0, call{}, errMcpmMore
	}
	if buf[i] != '>' {
		return 0, call{}, errors.New("the <function> tag of " + quote(name) + " is not closed by '>'")
	}
	i++
	var keys, values []string
	for {
		rest := buf[i:]
		trimmed := trimLayout(rest)
		i += len(rest) - len(trimmed)
		switch {
		case strings.HasPrefix(trimmed, mcpmClose):
			args, err := typedArgs(tools, name, keys, values)
			if err != nil {
				return 0, call{}, err
			}
			return i + len(mcpmClose), call{name: name, args: args}, nil
		case strings.HasPrefix(trimmed, mcpmParam):
		case strings.HasPrefix(mcpmClose, trimmed) || strings.HasPrefix(mcpmParam, trimmed):
			args, err := typedArgs(tools, name, keys, values)
			if err != nil {
				return 0, call{}, err
			}
			return i, call{name: name, args: args}, errMcpmMore
		default:
			return 0, call{}, errors.New("unexpected text in the call to " + quote(name))
		}
		j := len(mcpmParam)
		q := strings.IndexByte(trimmed[j:], '"')
		if q < 0 || len(trimmed) == j+q+1 {
			if strings.ContainsAny(trimmed[j:], "<>\n") {
				return 0, call{}, errors.New("a <param> of " + quote(name) + " has no valid name")
			}
			return 0, call{}, errMcpmMore
		}
		key := trimmed[j : j+q]
		j += q + 1
		if key == "" || strings.ContainsAny(key, "<>\n") || trimmed[j] != '>' {
			return 0, call{}, errors.New("a <param> of " + quote(name) + " has no valid name")
		}
		j++
		value := trimmed[j:]
		var v string
		if strings.HasPrefix(value, cdataOpen) {
			inner, after, ok := strings.Cut(value[len(cdataOpen):], cdataClose)
			if !ok {
				return 0, call{}, errMcpmMore
			}
			if !strings.HasPrefix(after, mcpmParamClose) {
				if strings.HasPrefix(mcpmParamClose, after) {
					return 0, call{}, errMcpmMore
				}
				return 0, call{}, errors.New("the CDATA value of " + quote(key) + " is not followed by </param>")
			}
			v = inner
			j += len(cdataOpen) + len(inner) + len(cdataClose) + len(mcpmParamClose)
		} else if strings.HasPrefix(cdataOpen, value) {
			return 0, call{}, errMcpmMore
		} else {
			end := strings.Index(value, mcpmParamClose)
			if end < 0 {
				return 0, call{}, errMcpmMore
			}
			v = value[:end]
			j += end + len(mcpmParamClose)
		}
		keys = append(keys, key)
		values = append(values, v)
		i += j
	}
}

// mcpmCalls: function elements with param elements; strings holding <, &
// or a newline are wrapped in CDATA.
func mcpmCalls() *CallSyntax {
	param := paramTags{KeyOpen: mcpmParam, KeyClose: `">`, After: []string{lit(mcpmParamClose)}}
	litOpen := lit(mcpmOpen)
	return withThinking(CallSyntax{
		Triggers: []string{mcpmOpen},
		Sep:      opt("\n"),
		Call: func(b *Builder, i int) (string, error) {
			str := b.Rule("cdata-string", func() string { // one rule for every call's strings
				plain := grammar.Repeat(grammar.Class(true, grammar.Range{Lo: '<', Hi: '<'}, grammar.Range{Lo: '&', Hi: '&'}, grammar.Range{Lo: '\n', Hi: '\n'}), 0, -1)
				return plain + " | " + seqOf(lit(cdataOpen), b.G.TextWithout(cdataClose), lit(cdataClose))
			})
			return b.paramsBetween(i, seqOf(litOpen, b.Name(i), litTagEnd), lit(mcpmClose),
				Value{Stop: mcpmParamClose, Python: true, PythonContainers: true, String: str}, paramOf{write: param.write})
		},
	}, thinkTag, thinkEndTag)
}
