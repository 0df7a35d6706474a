package format

import (
	"strings"

	"github.com/dragoman-dev/dragoman/grammar"
)

// mistral-v11-args: Mistral Small 3.2, Ministral 3, Devstral, Magistral (v11+
// tokenizers). Each call is its own section, with no end marker: the
// arguments end where the JSON object closes.
//
//	[TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]{"location": "Paris"}
//
// [CALL_ID] is optional and gives the call id. Reasoning is [THINK]…[/THINK],
// which may also follow content. The parser is mistralParser
// (mistral_legacy_array.go), which also reads the legacy JSON array.
func init() {
	register(&Family{
		ID:               "mistral-v11-args",
		Calls:            mistralV11Calls(),
		Aliases:          []string{"mistral", "ministral"},
		ThinkOpen:        mistralThinkOpen,
		ResponseTemplate: mistralResponseTemplate,
		New: func(o Options) Parser {
			return &mistralParser{opts: o, think: true}
		},
		Detect: func(t string) bool {
			return strings.Contains(t, mistralCalls) && strings.Contains(t, mistralArgs)
		},
	})
}

// mistralAssistant ends the prompt before an assistant turn: the last
// instruction or tool result.
var mistralAssistant = []string{"[/INST]", "[/TOOL_RESULTS]"}

// mistralResponseTemplate reads [THINK] blocks anywhere as reasoning and one
// call per [TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{…} (the id is optional: an
// empty one is generated); a call ends reasoning. A call has no end marker,
// so its body runs to the next call, reasoning block or </s>, or the end of
// the output: text after a call's JSON makes it malformed. Not expressed:
// the legacy JSON array.
func mistralResponseTemplate() *ResponseTemplate {
	calls, think := patternOf(mistralCalls), patternOf(mistralThinkOpen)
	t := newResponseTemplate(mistralAssistant...)
	t.Fields["reasoning_content"] = &ResponseField{
		OpenPattern: `\s*` + think, ClosePattern: patternOf(mistralThinkClose) + `\s*|(?=` + calls + ")", Content: "text",
	}
	return t.withCalls(&ResponseField{
		OpenPattern:  calls + `(?P<name>[^\[\s]+)(?:` + patternOf(mistralCallID) + `)?(?P<id>[^\[]*)` + patternOf(mistralArgs),
		ClosePattern: "(?=" + calls + "|" + think + "|" + patternOf(mistralEOS) + ")",
		Content:      "json",
		Transform:    withID(callTransform()),
	})
}

// mistralV11Calls: [TOOL_CALLS]NAME, an optional [CALL_ID], [ARGS] and the
// arguments.
func mistralV11Calls() *CallSyntax {
	id := "(" + seqOf(lit(mistralCallID), grammar.Repeat(grammar.Class(false, grammar.Range{Lo: 'a', Hi: 'z'}, grammar.Range{Lo: 'A', Hi: 'Z'}, grammar.Range{Lo: '0', Hi: '9'}), 9, 9)) + ")?"
	litCalls, litArgs := lit(mistralCalls), lit(mistralArgs)
	cs := namedCall(CallSyntax{Triggers: []string{mistralCalls}}, func(b *Builder, i int, args string) string {
		return seqOf(litCalls, b.Name(i), id, litArgs, args)
	})
	cs.Tag = jsonTag(func(n string) string { return mistralCalls + n + mistralArgs }, "")
	return withThinking(cs, mistralThinkOpen, mistralThinkClose)
}
