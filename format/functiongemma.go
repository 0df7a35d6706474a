package format

import "strings"

// functiongemma: Google FunctionGemma. Gemma's key:value syntax with <escape>
// around strings:
//
//	<start_function_call>call:get_weather{location:<escape>Paris<escape>}<end_function_call>
//
// No reasoning. Text between and after calls is content.
func init() {
	register(&Family{
		ID:      "functiongemma",
		Calls:   functionGemmaCalls(),
		Aliases: []string{"function_gemma"},
		ResponseTemplate: func() *ResponseTemplate {
			return newResponseTemplate(gemma4Assistant, gemmaAssistant).
				withCallsAsWritten(keyValueCallField(functionGemmaOpen, functionGemmaClose, functionGemmaQuote))
		},
		New: func(o Options) Parser {
			return newEngine(&markup{
				callOpen: []string{functionGemmaOpen},
				// Ollama's functiongemma tests keep the whitespace before a call.
				callSpaceKept: true,
				section: func(buf string, final bool) (int, []call, bool, error) {
					return keyValueSection(buf, final, functionGemmaOpen, functionGemmaClose, functionGemmaQuote, "", false)
				},
			}, o)
		},
		Detect: func(t string) bool { return strings.Contains(t, functionGemmaOpen) },
	})
}

const (
	gemmaAssistant     = "<start_of_turn>model\n" // starts a model turn in Gemma 3's prompts
	functionGemmaOpen  = "<start_function_call>"
	functionGemmaClose = "<end_function_call>"
	functionGemmaQuote = "<escape>"
)

// functionGemmaCalls: key:value calls in the order of the arguments.
func functionGemmaCalls() *CallSyntax {
	cs := keyValueCalls(functionGemmaOpen, functionGemmaClose, functionGemmaQuote, false)
	return &cs
}
