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
		Aliases: []string{"function_gemma"},
		New: func(o Options) Parser {
			return newEngine(&markup{
				callOpen: []string{functionGemmaOpen},
				section: func(buf string, final bool) (int, []call, bool, error) {
					return keyValueSection(buf, final, functionGemmaOpen, functionGemmaClose, functionGemmaQuote, "")
				},
			}, o)
		},
		Detect: func(t string) bool { return strings.Contains(t, functionGemmaOpen) },
	})
}

const (
	functionGemmaOpen  = "<start_function_call>"
	functionGemmaClose = "<end_function_call>"
	functionGemmaQuote = "<escape>"
)
