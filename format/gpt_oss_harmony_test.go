package format

import (
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
)

func init() {
	contradicted["sglang-085"] = "Decision 2: text after a call is kept as content (SGLang's GptOssDetector truncates the final message after the call)"
}

func TestHarmonyDiagnostics(t *testing.T) {
	dskCheckDiagnostics(t, "gpt-oss-harmony", []dskDiagCase{
		{name: "invalid JSON", out: "<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\" 1}<|call|>", codes: []string{"malformed-call"}, kept: true},
		{name: "truncated arguments", out: "<|channel|>commentary to=functions.f<|message|>{\"a\": [1, ", codes: []string{"malformed-call"}, kept: true},
		{name: "header without message", out: "<|channel|>final", codes: []string{"stray-markup"}, kept: true},
		{name: "unknown tool", out: "<|channel|>commentary to=functions.f<|message|>{}<|call|>", tools: []chat.Tool{dskTool("g")}, codes: []string{"unknown-tool"}},
		{name: "declared tool", out: "<|start|>assistant to=functions.g<|channel|>commentary json<|message|>{}<|call|>", tools: []chat.Tool{dskTool("g")}},
		{name: "stray end tokens", out: "a<|end|>b<|return|>"},
	})
}

func TestHarmonyHeader(t *testing.T) {
	for _, tc := range []struct{ header, channel, recipient string }{
		{"<|channel|>analysis", "analysis", ""},
		{"<|channel|>commentary to=functions.get_weather <|constrain|>json", "commentary", "functions.get_weather"},
		{" to=functions.get_weather<|channel|>commentary json", "commentary", "functions.get_weather"},
		{"<|start|>assistant<|channel|>final", "final", ""},
		{"<|start|>functions.f to=assistant<|channel|>commentary", "commentary", ""},
		{"", "", ""},
	} {
		c, r := harmonyHeader(tc.header)
		if c != tc.channel || r != tc.recipient {
			t.Errorf("harmonyHeader(%q) = %q, %q; want %q, %q", tc.header, c, r, tc.channel, tc.recipient)
		}
	}
}
