package format

import "strings"

// olmo3: AllenAI OLMo 3 / OLMo 3 Think. Python-style calls, one per line,
// between markers; dict values are often JSON-style (true and True both
// parse):
//
//	<function_calls>get_weather(location="Paris")
//	get_time(zone="Europe/Paris")</function_calls>
//
// OLMo 3 Think's prompt forces reasoning open: the output ends it with
// </think>.
func init() {
	register(&Family{
		ID:                 "olmo3",
		Calls:              olmo3Calls(),
		NoResponseTemplate: "calls are Python calls, one per line, with Python literal values: no content parser reads them",
		Aliases:            []string{"olmo3-think"},
		ThinkOpen:          thinkTag,
		New: func(o Options) Parser {
			return newEngine(&markup{
				thinkOpen: thinkTag, thinkClose: thinkEndTag,
				callOpen:         []string{olmo3Open},
				callEndsThinking: true,
				section:          pyBlockSection(olmo3Open, olmo3Close, pyBlock{}),
			}, o)
		},
		Detect: func(t string) bool {
			return strings.Contains(t, olmo3Open) && strings.Contains(t, olmo3Close) && !strings.Contains(t, "<invoke")
		},
	})
}

const (
	olmo3Open  = "<function_calls>"
	olmo3Close = "</function_calls>"
)

// olmo3Calls: Python calls a line, in one block.
func olmo3Calls() *CallSyntax {
	return &CallSyntax{
		Triggers: []string{olmo3Open},
		Open:     lit(olmo3Open), Sep: lit("\n"), Close: lit(olmo3Close),
		Call:      pythonCall(false),
		ThinkOpen: thinkTag, ThinkClose: thinkEndTag,
	}
}
