package format

import "strings"

// laguna: Poolside Laguna (S-2.1, XS-2.1, XS.2), a GLM-derived format: the
// calls of glm-4.5-4.7 (with newlines in the XS layout, without in S-2.1),
// in XML-like turns that end with </assistant>:
//
//	<tool_call>get_weather
//	<arg_key>location</arg_key>
//	<arg_value>Paris</arg_value>
//	</tool_call>
//
// Reasoning is <think>…</think>, forced open when thinking is on. The end of
// the turn, </assistant>, is markup: it is dropped, and text after it stays
// content.
func init() {
	register(&Family{
		ID:        "laguna",
		Calls:     lagunaCalls(),
		Aliases:   []string{"poolside-v1", "poolside_v1"},
		ThinkOpen: thinkTag,
		// GLM's template, with </assistant> dropped wherever it stands.
		ResponseTemplate: func() *ResponseTemplate {
			t := glmResponseTemplate().withDroppedMarkup("turn_end", patternOf(lagunaTurnEnd))
			t.StartAnchor = []string{lagunaAssistant}
			return t
		},
		New: func(o Options) Parser {
			return withLeadingClose(newEngine(&markup{
				thinkOpen: thinkTag, thinkClose: thinkEndTag,
				callOpen:         []string{glmOpen, lagunaTurnEnd},
				callEndsThinking: true,
				section: func(buf string, final bool) (int, []call, bool, error) {
					if strings.HasPrefix(buf, lagunaTurnEnd) {
						return len(lagunaTurnEnd), nil, false, nil
					}
					return glmSection(buf, final, o.Tools)
				},
				liveCall: blockHermesLive, // a Hermes body in the block
				liveTags: glmLiveTags,
			}, o), thinkEndTag, o)
		},
		Detect: func(t string) bool {
			return glmProbe(t) && strings.Contains(t, lagunaTurnEnd)
		},
	})
}

const (
	lagunaAssistant = "<assistant>" // starts an assistant turn in Laguna's prompts
	lagunaTurnEnd   = "</assistant>"
)

// lagunaCalls: GLM's calls.
func lagunaCalls() *CallSyntax { return withThinking(glmTags.blockCalls(), thinkTag, thinkEndTag) }
