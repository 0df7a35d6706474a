package format

import "strings"

// command-r-plus-markdown: Cohere Command R / R+ tool use. The calls are a JSON
// list in a fenced block after "Action:":
//
//	Action:
//	```json
//	[{"tool_name": "get_weather", "parameters": {"location": "Paris"}}]```
//
// No reasoning. The prompt's pseudo-tool directly-answer is not one of the
// request's tools, so a call to it is returned with an unknown-tool diagnostic.
func init() {
	register(&Family{
		ID:    "command-r-plus-markdown",
		Calls: crpCalls(),
		New: func(o Options) Parser {
			return newEngine(&markup{
				callOpen: crpOpeners,
				section:  crpSection,
			}, o)
		},
		ResponseTemplate: func() *ResponseTemplate {
			return newResponseTemplate(cohereAssistant).withCallListField(&ResponseField{
				Open: crpOpeners, Close: []string{crpFence},
			}, "tool_name", "parameters", "")
		},
		Detect: func(t string) bool {
			return strings.Contains(t, "Action:") && strings.Contains(t, "```json") &&
				strings.Contains(t, "directly-answer") && !strings.Contains(t, cohereActionOpen)
		},
	})
}

const crpFence = "```"

// crpOpeners are "Action:" and the opening fence, with the layouts between
// them that occur.
var crpOpeners = []string{
	"Action:\n```json", "Action:\r\n```json", "Action: ```json", "Action:```json", "Action: \n```json",
}

func crpSection(buf string, final bool) (int, []call, bool, error) {
	_, open := indexAny(buf, crpOpeners)
	return jlSection(buf, final, open, crpFence, false, cohereCall)
}

// crpCalls: a JSON array in a fenced block after "Action:".
func crpCalls() *CallSyntax {
	cs := jsonArray("Action:", seqOf(lit("Action:"), gap, lit(crpFence+"json"), opt("\n")), seqOf(opt("\n"), lit(crpFence)), func(b *Builder, i int) (string, error) {
		return b.JSONCall(i, "tool_name", "parameters", "")
	})
	cs.PrettyJSON = true // tojson(indent=4)
	return &cs
}
