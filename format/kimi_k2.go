package format

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/grammar"
)

// kimi-k2: Moonshot Kimi K2 / K2-Instruct / K2-Thinking. Each call carries
// its id, functions.NAME:IDX, and JSON arguments:
//
//	<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"location": "Paris"}<|tool_call_end|><|tool_calls_section_end|>
//
// Reasoning is <think>…</think> (K2-Thinking), not forced open; a call
// section inside open reasoning ends it.
func init() {
	register(&Family{
		ID:               "kimi-k2",
		Calls:            kimiCalls(),
		Aliases:          []string{"kimi_k2"},
		ThinkOpen:        thinkTag,
		ResponseTemplate: kimiResponseTemplate,
		New: func(o Options) Parser {
			return newEngine(&markup{
				thinkOpen: thinkTag, thinkClose: thinkEndTag,
				callOpen:         []string{kimiSectionBegin, kimiSectionBeginAlt},
				callEndsThinking: true,
				section: func(buf string, final bool) (int, []call, bool, error) {
					return sectionResult(kimiSection(buf, final, o.Tools))
				},
				liveCall: liveKimi,
			}, o)
		},
		Detect: func(t string) bool {
			return strings.Contains(t, kimiSectionBegin) && strings.Contains(t, kimiArgBegin)
		},
	})
}

const (
	kimiSectionBegin = "<|tool_calls_section_begin|>"
	kimiSectionEnd   = "<|tool_calls_section_end|>"
	// The singular spelling some Kimi checkpoints emit (vLLM accepts it).
	kimiSectionBeginAlt = "<|tool_call_section_begin|>"
	kimiSectionEndAlt   = "<|tool_call_section_end|>"
	kimiCallBegin       = "<|tool_call_begin|>"
	kimiArgBegin        = "<|tool_call_argument_begin|>"
	kimiCallEnd         = "<|tool_call_end|>"
)

// kimiAssistant starts an assistant turn in Kimi's prompts.
const kimiAssistant = "<|im_assistant|>assistant<|im_middle|>"

// kimiResponseTemplate reads one call per <|tool_call_begin|>…<|tool_call_end|>;
// the section's markers, either spelling, belong to its first and last call.
// The id is functions.NAME:IDX, as the parser takes it. Not expressed: a
// call written without its :IDX (the parser takes it as a name, without an
// id).
func kimiResponseTemplate() *ResponseTemplate {
	begin := "(?:" + patternOf(kimiSectionBegin) + "|" + patternOf(kimiSectionBeginAlt) + ")"
	end := "(?:" + patternOf(kimiSectionEnd) + "|" + patternOf(kimiSectionEndAlt) + ")"
	callEnd := patternOf(kimiCallEnd)
	return newResponseTemplate(kimiAssistant).withReasoning(thinkTag, thinkEndTag, kimiSectionBegin, kimiSectionBeginAlt).withCalls(&ResponseField{
		OpenPattern:  begin + `?\s*` + patternOf(kimiCallBegin) + `\s*(?P<id>functions\.(?P<name>[^<]+?):\d+)\s*` + patternOf(kimiArgBegin),
		ClosePattern: blockCallClose(callEnd, end, patternOf(kimiCallBegin)),
		Content:      "json",
		Transform:    withID(callTransform()),
	})
}

// kimiSection parses a section of calls. Its end marker may be missing: the
// section then ends after its last call.
func kimiSection(buf string, final bool, tools []chat.Tool) (int, []call, error) {
	opener := kimiSectionBegin
	if strings.HasPrefix(buf, kimiSectionBeginAlt) {
		opener = kimiSectionBeginAlt
	}
	c := &secScan{s: buf, i: len(opener), final: final}
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
		endPartial := false
		for _, end := range []string{kimiSectionEnd, kimiSectionEndAlt} {
			switch c.lit(end) {
			case litMatched:
				if len(calls) == 0 {
					return 0, nil, errors.New("the tool-call section holds no call")
				}
				return c.i, calls, nil
			case litPartial:
				endPartial = true
			}
		}
		r := c.lit(kimiCallBegin)
		if r == litMatched {
			cl, err := kimiCall(c, tools)
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
		if (r == litPartial || endPartial) && !final {
			return 0, nil, errNeedMore
		}
		if len(calls) == 0 {
			return 0, nil, errors.New(opener + " is not followed by " + kimiCallBegin)
		}
		// Text after the last call, without the end marker: it is content.
		return end, calls, nil
	}
}

// kimiCall parses functions.NAME:IDX<|tool_call_argument_begin|>{JSON}<|tool_call_end|>.
func kimiCall(c *secScan, tools []chat.Tool) (call, error) {
	ref, err := c.until(kimiArgBegin, "the call id")
	if err != nil {
		return call{}, err
	}
	ref = strings.TrimSpace(ref)
	id, name := kimiCallRef(ref)
	if name == "" {
		return call{}, errors.New("the call has no name before " + kimiArgBegin)
	}
	args, err := c.jsonObject()
	if err != nil {
		return call{}, err
	}
	if err := c.closing(kimiCallEnd); err != nil {
		return call{}, err
	}
	if fit, ok := kimiToolByArgs(ref, name, args, tools); ok {
		id, name = ref, fit
	}
	return call{id: id, name: name, args: args}, nil
}

// kimiToolByArgs finds the tool a call means when its reference names none:
// a model whose history carried clients' ids (call_3, toolu_…) or bare
// counters writes those in place of functions.NAME:IDX. When the reference
// has no functions. prefix and is no offered tool's name, the call is the
// one offered tool its arguments fit — every argument one of the tool's
// properties, every required property given — as SGLang's and vLLM's Kimi
// parsers read it; the reference is then the call's id. No tool or several
// that fit: false, and the reference stays the name (an undeclared tool's,
// Decision 1).
func kimiToolByArgs(ref, name, args string, tools []chat.Tool) (string, bool) {
	if len(tools) == 0 || strings.HasPrefix(ref, "functions.") {
		return "", false
	}
	if _, declared := toolSchema(tools, name); declared {
		return "", false
	}
	var given map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &given) != nil {
		return "", false
	}
	fit := ""
	for _, t := range tools {
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if json.Unmarshal(t.Function.Parameters, &schema) != nil {
			continue
		}
		fits := true
		for k := range given {
			if _, ok := schema.Properties[k]; !ok {
				fits = false
			}
		}
		for _, k := range schema.Required {
			if _, ok := given[k]; !ok {
				fits = false
			}
		}
		if fits {
			if fit != "" {
				return "", false // several fit: which is meant is not known
			}
			fit = t.Function.Name
		}
	}
	return fit, fit != ""
}

// liveKimi announces the first call of a section (live.go) once its
// reference and the start of its JSON arguments show, read as kimiCall
// reads them; the reference is the call's id.
func liveKimi(section string) (id, name string, argsAt int, ok bool) {
	opener := kimiSectionBegin
	if strings.HasPrefix(section, kimiSectionBeginAlt) {
		opener = kimiSectionBeginAlt
	}
	// The reference is looked for in a bounded window, so that a long one
	// does not cost a scan per chunk; it is left to the whole parse.
	window := section[:min(len(section), len(opener)+maxLiveName+len(kimiCallBegin)+len(kimiArgBegin)+64)]
	c := &secScan{s: window, i: len(opener)}
	c.space()
	if c.lit(kimiCallBegin) != litMatched {
		return "", "", 0, false
	}
	ref, err := c.until(kimiArgBegin, "the call id")
	if err != nil {
		return "", "", 0, false
	}
	// A reference without functions. may name no tool (kimiToolByArgs):
	// the whole parse decides its name.
	if ref = strings.TrimSpace(ref); !strings.HasPrefix(ref, "functions.") {
		return "", "", 0, false
	}
	if id, name = kimiCallRef(ref); name == "" {
		return "", "", 0, false
	}
	c.s = section
	c.space()
	if c.i >= len(section) || section[c.i] != '{' {
		return "", "", 0, false
	}
	return id, name, c.i, true
}

// kimiCallRef splits functions.NAME:IDX: the whole is the id, the name is
// what lies between functions. and the last colon. Without a numeric index
// the text is only a name, and no id.
func kimiCallRef(ref string) (id, name string) {
	name = strings.TrimPrefix(ref, "functions.")
	i := strings.LastIndexByte(name, ':')
	if i < 0 || i == len(name)-1 || strings.Trim(name[i+1:], "0123456789") != "" {
		return "", name
	}
	return ref, name[:i]
}

// kimiCalls: functions.NAME:INDEX, then the JSON arguments, in a section.
func kimiCalls() *CallSyntax {
	index := grammar.Repeat(grammar.Class(false, grammar.Range{Lo: '0', Hi: '9'}), 1, 6)
	begin, litArgs, end := lit(kimiCallBegin+"functions."), lit(kimiArgBegin), lit(kimiCallEnd)
	cs := namedCall(CallSyntax{
		Triggers: []string{kimiSectionBegin},
		Open:     lit(kimiSectionBegin),
		Close:    lit(kimiSectionEnd),
	}, func(b *Builder, i int, args string) string {
		return seqOf(begin, b.Name(i), litColon, index, litArgs, args, end)
	})
	cs.Tag = jsonTag(func(n string) string {
		return kimiSectionBegin + kimiCallBegin + "functions." + n + ":0" + kimiArgBegin
	}, kimiCallEnd+kimiSectionEnd)
	return withThinking(cs, thinkTag, thinkEndTag)
}
