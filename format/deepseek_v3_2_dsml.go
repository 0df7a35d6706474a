package format

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/grammar"
)

// deepseek-v3.2-dsml: DeepSeek V3.2 (function_calls) and V4 (tool_calls)
// "DSML" markup, one parameter element per argument:
//
//	<｜DSML｜function_calls>
//	<｜DSML｜invoke name="get_weather">
//	<｜DSML｜parameter name="location" string="true">Paris</｜DSML｜parameter>
//	</｜DSML｜invoke>
//	</｜DSML｜function_calls>
//
// string="true" values are raw text kept verbatim, string="false" values are
// JSON; without the attribute a value is typed by the tool's schema
// (Decision 7). An invoke may hold a JSON object instead of parameters
// (SGLang accepts it). Whitespace between tags is layout. Reasoning is
// <think>…</think>, forced open when thinking is on.
func init() {
	register(&Family{
		ID:                 "deepseek-v3.2-dsml",
		Calls:              dsmlCalls(),
		NoResponseTemplate: "a parameter's string attribute says whether its value is raw text or JSON, which no value parser can read",
		Aliases:            []string{"deepseek_v32", "deepseek_v4", "deepseekv32", "deepseekv4"},
		ThinkOpen:          thinkTag,
		New: func(o Options) Parser {
			return newEngine(&markup{
				thinkOpen: thinkTag, thinkClose: thinkEndTag,
				callOpen:         []string{dsmlFunctionCalls, dsmlToolCalls},
				callEndsThinking: true,
				section: func(buf string, final bool) (int, []call, bool, error) {
					return sectionResult(dsmlSection(o.Tools, buf, final))
				},
				liveTags: dsmlLiveTags,
			}, o)
		},
		// The templates build the tags from a dsml_token variable; the probe
		// render shows them whole.
		Detect: func(t string) bool {
			return strings.Contains(t, dsmlInvoke) || strings.Contains(t, "'｜DSML｜'")
		},
	})
}

const (
	dsmlFunctionCalls    = "<｜DSML｜function_calls>"
	dsmlFunctionCallsEnd = "</｜DSML｜function_calls>"
	dsmlToolCalls        = "<｜DSML｜tool_calls>"
	dsmlToolCallsEnd     = "</｜DSML｜tool_calls>"
	dsmlInvoke           = "<｜DSML｜invoke"
	dsmlInvokeEnd        = "</｜DSML｜invoke>"
	dsmlParam            = "<｜DSML｜parameter"
	dsmlParamEnd         = "</｜DSML｜parameter>"
)

// dsmlSection parses a function_calls (or tool_calls) element. Its end tag
// may be missing: the section then ends after its last invoke.
func dsmlSection(tools []chat.Tool, buf string, final bool) (int, []call, error) {
	opener, closer := dsmlFunctionCalls, dsmlFunctionCallsEnd
	if strings.HasPrefix(buf, dsmlToolCalls) {
		opener, closer = dsmlToolCalls, dsmlToolCallsEnd
	}
	c := &secScan{s: buf, i: len(opener), final: final}
	var calls []call
	end := 0 // after the last invoke
	for {
		c.space()
		if c.i == len(c.s) && len(calls) > 0 {
			if !final {
				return 0, nil, errNeedMore
			}
			return c.i, calls, nil // trailing layout at the end of the output
		}
		closePartial := false
		switch c.lit(closer) {
		case litMatched:
			if len(calls) == 0 {
				return 0, nil, errors.New("the " + opener + " element holds no invoke")
			}
			return c.i, calls, nil
		case litPartial:
			closePartial = true
		}
		r := c.lit(dsmlInvoke)
		if r == litMatched {
			cl, err := dsmlInvokeCall(c, tools)
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
		if (r == litPartial || closePartial) && !final {
			return 0, nil, errNeedMore
		}
		if len(calls) == 0 {
			return 0, nil, errors.New(opener + " is not followed by an invoke element")
		}
		return end, calls, nil // text after the last invoke, without the end tag
	}
}

// dsmlInvokeCall parses one invoke element after "<｜DSML｜invoke".
func dsmlInvokeCall(c *secScan, tools []chat.Tool) (call, error) {
	attrs, err := c.attributes("invoke", ">")
	if err != nil {
		return call{}, err
	}
	name := attrs["name"]
	if name == "" {
		return call{}, errors.New("the invoke element has no name")
	}
	props := toolProperties(tools, name)
	var keys []string
	var values []any
	for {
		c.space()
		if len(keys) == 0 && strings.HasPrefix(c.rest(), "{") {
			// A JSON object as the whole body.
			args, err := c.jsonObject()
			if err != nil {
				return call{}, err
			}
			if err := c.closing(dsmlInvokeEnd); err != nil {
				return call{}, err
			}
			return call{name: name, args: args}, nil
		}
		endR := c.lit(dsmlInvokeEnd)
		if endR == litMatched {
			break
		}
		paramR := c.lit(dsmlParam)
		if paramR == litMatched {
			key, value, err := dsmlParameter(c, props)
			if err != nil {
				return call{}, err
			}
			keys = append(keys, key)
			values = append(values, value)
			continue
		}
		if endR == litPartial || paramR == litPartial {
			if !c.final {
				return call{}, errNeedMore
			}
			// The output ends after complete parameters: the call is
			// accepted; a partial tag stays text.
			if len(keys) == 0 {
				return call{}, errors.New("the output ends in the invoke element of " + quote(name))
			}
			c.stopped = true
			break
		}
		return call{}, errors.New("unexpected text in the invoke element of " + quote(name))
	}
	args, err := encodeArgs(keys, values)
	if err != nil {
		return call{}, err
	}
	return call{name: name, args: args}, nil
}

// dsmlParameter parses a parameter element after "<｜DSML｜parameter" and
// types its value.
func dsmlParameter(c *secScan, props map[string]json.RawMessage) (string, any, error) {
	attrs, err := c.attributes("parameter", ">")
	if err != nil {
		return "", nil, err
	}
	key, ok := attrs["name"]
	if !ok || key == "" {
		return "", nil, errors.New("a parameter element has no name")
	}
	r := c.rest()
	j := strings.Index(r, dsmlParamEnd)
	if j < 0 {
		if !c.final {
			return "", nil, errNeedMore
		}
		return "", nil, errors.New("the output ends inside the parameter " + quote(key))
	}
	raw := r[:j]
	c.i += j + len(dsmlParamEnd)
	switch attrs["string"] {
	case "true":
		return key, raw, nil // verbatim
	case "false":
		if t := strings.TrimSpace(raw); json.Valid([]byte(t)) {
			return key, json.RawMessage(t), nil
		}
	}
	v, err := typeValue(raw, props[key])
	if err != nil {
		return "", nil, err
	}
	return key, v, nil
}

// dsmlLiveTags streams the first invoke of a section (live.go), read as
// dsmlSection reads it; an invoke whose body is a JSON object is parsed
// whole. A parameter's string attribute says how its value is typed.
var dsmlLiveTags = &liveTags{
	head: func(c *rawScan) (string, error) {
		s := secScan{s: c.s, i: c.i, final: c.final}
		s.space()
		if r := s.lit(dsmlInvoke); r != litMatched {
			if r == litPartial {
				return "", errNeedMore
			}
			return "", errors.New("not an invoke element")
		}
		attrs, err := s.attributes("invoke", ">")
		if err != nil {
			return "", err
		}
		s.space()
		switch {
		case attrs["name"] == "":
			return "", errors.New("the invoke element has no name")
		case s.i >= len(s.s):
			return "", errNeedMore // a JSON body may follow
		case s.s[s.i] == '{':
			return "", errors.New("a JSON body")
		}
		c.i = s.i
		return attrs["name"], nil
	},
	param: func(c *rawScan) (string, valueMode, bool, error) {
		s := secScan{s: c.s, i: c.i, final: c.final}
		s.space()
		switch s.lit(dsmlParam) {
		case litPartial:
			if !c.final {
				return "", bySchema, false, errNeedMore
			}
			return "", bySchema, false, nil
		case litAbsent:
			return "", bySchema, false, nil
		}
		attrs, err := s.attributes("parameter", ">")
		if err != nil {
			return "", bySchema, false, err
		}
		key, ok := attrs["name"]
		if !ok || key == "" {
			return "", bySchema, false, errors.New("a parameter element has no name")
		}
		c.i = s.i
		switch attrs["string"] {
		case "true":
			return key, verbatim, true, nil
		case "false":
			return key, jsonOrType, true, nil
		}
		return key, bySchema, true, nil
	},
	end: func(c *rawScan) (bool, error) {
		c.space()
		if c.final && (strings.HasPrefix(dsmlInvokeEnd, c.rest()) || strings.HasPrefix(dsmlParam, c.rest())) {
			return true, nil // the output ends after complete parameters
		}
		return c.peek(dsmlInvokeEnd)
	},
	valueClose: dsmlParamEnd,
}

// dsmlCalls: invoke elements in function_calls (V3.2) or tool_calls (V4);
// parameter elements say whether their value is a string.
func dsmlCalls() *CallSyntax {
	litInvoke, litInvokeClose := lit(dsmlInvoke+` name="`), lit(dsmlInvokeEnd)
	param := paramTags{KeyOpen: dsmlParam + ` name="`, KeyClose: `">`, Attr: `" string="`,
		AttrValue: func(m grammar.Member) string {
			if m.Type == "string" || m.Type == "" || len(m.Enum) > 0 {
				return "true"
			}
			return "false"
		},
		After: []string{lit(dsmlParamEnd), opt("\n")}}
	dsml := func(open, close string) CallSyntax {
		cs := invokeCalls(open, close, dsmlInvoke+" name=", dsmlInvokeEnd, "", "")
		cs.Call = func(b *Builder, i int) (string, error) {
			return b.paramsBetween(i, seqOf(litInvoke, b.Name(i), litTagEnd, opt("\n")), litInvokeClose,
				Value{Stop: dsmlParamEnd}, paramOf{write: param.write})
		}
		return cs
	}
	v32, v4 := dsml(dsmlFunctionCalls, dsmlFunctionCallsEnd), dsml(dsmlToolCalls, dsmlToolCallsEnd)
	both := v32
	both.Triggers = append(v32.Triggers, v4.Triggers...)
	both.Open, both.Close = "", ""
	both.Wrap = func(body string) string {
		return "(" + seqOf(v32.Open, body, v32.Close) + ") | (" + seqOf(v4.Open, body, v4.Close) + ")"
	}
	return withThinking(both, thinkTag, thinkEndTag)
}
