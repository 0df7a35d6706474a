package format

import (
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
)

func init() {
	contradicted["ollama-007"] = "deepseek-v3 edge cases and Decision 9: model-written tool-output markup keeps its text (markers removed, diagnostic); Ollama's cogito drops the whole block"
}

func TestDeepSeek3Diagnostics(t *testing.T) {
	dskCheckDiagnostics(t, "deepseek-v3", []dskDiagCase{
		{name: "tool outputs block", out: "<｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>x<｜tool▁output▁end｜><｜tool▁outputs▁end｜>", codes: []string{"stray-markup", "stray-markup", "stray-markup", "stray-markup"}},
		{name: "no name line", out: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f<｜tool▁call▁end｜>", codes: []string{"malformed-call"}, kept: true},
		{name: "unclosed fence", out: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{}\n<｜tool▁call▁end｜>", codes: []string{"malformed-call"}, kept: true},
		{name: "truncated", out: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```js", codes: []string{"malformed-call"}, kept: true},
		{name: "empty section", out: "<｜tool▁calls▁begin｜><｜tool▁calls▁end｜>", codes: []string{"malformed-call"}, kept: true},
		{name: "unknown tool", out: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{}\n```<｜tool▁call▁end｜>", tools: []chat.Tool{dskTool("g")}, codes: []string{"unknown-tool"}},
	})
}
