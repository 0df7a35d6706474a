package format

import (
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
)

func TestKimiK2Diagnostics(t *testing.T) {
	dskCheckDiagnostics(t, "kimi-k2", []dskDiagCase{
		{name: "invalid JSON", out: "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{'a': 1}<|tool_call_end|><|tool_calls_section_end|>", codes: []string{"malformed-call"}, kept: true},
		{name: "truncated", out: "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{\"a\": ", codes: []string{"malformed-call"}, kept: true},
		{name: "no argument marker", out: "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0 {}<|tool_call_end|><|tool_calls_section_end|>", codes: []string{"malformed-call"}, kept: true},
		{name: "empty section", out: "<|tool_calls_section_begin|><|tool_calls_section_end|>", codes: []string{"malformed-call"}, kept: true},
		{name: "unknown tool", out: "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>", tools: []chat.Tool{dskTool("g")}, codes: []string{"unknown-tool"}},
	})
}

func TestKimiCallRef(t *testing.T) {
	for _, tc := range []struct{ ref, id, name string }{
		{"functions.get_weather:0", "functions.get_weather:0", "get_weather"},
		{"functions.mcp.fs.read:12", "functions.mcp.fs.read:12", "mcp.fs.read"},
		{"get_weather:3", "get_weather:3", "get_weather"},
		{"functions.get_weather", "", "get_weather"},
		{"functions.a:b", "", "a:b"},
		{"functions.f:", "", "f:"},
	} {
		id, name := kimiCallRef(tc.ref)
		if id != tc.id || name != tc.name {
			t.Errorf("kimiCallRef(%q) = %q, %q; want %q, %q", tc.ref, id, name, tc.id, tc.name)
		}
	}
}
