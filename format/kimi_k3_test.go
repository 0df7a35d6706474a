package format

import (
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
)

func TestKimiK3Diagnostics(t *testing.T) {
	const tools, call = "<|open|>tools<|sep|>", "<|open|>call tool=\"f\" index=\"1\"<|sep|>"
	dskCheckDiagnostics(t, "kimi-k3", []dskDiagCase{
		{name: "truncated value", out: tools + call + "<|open|>argument key=\"a\" type=\"string\"<|sep|>Par", codes: []string{"malformed-call"}, kept: true},
		{name: "no call", out: tools + "hello<|close|>tools<|sep|>", codes: []string{"malformed-call"}, kept: true},
		{name: "no tool attribute", out: tools + "<|open|>call index=\"1\"<|sep|><|close|>call<|sep|><|close|>tools<|sep|>", codes: []string{"malformed-call"}, kept: true},
		{name: "invalid json element", out: tools + call + "<|open|>json type=\"object\"<|sep|>{\"a\" 1}<|close|>json<|sep|><|close|>call<|sep|><|close|>tools<|sep|>", codes: []string{"malformed-call"}, kept: true},
		{name: "json and arguments", out: tools + call + "<|open|>json type=\"object\"<|sep|>{}<|close|>json<|sep|><|open|>argument key=\"a\" type=\"string\"<|sep|>x<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>", codes: []string{"malformed-call"}, kept: true},
		{name: "stray text", out: tools + call + "oops<|close|>call<|sep|><|close|>tools<|sep|>", codes: []string{"malformed-call"}, kept: true},
		{name: "ends before arguments", out: tools + call, codes: []string{"malformed-call"}, kept: true},
		{name: "unknown tool", out: tools + call + "<|close|>call<|sep|><|close|>tools<|sep|>", tools: []chat.Tool{dskTool("g")}, codes: []string{"unknown-tool"}},
		{name: "structure removed silently", out: "<|open|>response<|sep|>hi<|close|>response<|sep|><|close|>message<|sep|><|end_of_msg|>"},
	})
}
