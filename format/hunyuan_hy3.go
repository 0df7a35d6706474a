package format

import "strings"

// hunyuan-hy3: Tencent Hunyuan HY3. GLM-style key/value calls in a wrapper,
// every tag suffixed ":opensource" (also read without it: hy3Suffix):
//
//	<tool_calls:opensource>
//	<tool_call:opensource>get_weather<tool_sep:opensource>
//	<arg_key:opensource>location</arg_key:opensource>
//	<arg_value:opensource>Paris</arg_value:opensource>
//	</tool_call:opensource>
//	</tool_calls:opensource>
//
// Values are raw text typed by the tool's schema. Reasoning is
// <think:opensource>…</think:opensource>.
func init() {
	register(&Family{
		ID:        "hunyuan-hy3",
		Calls:     hy3Calls(),
		Aliases:   []string{"hy_v3", "hy3"},
		ThinkOpen: hy3ThinkOpen,
		ResponseTemplate: func() *ResponseTemplate {
			return newResponseTemplate(hy3Assistant).withReasoning(hy3ThinkOpen, hy3ThinkClose, hy3Tags.wrapOpen).
				withCalls(hy3Tags.responseField())
		},
		New: func(o Options) Parser {
			return newEngine(&markup{
				thinkOpen: hy3ThinkOpen, thinkClose: hy3ThinkClose,
				callOpen:         []string{hy3Tags.wrapOpen, hy3BareTags.wrapOpen},
				callEndsThinking: true,
				section: func(buf string, final bool) (int, []call, bool, error) {
					if strings.HasPrefix(buf, hy3BareTags.wrapOpen) {
						return hy3BareTags.wrapped(o.Tools, buf, final)
					}
					return hy3Tags.wrapped(o.Tools, buf, final)
				},
			}, o)
		},
		Detect: func(t string) bool {
			return strings.Contains(t, "<tool_calls") && strings.Contains(t, ":opensource")
		},
	})
}

const (
	hy3Assistant  = "<｜hy_Assistant:opensource｜>" // starts an assistant turn in HY3's prompts
	hy3ThinkOpen  = "<think:opensource>"
	hy3ThinkClose = "</think:opensource>"
)

// hy3Suffix ends every HY3 tag as its template writes them. The suffix is a
// tokenizer setting (vLLM's parser reads it from token_suffix, and its tests
// run without one), so the calls are also read with bare tags — the same
// markup, one setting apart. The grammar and the response template keep the
// template's tags.
const hy3Suffix = ":opensource"

var hy3Tags, hy3BareTags = hy3TagsWith(hy3Suffix), hy3TagsWith("")

func hy3TagsWith(suffix string) *kvTags {
	tag := func(name string) string { return "<" + name + suffix + ">" }
	return &kvTags{
		wrapOpen: tag("tool_calls"), wrapClose: tag("/tool_calls"),
		callOpen: tag("tool_call"), callClose: tag("/tool_call"),
		sep:     tag("tool_sep"),
		keyOpen: tag("arg_key"), keyClose: tag("/arg_key"),
		valOpen: tag("arg_value"), valClose: tag("/arg_value"),
	}
}

// hy3Calls: GLM-style calls with a name separator, all in one wrapper.
func hy3Calls() *CallSyntax {
	t := hy3Tags
	litCall, litSep, litCallClose := lit(t.callOpen), seqOf(lit(t.sep), opt("\n")), lit(t.callClose)
	return withThinking(CallSyntax{
		Triggers: []string{t.wrapOpen},
		Open:     seqOf(lit(t.wrapOpen), opt("\n")),
		Sep:      opt("\n"),
		Close:    seqOf(opt("\n"), lit(t.wrapClose)),
		Call: taggedParams(
			func(b *Builder, i int) string { return seqs(seqOf(litCall, b.Name(i)), litSep) },
			func(*Builder, int) string { return litCallClose },
			paramTags{KeyOpen: t.keyOpen, KeyClose: t.keyClose, Before: []string{opt("\n"), lit(t.valOpen)}, After: []string{lit(t.valClose), opt("\n")}},
			Value{Stop: t.valClose}),
	}, hy3ThinkOpen, hy3ThinkClose)
}
